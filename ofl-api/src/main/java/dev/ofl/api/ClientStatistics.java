package dev.ofl.api;

/**
 * Counters of a client since it was created, across reconnects, for monitoring: what the seed's
 * operators compared with the server's counters ("0 fallbacks and 0 transport errors"). A snapshot:
 * each value was read once, not all at the same instant. Safe to take from any thread.
 *
 * @param calls requests submitted (tickets issued)
 * @param ok awaits that returned {@link OflStatus#OK}
 * @param refused awaits that returned {@link OflStatus#REFUSED}
 * @param handlerFailures awaits that returned {@link OflStatus#HANDLER_FAILED}
 * @param timeouts awaits that returned {@link OflStatus#TIMED_OUT}; each broke the connection
 * @param peerLosses connections broken because the server went away (closed, died, unreachable)
 * @param transportFailures connections broken because the transport failed (a send, a poll, a
 *     work completion in error)
 * @param protocolErrors connections broken because the server broke the protocol
 * @param interrupts connections broken because the thread awaiting a response was interrupted
 * @param reconnects successful {@link OflClient#reconnect()} calls
 * @param freedRegions connections broken because the memory of a region that a request in flight
 *     places its response in was freed by the caller
 * @param linkFailures connections broken because the local device reported that the link itself
 *     failed: its port went down, the device failed, or the connection's queue pair or completion
 *     queue failed fatally (RDMA only; the peer may be fine)
 */
public record ClientStatistics(long calls, long ok, long refused, long handlerFailures, long timeouts,
        long peerLosses, long transportFailures, long protocolErrors, long interrupts, long reconnects,
        long freedRegions, long linkFailures) {

    /**
     * Connections broken for any cause other than the caller's own {@code reconnect()} or
     * {@code close()}: timeouts, peer losses, transport failures, protocol errors, interrupts,
     * freed regions and link failures.
     *
     * @return the sum
     */
    public long brokenConnections() {
        return timeouts + peerLosses + transportFailures + protocolErrors + interrupts + freedRegions + linkFailures;
    }
}
