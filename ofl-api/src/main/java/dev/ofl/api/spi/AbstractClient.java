package dev.ofl.api.spi;

import dev.ofl.api.ClientConfig;
import dev.ofl.api.Completion;
import dev.ofl.api.IdleStrategy;
import dev.ofl.api.Limits;
import dev.ofl.api.NanoClock;
import dev.ofl.api.OflClient;
import dev.ofl.api.OflConnectionException;
import dev.ofl.api.OflStatus;
import dev.ofl.api.Region;
import dev.ofl.api.ResponseRanges;
import dev.ofl.api.WaitMode;
import dev.ofl.api.wire.MessageHeader;
import dev.ofl.api.wire.WireStatus;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * What every client backend shares: tickets and send slots, the submit checks, the deadline-bound
 * await loop, the broken state and reconnect. A backend supplies the transport through the hooks:
 * connect, send, poll, wait, break and tear down.
 *
 * <p>Tickets number requests for the client's whole life; the wire sequence restarts at zero on
 * each connection (ticket = connection base + sequence). Slot {@code ticket % slots} holds a
 * request's send buffer and outcome; with more slots than may be in flight, the slot that
 * {@link #requestPayload()} hands out never belongs to an outstanding request (a backend whose
 * transport may still read a slot after submit returned, like RDMA, passes one slot more than may
 * be in flight; one that has written the whole request before submit returns, like TCP, need not).
 *
 * <p>Not thread-safe, like {@link OflClient}: one thread at a time.
 *
 * @param <S> the backend's slot type
 */
public abstract class AbstractClient<S extends AbstractClient.Slot> implements OflClient {
    /** One request's send buffer and outcome. Backends extend it with what their receive path needs. */
    public static class Slot {
        // Package-private rather than private: the client reaches them through its type variable.
        final MemorySegment message;
        final MemorySegment payload;
        long ticket = -1;
        boolean done;
        boolean awaited = true;
        int status;
        int handlerStatus;
        long length;
        long capacity;

        /**
         * Creates a slot over a send buffer.
         *
         * @param message the send buffer: header, payload area, range descriptors
         * @param maxRequestBytes the payload area's size
         */
        public Slot(MemorySegment message, int maxRequestBytes) {
            this.message = message;
            this.payload = message.asSlice(MessageHeader.LENGTH, maxRequestBytes);
        }

        /**
         * The send buffer.
         *
         * @return the whole message area
         */
        public final MemorySegment message() {
            return message;
        }

        /**
         * The response capacity of the request in this slot.
         *
         * @return the sum of its ranges' lengths
         */
        public final long capacity() {
            return capacity;
        }

        /** Resets the backend's per-request receive state; called when a request takes the slot. */
        protected void begin() {
        }
    }

    /** The client's settings. */
    protected final ClientConfig config;
    /** The negotiated limits (the client's proposal, which the server accepted). */
    protected final Limits limits;
    /** The deadline clock. */
    protected final NanoClock clock;
    /** What busy polling does between empty polls. */
    protected final IdleStrategy idle;
    /** How await waits. */
    protected final WaitMode waitMode;
    /** Registered regions, indexed by {@link Region#id()}. */
    protected final List<Region> regions = new ArrayList<>();
    private final S[] slots;
    private final RequestEncoder encoder = new RequestEncoder();
    private String brokenReason;
    private boolean closed;
    private long nextTicket;
    private long oldestTicket;
    private long receivingTicket;
    private long ticketBase;

    /**
     * Sets up the bookkeeping; the subclass constructor then calls {@link #connect()}.
     *
     * @param config the client's settings
     * @param slots at least {@code maxInFlight} slots
     */
    protected AbstractClient(ClientConfig config, S[] slots) {
        this.config = config;
        this.limits = config.limits();
        this.clock = config.clock();
        this.idle = config.idleStrategy();
        this.waitMode = config.waitMode();
        if (slots.length < limits.maxInFlight()) {
            throw new IllegalArgumentException(slots.length + " slots cannot hold " + limits.maxInFlight()
                    + " requests in flight");
        }
        this.slots = slots;
    }

    // ---- what a backend supplies

    /**
     * Makes a new connection (bootstrap included) and calls {@link #connected()} when it is ready.
     *
     * @throws dev.ofl.api.OflException if it cannot; nothing of it may stay open
     */
    protected abstract void connect();

