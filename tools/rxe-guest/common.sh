#!/bin/bash
# Shell helpers of the guest scripts (guest.sh, pair-guest.sh), sourced after $out/env: the stage
# runner, the guest's clock, and bounded waits. Every wait here has a limit.

say() { echo "rxe-guest: $*"; }
now() { cut -d' ' -f1 /proc/uptime; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }
want() { [ -z "$STAGES" ] || [[ " $STAGES " == *" $1 "* ]]; }

# run_stage NAME FUNCTION...: the function sets PASSED and FAILED; its output goes to NAME.log.
# Its line in $out/results is "NAME passed failed seconds".
run_stage() {
    local name="$1"
    shift
    want "$name" || return 0
    local t0
    t0="$(now)"
    PASSED=0
    FAILED=0
    "$@" > "$out/$name.log" 2>&1
    local seconds
    seconds="$(since "$t0")"
    echo "$name $PASSED $FAILED $seconds" >> "$out/results"
    say "$name: $PASSED passed, $FAILED failed ($seconds s)"
    # A stage that counts named checks lists them, one line each.
    if [ -f "$out/$name.tests" ]; then
        while IFS= read -r line; do say "  $line"; done < "$out/$name.tests"
    fi
    if [ "$FAILED" -ne 0 ]; then
        say "---- last lines of $name.log ----"
        tail -n 80 "$out/$name.log"
        say "---- end of $name.log ----"
    fi
}

# await_listener SECONDS PORT: waits until something listens on TCP PORT here.
await_listener() {
    local deadline=$(( $(date +%s) + $1 )) port="$2"
    until [ -n "$(ss -Hltn "sport = :$port")" ]; do
        [ "$(date +%s)" -lt "$deadline" ] || return 1
        sleep 0.2
    done
}

# await_gids SECONDS DEVICE ADDRESS...: waits until each DEVICE's port 1 is ACTIVE with the RoCE v2
# GID of its ADDRESS (pairs of arguments). The kernel fills GID tables from a work queue after the
# address event, so `ip` returning is not enough.
await_gids() {
    local deadline=$(( $(date +%s) + $1 ))
    shift
    local pairs=("$@") i
    while :; do
        for (( i = 0; i < ${#pairs[@]}; i += 2 )); do
            gid_index "${pairs[i]}" "${pairs[i + 1]}" > /dev/null \
                && grep -q ACTIVE "/sys/class/infiniband/${pairs[i]}/ports/1/state" || break
        done
        [ "$i" -ge ${#pairs[@]} ] && return 0
        [ "$(date +%s)" -lt "$deadline" ] || return 1
        sleep 0.2
    done
}
