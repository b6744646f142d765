#!/usr/bin/env bash
# The seed's topology on the kernel's soft-RoCE: two qemu guests, two kernels (an x86-64 server and
# an aarch64 client), joined by two links, one with MTU 9000 and one with 1500, each link a pair of
# virtio-net devices whose frames qemu carries as UDP datagrams between the two processes
# (-netdev dgram on 127.0.0.1). Each guest puts
# rdma_rxe on both of its links, so every RoCE v2 packet leaves one kernel and arrives at the
# other, as between two hosts. The "server" guest plays the x86 host, the "client" guest the Spark
# side: ofl probe on both, ofl check --serve/--connect over each link, ofl bench over both links
# at once. Called by `./ofl test-pair`, which builds first; see tools/rxe-guest/README.md.
#
# Environment: OFL_RXE_CACHE, OFL_RXE_KERNEL_PACKAGE and OFL_RXE_TIME_SCALE as for run.sh;
#   OFL_PAIR_SERVER_ARCH          amd64 (default) or arm64
#   OFL_PAIR_CLIENT_ARCH          arm64 (default) or amd64
#   OFL_PAIR_ARM64_SUITE          the Debian suite of the arm64 guest (default trixie: OpenJDK 25)
#   OFL_PAIR_ARM64_KERNEL_PACKAGE its kernel package (default: what linux-image-arm64 depends on)
#   OFL_PAIR_TIMEOUT              seconds before both guests are killed (default 3000; a run takes about 500)
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
say() { printf 'pair: %s\n' "$*" >&2; }
die() { say "$*"; exit 1; }

[ -n "${JAVA_HOME:-}" ] || die "JAVA_HOME is not set; run this through ./ofl test-pair"
cache="${OFL_RXE_CACHE:-$HOME/.cache/ofl-rxe}"
# The server guest (the seed's x86 host) is x86-64 and the client guest (its Spark side) aarch64;
# OFL_PAIR_SERVER_ARCH and OFL_PAIR_CLIENT_ARCH (amd64 or arm64) change either, e.g. to serve from
# the aarch64 end. An x86-64 guest runs the host's root, an aarch64 one a root of Debian's arm64
# packages (arm64.sh).
declare -A guest_arch=([server]="${OFL_PAIR_SERVER_ARCH:-amd64}" [client]="${OFL_PAIR_CLIENT_ARCH:-arm64}") \
    guest_kdir=()
# shellcheck source=kernel.sh
. "$here/kernel.sh"
for role in server client; do
    case "${guest_arch[$role]}" in
    amd64)
        prepare_kernel amd64
        ;;
    arm64)
        command -v qemu-system-aarch64 >/dev/null || die "qemu-system-aarch64 is missing: apt-get install qemu-system-arm"
        # shellcheck source=arm64.sh
        . "$here/arm64.sh"
        prepare_arm64_root
        prepare_kernel arm64
        ;;
    *)
        die "OFL_PAIR_SERVER_ARCH and OFL_PAIR_CLIENT_ARCH are amd64 or arm64, not ${guest_arch[$role]}"
        ;;
    esac
    guest_kdir[$role]="$kdir"
done

work="$repo/target/rxe-pair"
out="$work/out"
rm -rf "$out"
mkdir -p "$out/server" "$out/client"
cat > "$out/env" <<EOF
REPO='$repo'
JAVA_HOME='$JAVA_HOME'
TIME_SCALE='${OFL_RXE_TIME_SCALE:-10}'
STAGES=''
EOF

# Four UDP ports on 127.0.0.1, two per link (one per end), from a range picked by this process's
# id, so that two runs on one host do not cross.
base=$(( 30000 + ($$ % 3000) * 8 ))
# link NAME ROLE MAC: the -netdev/-device pair of one end of a link; link A is the guest's eth0,
# link B its eth1 (PCI slot order).
link() {
    local name="$1" role="$2" index mine theirs
    [ "$name" = A ] && index=0 || index=2
    if [ "$role" = server ]; then mine=$((base + index)) theirs=$((base + index + 1))
    else mine=$((base + index + 1)) theirs=$((base + index)); fi
    echo "-netdev dgram,id=link$name,local.type=inet,local.host=127.0.0.1,local.port=$mine,remote.type=inet,remote.host=127.0.0.1,remote.port=$theirs"
    echo "-device virtio-net-pci,netdev=link$name,mac=$3,addr=0x$((index / 2 + 4))"
}

