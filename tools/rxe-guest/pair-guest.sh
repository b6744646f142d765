#!/bin/bash
# Runs inside each of the two guests of pair.sh, chrooted into the host's read-only root by init:
#   pair-guest.sh OUT ROLE
# ROLE is "server" (the x86 host of the seed's deployment) or "client" (the Spark nodes' side). The
# two guests are two kernels joined by two qemu network links, each guest's eth0 and eth1:
#   link A  10.57.1.1 (server) <-> 10.57.1.2 (client)  MTU 9000, rxe0 on eth0, path MTU 4096
#   link B  10.57.2.1 (server) <-> 10.57.2.2 (client)  MTU 1500, rxe1 on eth1, path MTU 1024
# so every RoCE v2 packet leaves one kernel's rxe and arrives at the other's. OUT is the share both
# guests write: each its own OUT/ROLE (stage logs, results), and OUT/marks, where each guest
# marks what it is ready for and waits (bounded) for the other's marks. Each stage appends
# "name passed failed seconds" to OUT/ROLE/results; OUT/ROLE/done marks a run that got to the end.
set -uo pipefail
shared="$1"
role="$2"
out="$shared/$role"
# shellcheck source=/dev/null
. "$shared/env"
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export HOME=/tmp LANG=C.UTF-8
cd /tmp || exit 1
mkdir -p "$out" "$shared/marks"

# The x86 guest runs the host's own root (and JDK); the aarch64 guest a root of Debian's arm64
# packages (arm64.sh) with Debian's arm64 OpenJDK.
if [ "$(uname -m)" = aarch64 ]; then
    JAVA_HOME="$(ls -d /usr/lib/jvm/java-*-openjdk-arm64 | head -n1)"
fi
java="$JAVA_HOME/bin/java"
# As in guest.sh: C1 only, the JDK's CDS archive, the serial collector (TCG).
export JAVA_TOOL_OPTIONS="-XX:TieredStopAtLevel=1 -Xshare:auto -XX:+UseSerialGC"
real="/usr/lib/$(uname -m)-linux-gnu/libibverbs.so.1"

# shellcheck source=common.sh
. "$REPO/tools/rxe-guest/common.sh"
# shellcheck source=gid.sh
. "$REPO/tools/rxe-guest/gid.sh"
say() { echo "rxe-guest $role: $*"; }

links=(A B)
declare -A netdev=([A]=eth0 [B]=eth1) device=([A]=rxe0 [B]=rxe1) mtu=([A]=9000 [B]=1500) \
    path_mtu=([A]=4096 [B]=1024) server_ip=([A]=10.57.1.1 [B]=10.57.2.1) client_ip=([A]=10.57.1.2 [B]=10.57.2.2) \
    check_port=([A]=7101 [B]=7102)
declare -A my_ip peer_ip
for l in "${links[@]}"; do
    if [ "$role" = server ]; then my_ip[$l]="${server_ip[$l]}" peer_ip[$l]="${client_ip[$l]}"
    else my_ip[$l]="${client_ip[$l]}" peer_ip[$l]="${server_ip[$l]}"; fi
done
bench_port=18515
# The time the other guest may take to reach a mark (a stage of Java under TCG takes minutes), and
# the bounds of one JVM run; all well inside pair.sh's limit for the whole run.
mark_wait=$(( 120 * TIME_SCALE ))
java_wait=$(( 60 * TIME_SCALE ))

mark() { touch "$shared/marks/$1"; }
# give_up: tells the other guest that this one will reach no further mark, so that it stops waiting.
give_up() { mark "$role.failed"; }
# await_mark NAME: waits for the other guest's mark NAME; false after $mark_wait s, or at once when
# the other guest has given up (its "failed" mark).
await_mark() {
    local deadline=$(( $(date +%s) + mark_wait ))
    until [ -e "$shared/marks/$1" ]; do
        [ -e "$shared/marks/$(other).failed" ] && { echo "the $(other) guest gave up before '$1'"; return 1; }
        [ "$(date +%s)" -lt "$deadline" ] || { echo "no '$1' from the $(other) guest after $mark_wait s"; return 1; }
        sleep 0.5
    done
}
other() { if [ "$role" = server ]; then echo client; else echo server; fi; }

