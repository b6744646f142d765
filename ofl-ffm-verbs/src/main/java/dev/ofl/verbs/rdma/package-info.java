/**
 * The RDMA backend of ofl: RC queue pairs through libibverbs, requests as SENDs into pre-posted
 * receive slots, responses as RDMA WRITEs into the client's ranges followed by the 64-byte
 * completion header by WRITE WITH IMMEDIATE on the same queue pair. Found by the service loader as
 * {@code "rdma"}; only {@link dev.ofl.verbs.rdma.RdmaBackend} is public.
 *
 * <p>Backend properties ({@link dev.ofl.api.ClientConfig#properties()},
 * {@link dev.ofl.api.ServerConfig#properties()}):
 * <ul>
 * <li>{@code rdma.device}: the device to use, for example {@code mlx5_0}; default: the one whose
 * GID table carries the local address</li>
 * <li>{@code rdma.gidIndex}: a GID index override; rejected unless it is the RoCE v2 entry of the
 * local address</li>
 * <li>{@code rdma.timeout}: the QP's local ACK timeout exponent, 4.096 µs × 2^n (default 14)</li>
 * <li>{@code rdma.retryCount}: transport retries before a dead peer is reported, 0..6 (default 6:
 * with the default timeout a write to a peer that stopped answering fails after
 * 7 × 67.1 ms ≈ 0.47 s). 7 is refused: some providers, the kernel's soft-RoCE driver rxe among
 * them, read it as "retry for ever", so a dead peer would never be reported.</li>
 * </ul>
 */
package dev.ofl.verbs.rdma;
