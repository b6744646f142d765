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

# The modules the guest needs; their dependencies come from modules.dep. rdma_rxe asks the crypto
# API for "crc32" (its ICRC) when a device is added, a soft dependency modules.dep does not name,
# and the guest has no modprobe that could load it on demand.
modules=(virtio_pci 9pnet_virtio 9p crc32_generic rdma_rxe veth sch_netem)

# ---- kernel: a Debian package, unpacked once per version -------------------------------------
kernel_package="${OFL_RXE_KERNEL_PACKAGE:-}"
if [ -z "$kernel_package" ]; then
    kernel_package="$(apt-cache depends linux-image-amd64 2>/dev/null \
        | sed -n 's/^ *Depends: \(linux-image-[0-9][^ ]*-amd64\)$/\1/p' | head -n1)"
    [ -n "$kernel_package" ] \
        || die "apt-cache depends linux-image-amd64 names no kernel package; run apt-get update or set OFL_RXE_KERNEL_PACKAGE"
fi
kernel_version="${kernel_package#linux-image-}"
kdir="$cache/$kernel_version"
if [ ! -f "$kdir/initramfs.cpio.gz" ] || [ "$here/init" -nt "$kdir/initramfs.cpio.gz" ] \
    || [ "$here/run.sh" -nt "$kdir/initramfs.cpio.gz" ]; then
    say "preparing the guest kernel $kernel_package in $kdir"
    rm -rf "$kdir"
    mkdir -p "$kdir/deb"
    (cd "$kdir/deb" && apt-get download "$kernel_package" >/dev/null 2>&1) \
        || die "apt-get download $kernel_package failed; run apt-get update, or set OFL_RXE_KERNEL_PACKAGE to a linux-image-6.1.0-*-amd64 package that apt-cache policy shows"
    dpkg-deb -x "$kdir"/deb/*.deb "$kdir/root"
    mods="$kdir/root/lib/modules/$kernel_version"
    [ -d "$mods" ] || die "$kernel_package has no lib/modules/$kernel_version"
    # The package leaves modules.dep to its postinst; busybox's depmod writes one.
    busybox depmod -b "$kdir/root" "$kernel_version"
    cp "$kdir/root/boot/vmlinuz-$kernel_version" "$kdir/vmlinuz"

    # Load order: every module after its dependencies, each once.
    declare -A seen=()
    order=()
    visit() {
        local path="$1" dep
        [ -n "${seen[$path]:-}" ] && return 0
        seen[$path]=1
        local line
        line="$(grep -E "^$path:" "$mods/modules.dep")" || die "$path is not in $kernel_package's modules.dep"
        for dep in ${line#*:}; do visit "$dep"; done
        order+=("$path")
    }
    for m in "${modules[@]}"; do
        path="$(grep -oE "^[^:]*/$m\.ko" "$mods/modules.dep" | head -n1)"
        [ -n "$path" ] || die "module $m is not in $kernel_package"
        visit "$path"
    done

    initramfs="$kdir/initramfs"
    mkdir -p "$initramfs/bin" "$initramfs/modules"
    cp /bin/busybox "$initramfs/bin/busybox"
    [[ "$(ldd /bin/busybox 2>&1 || true)" == *"not a dynamic"* ]] || die "/bin/busybox is not static; install busybox-static"
    cp "$here/init" "$initramfs/init"
    chmod 755 "$initramfs/init"
    : > "$initramfs/modules.list"
    for path in "${order[@]}"; do
        cp "$mods/$path" "$initramfs/modules/"
        basename "$path" >> "$initramfs/modules.list"
    done
    (cd "$initramfs" && find . | busybox cpio -o -H newc 2>/dev/null | gzip -1 > "$kdir/initramfs.cpio.gz.tmp")
    mv "$kdir/initramfs.cpio.gz.tmp" "$kdir/initramfs.cpio.gz"
    rm -rf "$kdir/deb" "$kdir/root"
    say "guest kernel ready: $(tr '\n' ' ' < "$initramfs/modules.list")"
fi

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
