package dev.ofl.api;

import java.lang.foreign.MemorySegment;

/**
 * One client connection to one server connection.
 *
 * <p><b>Use:</b> register destination regions once ({@link #registerRegion}); per request, write the
 * payload in place into {@link #requestPayload()}, describe where the response goes with
 * {@link ResponseRanges}, {@link #submit} it and {@link #await} its ticket against a deadline.
 * {@link #call} does both.
 *
 * <p><b>Threading:</b> a client is used by one thread at a time; it is not thread-safe. It may
 * change hands between calls (with a happens-before edge, such as a queue). A thread that calls
 * {@link #submit}, {@link #await}, {@link #reconnect}, {@link #registerRegion} or {@link #close()}
 * while another thread is inside one of them gets an {@link IllegalStateException} naming both
 * threads and leaves the other call undisturbed. The check is a plain field, free on the hot path,
 * so it catches such an overlap when it can see it (a second thread arriving while the first waits
 * in {@code await}, the usual case), not every race.
 * Requests on one connection are handled by the server in submission order.
 *
 * <p><b>Timeouts are fatal:</b> when {@code await} returns {@link OflStatus#TIMED_OUT}, the
 * connection was broken before it returned, so no late byte lands in any range afterwards; the
 * client then refuses work with {@link OflConnectionException} until {@link #reconnect()}.
 *
 * <p><b>Ownership:</b> the client owns its request payload areas (native memory, freed by
 * {@link #close()}) and the regions it allocates ({@link #allocateRegion}, the safe default); the
 * caller owns regions it registers ({@link #registerRegion}) and must keep their memory alive until
 * the client is closed. A region found freed is refused at {@link #submit}, and breaks the
 * connection at {@link #await} if a request in flight places its response there (over RDMA the
 * device may write into it until then: see docs/GUIDE.md, section 5).
 */
public interface OflClient extends AutoCloseable {

    /**
     * Registers host memory as a destination for response bytes. Registration happens once; the
     * region stays valid across {@link #reconnect()} (a backend re-registers it with the new
     * connection) until the client is closed.
     *
     * @param segment a native (off-heap) segment the caller keeps alive until the client is closed
     * @return the region handle to name in {@link ResponseRanges}
     * @throws IllegalArgumentException if the segment is not native
     * @throws OflException if the backend cannot register it (for RDMA the message names the fix,
     *     for example the memlock limit)
     */
    Region registerRegion(MemorySegment segment);

    /**
     * Allocates host memory owned by this client and registers it as a destination for response
     * bytes: the safe default. The memory lives as long as the client: {@link #close()} frees it
     * once the transport has released everything (over RDMA: the queue pair in error and drained,
     * the region deregistered), so no response byte can ever land in memory handed to something
     * else. The caller reads and writes it through {@link Region#segment()} until then; after
     * {@code close()} every access to that segment throws. Page-aligned, zeroed.
     *
     * @param bytes the region's size, at least 1
     * @return the region handle, valid across {@link #reconnect()} until the client is closed
     * @throws IllegalArgumentException if {@code bytes} is not positive
     * @throws OflException if the backend cannot register it (for RDMA the message names the fix,
     *     for example the memlock limit)
     * @throws OutOfMemoryError if the memory cannot be allocated
     */
    Region allocateRegion(long bytes);

    /**
     * The payload area {@link #submit} sends from: write the request there, in place, then submit
     * with its length. One area for the client's life: the same segment, at the same address, for
     * every request and across reconnects, so it may be kept; {@code submit} takes its bytes before
     * it returns, and the next request may be written at once, with earlier ones still in flight.
     * {@code submit} copies the payload's bytes into the request's send slot, and never writes the
     * area: bytes past one request's length stay as they were for the next.
     *
     * @return a segment of {@link Limits#maxRequestBytes()} bytes
     */
    MemorySegment requestPayload();