declare -A pids=()
boot() {
    local role="$1" mac_a="$2" mac_b="$3" console="$work/$1-console.log" machine root extra=()
    : > "$console"
    if [ "${guest_arch[$role]}" = arm64 ]; then
        # A plain ARMv8.0 core.
        machine=(qemu-system-aarch64 -machine virt -cpu cortex-a72)
        root="$arm64_root"
        extra=(console=ttyAMA0 "ofl.m2=$HOME/.m2")
    else
        machine=(qemu-system-x86_64 -cpu Westmere)
        root=/
        extra=(console=ttyS0)
    fi
    # shellcheck disable=SC2046 # link's lines are the option words
    "${machine[@]}" -accel tcg,thread=single -smp 1 -m 3072 \
        -nodefaults $(link A "$role" "$mac_a") $(link B "$role" "$mac_b") \
        -display none -monitor none -serial "file:$console" -no-reboot \
        -kernel "${guest_kdir[$role]}/vmlinuz" -initrd "${guest_kdir[$role]}/initramfs.cpio.gz" \
        -append "${extra[*]} panic=-1 quiet loglevel=4 ofl.script=$here/pair-guest.sh ofl.repo=$repo ofl.role=$role" \
        -virtfs "local,path=$root,mount_tag=hostroot,security_model=none,readonly=on,multidevs=remap" \
        -virtfs "local,path=$repo,mount_tag=repo,security_model=none,readonly=on,multidevs=remap" \
        -virtfs "local,path=$out,mount_tag=out,security_model=none" \
        $([ "${guest_arch[$role]}" = arm64 ] && echo "-virtfs local,path=$HOME/.m2,mount_tag=m2,security_model=none,readonly=on,multidevs=remap") &
    pids[$role]=$!
    tail -n +1 -F --pid="${pids[$role]}" "$console" 2>/dev/null \
        | grep --line-buffered -E '^(rxe-init|rxe-guest)' | sed -u "s/^rxe-init:/rxe-init $role:/" >&2 &
}

say "booting two guests (server ${guest_arch[server]}, client ${guest_arch[client]}; TCG, 1 vCPU each) joined by links A (MTU 9000) and B (MTU 1500) over UDP ports $base-$((base + 3))"
start=$(date +%s)
boot server 52:54:00:57:01:01 52:54:00:57:02:01
boot client 52:54:00:57:01:02 52:54:00:57:02:02
limit="${OFL_PAIR_TIMEOUT:-3000}"
( trap 'kill "${sleeper:-}" 2>/dev/null; exit 0' TERM
  sleep "$limit" & sleeper=$!
  wait "$sleeper" && kill "${pids[server]}" "${pids[client]}" 2>/dev/null && say "the guests ran longer than $limit s: killed" ) &
watchdog=$!
declare -A status=([server]=0 [client]=0)
for role in server client; do
    wait "${pids[$role]}" || status[$role]=$?
done
kill "$watchdog" 2>/dev/null || true
wait "$watchdog" 2>/dev/null || true
elapsed=$(( $(date +%s) - start ))

passed=0
failed=0
for role in server client; do
    if [ -f "$out/$role/results" ]; then
        while read -r stage p f seconds; do
            printf '%s %s: %d passed, %d failed (%s s)\n' "$role" "$stage" "$p" "$f" "$seconds"
            passed=$((passed + p))
            failed=$((failed + f))
            if [ "$f" -ne 0 ] && [ -f "$out/$role/$stage.log" ]; then
                echo "---- the last lines of $role's $stage.log ----"
                tail -n 40 "$out/$role/$stage.log"
                echo "----"
            fi
        done < "$out/$role/results"
    fi
    if [ ! -f "$out/$role/done" ]; then
        printf '%s: 0 passed, 1 failed (the guest did not finish; qemu exit %d after %d s)\n' "$role" "${status[$role]}" "$elapsed"
        failed=$((failed + 1))
    fi
done
[ -f "$out/client/bench.tests" ] && sed 's/^/  /' "$out/client/bench.tests"
printf '%d passed, %d failed\n' "$passed" "$failed"
say "two-guest run: $elapsed s wall clock; logs in $out, consoles in $work/*-console.log"
[ "$failed" -eq 0 ]