java_cmd=("$java" --enable-native-access=ALL-UNNAMED -Dofl.verbs.library="$real")
# run_java SECONDS ARGS...: a JVM run, killed after SECONDS.
run_java() { timeout "$1" "${java_cmd[@]}" "${@:2}"; }
check_cp() { echo "$REPO/ofl-check/target/ofl-check-0.1.0-SNAPSHOT.jar:$(cat "$REPO/ofl-check/target/classpath.txt")"; }
bench_cp() { echo "$REPO/ofl-bench/target/ofl-bench-0.1.0-SNAPSHOT.jar:$(cat "$REPO/ofl-bench/target/classpath.txt")"; }

# ip_counter NAME: the kernel's IP counter NAME (/proc/net/snmp).
ip_counter() {
    awk -v name="$1" '$1 == "Ip:" { if (!n) { for (i = 2; i <= NF; i++) if ($i == name) col = i; n = 1 } else print $col }' /proc/net/snmp
}

setup() {
    ip link set lo up || return 1
    local l
    for l in "${links[@]}"; do
        ip link set "${netdev[$l]}" mtu "${mtu[$l]}" &&
        ip addr add "${my_ip[$l]}/24" dev "${netdev[$l]}" &&
        ip link set "${netdev[$l]}" up &&
        rdma link add "${device[$l]}" type rxe netdev "${netdev[$l]}" || return 1
    done
    await_gids 60 rxe0 "${my_ip[A]}" rxe1 "${my_ip[B]}" \
        || { echo "rxe0/rxe1 did not become active with their RoCE v2 GIDs in 60 s"; return 1; }
    echo "GIDs active at $(now) s"
    rdma link show
    ip -4 addr show
    # The peer answers on each link (busybox's ping: the host has none): both guests are up, and
    # the links carry frames; then a packet of the link's full MTU crosses it, and this kernel
    # made no fragment for it, so the MTU holds end to end.
    for l in "${links[@]}"; do
        # A ping at a time until the first answer: the other guest may still be setting up.
        local deadline=$(( $(date +%s) + mark_wait ))
        until busybox ping -c 1 -W 2 -I "${netdev[$l]}" "${peer_ip[$l]}" > /dev/null; do
            [ "$(date +%s)" -lt "$deadline" ] || { echo "no answer from ${peer_ip[$l]} on link $l in $mark_wait s"; return 1; }
        done
        local fragments
        fragments="$(ip_counter FragCreates)"
        busybox ping -c 1 -W 10 -s $(( ${mtu[$l]} - 28 )) "${peer_ip[$l]}" \
            || { echo "a ${mtu[$l]}-byte packet does not cross link $l"; return 1; }
        [ "$(ip_counter FragCreates)" = "$fragments" ] || { echo "a ${mtu[$l]}-byte packet was fragmented on link $l"; return 1; }
    done
}

# Each device active on its own netdev with the path MTU its link allows.
stage_devinfo() {
    local l active
    for l in "${links[@]}"; do
        echo "== ibv_devinfo -v -d ${device[$l]}"
        ibv_devinfo -v -d "${device[$l]}" > "$out/devinfo-${device[$l]}.txt" 2>&1
        cat "$out/devinfo-${device[$l]}.txt"
        active="$(sed -n 's/^[[:space:]]*active_mtu:[[:space:]]*\([0-9]*\).*/\1/p' "$out/devinfo-${device[$l]}.txt" | head -n1)"
        if grep -q PORT_ACTIVE "$out/devinfo-${device[$l]}.txt" && [ "$active" = "${path_mtu[$l]}" ] \
            && grep -q "::ffff:${my_ip[$l]}, RoCE v2" "$out/devinfo-${device[$l]}.txt"; then
            PASSED=$((PASSED + 1))
        else
            echo "FAIL: ${device[$l]} is not active with active_mtu ${path_mtu[$l]} and the RoCE v2 GID ::ffff:${my_ip[$l]} (active_mtu: ${active:-none})"
            FAILED=$((FAILED + 1))
        fi
    done
}

