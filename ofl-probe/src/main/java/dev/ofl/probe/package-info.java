/**
 * The {@code ofl probe} command: {@link dev.ofl.probe.Probe} lists every RDMA device with its
 * ports and GID table, and answers which device, port and GID index ofl would use for a local
 * IPv4 address, through the same bindings and GID selection as the RDMA backend. It only reads:
 * it opens devices and queries them, and never modifies anything.
 */
package dev.ofl.probe;