    /**
     * How the backend names ranges to the server.
     *
     * @return the addressing of range descriptors
     */
    protected abstract RequestEncoder.RangeAddressing addressing();

    /**
     * Checks, before anything is encoded, what the backend needs of the ranges beyond the shared
     * checks; throws {@link IllegalArgumentException} to refuse.
     *
     * @param ranges the checked ranges
     */
    protected void checkRanges(ResponseRanges ranges) {
    }

    /**
     * Sends an encoded request.
     *
     * @param slot the request's slot
     * @param length the message length
     * @param ranges its ranges
     * @throws OflConnectionException (made with {@link #broken}) if sending fails
     */
    protected abstract void send(S slot, long length, ResponseRanges ranges);

    /**
     * Takes what arrived, completing requests with {@link #completeReceiving}.
     *
     * @return a work count, zero when nothing arrived
     * @throws OflConnectionException (made with {@link #broken}) if the connection failed
     */
    protected abstract int poll();

    /**
     * In {@link WaitMode#BLOCKING}, sleeps until something may have arrived or the deadline.
     *
     * @param deadlineNs the await's deadline on {@link #clock()}
     */
    protected abstract void waitForProgress(long deadlineNs);

    /**
     * Makes sure that nothing more can land in any range (TCP: close the socket; RDMA: move the
     * queue pair to ERR). Called before a timeout or failure is reported; must not throw.
     */
    protected abstract void breakTransport();

    /** Releases the current connection's transport resources; for reconnect and close. */
    protected abstract void tearDown();

    /** Releases what the client owns for its whole life; called once by {@link #close()}. */
    protected abstract void releaseResources();

    /**
     * Makes a newly registered region usable by the transport (for RDMA, registers it with the
     * current connection).
     *
     * @param region the region
     */
    protected abstract void onRegister(Region region);

    /**
     * Why the transport noticed, by itself, that the peer is gone (for RDMA: its liveness thread).
     *
     * @return the reason, or {@code null}
     */
    protected String lossReason() {
        return null;
    }

    // ---- helpers for backends

    /** Marks the connection ready: tickets from now on start at sequence zero. */
    protected final void connected() {
        brokenReason = null;
        ticketBase = nextTicket;
        oldestTicket = nextTicket;
        receivingTicket = nextTicket;
    }

    /**
     * The slot of the oldest request whose outcome has not arrived.
     *
     * @return the slot, or {@code null} when nothing is outstanding
     */
    protected final S receivingSlot() {
        return receivingTicket == nextTicket ? null : slotOf(receivingTicket);
    }

    /**
     * The wire sequence of the oldest request whose outcome has not arrived.
     *
     * @return the sequence on this connection
     */
    protected final long receivingSequence() {
        return receivingTicket - ticketBase;
    }

    /**
     * Records the outcome of the oldest outstanding request.
     *
     * @param wireStatus a checked {@link WireStatus} value
     * @param handlerStatus the handler's status
     * @param length the response length placed
     */
    protected final void completeReceiving(int wireStatus, int handlerStatus, long length) {
        S slot = slotOf(receivingTicket);
        slot.status = wireStatus;
        slot.handlerStatus = handlerStatus;
        slot.length = length;
        slot.done = true;
        receivingTicket++;
    }

    /**
     * Breaks the connection ({@link #breakTransport()} first) and makes the exception to throw.
     *
     * @param reason what broke it
     * @param cause the underlying failure, or {@code null}
     * @return the exception
     */
    protected final OflConnectionException broken(String reason, Throwable cause) {
        breakConnection(reason);
        return new OflConnectionException(reason + "; the client is broken until reconnect()", cause);
    }

    /**
     * Records the first reason the connection broke and breaks the transport.
     *
     * @param reason what broke it
     */
    protected final void breakConnection(String reason) {
        if (brokenReason == null) {
            brokenReason = reason;
        }
        breakTransport();
    }

    private S slotOf(long ticket) {
        return slots[(int) (ticket % slots.length)];
    }

    // ---- OflClient

    @Override
    public final Region registerRegion(MemorySegment segment) {
        ensureOpen();
        Objects.requireNonNull(segment, "segment");
        if (!segment.isNative()) {
            throw new IllegalArgumentException("regions must be native (off-heap) memory; allocate it from an Arena");
        }
        Region region = new Region(this, regions.size(), segment);
        onRegister(region);
        regions.add(region);
        return region;
    }