# probe_selected REPORT DEVICE GID_INDEX PATH_MTU: the probe's JSON report selected DEVICE, port 1,
# GID index GID_INDEX of type RoCE v2, and offers PATH_MTU (read with the shell's tools: the arm64
# guest has no JSON reader).
probe_selected() {
    local selected field
    selected="$(tr -d ' \n' < "$1" | grep -o '"selected":{[^}]*}')" || { echo "$1: the probe selected nothing"; return 1; }
    for field in "\"device\":\"$2\"," '"port":1,' "\"gidIndex\":$3," '"type":"RoCEv2",' "\"pathMtu\":$4,"; do
        [[ "$selected" == *"$field"* ]] || { echo "$1: no $field in $selected"; return 1; }
    done
    echo "$1: $2 port 1, GID index $3 (RoCE v2), path MTU $4"
}

# `ofl probe --ip` for each of this host's addresses names the device and GID index of its link
# and offers its path MTU (both addresses at once in one JVM would be quicker, but the probe
# answers for one address).
stage_probe() {
    local l status gid report
    for l in "${links[@]}"; do
        gid="$(gid_index "${device[$l]}" "${my_ip[$l]}")"
        report="$out/probe-${my_ip[$l]}.json"
        echo "== ofl probe --ip ${my_ip[$l]} --json (expected: ${device[$l]}, GID index $gid, path MTU ${path_mtu[$l]})"
        run_java "$java_wait" -cp "$REPO/ofl-probe/target/ofl-probe-0.1.0-SNAPSHOT.jar:$(cat "$REPO/ofl-probe/target/classpath.txt")" \
            dev.ofl.probe.Probe --library "$real" --ip "${my_ip[$l]}" --json > "$report" 2>"$out/probe-${my_ip[$l]}.err"
        status=$?
        cat "$report" "$out/probe-${my_ip[$l]}.err"
        echo
        if [ "$status" -eq 0 ] && probe_selected "$report" "${device[$l]}" "$gid" "${path_mtu[$l]}"; then
            PASSED=$((PASSED + 1))
        else
            echo "FAIL: probe --ip ${my_ip[$l]} exited $status or did not choose ${device[$l]}, GID $gid, path MTU ${path_mtu[$l]}"
            FAILED=$((FAILED + 1))
        fi
    done
}

# ---- server ------------------------------------------------------------------------------------

# start_server LOG ARGS...: a JVM with ARGS in the background (the JVM itself, so that signals
# reach it), its output in LOG.
declare -a servers=()
start_server() {
    local log="$1"
    shift
    "${java_cmd[@]}" "$@" > "$log" 2>&1 &
    servers+=($!)
}
# stop_servers: SIGTERM to each (their shutdown hooks drain them), then a bounded wait; true if
# each stopped cleanly (0, or 143 after its shutdown hook ran on the signal) in time.
stop_servers() {
    local pid status ok=0 deadline=$(( $(date +%s) + java_wait ))
    for pid in "${servers[@]}"; do kill -TERM "$pid" 2>/dev/null; done
    for pid in "${servers[@]}"; do
        while kill -0 "$pid" 2>/dev/null && [ "$(date +%s)" -lt "$deadline" ]; do sleep 0.5; done
        if kill -0 "$pid" 2>/dev/null; then
            echo "FAIL: server $pid did not stop within $java_wait s of SIGTERM; killed"
            kill -KILL "$pid" 2>/dev/null
            ok=1
        fi
        wait "$pid"
        status=$?
        if [ "$status" -ne 0 ] && [ "$status" -ne 143 ]; then
            echo "FAIL: server $pid exited $status"
            ok=1
        fi
    done
    servers=()
    return $ok
}

