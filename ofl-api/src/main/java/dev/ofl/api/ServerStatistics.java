package dev.ofl.api;

/**
 * Counters of a server since it started, for monitoring. A snapshot: each value was read once,
 * not all at the same instant.
 *
 * @param connectionsAccepted clients that completed the bootstrap
 * @param connectionsRefused clients refused in the bootstrap (mismatch, cap, malformed HELLO...)
 * @param requests requests handed to the handler
 * @param refusals requests the handler refused (non-zero status)
 * @param handlerFailures requests whose handler threw
 * @param protocolViolations connections closed because a client broke the protocol or a limit
 * @param undeliveredResponses responses the client's side did not accept: its connection was gone
 *     or, for RDMA, its queue pair was in error (a client that timed out) so the writes were
 *     rejected and nothing was placed, or the link lost packets until the write's retries ran out
 *     (what the client acknowledged before was placed; its call fails); on TCP, only responses whose writing failed (a response that
 *     fitted in the socket buffers before the client's reset arrived is not counted), so there the
 *     count is a lower bound (PROTOCOL.md §6)
 * @param busyResponses requests answered BUSY without running the handler: no response staging
 *     was free within {@link ServerConfig#stagingTimeout()} (over RDMA, also none to read a long
 *     payload into), or the staging memory could not be allocated (logged as a WARN); each is also
 *     a refusal at its client
 * @param sendTimeouts connections broken because a transfer with the client moved no bytes for
 *     {@link ServerConfig#sendTimeout()} (or, for a response while others waited for staging, for
 *     half the staging timeout): the client stopped reading, or stopped sending the rest of a
 *     request, or was stopped; one broken while a response went out also counts it as undelivered
 * @param linkFailures connections broken because the server's device reported that the link
 *     itself failed: its port went down, the device failed, or the connection's queue pair or
 *     completion queue failed fatally (RDMA only)
 */
public record ServerStatistics(long connectionsAccepted, long connectionsRefused, long requests, long refusals,
        long handlerFailures, long protocolViolations, long undeliveredResponses, long busyResponses,
        long sendTimeouts, long linkFailures) {
}
