#!/bin/bash
# Runs the softverbs test binaries and the fidelity checks with rdma-core's unmodified tools
# (ibv_devices, ibv_devinfo, ibv_rc_pingpong) over the library in <libdir>. Every wait is bounded
# by `timeout`. Prints "N passed, M failed" last and exits non-zero on any failure.
# Usage: run-tests.sh <libdir> <bindir> <plain|asan|aarch64>
# aarch64: the binaries are aarch64 ones, run under qemu-user ($QEMU_AARCH64 -L $AARCH64_SYSROOT,
# invoked explicitly so that no binfmt registration is needed). The fidelity checks are excluded
# there, by name: rdma-core's tools on the host are x86-64 programs and cannot load an aarch64
# libibverbs.so.1.
set -u
LIB=$1 BIN=$2 MODE=${3:-plain}
PASS=0 FAIL=0
WORK=$(mktemp -d /tmp/svtest.XXXXXX)
export SOFTVERBS_DIR=$WORK/sock
trap 'rm -rf "$WORK"' EXIT

ok()     { echo "ok - $1"; PASS=$((PASS + 1)); }
not_ok() { echo "not ok - $1"; FAIL=$((FAIL + 1)); }

# System tools are not instrumented: preload the sanitizer runtimes for the ASan library.
TOOL_ENV=(env LD_LIBRARY_PATH="$LIB")
if [ "$MODE" = asan ]; then
    PRE="$(gcc -print-file-name=libasan.so) $(gcc -print-file-name=libubsan.so)"
    TOOL_ENV=(env LD_LIBRARY_PATH="$LIB" LD_PRELOAD="$PRE" ASAN_OPTIONS=detect_leaks=0)
fi

RUN=()
if [ "$MODE" = aarch64 ]; then
    RUN=("${QEMU_AARCH64:-qemu-aarch64-static}" -L "${AARCH64_SYSROOT:-/usr/aarch64-linux-gnu}")
fi

# Emulation is slower than the host, so the bound per binary is wider under qemu-user.
LIMIT=100
[ "$MODE" = aarch64 ] && LIMIT=300
for t in test_verbs test_rc test_retry test_stress; do
    out=$(timeout "$LIMIT" "${RUN[@]}" "$BIN/$t" 2>&1)
    rc=$?
    echo "$out" | grep -v '^# '
    PASS=$((PASS + $(echo "$out" | grep -c '^ok - ')))
    nfail=$(echo "$out" | grep -c '^not ok - ')
    FAIL=$((FAIL + nfail))
    if [ $rc -ne 0 ] && [ "$nfail" -eq 0 ]; then not_ok "$t exited with status $rc"; fi
done

# ---- fidelity with rdma-core's own programs ----
if [ "$MODE" = aarch64 ]; then
    for check in "ibv_devices lists softverbs0" "ibv_devinfo -v shows softverbs0, its port and its GIDs" \
        "SOFTVERBS_DISABLE=1 looks like a kernel without RDMA" "ibv_rc_pingpong polling" \
        "ibv_rc_pingpong event mode -e" "ibv_rc_pingpong 4096-byte messages" "perftest ib_send_lat"; do
        echo "excluded on aarch64 - $check (rdma-core's ibv_* tools here are x86-64 programs; they cannot load an aarch64 libibverbs.so.1)"
    done
    echo "$PASS passed, $FAIL failed"
    [ $FAIL -eq 0 ] && [ $PASS -gt 0 ]
    exit
fi

if ! command -v ibv_devinfo >/dev/null || ! command -v ibv_rc_pingpong >/dev/null; then
    not_ok "ibverbs-utils missing: apt-get install libibverbs-dev ibverbs-utils"
    echo "$PASS passed, $FAIL failed"
    exit 1
fi

out=$(timeout 20 "${TOOL_ENV[@]}" ibv_devices 2>&1)
if echo "$out" | grep -q 'softverbs0[[:space:]]*0200fffffe000001'; then ok "ibv_devices lists softverbs0"; else echo "$out"; not_ok "ibv_devices lists softverbs0"; fi

devinfo=$(timeout 20 "${TOOL_ENV[@]}" ibv_devinfo -v 2>&1)
if echo "$devinfo" | grep -q 'hca_id:.softverbs0' && echo "$devinfo" | grep -q 'PORT_ACTIVE (4)' &&
   echo "$devinfo" | grep -q 'link_layer:.*Ethernet' && echo "$devinfo" | grep -q 'GID\[ *0\]:.*fe80::.*RoCE v2' &&
   echo "$devinfo" | grep -q '::ffff:127.0.0.1, RoCE v2'; then
    ok "ibv_devinfo -v shows softverbs0, its port and its GIDs"
else
    echo "$devinfo"; not_ok "ibv_devinfo -v shows softverbs0, its port and its GIDs"