    @Override
    public final MemorySegment requestPayload() {
        return slotOf(nextTicket).payload;
    }

    @Override
    public final long submit(int op, long generation, int payloadLength, ResponseRanges ranges) {
        ensureUsable();
        if (nextTicket - oldestTicket == limits.maxInFlight()) {
            return OflStatus.IN_FLIGHT_FULL;
        }
        RequestEncoder.check(this, regions, limits, payloadLength, ranges);
        checkRanges(ranges);
        S slot = slotOf(nextTicket);
        long length = encoder.encode(slot.message, nextTicket - ticketBase, op, generation, payloadLength, ranges,
                addressing());
        slot.capacity = ranges.totalLength();
        slot.ticket = nextTicket;
        slot.done = false;
        slot.awaited = false;
        slot.begin();
        try {
            send(slot, length, ranges);
        } catch (RuntimeException e) {
            slot.awaited = true;
            // Part of the request may be on the wire: the connection cannot be trusted any more.
            breakConnection("sending request " + nextTicket + " failed: " + e);
            throw e;
        }
        return nextTicket++;
    }

    @Override
    public final int await(long ticket, long deadlineNs, Completion completion) {
        ensureOpen();
        if (ticket < 0 || slotOf(ticket).ticket != ticket || slotOf(ticket).awaited) {
            throw new IllegalArgumentException("ticket " + ticket + " is not outstanding (awaited already, dropped"
                    + " by a reconnect, or never issued)");
        }
        S slot = slotOf(ticket);
        while (!slot.done) {
            String lost = lossReason();
            if (brokenReason == null && lost != null) {
                breakConnection(lost);
            }
            if (brokenReason != null) {
                release(slot);
                throw new OflConnectionException("ticket " + ticket + " was lost: " + brokenReason
                        + "; call reconnect()");
            }
            try {
                int work = poll();
                if (slot.done) {
                    break;
                }
                if (clock.nanoTime() - deadlineNs >= 0) {
                    // The transport is broken before we return: from now on nothing lands in any range.
                    breakConnection("ticket " + ticket + " timed out");
                    release(slot);
                    completion.set(ticket, OflStatus.TIMED_OUT, 0, 0);
                    return OflStatus.TIMED_OUT;
                }
                if (work == 0) {
                    if (waitMode == WaitMode.BLOCKING) {
                        waitForProgress(deadlineNs);
                    } else {
                        idle.idle(0);
                    }
                }
            } catch (OflConnectionException e) {
                release(slot);
                throw e;
            } catch (RuntimeException e) {
                // For example a region's memory freed by the caller: the stream is out of step now.
                breakConnection("awaiting ticket " + ticket + " failed: " + e);
                release(slot);
                throw e;
            }
        }
        int status = WireStatus.toOflStatus(slot.status);
        completion.set(ticket, status, slot.handlerStatus, status == OflStatus.OK ? slot.length : 0);
        release(slot);
        return status;
    }

    private void release(S slot) {
        slot.awaited = true;
        while (oldestTicket < nextTicket && slotOf(oldestTicket).awaited) {
            oldestTicket++;
        }
    }

    /**
     * Fails unless the client is open.
     *
     * @throws IllegalStateException if closed
     */
    protected final void ensureOpen() {
        if (closed) {
            throw new IllegalStateException("the client is closed");
        }
    }

    private void ensureUsable() {
        ensureOpen();
        String lost = lossReason();
        if (brokenReason == null && lost != null) {
            breakConnection(lost);
        }
        if (brokenReason != null) {
            throw new OflConnectionException("the connection is broken (" + brokenReason + "); call reconnect()");
        }
    }

    @Override
    public final void reconnect() {
        ensureOpen();
        breakConnection("reconnect() was called");
        tearDown();
        for (S slot : slots) {
            slot.awaited = true;
        }
        oldestTicket = nextTicket;
        receivingTicket = nextTicket;
        try {
            connect();
        } catch (RuntimeException e) {
            brokenReason = "reconnect() failed: " + e.getMessage();
            throw e;
        }
    }

    @Override
    public final boolean isBroken() {
        return brokenReason != null || lossReason() != null;
    }

    @Override
    public final Limits limits() {
        return limits;
    }

    @Override
    public final NanoClock clock() {
        return clock;
    }

    @Override
    public final void close() {
        if (closed) {
            return;
        }
        closed = true;
        breakConnection("closed");
        releaseResources();
    }
}
