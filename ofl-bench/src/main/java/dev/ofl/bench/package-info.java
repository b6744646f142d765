/**
 * The ofl ping-pong tool ({@link dev.ofl.bench.PingPong}): byte-checked round trips between a server
 * and a client in one JVM, reported as latency percentiles with the conditions beside them.
 */
package dev.ofl.bench;