fi

out=$(SOFTVERBS_DISABLE=1 timeout 20 "${TOOL_ENV[@]}" ibv_devinfo 2>&1); rc=$?
if [ $rc -eq 255 ] && echo "$out" | grep -q 'Failed to get IB devices list: Function not implemented'; then
    ok "SOFTVERBS_DISABLE=1 looks like a kernel without RDMA"
else
    echo "$out (rc $rc)"; not_ok "SOFTVERBS_DISABLE=1 looks like a kernel without RDMA"
fi

GIDX=$(echo "$devinfo" | sed -n 's/.*GID\[ *\([0-9]*\)\]:[[:space:]]*::ffff:127\.0\.0\.1, RoCE v2.*/\1/p' | head -1)

free_port() {
    python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])' 2>/dev/null ||
        echo $((20000 + RANDOM % 20000))
}

# Waits (bounded) until a TCP port listens, without connecting to it.
wait_listen() {
    local hex; hex=$(printf '%04X' "$1")
    for _ in $(seq 100); do
        grep -q ":$hex [0-9A-F:]* 0A " /proc/net/tcp /proc/net/tcp6 2>/dev/null && return 0
        sleep 0.05
    done
    return 1
}

pingpong() { # name, extra flags
    local name=$1; shift
    local port spid crc src attempt
    # As for ib_send_lat below: a free port taken before the server binds it is tried again.
    for attempt in 1 2 3; do
        port=$(free_port)
        timeout 30 "${TOOL_ENV[@]}" ibv_rc_pingpong "$@" -g "$GIDX" -p "$port" >"$WORK/srv.log" 2>&1 &
        spid=$!
        wait_listen "$port"
        timeout 30 "${TOOL_ENV[@]}" ibv_rc_pingpong "$@" -g "$GIDX" -p "$port" 127.0.0.1 >"$WORK/cli.log" 2>&1
        crc=$?
        wait $spid
        src=$?
        grep -q "Couldn't listen" "$WORK/srv.log" || break
    done
    if [ $crc -eq 0 ] && [ $src -eq 0 ] && grep -q 'iters in' "$WORK/cli.log" && grep -q 'iters in' "$WORK/srv.log"; then
        ok "$name ($(tail -1 "$WORK/cli.log"))"
    else
        cat "$WORK/srv.log" "$WORK/cli.log"; not_ok "$name (client $crc, server $src)"
    fi
}

if [ -n "$GIDX" ]; then
    pingpong "ibv_rc_pingpong polling, -g $GIDX" -s 64 -n 2000
    pingpong "ibv_rc_pingpong event mode -e, -g $GIDX" -e -s 64 -n 2000
    pingpong "ibv_rc_pingpong 4096-byte messages, -g $GIDX" -s 4096 -n 500
else
    not_ok "no ::ffff:127.0.0.1 GID found in ibv_devinfo -v"
fi

# perftest links librdmacm and the hardware providers' libraries (libmlx5, libefa), which bind
# libibverbs' provider ABI (IBVERBS_PRIVATE_34) and its kernel-struct helpers as they load.
send_lat() { # name, extra flags
    local name=$1; shift
    local port spid crc src attempt
    # A free port can be taken by another process before the server binds it ("Couldn't listen"):
    # then the whole exchange is tried again on another port, at most three times (pingpong too).
    for attempt in 1 2 3; do
        port=$(free_port)
        timeout 60 "${TOOL_ENV[@]}" ib_send_lat -d softverbs0 -x "$GIDX" -p "$port" "$@" >"$WORK/srv.log" 2>&1 &
        spid=$!
        wait_listen "$port"
        timeout 60 "${TOOL_ENV[@]}" ib_send_lat -d softverbs0 -x "$GIDX" -p "$port" "$@" 127.0.0.1 >"$WORK/cli.log" 2>&1
        crc=$?
        wait $spid
        src=$?
        grep -q "Couldn't listen" "$WORK/srv.log" || break
    done
    local line; line=$(awk '$1 ~ /^[0-9]+$/ && NF >= 6' "$WORK/cli.log" | tail -1)
    if [ $crc -eq 0 ] && [ $src -eq 0 ] && [ -n "$line" ]; then
        ok "$name (bytes iters t_min t_max t_typical: $(echo "$line" | awk '{print $1, $2, $3, $4, $5}'))"
    else
        cat "$WORK/srv.log" "$WORK/cli.log"; not_ok "$name (client $crc, server $src)"
    fi
}

if ! command -v ib_send_lat >/dev/null; then
    not_ok "perftest missing: apt-get install perftest"
elif [ -n "$GIDX" ]; then
    send_lat "perftest ib_send_lat, -x $GIDX" -s 64 -n 2000
fi

echo "$PASS passed, $FAIL failed"
[ $FAIL -eq 0 ]
