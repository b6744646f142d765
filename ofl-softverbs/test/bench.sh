#!/bin/sh
# Prints softverbs performance figures: RDMA WRITE throughput and 64-byte ping-pong latency, plus
# rdma-core's own ibv_rc_pingpong over softverbs. Informational only: nothing is asserted.
# Usage: bench.sh <libdir> <bindir>
LIB=$1 BIN=$2
export LD_LIBRARY_PATH=$LIB
echo "# $(nproc) cores, load: $(cut -d' ' -f1-3 /proc/loadavg)"
timeout 120 "$BIN/bench_write" $((12 << 20)) 40
PORT=$((20000 + $$ % 20000))
timeout 60 ibv_rc_pingpong -g 1 -p $PORT -s 64 -n 20000 >/dev/null 2>&1 &
sleep 0.3
echo "# ibv_rc_pingpong -g 1 -s 64 -n 20000 (polling):"
timeout 60 ibv_rc_pingpong -g 1 -p $PORT -s 64 -n 20000 127.0.0.1 | tail -1
wait