    /**
     * Sends a request whose payload was written into {@link #requestPayload()}.
     *
     * @param op the operation code, passed to the server's handler as is
     * @param generation the caller's generation value, passed to the handler as is
     * @param payloadLength how many bytes of the payload area to send, {@code 0..maxRequestBytes}
     * @param ranges where the response goes; copied, so the caller may reuse it at once
     * @return a ticket ({@code >= 0}) for {@link #await}, or {@link OflStatus#IN_FLIGHT_FULL}
     *     when the negotiated number of requests is in flight (nothing was sent)
     * @throws IllegalArgumentException if the payload length or ranges exceed the negotiated
     *     limits, or a range's region is not registered with this client (nothing was sent)
     * @throws IllegalStateException if a range's region memory was freed (nothing was sent)
     * @throws OflConnectionException if the connection is broken, or sending stalled for longer
     *     than {@link ClientConfig#connectTimeout()} (the client is then broken)
     * @throws IllegalStateException if the client is closed
     */
    long submit(int op, long generation, int payloadLength, ResponseRanges ranges);

    /**
     * Waits for a ticket's outcome until a deadline.
     *
     * @param ticket a ticket from {@link #submit} not awaited before
     * @param deadlineNs the instant, on {@link #clock()}, after which to give up
     * @param completion filled with the outcome
     * @return {@link OflStatus#OK}, {@link OflStatus#REFUSED}, {@link OflStatus#HANDLER_FAILED},
     *     {@link OflStatus#BUSY} (the server had no staging memory; nothing ran) or
     *     {@link OflStatus#TIMED_OUT} (the connection is then broken)
     * @throws IllegalArgumentException if the ticket is not outstanding, or the deadline lies more
     *     than 60 s before the clock (most likely a timeout passed where a deadline belongs; nothing
     *     is broken and the ticket stays outstanding)
     * @throws IllegalStateException if the client is closed
     * @throws OflConnectionException if the connection broke (peer death, protocol violation) or
     *     was broken before
     * @throws IllegalStateException if the memory of a region that a request in flight places its
     *     response in was freed: the connection was broken first
     */
    int await(long ticket, long deadlineNs, Completion completion);

    /**
     * Looks once, without waiting, whether a ticket's outcome has arrived: {@link #await(long, long,
     * Completion)} that returns {@link OflStatus#PENDING} instead of waiting. For a thread that
     * drives several tickets (or other work) at once and waits in its own way between looks. A
     * deadline that has passed is handled as {@code await} handles it: the connection is broken
     * first, then {@link OflStatus#TIMED_OUT} is returned, so nothing late lands.
     *
     * @param ticket a ticket from {@link #submit} not awaited before
     * @param deadlineNs the instant, on {@link #clock()}, after which the ticket has timed out
     * @param completion filled with the outcome, unless {@link OflStatus#PENDING} is returned
     * @return {@link OflStatus#PENDING} (nothing yet; the ticket stays outstanding), or what
     *     {@code await} returns
     * @throws IllegalArgumentException as {@code await}
     * @throws IllegalStateException as {@code await}
     * @throws OflConnectionException as {@code await}
     */
    int poll(long ticket, long deadlineNs, Completion completion);

    /**
     * Waits for a ticket's outcome for at most a timeout: {@link #await(long, long, Completion)}
     * with the deadline {@code clock().nanoTime() + timeout}. For code off the hot path: converting
     * the {@code Duration} costs a little; the {@code long} form allocates nothing and reads no
     * clock of its own.
     *
     * @param ticket a ticket from {@link #submit} not awaited before
     * @param timeout how long to wait; longer than about 292 years is as good as for ever
     * @param completion filled with the outcome
     * @return as {@link #await(long, long, Completion)}
     */
    default int await(long ticket, java.time.Duration timeout, Completion completion) {
        return await(ticket, deadlineAfter(timeout), completion);
    }

    /**
     * Submits and awaits one request: {@code submit} then {@code await}.
     *
     * @param op the operation code
     * @param generation the caller's generation value
     * @param payloadLength bytes of {@link #requestPayload()} to send
     * @param ranges where the response goes
     * @param timeoutNs how long to wait, in nanoseconds
     * @param completion filled with the outcome
     * @return as {@link #await}; {@link OflStatus#IN_FLIGHT_FULL} if earlier tickets fill the
     *     in-flight capacity
     * @throws IllegalArgumentException if {@code timeoutNs} is negative (nothing was sent)
     */
    default int call(int op, long generation, int payloadLength, ResponseRanges ranges, long timeoutNs,
            Completion completion) {
        if (timeoutNs < 0) {
            throw new IllegalArgumentException("a timeout must be zero or more, was " + timeoutNs + " ns");
        }
        long deadlineNs = clock().nanoTime() + timeoutNs;
        long ticket = submit(op, generation, payloadLength, ranges);
        if (ticket < 0) {
            return (int) ticket;
        }
        return await(ticket, deadlineNs, completion);
    }

