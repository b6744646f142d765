#!/bin/bash
# Takes the guest's veth link down and up, for RdmaPortEventsTest (ofl.test.portDown / portUp) and
# LinkFaultMatrixTest (ofl.test.faults.linkUp):
#   link.sh down [NETDEV]   NETDEV (default veth0) goes down: its rxe port, and the other end's as
#                           its veth loses the carrier, go DOWN and every context of them hears
#                           IBV_EVENT_PORT_ERR
#   link.sh up A B          both veths come back, the policy routes between A (veth0) and B (veth1)
#                           that the kernel dropped with them are put back, and the call returns once
#                           both ports are ACTIVE with their RoCE v2 GIDs (60 s at most)
set -u
# shellcheck source=gid.sh
. "$(dirname "$0")/gid.sh"
# shellcheck source=common.sh
. "$(dirname "$0")/common.sh"

case "${1:-}" in
down)
    ip link set "${2:-veth0}" down
    ;;
up)
    a="$2" b="$3"
    ip link set veth0 up &&
    ip link set veth1 up &&
    ip route replace "$b/32" dev veth0 src "$a" table 100 &&
    ip route replace "$a/32" dev veth1 src "$b" table 101 || exit 1
    await_gids 60 rxe0 "$a" rxe1 "$b" || { echo "link.sh: rxe0/rxe1 not active with their GIDs in 60 s" >&2; exit 1; }
    ;;
*)
    echo "usage: link.sh down [NETDEV] | up A B" >&2
    exit 2
    ;;
esac
