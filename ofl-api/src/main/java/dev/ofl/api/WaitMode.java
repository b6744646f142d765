package dev.ofl.api;

/** How a client or server waits for the peer. */
public enum WaitMode {
    /**
     * Poll without sleeping until the work arrives or the deadline passes, with the configured
     * {@link IdleStrategy} between empty polls. Lowest latency; holds a core while waiting.
     */
    BUSY_POLL,
    /**
     * Sleep in the kernel until the work arrives or the deadline passes (TCP: readiness selection;
     * RDMA: the completion channel). Frees the core; adds wake-up latency.
     */
    BLOCKING
}