    /**
     * Submits and awaits one request with a timeout given as a {@code Duration}, for code off the
     * hot path: {@link #call(int, long, int, ResponseRanges, long, Completion)} with the timeout in
     * nanoseconds.
     *
     * @param op the operation code
     * @param generation the caller's generation value
     * @param payloadLength bytes of {@link #requestPayload()} to send
     * @param ranges where the response goes
     * @param timeout how long to wait; longer than about 292 years is as good as for ever
     * @param completion filled with the outcome
     * @return as {@link #await(long, long, Completion)}; {@link OflStatus#IN_FLIGHT_FULL} if earlier
     *     tickets fill the in-flight capacity
     */
    default int call(int op, long generation, int payloadLength, ResponseRanges ranges, java.time.Duration timeout,
            Completion completion) {
        long deadlineNs = deadlineAfter(timeout);
        long ticket = submit(op, generation, payloadLength, ranges);
        if (ticket < 0) {
            return (int) ticket;
        }
        return await(ticket, deadlineNs, completion);
    }

    /**
     * The deadline a timeout from now makes, on {@link #clock()}; saturated, so that a timeout of
     * centuries does not wrap round into the past.
     *
     * @param timeout a duration, zero or more
     * @return the deadline in nanoseconds
     * @throws IllegalArgumentException if the timeout is negative
     */
    default long deadlineAfter(java.time.Duration timeout) {
        if (timeout.isNegative()) {
            throw new IllegalArgumentException("a timeout must be zero or more, was " + timeout);
        }
        long nowNs = clock().nanoTime();
        long timeoutNs = java.util.concurrent.TimeUnit.NANOSECONDS.convert(timeout);
        return timeoutNs > Long.MAX_VALUE / 2 ? nowNs + Long.MAX_VALUE / 2 : nowNs + timeoutNs;
    }

    /**
     * Replaces a broken (or healthy) connection with a new one to the same server: a new bootstrap,
     * and for RDMA a new queue pair with every region registered again. Payload areas and regions
     * keep their addresses. Outstanding tickets are dropped.
     *
     * @throws OflException if the new connection cannot be made; the client stays broken
     */
    void reconnect();

    /**
     * Counters since the client was created, across reconnects: calls and their outcomes,
     * timeouts, broken connections by cause, reconnects. Unlike the other methods, safe to call
     * from any thread, for monitoring.
     *
     * @return a snapshot
     */
    ClientStatistics statistics();

    /**
     * Whether the connection is broken (timeout, peer loss, protocol violation) and needs
     * {@link #reconnect()}.
     *
     * @return {@code true} if broken
     */
    boolean isBroken();

    /**
     * How many tickets are outstanding: submitted and not yet awaited (or polled to an outcome).
     * Their responses may still land in their ranges until they are awaited, the connection is
     * broken, or {@link #reconnect()} drops them.
     *
     * @return how many; after a timeout or a lost peer they are counted until awaited or dropped by
     *     a reconnect, although the broken connection lets none of them land
     */
    int outstanding();

    /**
     * The limits negotiated with the server.
     *
     * @return the connection's limits
     */
    Limits limits();

    /**
     * The clock deadlines are measured on.
     *
     * @return the configured clock
     */
    NanoClock clock();

    /**
     * The backend serving this client.
     *
     * @return the backend's name, for example {@code "tcp"} or {@code "rdma"}
     */
    String backend();

    /**
     * Closes the connection and frees the payload areas. Idempotent. Outstanding tickets are
     * dropped; registered regions are released by the transport (the caller still owns and frees
     * their memory, after this returns).
     */
    @Override
    void close();
}