# await_serving SECONDS PID LOG PATTERN: waits until LOG has a line matching PATTERN while PID
# lives; false (with LOG shown) if it died or the time ran out.
await_serving() {
    local deadline=$(( $(date +%s) + $1 ))
    until grep -q "$4" "$3"; do
        if [ "$(date +%s)" -ge "$deadline" ] || ! kill -0 "$2" 2>/dev/null; then
            cat "$3"
            return 1
        fi
        sleep 0.5
    done
}

# serve_until PATTERN READY DONE LOG...: once each server started (in start order, one LOG each)
# has printed a line matching PATTERN, marks READY, serves until the client's DONE, then stops them;
# one pass if all stopped cleanly.
serve_until() {
    local pattern="$1" ready="$2" done="$3" i=0 log
    shift 3
    for log in "$@"; do
        if ! await_serving "$java_wait" "${servers[i]}" "$log" "$pattern"; then
            echo "FAIL: the server logging to $log never printed '$pattern'"
            FAILED=$((FAILED + 1))
            stop_servers
            give_up
            return
        fi
        i=$((i + 1))
    done
    mark "$ready"
    await_mark "$done" || { FAILED=$((FAILED + 1)); give_up; }
    if stop_servers; then PASSED=$((PASSED + 1)); else FAILED=$((FAILED + 1)); fi
    cat "$@"
}

stage_serve_check() {
    local l
    for l in "${links[@]}"; do
        start_server "$out/check-serve-$l.txt" -cp "$(check_cp)" dev.ofl.check.Check --serve \
            --backend rdma --ip "${my_ip[$l]}" --port "${check_port[$l]}" --library "$real"
    done
    serve_until '^ofl check: listening' check-serving check-done "$out/check-serve-A.txt" "$out/check-serve-B.txt"
}

stage_serve_bench() {
    [ -e "$shared/marks/server.failed" ] && { echo "not serving: this guest gave up before"; FAILED=1; return; }
    start_server "$out/bench-server.txt" -cp "$(bench_cp)" dev.ofl.bench.run.Bench server \
        --bind "${my_ip[A]},${my_ip[B]}" --backend rdma,tcp --wait blocking --port "$bench_port"
    serve_until '^ready' bench-serving bench-done "$out/bench-server.txt"
}

# ---- client ------------------------------------------------------------------------------------

# check_link LINK NAME: ofl check --connect over LINK from this host's address on it, into
# NAME-LINK.txt; every link check counts, and each is listed in NAME.each.
check_link() {
    local l="$1" name="$2" status p f report="$out/$2-$1.txt"
    echo "== ofl check --connect --backend rdma --ip ${server_ip[$l]} --local-ip ${my_ip[$l]} (link $l)"
    run_java $(( 2 * java_wait )) -cp "$(check_cp)" dev.ofl.check.Check --connect --backend rdma --ip "${server_ip[$l]}" \
        --local-ip "${my_ip[$l]}" --port "${check_port[$l]}" --library "$real" > "$report" 2>&1
    status=$?
    cat "$report"
    read -r p f <<< "$(sed -n 's/^\([0-9]*\) passed, \([0-9]*\) failed$/\1 \2/p' "$report" | tail -n1)"
    PASSED=$((PASSED + ${p:-0}))
    FAILED=$((FAILED + ${f:-0}))
    grep -E '^(PASS|FAIL) ' "$report" | sed "s/^/link $l: /" >> "$out/$name.each"
    if [ "$status" -ne 0 ] && [ "${f:-0}" -eq 0 ]; then
        echo "FAIL: ofl check --connect on link $l exited $status"
        FAILED=$((FAILED + 1))
    fi
}

stage_check() {
    await_mark check-serving || { FAILED=1; give_up; return; }
    local l
    for l in "${links[@]}"; do check_link "$l" check; done
    grep '^link .: FAIL ' "$out/check.each" > "$out/check.tests"
}

