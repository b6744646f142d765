#!/usr/bin/env bash
# Runs ofl's RDMA backend over a real kernel verbs stack: the kernel's soft-RoCE (rdma_rxe) under
# rdma-core's libibverbs and its rxe provider, inside a qemu guest, for hosts whose kernel has no
# RDMA support. Called by `./ofl test-rxe`, which installs the packages, finds the JDK and builds
# the Java modules (test classes and their class path included) first.
#
# The guest is a Debian kernel with its modules (from the Debian package, nothing else downloaded)
# and a busybox initramfs; it has no network device (-nic none), sees the host's root read-only
# over 9p, and writes only to target/rxe-guest/out. See tools/rxe-guest/README.md.
#
# Environment:
#   OFL_RXE_CACHE           where the kernel and initramfs are kept (default ~/.cache/ofl-rxe)
#   OFL_RXE_KERNEL_PACKAGE  the Debian kernel package (default: what linux-image-amd64 depends on)
#   OFL_RXE_TIME_SCALE      how much slower than the host the tests' waits may be (default 10)
#   OFL_RXE_STAGES          space-separated subset of the stages to run (default: all)
#   OFL_RXE_TIMEOUT         seconds before the whole guest run is killed (default 2400)
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
say() { printf 'rxe: %s\n' "$*" >&2; }
die() { say "$*"; exit 1; }

[ -n "${JAVA_HOME:-}" ] || die "JAVA_HOME is not set; run this through ./ofl test-rxe"
cache="${OFL_RXE_CACHE:-$HOME/.cache/ofl-rxe}"
work="$repo/target/rxe-guest"
out="$work/out"
test_classpath="$repo/ofl-ffm-verbs/target/test-classpath.txt"
[ -f "$test_classpath" ] || die "missing $test_classpath; run ./ofl test-rxe, which builds it"

# shellcheck source=kernel.sh
. "$here/kernel.sh"
prepare_kernel amd64

# ---- the run ------------------------------------------------------------------------------------
# softverbs' C tests that run on any device, linked to the system's libibverbs (the c_tests stages).
make -s -C "$repo/ofl-softverbs" all device-tests >&2 || die "building ofl-softverbs' device tests failed"
rm -rf "$out"
mkdir -p "$out"
console="$work/console.log"
: > "$console"
junit_jar="$(ls "$work"/junit-platform-console-standalone-*.jar 2>/dev/null | head -n1)"
[ -n "$junit_jar" ] || die "no JUnit console launcher in $work; run ./ofl test-rxe, which fetches it"
cat > "$out/env" <<EOF
REPO='$repo'
JAVA_HOME='$JAVA_HOME'
TEST_CLASSPATH='$test_classpath'
JUNIT_JAR='$junit_jar'
TIME_SCALE='${OFL_RXE_TIME_SCALE:-10}'
STAGES='${OFL_RXE_STAGES:-}'
EOF

say "booting the guest ($kernel_version, TCG, 1 vCPU, 4 GiB, no network device); console: $console"
start=$(date +%s)
qemu-system-x86_64 \
    -accel tcg,thread=single -cpu Westmere -smp 1 -m 4096 \
    -nic none -display none -monitor none -serial "file:$console" -no-reboot \
    -kernel "$kdir/vmlinuz" -initrd "$kdir/initramfs.cpio.gz" \
    -append "console=ttyS0 panic=-1 quiet loglevel=4 ofl.script=$here/guest.sh ofl.repo=$repo" \
    -virtfs "local,path=/,mount_tag=hostroot,security_model=none,readonly=on,multidevs=remap" \
    -virtfs "local,path=$repo,mount_tag=repo,security_model=none,readonly=on,multidevs=remap" \
    -virtfs "local,path=$out,mount_tag=out,security_model=none" &
qemu=$!
# The guest's stage lines, as they come.
tail -n +1 -F --pid=$qemu "$console" 2>/dev/null | grep --line-buffered -E '^(rxe-init|rxe-guest):' >&2 &
follower=$!
limit="${OFL_RXE_TIMEOUT:-2400}"
# Its sleep ends with it: a sleep left behind would hold our caller's output open for the whole limit.
( trap 'kill "${sleeper:-}" 2>/dev/null; exit 0' TERM
  sleep "$limit" & sleeper=$!
  wait "$sleeper" && kill "$qemu" 2>/dev/null && say "the guest ran longer than $limit s: killed" ) &
watchdog=$!
qemu_status=0
wait "$qemu" || qemu_status=$?
kill "$watchdog" 2>/dev/null || true
wait "$watchdog" 2>/dev/null || true
wait "$follower" 2>/dev/null || true
elapsed=$(( $(date +%s) - start ))

results="$out/results"
passed=0
failed=0
if [ -f "$results" ]; then
    while read -r stage p f seconds; do
        printf '%s: %d passed, %d failed (%s s)\n' "$stage" "$p" "$f" "$seconds"
        passed=$((passed + p))
        failed=$((failed + f))
    done < "$results"
fi
if [ ! -f "$out/done" ]; then
    printf 'guest: 0 passed, 1 failed (the guest did not finish: qemu exit %d after %d s)\n' "$qemu_status" "$elapsed"
    failed=$((failed + 1))
fi
printf '%d passed, %d failed\n' "$passed" "$failed"
say "guest run: $elapsed s wall clock; stage logs in $out"
if [ "$failed" -ne 0 ]; then
    say "guest console saved in $console"
    exit 1
fi
