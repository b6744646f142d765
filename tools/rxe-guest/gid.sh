#!/bin/bash
# GID table helpers of the rxe guest. Sourced by guest.sh for gid_index; run as
#   gid.sh renumber ADDRESS STEP
# (RdmaGidDriftTest's ofl.test.gidRenumber command) it renumbers rxe0's table under ADDRESS the way
# an administrator's address changes do: ADDRESS (a /32 on veth0) is removed, a filler address
# 10.55.0.(100 + STEP) is added and takes a free slot, and ADDRESS is added back, so its RoCE v2
# GID comes back at another index, which is printed as the last line. Every wait is bounded.

# The sysfs spelling of the RoCE v2 GID ::ffff:A.B.C.D, and its index on DEVICE's port 1.
gid_index() {
    local device="$1" address="$2" port="/sys/class/infiniband/$1/ports/1" wanted g i
    wanted="0000:0000:0000:0000:0000:ffff:$(IFS=. read -r w x y z <<< "$address"; printf '%02x%02x:%02x%02x' "$w" "$x" "$y" "$z")"
    # The shell's own read, not cat: rxe's table has 1024 entries, and a process per entry takes
    # seconds under emulation.
    local value type
    for g in "$port"/gids/*; do
        i="${g##*/}"
        { read -r value < "$g"; } 2>/dev/null || continue
        [ "$value" = "$wanted" ] || continue
        { read -r type < "$port/gid_attrs/types/$i"; } 2>/dev/null || continue
        if [ "$type" = "RoCE v2" ]; then
            echo "$i"
            return 0
        fi
    done
    return 1
}

# await_gid present|absent DEVICE ADDRESS: waits up to 30 s for the GID table to show (or drop) it.
# The kernel updates GID tables from a work queue after the address event, so `ip` returning is
# not enough.
await_gid() {
    local want="$1" device="$2" address="$3" deadline=$(( $(date +%s) + 30 ))
    while :; do
        if gid_index "$device" "$address" > /dev/null; then
            [ "$want" = present ] && return 0
        else
            [ "$want" = absent ] && return 0
        fi
        [ "$(date +%s)" -lt "$deadline" ] || { echo "the GID of $address is not $want on $device after 30 s" >&2; return 1; }
        sleep 0.1
    done
}

renumber() {
    local address="$1" step="$2" filler before
    filler="10.55.0.$((100 + step))"
    before="$(gid_index rxe0 "$address")" || { echo "$address has no RoCE v2 GID on rxe0" >&2; return 1; }
    ip addr del "$address/32" dev veth0 && await_gid absent rxe0 "$address" &&
        ip addr add "$filler/32" dev veth0 && await_gid present rxe0 "$filler" &&
        ip addr add "$address/32" dev veth0 && await_gid present rxe0 "$address" || return 1
    echo "$address moved from GID index $before; filler $filler at $(gid_index rxe0 "$filler")" >&2
    gid_index rxe0 "$address"
}

if [ "${1:-}" = renumber ] && [ $# -eq 3 ]; then
    export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
    renumber "$2" "$3"
    exit
elif [ "${BASH_SOURCE[0]}" = "$0" ]; then
    echo "usage: gid.sh renumber ADDRESS STEP" >&2
    exit 2
fi
