#!/usr/bin/env bash
# Runs ofl's Java code on an aarch64 JVM: Debian's own arm64 OpenJDK, unpacked from Debian packages
# into a directory of its own and run under qemu-user, with softverbs cross-built for aarch64 as the
# verbs library. Called by `./ofl test-aarch64`, which installs the host packages, finds the host
# JDK and builds the modules (test classes and their class paths included) first. The classes are
# the host's: bytecode is the same on every architecture; what runs on aarch64 is the JVM, its FFM
# linker (the AArch64 calling convention), the layouts it computes, and every native library.
#
# Stages, one line each: "name: N passed, M failed (S s)"; the last line sums them.
#
# Environment:
#   OFL_AARCH64_CACHE       where the arm64 JDK is kept (default ~/.cache/ofl-aarch64)
#   OFL_AARCH64_SUITE       the Debian suite to take it from (default trixie: OpenJDK 25)
#   OFL_AARCH64_TIME_SCALE  the factor on every test wait that should end promptly (default 5)
#   OFL_AARCH64_STAGES      space-separated subset of the stages to run: jvm tcp rdma probe check_tcp
#                           check_rdma demo_tcp demo_rdma (default: all)
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
say() { printf 'aarch64: %s\n' "$*" >&2; }
die() { say "$*"; exit 1; }

cache="${OFL_AARCH64_CACHE:-$HOME/.cache/ofl-aarch64}"
suite="${OFL_AARCH64_SUITE:-trixie}"
scale="${OFL_AARCH64_TIME_SCALE:-5}"
stages="${OFL_AARCH64_STAGES:-}"
out="$repo/target/aarch64"
qemu=qemu-aarch64-static
command -v "$qemu" >/dev/null || die "$qemu is missing: apt-get install qemu-user-static"

