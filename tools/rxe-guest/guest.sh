#!/bin/bash
# Runs inside the rxe guest, chrooted into the host's read-only root by init, with the output share
# at $1. Builds the soft-RoCE set-up (a veth pair, rxe0 on veth0 and rxe1 on veth1) and runs every
# stage against rdma-core's real libibverbs and its rxe provider. Each stage appends
# "name passed failed seconds" to $1/results and keeps its full output in $1/<name>.log; $1/done
# marks a run that got to the end.
set -uo pipefail
out="$1"
# shellcheck source=/dev/null
. "$out/env"
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export HOME=/tmp LANG=C.UTF-8
cd /tmp || exit 1

java="$JAVA_HOME/bin/java"
# Under TCG: C1 only (C2 compiles for minutes of guest time) and the JDK's CDS archive. In the
# environment, so that the child JVMs TwoProcessTest starts get the same flags.
export JAVA_TOOL_OPTIONS="-XX:TieredStopAtLevel=1 -Xshare:auto -XX:+UseSerialGC"
real=/usr/lib/x86_64-linux-gnu/libibverbs.so.1
softverbs="$REPO/ofl-softverbs/target/lib/libibverbs.so.1"
a=10.55.0.1
b=10.55.0.2

# shellcheck source=common.sh
. "$REPO/tools/rxe-guest/common.sh"

# gid_index DEVICE ADDRESS, and the renumbering RdmaGidDriftTest runs.
# shellcheck source=gid.sh
. "$REPO/tools/rxe-guest/gid.sh"
# RdmaGidDriftTest's own address on veth0 (rxe0), which gid.sh moves around the GID table.
drift=10.55.0.5

setup() {
    ip link set lo up &&
    ip link add veth0 type veth peer name veth1 &&
    ip addr add "$a/24" dev veth0 &&
    ip addr add "$b/24" dev veth1 &&
    ip addr add "$drift/32" dev veth0 &&
    ip link set veth0 up &&
    ip link set veth1 up &&
    rdma link add rxe0 type rxe netdev veth0 &&
    rdma link add rxe1 type rxe netdev veth1 || return 1
    # Both addresses are local, so the kernel would route each to the other over lo, and RoCE
    # address resolution refuses a route whose netdev is not the GID's. Locally sent packets to the
    # peer address leave through the sender's own veth end instead (policy routing ahead of the
    # local table), cross the pair, and are delivered locally at the other end (accept_local: their
    # source is an address of this host). Traffic between rxe0 and rxe1 thus really crosses the
    # veth pair; traffic from an address to itself stays on its device's loopback path.
    echo 1 > /proc/sys/net/ipv4/conf/all/accept_local &&
    echo 1 > /proc/sys/net/ipv4/conf/veth0/accept_local &&
    echo 1 > /proc/sys/net/ipv4/conf/veth1/accept_local &&
    echo 0 > /proc/sys/net/ipv4/conf/all/rp_filter &&
    echo 0 > /proc/sys/net/ipv4/conf/veth0/rp_filter &&
    echo 0 > /proc/sys/net/ipv4/conf/veth1/rp_filter &&
    ip route add "$b/32" dev veth0 src "$a" table 100 &&
    ip route add "$a/32" dev veth1 src "$b" table 101 &&
    ip rule add pref 10 from "$a" to "$b" iif lo lookup 100 &&
    ip rule add pref 11 from "$b" to "$a" iif lo lookup 101 &&
    ip rule add pref 1000 lookup local &&
    ip rule del pref 0 lookup local || return 1
    echo "links and routes set up at $(now) s"
    await_gids 60 rxe0 "$a" rxe1 "$b" || { echo "rxe0/rxe1 did not become active with their RoCE v2 GIDs in 60 s"; return 1; }
    echo "GIDs active at $(now) s"
    rdma link show
    ip -4 addr show
    ip rule show
    ip route get "$b" from "$a"
}

stage_devinfo() {
    local device address
    for pair in "rxe0 $a" "rxe1 $b"; do
        read -r device address <<< "$pair"
        echo "== ibv_devinfo -v -d $device"
        if ibv_devinfo -v -d "$device" | tee "$out/devinfo-$device.txt" | grep -q PORT_ACTIVE \
            && grep -q "::ffff:$address, RoCE v2" "$out/devinfo-$device.txt"; then
            PASSED=$((PASSED + 1))
        else
            echo "FAIL: $device is not active or has no RoCE v2 GID ::ffff:$address"
            FAILED=$((FAILED + 1))
        fi
    done
}

