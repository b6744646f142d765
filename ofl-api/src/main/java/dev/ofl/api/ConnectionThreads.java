package dev.ofl.api;

/**
 * Which kind of thread serves each accepted server connection. Busy polling always holds a
 * platform thread per connection; this choice matters in {@link WaitMode#BLOCKING} mode, where a
 * connection spends most of its life waiting for the next request.
 *
 * <p>Measure before choosing {@link #PLATFORM}: {@code ./ofl bench compare} prints both.
 */
public enum ConnectionThreads {
    /**
     * A virtual thread per connection where the backend waits only in ways that free its carrier
     * (TCP and RDMA in blocking mode): an idle connection costs no platform thread, so many idle
     * clients are cheap. A wake-up goes through the JDK's scheduler, which adds latency and
     * allocates a little per request. The default.
     */
    VIRTUAL,
    /**
     * A platform thread per connection in every wait mode, at the cost of a kernel thread (and its
     * stack) per connection, and per HELLO being decided (at most {@code maxPendingHandshakes} at
     * once). Over TCP a request wakes the connection's thread directly in the kernel, with no
     * hand-off through the JDK's poller and scheduler: a lower round trip and no allocation per
     * request. Over RDMA the process's completion poller still wakes the parked thread, so only
     * the scheduler's part (and its allocation) is saved. Suits the direct-link deployments of a
     * few long-lived clients.
     */
    PLATFORM
}