# ---- the arm64 JDK: Debian packages only, through an apt configuration of its own -------------
# The JRE and the C libraries it links, and rdma-core's libibverbs (for the tests that look at the
# real library of the platform).
debs=(openjdk-25-jre-headless libc6 libgcc-s1 libstdc++6 zlib1g libibverbs1 libnl-3-200 libnl-route-3-200)
root="$cache/root"
# Bump when the preparation below changes, so that a cached root is made again.
preparation=2
stamp="$cache/ready-$suite-$preparation-$(printf '%s\n' "${debs[@]}" | md5sum | cut -c1-12)"
if [ ! -f "$stamp" ]; then
    say "fetching the arm64 JDK from Debian $suite into $cache (once)"
    rm -rf "$cache"
    mkdir -p "$cache/apt/lists/partial" "$cache/apt/cache/archives/partial" "$cache/debs" "$root"
    echo "deb [arch=arm64 signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian $suite main" \
        > "$cache/apt/sources.list"
    : > "$cache/apt/status"
    # Its own sources, lists, cache and (empty) status: the host's apt is neither read nor changed.
    apt_opts=(-o "Dir::Etc::SourceList=$cache/apt/sources.list" -o Dir::Etc::SourceParts=/dev/null
              -o "Dir::State::Lists=$cache/apt/lists" -o "Dir::Cache=$cache/apt/cache"
              -o "Dir::State::Status=$cache/apt/status" -o APT::Architecture=arm64
              -o APT::Architectures::=arm64 -o Debug::NoLocking=1 -o APT::Sandbox::User=root)
    apt-get "${apt_opts[@]}" -qq update >/dev/null || die "apt-get update of Debian $suite (arm64) failed"
    (cd "$cache/debs" && apt-get "${apt_opts[@]}" -qq download "${debs[@]}" >/dev/null) \
        || die "apt-get download ${debs[*]} (arm64, Debian $suite) failed"
    for deb in "$cache"/debs/*.deb; do dpkg-deb -x "$deb" "$root"; done
    # The merged-/usr layout the loader expects (/lib/ld-linux-aarch64.so.1).
    [ -e "$root/lib" ] || ln -s usr/lib "$root/lib"
    jdk="$(find "$root/usr/lib/jvm" -mindepth 1 -maxdepth 1 -type d -name 'java-*-openjdk-arm64' | head -n1)"
    [ -n "$jdk" ] || die "no java-*-openjdk-arm64 directory in the unpacked packages"
    # Links to absolute paths (conf/security/* -> /etc/java-25-openjdk/...) are not followed into
    # the root by qemu's -L: copy what they point to.
    while IFS= read -r link; do
        target="$(readlink "$link")"
        rm "$link"
        if [ -e "$root$target" ]; then cp -r "$root$target" "$link"; fi
    done < <(find "$jdk" -type l -lname '/*')
    # bin/java becomes a script that starts the real launcher under qemu-user: the tests that start
    # a second JVM from java.home (TwoProcessTest) then get an aarch64 one too. The launcher finds
    # java.home from its own path, which qemu reports as java.aarch64's.
    mv "$jdk/bin/java" "$jdk/bin/java.aarch64"
    printf '#!/bin/sh\nexec %s -L %s %s "$@"\n' "$qemu" "$root" "$jdk/bin/java.aarch64" > "$jdk/bin/java"
    chmod 755 "$jdk/bin/java"
    rm -rf "$cache/debs" "$cache/apt/cache"
    touch "$stamp"
fi
jdk="$(find "$root/usr/lib/jvm" -mindepth 1 -maxdepth 1 -type d -name 'java-*-openjdk-arm64' | head -n1)"
java="$jdk/bin/java"

# ---- softverbs for aarch64 ----------------------------------------------------------------------
make -s -C "$repo/ofl-softverbs" A64_LIB_ONLY=1 target/aarch64/lib/libibverbs.so.1 >&2 \
    || die "cross-building softverbs for aarch64 failed"
softverbs="$repo/ofl-softverbs/target/aarch64/lib/libibverbs.so.1"
junit_jar="$(ls "$repo"/target/rxe-guest/junit-platform-console-standalone-*.jar 2>/dev/null | head -n1)"
[ -n "$junit_jar" ] || die "no JUnit console launcher in target/rxe-guest; run ./ofl test-aarch64, which fetches it"

# Under emulation: C1 only (C2's compile time is emulated too) and the serial collector. In the
# environment, so that second JVMs get them as well.
# Programs are started by fork and exec, not through the JDK's spawn helper: that helper is an
# aarch64 program, which the kernel cannot start by itself (qemu-user is not registered with
# binfmt_misc here); the host programs the tests start (gcc, the java script) then run as they are.
export JAVA_TOOL_OPTIONS="-XX:TieredStopAtLevel=1 -XX:+UseSerialGC -Djdk.lang.Process.launchMechanism=FORK"
rm -rf "$out"
mkdir -p "$out"
: > "$out/results"

# shellcheck source=../junit-report.sh
. "$repo/tools/junit-report.sh"
now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }
want() { [ -z "$stages" ] || [[ " $stages " == *" $1 "* ]]; }

record() { # record NAME PASSED FAILED SECONDS [SKIPPED]
    echo "$1 $2 $3 $4" >> "$out/results"
    local skipped=""
    [ "${5:-0}" -eq 0 ] || skipped=", $5 skipped"
    printf '%s: %d passed, %d failed%s (%s s)\n' "$1" "$2" "$3" "$skipped" "$4"
}

# The module's test class path without its JUnit jars: the console launcher brings the same versions.
test_classpath() {
    local module="$1" entries
    [ -f "$repo/$module/target/test-classpath.txt" ] || die "missing $module/target/test-classpath.txt; run ./ofl test-aarch64"
    entries="$(tr ':' '\n' < "$repo/$module/target/test-classpath.txt" | grep -vE '/org/(junit|opentest4j|apiguardian)/' | paste -sd:)"
    echo "$junit_jar:$repo/$module/target/test-classes:$repo/$module/target/classes:$entries"
}

# junit_stage LABEL MODULE [CLASS...]: the module's test classes named (every one without names) in
# one aarch64 JVM, from the module's directory as Maven runs them; then one line per class from the
# report, and what failed or was skipped.
junit_stage() {
    local label="$1" module="$2" status t0 report classes class name p f seconds skipped selectors=()
    shift 2
    want "$label" || return 0
    if [ $# -eq 0 ]; then
        selectors=(--scan-classpath "$repo/$module/target/test-classes")
    else
        for class in "$@"; do selectors+=(--select-class "$class"); done
    fi
    t0="$(now)"
    mkdir -p "$out/$label"
    status=0
    (cd "$repo/$module" && SOFTVERBS_GID_GAP_FILE="$out/$label/softverbs-gid-gap" "$java" \
        --enable-native-access=ALL-UNNAMED \
        -Dofl.verbs.library="$softverbs" \
        -Dofl.test.timeScale="$scale" \
        -Dofl.test.sysroot="$root" \
        -Dofl.test.softverbs="$softverbs" \
        -cp "$(test_classpath "$module")" \
        org.junit.platform.console.ConsoleLauncher execute \
        --disable-banner --disable-ansi-colors --details=tree --fail-if-no-tests \
        --reports-dir "$out/$label/junit" "${selectors[@]}") > "$out/$label.log" 2>&1 || status=$?
    say "$label ($module): the console launcher exited $status after $(since "$t0") s; log in $out/$label.log"
    report="$out/$label/junit/TEST-junit-jupiter.xml"
    # The conformance suites' tests are @Nested behaviour classes of OflConformanceSuite, reported
    # under its name whichever module's *ConformanceTest ran them.
    classes="$(junit_classes "$report" dev.ofl | sed 's/^OflConformanceSuite /conformance-suite /')"
    # A class named but absent from the report did not run: a failure of its own.
    for class in "$@"; do
        name="${class##*.}"
        [[ "$name" == *ConformanceTest ]] && name=conformance-suite
        grep -q "^$name " <<< "$classes" || classes+=$'\n'"$name 0 1 0 0"
    done
    if [ -z "$classes" ]; then
        record "$label" 0 1 "$(since "$t0")"
        return 0
    fi
    while read -r class p f seconds skipped; do
        [ -n "$class" ] && record "$class" "$p" "$f" "$seconds" "$skipped"
    done <<< "$classes"
    if [ "$status" -ne 0 ] && ! awk '$3 > 0 { bad = 1 } END { exit !bad }' <<< "$classes"; then
        record "$label" 0 1 "$(since "$t0")"
    fi
    junit_failures "$report" dev.ofl | sed 's/^/  /'
    junit_skipped "$report" dev.ofl | sed 's/^/  /'
}

# check_stage BACKEND [ARGS...]: `ofl check` in its default mode (an ofl check server and the link
# checks and conformance suite against it, in this one aarch64 JVM); its summary line counts.
check_stage() {
    local backend="$1" name="check_$1" t0 status summary p f
    shift
    want "$name" || return 0
    t0="$(now)"
    status=0
    "$java" --enable-native-access=ALL-UNNAMED \
        -cp "$repo/ofl-check/target/ofl-check-0.1.0-SNAPSHOT.jar:$(cat "$repo/ofl-check/target/classpath.txt")" \
        dev.ofl.check.Check --backend "$backend" --ip 127.0.0.1 --port "$((20000 + RANDOM % 20000))" "$@" \
        > "$out/$name.log" 2>&1 || status=$?
    summary="$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$out/$name.log" | tail -n1)"
    p="$(awk '{print $1}' <<< "${summary:-0}")"
    f="$(awk '{print $3}' <<< "${summary:-x x 1}")"
    if [ "$status" -ne 0 ] && [ "$f" -eq 0 ]; then f=1; fi
    record "$name" "$p" "$f" "$(since "$t0")"
    [ "$f" -eq 0 ] || grep -E 'FAIL|failed:' "$out/$name.log" | head -n 20 | sed 's/^/  /'
}

# demo_stage BACKEND: PingPong, few iterations, every byte checked; a row passes without a
# mismatched byte or an error.
demo_stage() {
    local backend="$1" name="demo_$1" t0 status p f
    want "$name" || return 0
    t0="$(now)"
    status=0
    "$java" --enable-native-access=ALL-UNNAMED -Dofl.verbs.library="$softverbs" \
        -cp "$repo/ofl-bench/target/ofl-bench-0.1.0-SNAPSHOT.jar:$(cat "$repo/ofl-bench/target/classpath.txt")" \
        dev.ofl.bench.PingPong --backend "$backend" --bind 127.0.0.1 --iterations 50 --warmup 10 \
        --cases echo64,rows288,rows4096 --wait busy,blocking --response copy \
        --timeout-ms 60000 --connect-timeout-ms "$(awk -v s="$scale" 'BEGIN { printf "%d", 5000 * s }')" \
        > "$out/$name.log" 2>&1 || status=$?
    p="$(awk -v b="$backend" '$1 ~ "^" b && NF >= 14 && $(NF-1) == 0 && $NF == 0' "$out/$name.log" | wc -l)"
    f="$(awk -v b="$backend" '$1 ~ "^" b && NF >= 14 && ($(NF-1) != 0 || $NF != 0)' "$out/$name.log" | wc -l)"
    if [ "$status" -ne 0 ] && [ "$f" -eq 0 ]; then f=1; fi
    if [ "$p" -eq 0 ] && [ "$f" -eq 0 ]; then f=1; fi
    record "$name" "$p" "$f" "$(since "$t0")"
    [ "$f" -eq 0 ] || tail -n 20 "$out/$name.log" | sed 's/^/  /'
}

start="$(now)"
if want jvm; then
    t0="$(now)"
    arch="$("$java" -XshowSettings:properties -version 2>&1 | sed -n 's/^ *os.arch = //p')"
    version="$("$java" -version 2>&1 | grep -v JAVA_TOOL_OPTIONS | head -n1)"
    if [ "$arch" = aarch64 ]; then record jvm 1 0 "$(since "$t0")"; else record jvm 0 1 "$(since "$t0")"; fi
    say "$version, os.arch $arch, under $qemu; waits scaled by $scale"
fi
# TCP: the conformance suite, the busy-poll calls made straight to libc, the failure reason's wire.
junit_stage tcp ofl-tcp dev.ofl.tcp.TcpConformanceTest dev.ofl.tcp.TcpDirectSocketCallsTest \
    dev.ofl.tcp.FailureReasonWireTest
# The binding and the RDMA backend: every test class of the module (layouts, softverbs, the backend).
junit_stage rdma ofl-ffm-verbs
# The probe: every test class of the module.
junit_stage probe ofl-probe
check_stage tcp
check_stage rdma --library "$softverbs"
demo_stage tcp
demo_stage rdma

passed="$(awk '{ s += $2 } END { print s + 0 }' "$out/results")"
failed="$(awk '{ s += $3 } END { print s + 0 }' "$out/results")"
printf '%d passed, %d failed\n' "$passed" "$failed"
say "aarch64 run: $(since "$start") s wall clock; logs in $out"
[ "$failed" -eq 0 ]