stage_rc_pingpong() {
    local g0 g1 port=18515 mode flag server_status client_status
    g0="$(gid_index rxe0 "$a")"
    g1="$(gid_index rxe1 "$b")"
    for mode in poll event; do
        flag=""
        [ "$mode" = event ] && flag="-e"
        port=$((port + 1))
        echo "== ibv_rc_pingpong $mode: server rxe0 gid $g0, client rxe1 gid $g1, port $port"
        local tx0 tx1
        tx0="$(cat /sys/class/net/veth0/statistics/tx_packets)"
        tx1="$(cat /sys/class/net/veth1/statistics/tx_packets)"
        timeout 300 ibv_rc_pingpong -d rxe0 -g "$g0" -p "$port" -n 1000 $flag > "$out/rc-$mode-server.txt" 2>&1 &
        local server=$!
        client_status=1
        if await_listener 60 "$port"; then
            timeout 300 ibv_rc_pingpong -d rxe1 -g "$g1" -p "$port" -n 1000 $flag "$a" > "$out/rc-$mode-client.txt" 2>&1
            client_status=$?
        else
            echo "the server never listened on $port"
        fi
        wait "$server"
        server_status=$?
        cat "$out/rc-$mode-server.txt" "$out/rc-$mode-client.txt"
        # 1000 messages each way: each end's veth must have sent at least that many packets, which
        # shows the traffic crossed the pair rather than taking rxe's local loopback path.
        tx0=$(( $(cat /sys/class/net/veth0/statistics/tx_packets) - tx0 ))
        tx1=$(( $(cat /sys/class/net/veth1/statistics/tx_packets) - tx1 ))
        echo "packets sent meanwhile: veth0 $tx0, veth1 $tx1"
        if [ "$server_status" -eq 0 ] && [ "$client_status" -eq 0 ] \
            && grep -q '1000 iters in' "$out/rc-$mode-client.txt" && [ "$tx0" -ge 1000 ] && [ "$tx1" -ge 1000 ]; then
            PASSED=$((PASSED + 1))
        else
            echo "FAIL: $mode: server exit $server_status, client exit $client_status, veth0 sent $tx0, veth1 sent $tx1"
            FAILED=$((FAILED + 1))
        fi
    done
}

stage_probe() {
    local address device status
    for pair in "$a rxe0"; do
        read -r address device <<< "$pair"
        echo "== ofl probe --ip $address"
        "$java" --enable-native-access=ALL-UNNAMED \
            -cp "$REPO/ofl-probe/target/ofl-probe-0.1.0-SNAPSHOT.jar:$(cat "$REPO/ofl-probe/target/classpath.txt")" \
            dev.ofl.probe.Probe --library "$real" --ip "$address" > "$out/probe-$address.txt" 2>&1
        status=$?
        cat "$out/probe-$address.txt"
        if [ "$status" -eq 0 ] && grep -q "$device" "$out/probe-$address.txt"; then
            PASSED=$((PASSED + 1))
        else
            echo "FAIL: probe --ip $address exited $status or did not name $device"
            FAILED=$((FAILED + 1))
        fi
    done
}

# The test class path without its JUnit jars: the console launcher brings the same versions, and two
# copies of the Jupiter engine refuse to start.
test_classpath() {
    local entries
    entries="$(tr ':' '\n' < "$TEST_CLASSPATH" | grep -vE '/org/(junit|opentest4j|apiguardian)/' | paste -sd:)"
    echo "$JUNIT_JAR:$REPO/ofl-ffm-verbs/target/test-classes:$REPO/ofl-ffm-verbs/target/classes:$entries"
}

# stage_c_tests NAME ENV...: softverbs' C tests that hold on any device (ofl-softverbs/test, built
# against the system's libibverbs by `make device-tests`), run with ENV; each "ok" / "not ok" line
# counts, "excluded" lines name the softverbs-only tests and why. Every binary is bounded.
stage_c_tests() {
    local name="$1" t status lines
    shift
    : > "$out/$name.each"
    for t in test_verbs test_rc test_retry test_stress; do
        local t0
        t0="$(now)"
        # test_stress: 40 rounds instead of 500 (under TCG 100 take 21 s on rxe, 89 s on softverbs).
        lines="$(env SV_TEST_ROUNDS=40 "$@" timeout 600 "$REPO/ofl-softverbs/target/device/bin/$t" 2>&1)"
        status=$?
        echo "== $t: exit $status after $(since "$t0") s"
        echo "$lines"
        grep -E '^(ok|not ok|excluded) - ' <<< "$lines" >> "$out/$name.each"
        PASSED=$((PASSED + $(grep -c '^ok - ' <<< "$lines")))
        local bad
        bad="$(grep -c '^not ok - ' <<< "$lines")"
        FAILED=$((FAILED + bad))
        if [ "$status" -ne 0 ] && [ "$bad" -eq 0 ]; then
            echo "not ok - $t exited with status $status" | tee -a "$out/$name.each"
            FAILED=$((FAILED + 1))
        fi
    done
}

