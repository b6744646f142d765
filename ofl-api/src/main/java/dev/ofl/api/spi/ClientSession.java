package dev.ofl.api.spi;

import dev.ofl.api.ClientConfig;
import dev.ofl.api.ClientStatistics;
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
import dev.ofl.api.internal.ApiAccess;
import dev.ofl.api.spi.ClientCounters.Counter;
import dev.ofl.api.wire.FailureReason;
import dev.ofl.api.wire.MessageChecks;
import dev.ofl.api.wire.MessageHeader;
import dev.ofl.api.wire.ProtocolException;
import dev.ofl.api.wire.WireStatus;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The client side of the protocol, the same for every backend: tickets and send slots, the submit
 * checks, the deadline-bound await, response checks, the broken state and reconnect. It moves
 * bytes only through its {@link ClientTransport}.
 *
 * <p>Tickets number requests for the client's whole life; the wire sequence restarts at zero on
 * each connection (ticket = connection base + sequence). Slot {@code ticket % slots} holds a
 * request's send buffer (over a transport whose send copies the message out, every request uses
 * slot 0's), where its response goes and its outcome. The session keeps the slots of
 * its next, oldest and receiving tickets as it moves them rather than computing {@code ticket %
 * slots} (a long division, tens of cycles) several times per call. There is one slot more than may
 * be in flight, so the slot {@link #requestPayload()} hands out never belongs to a request whose
 * bytes a transport may still read (an RDMA NIC may retransmit a SEND after submit returned).
 *
 * <p>Memory: the send slots live in a shared arena owned by the session, so their addresses
 * survive reconnects; it is freed by {@link #close()} after the transport released everything,
 * and never if the transport reports that its device might still write into it.
 *
 * <p>Not thread-safe, like {@link OflClient}: one thread at a time.
 */
public final class ClientSession implements OflClient {
    private static final Logger LOG = LoggerFactory.getLogger(ClientSession.class);
    private static final ApiAccess.Members API = ApiAccess.members();
    /**
     * How long a busy-polling client on a virtual thread polls (yielding between polls) before it
     * waits as a blocking client does, parked until the transport's event source wakes it.
     */
    private static final long VIRTUAL_SPIN_NS = 50_000L;
    /** A deadline further behind the clock than this is taken for a timeout passed by mistake. */
    private static final long IMPLAUSIBLY_PAST_NS = 60_000_000_000L;
    /** What a caller must do about region memory; the end of every message about a freed region. */
    private static final String REGION_LIFETIME = "A region's memory must stay alive until the client is closed: "
            + "free it after close(), or let the client own it with allocateRegion(bytes). Over RDMA the device may "
            + "have written into the freed memory before this was noticed (docs/GUIDE.md 5)";

    private final ClientConfig config;
    private final Limits limits;
    private final NanoClock clock;
    private final IdleStrategy idle;
    private final WaitMode waitMode;
    private final Arena arena;
    private final ClientTransport transport;
    private final List<Region> regions = new ArrayList<>();
    private final RequestEncoder encoder = new RequestEncoder();
    private final Sink sink = new Sink();
    private final ClientCounters counters = new ClientCounters();
    private final ClientEvents events;

    private final MemorySegment[] messages;
    private final MemorySegment[] payloads;
    /**
     * The payload area {@link #requestPayload()} hands out, the same for the client's life, and
     * copied into the request's send slot at submit. Never a send slot itself: the encoder writes
     * padding and range descriptors right after the payload, which would overwrite the caller's
     * bytes past {@code payloadLength} (a template kept there for a longer request).
     */
    private final MemorySegment stablePayload;
    /** Whether every request goes out of send slot 0 ({@link ClientTransport#sendCopiesMessage()}). */
    private final boolean oneSlot;
    private final RangeCursor[] cursors;
    /** How many slots the ring has. */
    private final int slots;
    private final boolean[] done;
    private final boolean[] awaited;
    private final int[] statuses;
    private final int[] handlerStatuses;
    private final long[] lengths;
    private final long[] capacities;

    /** Walks a failed request's ranges to read the server's reason back; reused. */
    private final RangeCursor reasonWalk = new RangeCursor();
    /** The longest failure reason this connection accepts: FailureReason.MAX_BYTES if negotiated, else 0. */
    private int reasonBytes;

    private String brokenReason;
    private boolean closed;
    private long nextTicket;
    private long oldestTicket;
    private long receivingTicket;
    /** The slots of {@link #nextTicket}, {@link #oldestTicket} and {@link #receivingTicket}. */
    private int nextSlot;
    private int oldestSlot;
    private int receivingSlot;
    private long ticketBase;
    /**
     * The thread inside {@link #submit}, {@link #await}, {@link #reconnect}, {@link #registerRegion}
     * or {@link #close}, or {@code null} between calls; {@link #busyCall} names the method. Plain
     * fields on purpose: the check must cost no fence and no allocation on the hot path, so it
     * catches an overlap that it can see (in practice, any that lasts longer than a few
     * instructions, such as a second thread arriving while another waits in {@code await}) and is
     * not a lock.
     */
    private Thread busyThread;
    private String busyCall;

    /**
     * Creates the client and connects it.
     *
     * @param config the client's settings
     * @param factory the backend's transport
     * @throws dev.ofl.api.OflException if it cannot connect; nothing stays allocated
     */
    public ClientSession(ClientConfig config, ClientTransport.Factory factory) {
        this.config = config;
        this.limits = config.limits();
        this.clock = config.clock();
        this.idle = config.idleStrategy();
        this.waitMode = config.waitMode();
        this.slots = limits.maxInFlight() + 1;
        long slotBytes = (MessageHeader.requestLength(limits.maxRequestBytes(), limits.maxRanges()) + 63) & ~63L;
        this.messages = new MemorySegment[slots];
        this.payloads = new MemorySegment[slots];
        this.cursors = new RangeCursor[slots];
        this.done = new boolean[slots];
        this.awaited = new boolean[slots];
        this.statuses = new int[slots];
        this.handlerStatuses = new int[slots];
        this.lengths = new long[slots];
        this.capacities = new long[slots];
        this.events = new ClientEvents(config, slots);
        this.arena = Arena.ofShared();
        ClientTransport created = null;
        try {
            MemorySegment memory = arena.allocate(slotBytes * slots, 4096);
            for (int i = 0; i < slots; i++) {
                messages[i] = memory.asSlice(i * slotBytes, slotBytes);
                payloads[i] = messages[i].asSlice(MessageHeader.LENGTH, limits.maxRequestBytes());
                cursors[i] = new RangeCursor();
                awaited[i] = true;
            }
            created = factory.create(config, memory, slotBytes);
            // A payload area whose address never changes: callers keep the segment (as Netty's and
            // Aeron's do their buffers), and a rotating one then sent other requests' payloads.
            oneSlot = created.sendCopiesMessage();
            stablePayload = arena.allocate(Math.max(1, limits.maxRequestBytes()), 64)
                    .asSlice(0, limits.maxRequestBytes());
            events.connecting();
            created.connect(regions, clock.nanoTime() + TimeUnit.NANOSECONDS.convert(config.connectTimeout()));
            events.connected(created, false);
        } catch (RuntimeException | Error e) {
            events.connectFailed(false, e);
            if (created == null || created.close()) {
                arena.close();
            }
            throw e;
        }
        this.transport = created;
        connected();
    }

    private void connected() {
        brokenReason = null;
        reasonBytes = transport.failureReasons() ? FailureReason.MAX_BYTES : 0;
        ticketBase = nextTicket;
        oldestTicket = nextTicket;
        oldestSlot = nextSlot;
        receivingTicket = nextTicket;
        receivingSlot = nextSlot;
    }

    /** The slot after {@code slot}, round the ring. */
    private int after(int slot) {
        return slot + 1 == slots ? 0 : slot + 1;
    }

    /**
     * The slot of an outstanding ticket, or -1 if {@code ticket} is not between the oldest and the
     * next: outstanding tickets are fewer than the slots, so it is the oldest's slot plus the
     * distance, wrapped at most once.
     */
    private int slotOf(long ticket) {
        long distance = ticket - oldestTicket;
        if (distance < 0 || distance >= nextTicket - oldestTicket) {
            return -1;
        }
        int slot = oldestSlot + (int) distance;
        return slot >= slots ? slot - slots : slot;
    }

    // ---- OflClient

    @Override
    public Region registerRegion(MemorySegment segment) {
        enter("registerRegion");
        try {
            return registerOwned(segment);
        } finally {
            leave();
        }
    }

    @Override
    public Region allocateRegion(long bytes) {
        enter("allocateRegion");
        try {
            ensureOpen();
            if (bytes < 1) {
                throw new IllegalArgumentException("a region has at least 1 byte, was " + bytes);
            }
            // In the client's own arena, freed only by close() once the transport released it:
            // nothing can free this memory while a response may still be placed in it.
            return registerOwned(arena.allocate(bytes, 4096));
        } finally {
            leave();
        }
    }

    private Region registerOwned(MemorySegment segment) {
        ensureOpen();
        Objects.requireNonNull(segment, "segment");
        if (!segment.isNative()) {
            throw new IllegalArgumentException("regions must be native (off-heap) memory; allocate it from an Arena");
        }
        if (!segment.scope().isAlive()) {
            throw new IllegalArgumentException("the segment's memory was freed (its Arena is closed): register live "
                    + "memory, or let the client own it with allocateRegion(bytes)");
        }
        Region region = API.newRegion(this, regions.size(), segment);
        if (brokenReason == null) {
            transport.register(region);
        }
        regions.add(region);
        return region;
    }

    @Override
    public MemorySegment requestPayload() {
        return stablePayload;
    }

    @Override
    public long submit(int op, long generation, int payloadLength, ResponseRanges ranges) {
        enter("submit");
        try {
            return submitOwned(op, generation, payloadLength, ranges);
        } finally {
            leave();
        }
    }

    private long submitOwned(int op, long generation, int payloadLength, ResponseRanges ranges) {
        ensureUsable();
        if (nextTicket - oldestTicket == limits.maxInFlight()) {
            return OflStatus.IN_FLIGHT_FULL;
        }
        RequestEncoder.check(this, regions, limits, payloadLength, ranges);
        for (int i = 0; i < ranges.count(); i++) {
            Region region = ranges.region(i);
            if (!region.segment().scope().isAlive()) {
                throw new IllegalStateException(region + " was freed (the Arena that allocated its segment is "
                        + "closed): nothing was sent. " + REGION_LIFETIME);
            }
        }
        int slot = nextSlot;
        for (int i = 0; i < ranges.count(); i++) {
            // Asked before anything is written: a transport refuses a range it cannot name.
            transport.rangeKey(ranges.region(i));
        }
        int messageSlot = oneSlot ? 0 : slot;
        MemorySegment.copy(stablePayload, 0, payloads[messageSlot], 0, payloadLength);
        long length = encoder.encode(messages[messageSlot], nextTicket - ticketBase, op, generation, payloadLength,
                ranges, transport);
        RangeCursor cursor = cursors[slot];
        cursor.clear();
        for (int i = 0; i < ranges.count(); i++) {
            cursor.add(ranges.offset(i), ranges.length(i), ranges.region(i).id());
        }
        capacities[slot] = ranges.totalLength();
        done[slot] = false;
        awaited[slot] = false;
        events.submitted(slot, nextTicket, op, generation, payloadLength);
        try {
            transport.send(messageSlot, messages[messageSlot], length, sink);
        } catch (ProtocolException e) {
            awaited[slot] = true;
            throw broken(Counter.PROTOCOL_ERRORS, "the server broke the protocol: " + e.getMessage(), null);
        } catch (OflConnectionException e) {
            awaited[slot] = true;
            throw broken(failureCause(), e.getMessage(), e.getCause());
        } catch (RuntimeException e) {
            awaited[slot] = true;
            // Part of the request may be on the wire: the connection cannot be trusted any more.
            breakConnection(Counter.TRANSPORT_FAILURES, "sending request " + nextTicket + " failed: " + e);
            throw e;
        }
        counters.increment(Counter.CALLS);
        nextSlot = after(slot);
        return nextTicket++;
    }

    @Override
    public int await(long ticket, long deadlineNs, Completion completion) {
        enter("await");
        try {
            return awaitOwned(ticket, deadlineNs, completion, false);
        } finally {
            leave();
        }
    }

    @Override
    public int poll(long ticket, long deadlineNs, Completion completion) {
        enter("poll");
        try {
            return awaitOwned(ticket, deadlineNs, completion, true);
        } finally {
            leave();
        }
    }

    /** Waits for a ticket, or with {@code once} looks a single time and returns PENDING if nothing came. */
    private int awaitOwned(long ticket, long deadlineNs, Completion completion, boolean once) {
        ensureOpen();
        int slot = slotOf(ticket);
        if (slot < 0 || awaited[slot]) {
            throw new IllegalArgumentException("ticket " + ticket + " is not outstanding (awaited already, dropped"
                    + " by a reconnect, or never issued)");
        }
        long firstNs = clock.nanoTime();
        if (deadlineNs - firstNs < -IMPLAUSIBLY_PAST_NS) {
            // Most likely a timeout passed where a deadline belongs: refused, nothing broken. Looked
            // at once, here: a deadline that falls that far behind during the wait (a long pause of
            // the process) is a timeout like any other.
            throw new IllegalArgumentException("the deadline " + deadlineNs + " lies " + (firstNs - deadlineNs)
                    / 1_000_000_000L + " s before the client's clock (" + firstNs + "): await takes an absolute "
                    + "deadline on clock(), clock().nanoTime() + timeoutNs; for a timeout use await(ticket, "
                    + "Duration, completion). Ticket " + ticket + " is still outstanding");
        }
        idle.reset();
        // A busy poll on a virtual thread cannot own a core: it polls for a short window, then
        // waits parked as a blocking client does. Polling without end, even with a park or a
        // Thread.yield() between polls, keeps the carrier's queue full: with one carrier, the
        // threads woken from outside the pool (an in-process server's, woken by the completion
        // poller or the JDK's socket poller) never ran again (seen with 32 clients on one CPU).
        // The window is measured on the machine's clock: it bounds a cost, not a protocol deadline.
        boolean virtualSpin = !once && waitMode != WaitMode.BLOCKING && Thread.currentThread().isVirtual();
        long spinStartNs = virtualSpin ? System.nanoTime() : 0;
        for (long nowNs = firstNs; !done[slot]; nowNs = clock.nanoTime()) {
            String freed = freedInFlight();
            if (freed != null) {
                breakConnection(Counter.FREED_REGIONS, freed);
                release(slot);
                throw new IllegalStateException(freed + "; the connection is broken so that nothing more is written "
                        + "(call reconnect()). " + REGION_LIFETIME);
            }
            if (brokenReason != null) {
                release(slot);
                throw new OflConnectionException("ticket " + ticket + " was lost: " + brokenReason
                        + "; call reconnect()");
            }
            try {
                int work;
                boolean block = !once && (waitMode == WaitMode.BLOCKING
                        || virtualSpin && System.nanoTime() - spinStartNs - VIRTUAL_SPIN_NS >= 0);
                if (block && nowNs - deadlineNs < 0) {
                    // Wait first: an event source returns at once when something is already there, so
                    // a poll before it would only find nothing (a wasted system call per request).
                    work = transport.awaitProgress(sink, deadlineNs, nowNs);
                    nowNs = clock.nanoTime();
                    if (work == 0 && !done[slot]) {
                        work = transport.poll(sink);
                    }
                } else {
                    work = transport.poll(sink);
                }
                if (done[slot]) {
                    break;
                }
                // Only after the poll: a response that arrived before the peer left still counts.
                noticeLoss();
                if (brokenReason != null) {
                    continue;
                }
                if (nowNs - deadlineNs >= 0) {
                    // The transport is broken before we return: from now on nothing lands in any range.
                    breakConnection(Counter.TIMEOUTS, "ticket " + ticket + " timed out");
                    release(slot);
                    API.complete(completion, ticket, OflStatus.TIMED_OUT, 0, 0, null);
                    return OflStatus.TIMED_OUT;
                }
                if (Thread.currentThread().isInterrupted()) {
                    breakConnection(Counter.INTERRUPTS, "the thread awaiting ticket " + ticket + " was interrupted");
                    release(slot);
                    throw new OflConnectionException("interrupted while awaiting ticket " + ticket + "; the "
                            + "connection is broken so that nothing lands late (the interrupt stays set); call "
                            + "reconnect()");
                }
                if (once) {
                    return OflStatus.PENDING;
                }
                if (virtualSpin) {
                    if (work > 0) {
                        spinStartNs = System.nanoTime();
                    } else if (!block) {
                        Thread.yield();
                    }
                } else if (waitMode != WaitMode.BLOCKING) {
                    idle.idle(work);
                }
            } catch (ProtocolException e) {
                release(slot);
                throw broken(Counter.PROTOCOL_ERRORS, "the server broke the protocol: " + e.getMessage(), null);
            } catch (OflConnectionException e) {
                if (awaited[slot]) {
                    throw e;
                }
                if (done[slot]) {
                    // The same poll completed this ticket and then met the failure (an RDMA queue
                    // pair broken after the peer left flushes the rest): what arrived first counts.
                    breakConnection(failureCause(), e.getMessage());
                    break;
                }
                release(slot);
                throw broken(failureCause(), e.getMessage(), e.getCause());
            } catch (RuntimeException e) {
                // A region freed between the look above and the placement: the stream is out of step now.
                String freedNow = freedInFlight();
                breakConnection(freedNow != null ? Counter.FREED_REGIONS : Counter.TRANSPORT_FAILURES,
                        freedNow != null ? freedNow : "awaiting ticket " + ticket + " failed: " + e);
                release(slot);
                if (freedNow != null) {
                    throw new IllegalStateException(freedNow + "; the connection is broken so that nothing more is "
                            + "written (call reconnect()). " + REGION_LIFETIME, e);
                }
                throw e;
            }
        }
        int status = WireStatus.toOflStatus(statuses[slot]);
        counters.increment(switch (status) {
            case OflStatus.OK -> Counter.OK;
            // The server refused to run it for want of staging memory: a refusal, not a failure.
            case OflStatus.REFUSED, OflStatus.BUSY -> Counter.REFUSED;
            default -> Counter.HANDLER_FAILURES;
        });
        String reason = status == OflStatus.HANDLER_FAILED && lengths[slot] > 0 ? reason(slot, lengths[slot]) : null;
        API.complete(completion, ticket, status, handlerStatuses[slot], status == OflStatus.OK ? lengths[slot] : 0,
                reason);
        release(slot);
        return status;
    }

    /**
     * The failure reason the server placed at the start of a request's ranges (checked against
     * {@link FailureReason#MAX_BYTES} and the ranges when it arrived); {@code null} if a region
     * it lies in cannot be read by this thread now: freed meanwhile, or confined to another thread
     * (over RDMA the device writes such memory, and the client never read it before). The ticket
     * is released whatever happens here. Only on the failure path: it allocates.
     */
    private String reason(int slot, long length) {
        byte[] bytes = new byte[(int) length];
        RangeCursor walk = reasonWalk;
        walk.copyFrom(cursors[slot]);
        try {
            for (int at = 0; at < length; ) {
                int chunk = (int) walk.chunk(length - at);
                MemorySegment.copy(regions.get(walk.key()).segment(), ValueLayout.JAVA_BYTE, walk.position(), bytes,
                        at, chunk);
                walk.advance(chunk);
                at += chunk;
            }
        } catch (RuntimeException e) {
            LOG.debug("the failure reason of slot {} could not be read from its ranges: {}", slot, e.toString());
            return null;
        }
        return FailureReason.decode(bytes);
    }

    /**
     * A region that a request still in flight will place bytes in, and whose memory was freed;
     * {@code null} if none. A look per range of each outstanding request: a few field reads.
     */
    private String freedInFlight() {
        int slot = oldestSlot;
        for (long ticket = oldestTicket; ticket < nextTicket; ticket++, slot = after(slot)) {
            if (done[slot] || awaited[slot]) {
                continue;
            }
            RangeCursor cursor = cursors[slot];
            for (int i = 0; i < cursor.count(); i++) {
                Region region = regions.get(cursor.keyAt(i));
                if (!region.segment().scope().isAlive()) {
                    return region + " was freed (the Arena that allocated its segment is closed) while request "
                            + ticket + ", whose response goes there, was in flight";
                }
            }
        }
        return null;
    }

    private void release(int slot) {
        awaited[slot] = true;
        events.callEnded(slot, done[slot], statuses[slot], handlerStatuses[slot], lengths[slot]);
        while (oldestTicket < nextTicket && awaited[oldestSlot]) {
            oldestTicket++;
            oldestSlot = after(oldestSlot);
        }
    }

    private void noticeLoss() {
        if (brokenReason == null) {
            String lost = transport.lossReason();
            if (lost != null) {
                // A completion and the peer's leaving can both arrive between a poll and this
                // check: what arrived before the peer left still counts, so look once more.
                try {
                    transport.poll(sink);
                } catch (ProtocolException | RuntimeException e) {
                    LOG.debug("the last poll after losing the peer failed: {}", e.toString());
                }
                breakConnection(lossCause(), lost);
            }
        }
    }

    /**
     * What a transport's failure counts as: a peer loss when the transport found the server gone
     * (its socket ended or failed: closed, died, unreachable), on every backend alike; otherwise a
     * transport failure.
     */
    private Counter failureCause() {
        return transport.lossReason() != null ? lossCause() : Counter.TRANSPORT_FAILURES;
    }

    /** What a loss the transport noticed counts as: the local link's failure, or the peer's leaving. */
    private Counter lossCause() {
        return transport.lossIsLinkFailure() ? Counter.LINK_FAILURES : Counter.PEER_LOSSES;
    }

    private OflConnectionException broken(Counter cause, String reason, Throwable throwable) {
        breakConnection(cause, reason);
        return new OflConnectionException(reason + "; the client is broken until reconnect()", throwable);
    }

    /** Breaks the transport; the first break of a connection is counted under its cause, if any. */
    private void breakConnection(Counter cause, String reason) {
        if (brokenReason == null) {
            brokenReason = reason;
            if (cause != null) {
                counters.increment(cause);
                events.broken(cause, reason);
            }
        }
        transport.breakConnection();
    }

    /**
     * Marks the calling thread as inside {@code call}, or refuses if another thread is inside a
     * call: two threads at once would interleave tickets, slots and the response stream, which
     * would otherwise surface later as a protocol violation blamed on the server. Nothing changes
     * on refusal, so the other thread's call goes on undisturbed.
     */
    private void enter(String call) {
        Thread current = Thread.currentThread();
        Thread busy = busyThread;
        if (busy != null && busy != current) {
            throw new IllegalStateException("OflClient." + call + "() on thread '" + current.getName()
                    + "' while thread '" + busy.getName() + "' is inside " + busyCall + "(): a client is used by one"
                    + " thread at a time; open one client per thread, or hand it over between calls only");
        }
        busyThread = current;
        busyCall = call;
    }

    private void leave() {
        busyThread = null;
    }

    private void ensureOpen() {
        if (closed) {
            throw new IllegalStateException("the client is closed");
        }
    }

    private void ensureUsable() {
        ensureOpen();
        noticeLoss();
        if (brokenReason != null) {
            throw new OflConnectionException("the connection is broken (" + brokenReason + "); call reconnect()");
        }
    }

    @Override
    public void reconnect() {
        enter("reconnect");
        try {
            reconnectOwned();
        } finally {
            leave();
        }
    }

    private void reconnectOwned() {
        ensureOpen();
        breakConnection(null, "reconnect() was called");
        transport.disconnect();
        for (int i = 0; i < awaited.length; i++) {
            awaited[i] = true;
        }
        oldestTicket = nextTicket;
        oldestSlot = nextSlot;
        receivingTicket = nextTicket;
        receivingSlot = nextSlot;
        events.connecting();
        try {
            transport.connect(regions, clock.nanoTime() + TimeUnit.NANOSECONDS.convert(config.connectTimeout()));
        } catch (RuntimeException e) {
            events.connectFailed(true, e);
            brokenReason = "reconnect() failed: " + e.getMessage();
            throw e;
        }
        connected();
        counters.increment(Counter.RECONNECTS);
        events.connected(transport, true);
    }

    @Override
    public ClientStatistics statistics() {
        return counters.snapshot();
    }

    @Override
    public int outstanding() {
        int count = 0;
        int slot = oldestSlot;
        for (long ticket = oldestTicket; ticket < nextTicket; ticket++, slot = after(slot)) {
            if (!awaited[slot]) {
                count++;
            }
        }
        return count;
    }

    @Override
    public boolean isBroken() {
        return brokenReason != null || transport.lossReason() != null;
    }

    @Override
    public Limits limits() {
        return limits;
    }

    @Override
    public NanoClock clock() {
        return clock;
    }

    @Override
    public String backend() {
        return transport.backend();
    }

    /**
     * The transport under this session; for a backend's own tests.
     *
     * @return the transport
     */
    public ClientTransport transport() {
        return transport;
    }

    @Override
    public void close() {
        enter("close");
        try {
            closeOwned();
        } finally {
            leave();
        }
    }

    private void closeOwned() {
        if (closed) {
            return;
        }
        closed = true;
        breakConnection(null, "closed");
        boolean free;
        try {
            free = transport.close();
        } catch (RuntimeException e) {
            LOG.error("releasing the {} transport failed; its send slots are left allocated so that no device can "
                    + "write into freed memory", transport.backend(), e);
            throw e;
        }
        if (free) {
            arena.close();
        } else {
            LOG.error("a {} transport could not release its device resources; the client's send slots are left "
                    + "allocated so that the device cannot write into freed memory", transport.backend());
        }
    }

    /** What arrives for the oldest outstanding request, checked before anything is recorded. */
    private final class Sink implements ResponseSink {
        @Override
        public long receivingSequence() {
            return receivingTicket == nextTicket ? -1 : receivingTicket - ticketBase;
        }

        @Override
        public long piece(MessageHeader header) throws ProtocolException {
            int slot = receiving(header);
            MessageChecks.checkServerMessage(header, receivingTicket - ticketBase, cursors[slot].consumed(),
                    capacities[slot]);
            return header.payloadLength();
        }

        @Override
        public RangeCursor cursor() {
            return cursors[receivingSlot];
        }

        @Override
        public void complete(MessageHeader header) throws ProtocolException {
            int slot = receiving(header);
            RangeCursor cursor = cursors[slot];
            long sequence = receivingTicket - ticketBase;
            long length;
            if (transport.countsPlacedBytes()) {
                MessageChecks.checkServerMessage(header, sequence, cursor.consumed(), capacities[slot], reasonBytes);
                // Unless OK, bytes placed before the handler failed or refused are no response.
                length = header.status() == WireStatus.OK ? cursor.consumed() : header.responseLength();
            } else {
                MessageChecks.checkRdmaResponse(header, sequence, capacities[slot], reasonBytes);
                length = header.responseLength();
            }
            statuses[slot] = header.status();
            handlerStatuses[slot] = header.handlerStatus();
            lengths[slot] = length;
            done[slot] = true;
            receivingTicket++;
            receivingSlot = after(receivingSlot);
        }

        private int receiving(MessageHeader header) throws ProtocolException {
            if (receivingTicket == nextTicket) {
                throw new ProtocolException("sequence", header.sequence(),
                        "the server sent a message while no request was outstanding");
            }
            return receivingSlot;
        }
    }
}