# The link checks over link A with netem reordering this host's packets on it (a quarter of them
# sent 2 ms early), from the connect on: where a server once closed the bootstrap of 2 runs in 3
# without a word, because the client's set-up between its TCP connect and its HELLO outlasted the
# server's bootstrap timeout on this slow guest (the client now sets up first).
stage_check_reorder() {
    tc qdisc add dev "${netdev[A]}" root netem delay 2ms reorder 25% 50% || { FAILED=1; return; }
    tc qdisc show dev "${netdev[A]}"
    check_link A check_reorder
    tc -s qdisc show dev "${netdev[A]}"
    tc qdisc del dev "${netdev[A]}" root
    grep '^link .: FAIL ' "$out/check_reorder.each" > "$out/check_reorder.tests"
}

# bench_run NAME LINKS...: ofl bench client over the links named, at once; the seed's request (a
# 184416-byte batch of keys, a 24-byte answer), blocking waits on both sides (a busy-polling pair
# would fight over each guest's one CPU). Prints its tables; false on an error or a mismatch.
bench_run() {
    local name="$1" servers_arg="" locals_arg="" l
    shift
    for l in "$@"; do
        servers_arg+="${servers_arg:+,}${server_ip[$l]}"
        locals_arg+="${locals_arg:+,}${my_ip[$l]}"
    done
    echo "== ofl bench client over link(s) $*"
    run_java $(( 2 * java_wait )) -cp "$(bench_cp)" dev.ofl.bench.run.Bench client --server "$servers_arg" --local "$locals_arg" \
        --port "$bench_port" --backend rdma --wait blocking --cases 184416/24 --request copy --response copy \
        --repeats 1 --iterations 200 --warmup 50 --warmup-ms 0 --timeout-ms $(( 1000 * TIME_SCALE )) \
        --connect-timeout-ms $(( 5000 * TIME_SCALE )) \
        --json "$out/bench-$name.json" > "$out/bench-$name.txt" 2>&1
    local status=$?
    cat "$out/bench-$name.txt"
    [ "$status" -eq 0 ]
}

# p50 of link L's row in a bench table.
bench_p50() { awk -v l="$2" '$1 == l && $2 == "184416/24" && NF >= 10 { print $9; exit }' "$1"; }

stage_bench() {
    await_mark bench-serving || { FAILED=1; give_up; return; }
    # Both links at once (the seed's A/B table), then link A alone: the ratio of A's p50 is what
    # running the second link at the same time costs the first (here mostly the one emulated CPU
    # of each guest, which both links share; on the seed's hosts, one CPU per link).
    if bench_run both A B; then PASSED=$((PASSED + 1)); else FAILED=$((FAILED + 1)); fi
    if bench_run alone A; then PASSED=$((PASSED + 1)); else FAILED=$((FAILED + 1)); fi
    mark bench-done
    local both alone
    both="$(bench_p50 "$out/bench-both.txt" A)"
    alone="$(bench_p50 "$out/bench-alone.txt" A)"
    {
        sed -n '/^# by link/,$p' "$out/bench-both.txt" | grep -v '^ofl-bench:'
        awk -v b="$both" -v a="$alone" 'BEGIN { if (a > 0 && b > 0) printf "link A p50 with B busy / alone: %.1f / %.1f us = %.2f\n", b, a, b / a }'
    } > "$out/bench.tests"
}

# ---- the run -----------------------------------------------------------------------------------

say "guest up after $(now) s (uptime)"
t0="$(now)"
if setup > "$out/setup.log" 2>&1; then
    echo "setup 1 0 $(since "$t0")" >> "$out/results"
    say "links A (MTU 9000) and B (MTU 1500) up, rxe0 and rxe1 active, $(now) s after boot"
else
    echo "setup 0 1 $(since "$t0")" >> "$out/results"
    say "setup failed:"
    cat "$out/setup.log"
    mark "$role.failed"
    touch "$out/done"
    exit 1
fi
run_stage devinfo stage_devinfo
run_stage probe stage_probe
if [ "$role" = server ]; then
    run_stage serve_check stage_serve_check
    run_stage serve_bench stage_serve_bench
else
    run_stage check stage_check
    run_stage check_reorder stage_check_reorder
    mark check-done
    run_stage bench stage_bench
fi
say "all stages done after $(now) s (uptime)"
touch "$out/done"