stage_c_tests_rxe() {
    local g
    g="$(gid_index rxe0 "$a")" || { echo "no RoCE v2 GID for $a on rxe0"; FAILED=1; return; }
    echo "rxe0, port 1, GID index $g (::ffff:$a)"
    stage_c_tests c_tests SV_TEST_DEVICE=rxe0 SV_TEST_PORT=1 SV_TEST_GID_INDEX="$g"
    cp "$out/c_tests.each" "$out/c_tests.tests"
}

# The same binaries over softverbs (its library first on the loader's path), then where the two
# devices' outcomes differ, test by test. softverbs-only tests are excluded on rxe, so they are
# compared only where both ran.
stage_c_tests_softverbs() {
    mkdir -p /tmp/sv
    stage_c_tests c_tests_softverbs LD_LIBRARY_PATH="$REPO/ofl-softverbs/target/lib" SOFTVERBS_DIR=/tmp/sv
    grep -v '^ok - ' "$out/c_tests_softverbs.each" > "$out/c_tests_softverbs.tests"
    [ -f "$out/c_tests.each" ] || return 0
    local both differ
    both="$(awk 'FNR == 1 { f++ } $1 != "excluded" { n = $0; sub(/^(ok|not ok) - /, "", n); r[f, n] = $1 $2; seen[f, n] = 1 }
        END { for (k in seen) { split(k, p, SUBSEP); if (p[1] == 1 && seen[2, p[2]]) print p[2], r[1, p[2]], r[2, p[2]] } }' \
        "$out/c_tests.each" "$out/c_tests_softverbs.each")"
    differ="$(awk '$2 != $3' <<< "$both")"
    echo "agreement - rxe and softverbs ran $(grep -c . <<< "$both") tests both; they differ on $(grep -c . <<< "$differ")" >> "$out/c_tests_softverbs.tests"
    echo "rxe and softverbs ran $(grep -c . <<< "$both") tests both; they differ on $(grep -c . <<< "$differ")"
    if [ -n "$differ" ]; then
        awk '{ printf "differs - %s (rxe: %s, softverbs: %s)\n", $1, $2 == "ok-" ? "ok" : "not ok", $3 == "ok-" ? "ok" : "not ok" }' \
            <<< "$differ" | tee -a "$out/c_tests_softverbs.tests"
    fi
    # No failure of its own: a difference is a "not ok" in one of the two stages already.
}

# The Java test classes run in one JVM (a JVM and JUnit start up in minutes under TCG); each class
# is then a stage of its own, counted from JUnit's XML report. Tests tagged softverbs-limits need a
# queue pair softverbs refuses and rxe grants (LinkTest says which), those tagged softverbs-hooks a
# fault only softverbs' hooks make (a fatal device error); both are left out here. The port of
# RdmaPortEventsTest goes down and up with link.sh. LinkFaultMatrixTest puts netem on both veths
# (or takes veth1 down) with the client bound to $b, so that its packets cross the pair; it prints
# its table into java.log (shown below) and writes faults.json.
java_classes=(RdmaConformanceTest LateWriteTest TwoProcessTest RdmaGidDriftTest RdmaPayloadReadTest LinkTest
              HostileRdmaServerTest RdmaQueuePairTest RdmaWakeUpTest RdmaStagingReturnTest RdmaPortEventsTest
              LinkFaultMatrixTest)

