/**
 * JMH benchmarks: the TCP and RDMA round trips (run with {@code -prof gc} to prove that the client
 * and server hot paths allocate nothing per call), the CPU cost of the pieces of an RDMA client call
 * without waiting for a peer, and the header codec's CPU cost. The RDMA benchmarks need
 * {@code -Dofl.verbs.library=...} on machines without a NIC (softverbs); see
 * {@link dev.ofl.bench.jmh.RdmaRoundTripBenchmark} for the command.
 */
package dev.ofl.bench.jmh;
