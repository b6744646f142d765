/**
 * JMH benchmarks: the TCP round trip (run with {@code -prof gc} to prove that the client and server
 * hot paths allocate nothing per call) and the header codec's CPU cost.
 */
package dev.ofl.bench.jmh;