stage_java() {
    local selectors=() class status
    for class in "${java_classes[@]}"; do
        want "$class" && selectors+=(--select-class "dev.ofl.verbs.rdma.$class")
    done
    [ ${#selectors[@]} -gt 0 ] || return 0
    # rdma.retryCount 6: rxe reads 7 as "retry forever", so a dead peer would never be reported.
    "$java" --enable-native-access=ALL-UNNAMED \
        -Dofl.verbs.library="$real" \
        -Dofl.test.timeScale="$TIME_SCALE" \
        -Dofl.test.address="$a" \
        -Dofl.test.rdma.retryCount=6 \
        -Dofl.test.gidDrift.address="$drift" \
        -Dofl.test.gidRenumber="/bin/bash $REPO/tools/rxe-guest/gid.sh renumber" \
        -Dofl.test.portDown="/bin/bash $REPO/tools/rxe-guest/link.sh down" \
        -Dofl.test.portUp="/bin/bash $REPO/tools/rxe-guest/link.sh up $a $b" \
        -Dofl.test.faults.netdevs=veth1,veth0 \
        -Dofl.test.faults.clientAddress="$b" \
        -Dofl.test.faults.linkUp="/bin/bash $REPO/tools/rxe-guest/link.sh up $a $b" \
        -Dofl.test.faults.report="$out/faults.json" \
        -Dofl.test.faults.resources="rdma resource show" \
        -cp "$(test_classpath)" \
        org.junit.platform.console.ConsoleLauncher execute \
        --disable-banner --disable-ansi-colors --details=tree --fail-if-no-tests --exclude-tag softverbs-limits --exclude-tag softverbs-hooks \
        --reports-dir "$out/junit" "${selectors[@]}" > "$out/java.log" 2>&1
    status=$?
    echo "the console launcher exited $status after $(since "$JAVA_T0") s" >> "$out/java.log"
}

# shellcheck source=../junit-report.sh
. "$REPO/tools/junit-report.sh"

# The report's class name for CLASS: the conformance suite's tests are @Nested behaviour classes,
# reported under the suite's own name (OflConformanceSuite$EchoAndRanges, ...); in this JVM only
# RdmaConformanceTest runs them.
report_match() {
    if [ "$1" = RdmaConformanceTest ]; then echo 'dev.ofl.conformance.OflConformanceSuite$'; else echo "dev.ofl.verbs.rdma.$1\""; fi
}

# stage_demo LIBRARY ADDRESS: PingPong over the rdma backend, the cases up to 1 MiB responses (the
# larger ones take minutes each under TCG), few iterations; a row passes when it has no mismatched
# byte and no error.
stage_demo() {
    local library="$1" address="$2" status
    "$java" --enable-native-access=ALL-UNNAMED -Dofl.verbs.library="$library" \
        -cp "$REPO/ofl-bench/target/ofl-bench-0.1.0-SNAPSHOT.jar:$(cat "$REPO/ofl-bench/target/classpath.txt")" \
        dev.ofl.bench.PingPong --backend rdma --bind "$address" --iterations 20 --warmup 5 \
        --cases echo64,rows288,rows4096 --wait busy,blocking --response copy \
        --timeout-ms 60000 --connect-timeout-ms "$(awk -v s="$TIME_SCALE" 'BEGIN { printf "%d", 5000 * s }')"
    status=$?
    local log="$out/$DEMO_NAME.log"
    PASSED="$(awk '$1 ~ /^rdma/ && NF >= 14 && $(NF-1) == 0 && $NF == 0' "$log" | wc -l)"
    FAILED="$(awk '$1 ~ /^rdma/ && NF >= 14 && ($(NF-1) != 0 || $NF != 0)' "$log" | wc -l)"
    if [ "$status" -ne 0 ] && [ "$FAILED" -eq 0 ]; then
        echo "FAIL: PingPong exited $status"
        FAILED=1
    fi
}

say "guest up after $(now) s (uptime)"
t0="$(now)"
if setup > "$out/setup.log" 2>&1; then
    echo "setup 1 0 $(since "$t0")" >> "$out/results"
    say "rxe0 and rxe1 ready $(now) s after boot"
else
    echo "setup 0 1 $(since "$t0")" >> "$out/results"
    say "setup failed:"
    cat "$out/setup.log"
    touch "$out/done"
    exit 1
fi
run_stage ibv_devinfo stage_devinfo
run_stage ibv_rc_pingpong stage_rc_pingpong
run_stage probe stage_probe
run_stage c_tests stage_c_tests_rxe
run_stage c_tests_softverbs stage_c_tests_softverbs
JAVA_T0="$(now)"
stage_java
for class in "${java_classes[@]}"; do
    want "$class" || continue
    read -r p f seconds skipped <<< "$(junit_counts "$out/junit/TEST-junit-jupiter.xml" "$(report_match "$class")")"
    # Nothing here may be skipped: a skip in the guest is a test that did not run where it should.
    f=$((f + skipped))
    echo "$class $p $f $seconds" >> "$out/results"
    say "$class: $p passed, $f failed ($seconds s in tests)"
    if [ "$f" -ne 0 ]; then
        junit_failures "$out/junit/TEST-junit-jupiter.xml" "$(report_match "$class")" | while IFS= read -r line; do say "  $line"; done
        say "---- java.log, its failures ----"
        grep -n -A12 -E "✘|MethodSource|Exception|Error:" "$out/java.log" | head -n 200
        say "---- end of java.log ----"
    fi
done
[ -f "$out/java.log" ] && say "$(tail -n1 "$out/java.log")"
if [ -f "$out/java.log" ] && grep -q '^link fault matrix' "$out/java.log"; then
    grep -E '^(link fault matrix|fault +back|[A-Z_0-9]+ +(rdma|tcp) )' "$out/java.log" \
        | while IFS= read -r line; do say "  $line"; done
fi
DEMO_NAME=demo run_stage demo stage_demo "$real" "$a"
DEMO_NAME=demo_softverbs run_stage demo_softverbs stage_demo "$softverbs" 127.0.0.1
say "all stages done after $(now) s (uptime)"
touch "$out/done"
