package dev.ofl.verbs.rdma;

import dev.ofl.api.IdleStrategy;
import dev.ofl.api.OflException;
import dev.ofl.api.Limits;
import dev.ofl.api.OflConnectionException;
import dev.ofl.api.RefusalCode;
import dev.ofl.api.ServerConfig;
import dev.ofl.api.WaitMode;
import dev.ofl.api.spi.LivenessWatcher;
import dev.ofl.api.spi.RangeCursor;
import dev.ofl.api.spi.ServerMemory;
import dev.ofl.api.spi.ServerTransport;
import dev.ofl.api.spi.StagingPool;
import dev.ofl.api.wire.Bootstrap;
import dev.ofl.api.wire.MessageChecks;
import dev.ofl.api.wire.MessageHeader;
import dev.ofl.api.wire.MessageType;
import dev.ofl.api.wire.PayloadRead;
import dev.ofl.api.wire.ProtocolException;
import dev.ofl.api.wire.RangeDescriptor;
import dev.ofl.api.wire.TransportKind;
import dev.ofl.verbs.Errno;
import dev.ofl.verbs.GidEntry;
import dev.ofl.verbs.GidSelectionException;
import dev.ofl.verbs.MemoryRegion;
import dev.ofl.verbs.VerbsException;
import dev.ofl.verbs.ffm.ibv_access_flags;
import dev.ofl.verbs.ffm.ibv_wc;
import dev.ofl.verbs.ffm.ibv_wc_opcode;
import dev.ofl.verbs.ffm.ibv_wc_status;
import dev.ofl.verbs.ffm.ibv_wr_opcode;
import java.io.EOFException;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.channels.SocketChannel;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One server connection's RDMA transport: requests arrive as SENDs in pre-posted receive slots;
 * response pieces go by RDMA WRITE into the client's ranges, cut at range boundaries, and the
 * completion header by WRITE WITH IMMEDIATE into the client's ring, on the same queue pair.
 *
 * <p>A lost peer (its bootstrap socket ended, as the process's {@link LivenessWatcher} reports)
 * ends an idle connection at once. A response already posted is given a bounded time to fail by
 * itself, the way the client's queue pair in ERR makes it fail, so that the late write really
 * reaches the peer and is rejected there; past that bound the transport breaks its own queue pair.
 * No provider's reading of the retry count (the kernel's rxe retries for ever at 7) can then make
 * a server hold a dead connection.
 *
 * <p>Memory: the receive slots and a ring of completion headers belong to a confined arena of the
 * connection's thread and are registered with the connection's {@link Link}. A client that offers
 * it (docs/PROTOCOL.md 7.3) sends a payload larger than {@code rdma.inlineRequestBytes} by
 * descriptor, so the slots hold only small requests; such a payload is read by RDMA READ into an
 * extent of the staging pool borrowed for that request and returned when the handler is done
 * with it (or, if the read may still be running, once the link is closed). The arena is freed
 * only after the link is closed (QP in ERR, drained, destroyed, regions deregistered). Response
 * bytes are written from the server's {@link StagingPool}, registered once for the device. The
 * blocks a piece or completion hands back are returned to the pool when a signalled write posted
 * after them completes (writes on one queue pair complete in order), so the next response can be
 * staged and written while the previous one's WRITE WITH IMMEDIATE is still in flight; blocks whose
 * writes never completed are returned once the link is closed.
 *
 * <p>Threads: in BLOCKING mode the connection runs on a virtual thread (a platform thread with
 * {@code ConnectionThreads.PLATFORM}) that parks between completions; the process's
 * {@link CompletionPoller} wakes it when its completion channel fires, the liveness watcher when
 * the peer is lost, and whoever breaks or drains the connection. An idle connection on a virtual
 * thread therefore costs no platform thread. In BUSY_POLL mode it keeps a platform thread that
 * spins per the idle strategy.
 */
final class RdmaServerTransport implements ServerTransport {
    private static final Logger LOG = LoggerFactory.getLogger(RdmaServerTransport.class);
    /** A posted WRITE costs no system call, so pieces can be small and start travelling early. */
    private static final int PIECE_BYTES = 64 << 10;
    private static final int SEND_DEPTH = 256;
    /** Every this many writes one is signalled, so the send queue's progress can be observed. */
    private static final int SIGNAL_INTERVAL = 64;
    private static final int MAX_INLINE = 256;
    /**
     * The longest park against a deadline on the server's clock: that clock is injectable and may
     * move faster than the machine's, so a wait for it looks again at least this often.
     */
    private static final long CLOCK_RECHECK_NS = 10_000_000L;

    private final RdmaDevice device;
    private final RdmaSettings settings;
    private final ServerConfig config;
    /** ServerConfig.stagingTimeout, converted once (saturated: a Duration may exceed 292 years). */
    private final long stagingTimeoutNs;
    private final IdleStrategy idle;
    private final SocketChannel channel;
    private final MessageHeader out = new MessageHeader();
    /** Reads a request's header in its receive slot, before the session looks at it. */
    private final MessageHeader in = new MessageHeader();
    /** The connection's thread, which parks between completions in BLOCKING mode; set in {@link #accept}. */
    private volatile Thread owner;
    /** The completion channel's place in the process's poller; BLOCKING mode, from {@link #start()}. */
    private CompletionPoller.Registration events;
    /** The process's poller; tests give one of their own. */
    private final CompletionPoller poller;
    /**
     * Write and read completions taken so far ({@link #progress()}): each is the client's device
     * acknowledging our writes or answering our read. Release stores by the connection's thread.
     */
    private final AtomicLong completions = new AtomicLong();
    /** While a request's payload waits for staging to be read into: the server's wait, not the client's. */
    private volatile boolean waitingForStaging;
    private boolean interruptReported;
    /** BLOCKING mode: how long to keep polling before parking ({@code rdma.blockingSpinMicros}). */
    private final long spinNs;
    /** How long a posted response may stay unacknowledged once the peer is known to be gone. */
    private final long unacknowledgedBoundNs;
    private volatile String peerLoss;
    private volatile long peerLossNs;
    private volatile boolean closing;
    private Link link;
    private Arena arena;

    private Limits limits;
    private long ringAddress;
    private int ringKey;
    private MemorySegment receiveSlots;
    private MemorySegment[] receiveSlotViews;
    private long slotBytes;
    private MemoryRegion receiveMr;
    private final StagingPool pool;
    private final RegisteredStaging poolMemory;
    private long stagingAddress;
    /** One header per send work request number modulo the send depth: reused only once completed. */
    private MemorySegment completionHeaders;
    private MemoryRegion completionHeaderMr;
    /** Blocks to return once the write of the same index completes; a ring in posting order. */
    private final long[] releaseAfterWrite = new long[SEND_DEPTH];
    private final long[] releaseOffsets = new long[SEND_DEPTH];
    private final long[] releaseLengths = new long[SEND_DEPTH];
    private int releaseHead;
    private int releaseCount;
    private volatile boolean draining;
    /** Receive and header memory added to {@link ServerMemory}, taken off when freed. */
    private long accounted;
    private final int[] pendingSlots = new int[Limits.MAX_IN_FLIGHT];
    private final int[] pendingLengths = new int[Limits.MAX_IN_FLIGHT];
    private int pendingHead;
    private int pendingCount;
    private int requestLength;
    private long postedWrites;
    private long completedWrites;
    /** A request the client broke, seen while polling; reported when the next request is taken. */
    private ProtocolException violation;

    /** Payloads longer than this are read from the client; {@link PayloadRead#NOT_NEGOTIATED}: none. */
    private long inlineLimit = PayloadRead.NOT_NEGOTIATED;
    /** The slot of the request whose payload is read, or -1; at most one at a time. */
    private int readSlot = -1;
    private long readAddress;
    private int readKey;
    private int readPayload;
    /** The work request number of the READ, 0 before it is posted. */
    private long readWrId;
    /** The extent the payload is read into; {@code readBytes} 0 when none is held. */
    private long readOffset = -1;
    private long readBytes;
    /** The view of the last extent, kept while the same extent comes back (nothing allocated). */
    private MemorySegment readView;

    RdmaServerTransport(RdmaDevice device, RdmaSettings settings, ServerConfig config, SocketChannel channel,
            StagingPool pool, RegisteredStaging poolMemory, CompletionPoller poller) {
        this.poller = poller;
        this.device = device;
        this.pool = pool;
        this.poolMemory = poolMemory;
        this.settings = settings;
        this.config = config;
        this.stagingTimeoutNs = TimeUnit.NANOSECONDS.convert(config.stagingTimeout());
        this.idle = config.idleStrategy();
        this.channel = channel;
        this.unacknowledgedBoundNs = 2 * settings.retryExhaustionNs() + 500_000_000L;
        this.spinNs = settings.blockingSpinMicros() * 1_000L;
    }

    @Override
    public int kind() {
        return TransportKind.RDMA;
    }

    /**
     * In BLOCKING mode the connection's thread never blocks in a native call: it parks, and the
     * process's {@link CompletionPoller} or a thread that changes what it waits for wakes it. Busy
     * polling keeps a platform thread per connection by design.
     */
    @Override
    public boolean parksVirtualThreads() {
        return config.waitMode() == WaitMode.BLOCKING;
    }

    /** The registered receive slots and the ring of completion headers, as {@link #accept} maps them. */
    @Override
    public long receiveBytes(Bootstrap.Endpoint hello) {
        Limits l = hello.limits();
        return PageMemory.pages(slotBytes(l, readsPayloads(hello, l)) * l.maxInFlight())
                + PageMemory.pages((long) SEND_DEPTH * MessageHeader.LENGTH);
    }

    /**
     * One receive slot: a whole request of the negotiated size, or with payload read one of the
     * inline limit; a request read by descriptor needs 80 + 16 x ranges bytes, at least 16 more
     * than a header.
     */
    private long slotBytes(Limits l, boolean readsPayloads) {
        int inline = readsPayloads ? settings.inlineRequestBytes() : l.maxRequestBytes();
        return (Math.max(MessageHeader.requestLength(inline, l.maxRanges()),
                PayloadRead.announcementLength(l.maxRanges())) + 63) & ~63L;
    }

    @Override
    public Bootstrap.Endpoint accept(Bootstrap.Endpoint hello) {
        owner = Thread.currentThread();
        limits = hello.limits();
        ringAddress = hello.ringAddress();
        ringKey = hello.ringKey();
        int n = limits.maxInFlight();
        // Not try-with-resources: the arena holds memory registered with the NIC and may be freed
        // only after the link is closed (QP in ERR, drained, destroyed), in close().
        arena = Arena.ofConfined();
        // Asked per connection: the device's GID table may have been renumbered since the server started.
        GidEntry gid;
        try {
            gid = device.currentGid();
        } catch (GidSelectionException e) {
            throw new OflConnectionException("the server's address is no longer carried by " + device.context + ": "
                    + e.getMessage(), e);
        }
        link = Link.create(device, gid, SEND_DEPTH, n, MAX_INLINE, config.waitMode() == WaitMode.BLOCKING, 0);
        byte[] extensions = new byte[0];
        boolean readsPayloads = readsPayloads(hello, limits);
        if (readsPayloads) {
            inlineLimit = settings.inlineRequestBytes();
            extensions = PayloadRead.answer(settings.inlineRequestBytes());
        }
        slotBytes = slotBytes(limits, readsPayloads);
        // Pages of its own, not malloc: freed memory must go back to the system (PageMemory says why).
        receiveSlots = PageMemory.allocate(arena, slotBytes * n);
        receiveMr = link.register(receiveSlots, ibv_access_flags.IBV_ACCESS_LOCAL_WRITE);
        receiveSlotViews = new MemorySegment[n];
        for (int i = 0; i < n; i++) {
            receiveSlotViews[i] = receiveSlots.asSlice(i * slotBytes, slotBytes);
        }
        completionHeaders = PageMemory.allocate(arena, (long) SEND_DEPTH * MessageHeader.LENGTH);
        completionHeaderMr = link.register(completionHeaders, ibv_access_flags.IBV_ACCESS_LOCAL_WRITE);
        accounted = committedBytes();
        ServerMemory.receive(accounted);
        // Posted before the WELCOME: the client may send as soon as it has read it.
        for (int i = 0; i < n; i++) {
            postReceive(i);
        }
        // A client whose receives are posted never makes us wait; a broken one must not hold this
        // thread forever, so RNR retries are bounded here.
        link.connect(hello, settings, RdmaSettings.RNR_RETRY_BOUNDED);
        return link.endpoint(new Bootstrap.Endpoint(RefusalCode.ACCEPTED, TransportKind.RDMA, config.serviceName(),
                limits, 0, 0, null, 0, 0, 0, "", extensions), 0, 0);
    }

    /**
     * Whether this connection's larger payloads are read from the client: it offered it, some
     * payload may exceed the inline limit, and the staging budget holds the largest request and
     * the largest response at once (a read request keeps its extent while its response borrows
     * one; with less, a request could never be answered; such a server keeps whole requests in
     * its slots).
     */
    private boolean readsPayloads(Bootstrap.Endpoint hello, Limits l) {
        boolean offered;
        try {
            offered = PayloadRead.offered(hello.extensions());
        } catch (ProtocolException e) {
            throw new OflConnectionException("the HELLO's payload read offer is malformed: " + e.getMessage(), e);
        }
        long blocks = StagingPool.blocksFor(MessageHeader.requestLength(l.maxRequestBytes(), l.maxRanges()))
                + StagingPool.blocksFor(l.maxResponseBytes());
        return offered && l.maxRequestBytes() > settings.inlineRequestBytes()
                && blocks * StagingPool.BLOCK_BYTES <= pool.budgetBytes();
    }

    @Override
    public void start() throws IOException {
        if (config.waitMode() == WaitMode.BLOCKING) {
            events = poller.register(link.channel.fileDescriptor());
        }
        LivenessWatcher.shared().watch(channel, reason -> {
            peerLossNs = config.clock().nanoTime();
            peerLoss = reason;
            // A lost peer raises no completion: the parked thread must look.
            wake();
        });
        Link watched = link;
        watched.whenLinkFails(() -> {
            // The device broke the link (its port went down...): the flushes of the posted
            // receives wake a waiting thread, unless the move to ERR failed; then this does.
            peerLossNs = config.clock().nanoTime();
            peerLoss = watched.lossReason();
            wake();
        });
        LOG.debug("qp {} serving", link.qp.qpNumber());
    }

    @Override
    public boolean linkFailed() {
        Link l = link;
        return l != null && l.linkFailed();
    }

    /** The connection's link once {@link #accept} set it up; for tests. */
    Link link() {
        return link;
    }

    @Override
    public int receiveSlots() {
        return limits.maxInFlight();
    }

    @Override
    public int pieceBytes() {
        return PIECE_BYTES;
    }

    @Override
    public StagingPool staging() {
        return pool;
    }

    /**
     * Memory this connection registered for its receive slots and completion headers.
     *
     * @return bytes
     */
    long committedBytes() {
        return receiveSlots == null ? 0 : receiveSlots.byteSize() + completionHeaders.byteSize();
    }

    /** Whether a response write is incomplete; a payload's READ, the last work request while it runs, is not one. */
    @Override
    public boolean delivering() {
        long lastWrite = readWrId > completedWrites ? readWrId - 1 : postedWrites;
        return lastWrite > completedWrites;
    }

    @Override
    public void flush() throws IOException {
        if (postedWrites > completedWrites) {
            awaitWrites(0);
        }
    }

    @Override
    public void closeWhenDelivered() {
        draining = true;
        wake();
    }

    /** Unparks the connection's thread so that it looks again at the flags another thread set. */
    private void wake() {
        Thread t = owner;
        if (t != null) {
            LockSupport.unpark(t);
        }
    }

    private void postReceive(int slot) {
        int rc = link.postReceive(slot, receiveSlots.address() + slot * slotBytes, (int) slotBytes, receiveMr.lkey());
        if (rc != 0) {
            throw new OflConnectionException("ibv_post_recv of receive slot " + slot + " failed: "
                    + Errno.describe(rc));
        }
    }

    @Override
    public int nextRequest() throws IOException, ProtocolException {
        idle.reset();
        while (pendingCount == 0 || violation != null) {
            int work = poll();
            if (violation != null) {
                throw violation;
            }
            if (work == 0) {
                if (peerLoss != null || draining) {
                    // A response posted before is given its bound to complete or fail by itself.
                    awaitWrites(0);
                    if (peerLoss != null) {
                        if (link.linkFailed()) {
                            throw new IOException(peerLoss);
                        }
                        // Between requests a lost peer is the end of the stream, not a failure (PROTOCOL.md §7.5).
                        throw new EOFException(peerLoss);
                    }
                    throw new IOException("the server is closing");
                }
                waitForCompletions(work, Long.MAX_VALUE, true, true);
            }
        }
        int slot = pendingSlots[pendingHead];
        requestLength = pendingLengths[pendingHead];
        // pendingSlots is sized for the protocol cap; only maxInFlight entries are ever used.
        pendingHead = (pendingHead + 1) % pendingSlots.length;
        pendingCount--;
        if (requestLength < MessageHeader.LENGTH) {
            throw new ProtocolException("request byte length", requestLength, "shorter than the 64-byte header");
        }
        if (inlineLimit != PayloadRead.NOT_NEGOTIATED) {
            takeDescriptor(slot);
        }
        return slot;
    }

    /**
     * Sorts a request of a connection that reads payloads: one with {@link PayloadRead#FLAG} has
     * its descriptor taken and the flag cleared, so that the session checks its header like any
     * other; the payload is read in {@link #completeRequest}. Each way must match the inline limit.
     */
    private void takeDescriptor(int slot) throws ProtocolException {
        MemorySegment message = receiveSlotViews[slot];
        in.wrap(message, 0);
        if (in.magic() != MessageHeader.MAGIC || in.version() != MessageHeader.VERSION
                || in.type() != MessageType.REQUEST) {
            return; // not a request at all: the session's checks name the field
        }
        long payload = in.payloadLength();
        if ((in.flags() & PayloadRead.FLAG) == 0) {
            if (payload > inlineLimit) {
                throw new ProtocolException("payload length", payload, "sent inline, but larger than the inline limit "
                        + "of " + inlineLimit + " bytes the WELCOME set: such a payload must be sent by descriptor");
            }
            return;
        }
        if (payload <= inlineLimit) {
            throw new ProtocolException("payload length", payload, "sent by descriptor, but within the inline limit "
                    + "of " + inlineLimit + " bytes: such a payload must be sent inline");
        }
        if (requestLength < PayloadRead.RANGES_OFFSET) {
            throw new ProtocolException("request byte length", requestLength, "too short for a payload descriptor");
        }
        long described = RangeDescriptor.length(message, PayloadRead.DESCRIPTOR_OFFSET);
        if (described != payload) {
            throw new ProtocolException("payload descriptor length", described, "must equal the payload length "
                    + payload);
        }
        readSlot = slot;
        readAddress = RangeDescriptor.address(message, PayloadRead.DESCRIPTOR_OFFSET);
        readKey = RangeDescriptor.key(message, PayloadRead.DESCRIPTOR_OFFSET);
        readPayload = (int) payload;
        readWrId = 0;
        in.flags(in.flags() & ~PayloadRead.FLAG);
    }

    @Override
    public MemorySegment message(int slot) {
        return slot == readSlot && readBytes > 0 ? readView : receiveSlotViews[slot];
    }

    @Override
    public boolean completeRequest(int slot, long length) throws IOException, ProtocolException {
        if (slot != readSlot) {
            MessageChecks.checkRequestByteLength(requestLength, length);
            return true;
        }
        int rangeCount = in.wrap(receiveSlotViews[slot], 0).rangeCount();
        MessageChecks.checkRequestByteLength(requestLength, PayloadRead.announcementLength(rangeCount));
        if (!borrowForRead(length)) {
            return false;
        }
        // The header and the ranges go where the session looks for them; the payload between them
        // comes from the client's send slot.
        MemorySegment slotView = receiveSlotViews[slot];
        long rangesAt = MessageHeader.rangesOffset(readPayload);
        MemorySegment.copy(slotView, 0, readView, 0, MessageHeader.LENGTH);
        MemorySegment.copy(slotView, PayloadRead.RANGES_OFFSET, readView, rangesAt,
                (long) RangeDescriptor.LENGTH * rangeCount);
        for (long at = MessageHeader.LENGTH + readPayload; at < rangesAt; at++) {
            readView.set(ValueLayout.JAVA_BYTE, at, (byte) 0);
        }
        postWrite(ibv_wr_opcode.IBV_WR_RDMA_READ, stagingAddress + readOffset + MessageHeader.LENGTH, readPayload,
                poolMemory.lkey(), readAddress, readKey, 0, true);
        readWrId = postedWrites;
        awaitRead();
        return true;
    }

    /**
     * Borrows an extent for the whole request, waiting up to the staging timeout as a response's
     * staging does.
     *
     * @return {@code false} if none could be had: the session answers BUSY
     */
    private boolean borrowForRead(long length) throws IOException {
        long bytes = StagingPool.blocksFor(length) * StagingPool.BLOCK_BYTES;
        long at;
        try {
            at = pool.tryReserve(bytes, readOffset);
            if (at == StagingPool.NO_EXTENT && postedWrites > completedWrites) {
                // This connection's own earlier responses may hold the blocks, returned only as
                // this thread sees their writes complete: let them, before waiting for others.
                awaitWrites(0);
                at = pool.tryReserve(bytes, readOffset);
            }
            if (at == StagingPool.NO_EXTENT) {
                waitingForStaging = true;
                try {
                    at = pool.reserve(bytes, readOffset, stagingTimeoutNs);
                } finally {
                    waitingForStaging = false;
                }
            }
        } catch (OflException | IllegalStateException e) {
            LOG.warn("qp {}: a request's payload of {} bytes cannot be read: {}", link.qp.qpNumber(), readPayload,
                    e.getMessage());
            return false;
        }
        if (at == StagingPool.NO_EXTENT) {
            LOG.debug("qp {}: no {} bytes of staging free within {} to read a request's payload into",
                    link.qp.qpNumber(), bytes, config.stagingTimeout());
            return false;
        }
        if (stagingAddress == 0) {
            stagingAddress = pool.memory().address();
        }
        if (readView == null || at != readOffset || bytes != readView.byteSize()) {
            readView = pool.view(at, bytes);
        }
        readOffset = at;
        readBytes = bytes;
        return true;
    }

    /**
     * Waits for the payload's READ, which completes after every write posted before it. A client
     * that described memory it did not let us read fails it: a violation on its field.
     */
    private void awaitRead() throws IOException, ProtocolException {
        idle.reset();
        while (completedWrites < readWrId) {
            int work = poll();
            if (violation != null) {
                throw violation;
            }
            if (work > 0) {
                continue;
            }
            if (peerLoss != null) {
                throw new IOException(peerLoss + " (while reading a request's payload)");
            }
            // A drain lets this request finish: only a completion, a peer loss or a break ends the wait.
            waitForCompletions(work, Long.MAX_VALUE, false, true);
        }
    }

    @Override
    public void releaseRequest(int slot) {
        if (slot == readSlot) {
            readSlot = -1;
            readWrId = 0;
            if (readBytes > 0) {
                // The READ completed: nothing writes the extent any more.
                pool.release(readOffset, readBytes);
                readBytes = 0;
            }
        }
        postReceive(slot);
    }

    /**
     * Takes completions: receives join the pending queue, signalled writes advance the count. A
     * SEND that did not fit a receive slot (the client's fault, not the transport's) is recorded in
     * {@link #violation}, and the rest of the batch, flushed by the queue pair's error, is dropped.
     */
    @Override
    public long progress() {
        return completions.getAcquire();
    }

    @Override
    public boolean waitingOnServer() {
        return waitingForStaging;
    }

    private int poll() throws IOException {
        if (violation != null) {
            // The connection is over; what is left are flushes.
            return 0;
        }
        int n = link.poll();
        if (n < 0) {
            throw new IOException("ibv_poll_cq failed: " + Errno.describe(-n));
        }
        for (int i = 0; i < n; i++) {
            MemorySegment wc = link.completion(i);
            int status = ibv_wc.status(wc);
            int opcode = ibv_wc.opcode(wc);
            if (status == ibv_wc_status.IBV_WC_LOC_LEN_ERR && !closing) {
                // Only a receive can overflow here (every send is sized by this side); the byte
                // length of a failed completion is undefined, so the slot's size is what is known.
                violation = new ProtocolException("request byte length", slotBytes, "a SEND longer than the "
                        + "receive slot of " + slotBytes + " bytes (" + ibv_wc_status.name(status) + ")");
                return n;
            }
            if (status != ibv_wc_status.IBV_WC_SUCCESS) {
                if (readWrId > completedWrites && ibv_wc.wr_id(wc) == readWrId && !closing && refusedRead(status)) {
                    violation = new ProtocolException("payload descriptor key", Integer.toUnsignedLong(readKey),
                            "the client's memory at 0x" + Long.toHexString(readAddress) + " (" + readPayload
                            + " bytes) could not be read (" + ibv_wc_status.name(status) + "): not registered for "
                            + "remote read, or a wrong address, length or key");
                    return n;
                }
                throw new IOException(failure(status, opcode));
            }
            long wrId = ibv_wc.wr_id(wc);
            if (opcode == ibv_wc_opcode.IBV_WC_RECV && wrId >= 0 && wrId < limits.maxInFlight()
                    && pendingCount < limits.maxInFlight()) {
                int tail = (pendingHead + pendingCount) % pendingSlots.length;
                pendingSlots[tail] = (int) wrId;
                pendingLengths[tail] = ibv_wc.byte_len(wc);
                pendingCount++;
            } else if ((opcode == ibv_wc_opcode.IBV_WC_RDMA_WRITE || opcode == ibv_wc_opcode.IBV_WC_RDMA_READ)
                    && wrId > completedWrites && wrId <= postedWrites) {
                // Progress of a transfer: the client's device acknowledged our writes or answered
                // our read. New requests arriving are not: they would let a client that stopped
                // acknowledging put the send timeout off with each receive slot it fills.
                completions.setRelease(completions.getPlain() + 1);
                completedWrites = wrId;
                returnCompleted();
            } else {
                throw new IOException("unexpected completion " + ibv_wc_opcode.name(opcode) + " (work request "
                        + wrId + "): the client used the queue pair outside the protocol");
            }
        }
        return n;
    }

    /**
     * Statuses by which a READ reports memory the responder would not let us read: the access
     * error the specification names, and what providers report instead (rxe's invalid request
     * and operation errors for a queue pair or region without remote read).
     */
    private static boolean refusedRead(int status) {
        return status == ibv_wc_status.IBV_WC_REM_ACCESS_ERR || status == ibv_wc_status.IBV_WC_REM_INV_REQ_ERR
                || status == ibv_wc_status.IBV_WC_REM_OP_ERR;
    }

    private String failure(int status, int opcode) {
        String what = ibv_wc_status.name(status) + " on " + ibv_wc_opcode.name(opcode);
        if (closing) {
            return "the server is closing (" + what + ")";
        }
        if (status == ibv_wc_status.IBV_WC_REM_ACCESS_ERR) {
            return "a response write was not accepted (" + what + "): the client's queue pair is in error (it "
                    + "timed out, or is gone) or its region is no longer registered; nothing was placed";
        }
        if (status == ibv_wc_status.IBV_WC_RETRY_EXC_ERR) {
            // Packets the client acknowledged before the retries ran out were placed: its call ends
            // failed, and what landed in its ranges before that is not a response.
            return "a response write was not accepted (" + what + "): the client's queue pair is in error (it "
                    + "timed out, or is gone) or the link lost packets until the retries ran out; what the client "
                    + "acknowledged before was placed, and its call ends failed";
        }
        String loss = peerLoss;
        return loss != null ? loss + " (" + what + ")" : "work completion failed: " + what;
    }

    /**
     * Between polls that found nothing: spin per the idle strategy, or park until the completion
     * channel fires, another thread wakes this one (peer lost, break, drain) or the deadline
     * passes. May return early; the caller polls and looks at its flags again.
     *
     * <p>Parking, not a native wait: every call here returns at once, so the thread can be virtual.
     * The order loses no completion: events already raised are taken (the channel's descriptor is
     * non-blocking), the queue is armed, polled once more (a completion that arrived before the
     * arming raised no event), and only then is the descriptor armed with the poller, which
     * reports at once a descriptor already readable.
     *
     * @param deadlineNs on the server's clock, or {@link Long#MAX_VALUE} for none
     * @param drainWakes whether a drain ends the wait (it does not for a request already taken)
     * @param lossWakes whether a lost peer ends the wait (it does not for a caller that already
     *     knows of the loss: returning at once would make its loop spin)
     */
    private void waitForCompletions(int work, long deadlineNs, boolean drainWakes, boolean lossWakes)
            throws IOException {
        if (closing) {
            throw new IOException("the server is closing");
        }
        if (config.waitMode() == WaitMode.BUSY_POLL) {
            idle.idle(work);
            return;
        }
        if (spinNs > 0) {
            // A short spin first: a request that follows the response by one client round trip is
            // taken without a park and a wake-up. Bounded by the machine's clock, not the server's
            // (which tests may stop): it is a cost bound, not a protocol deadline.
            long until = System.nanoTime() + spinNs;
            do {
                if (poll() > 0) {
                    return;
                }
                // Let other threads run between polls: the carrier's other virtual threads, or on a
                // platform thread (ConnectionThreads.PLATFORM) whatever else needs this core.
                Thread.yield();
            } while (System.nanoTime() - until < 0 && !closing && !(lossWakes && peerLoss != null)
                    && !(drainWakes && draining));
        }
        int rc = link.rearm();
        if (rc != 0) {
            throw new IOException("ibv_req_notify_cq failed: " + Errno.describe(rc));
        }
        if (poll() > 0) {
            return;
        }
        if (Thread.interrupted() && !interruptReported) {
            // Nothing here uses interrupts; a handler that left one set would make every park return at once.
            interruptReported = true;
            LOG.warn("qp {}: the connection's thread was interrupted (by a handler?); interrupts of a BLOCKING "
                    + "RDMA connection thread are cleared and ignored", link.qp.qpNumber());
        }
        events.arm();
        if (closing || (lossWakes && peerLoss != null) || (drainWakes && draining)) {
            return; // a wake-up between the last look and here may have been used up (a lock in the log above)
        }
        events.park(deadlineNs == Long.MAX_VALUE ? Long.MAX_VALUE
                : Math.min(deadlineNs - config.clock().nanoTime(), CLOCK_RECHECK_NS));
    }

    /** Waits until at most {@code outstanding} posted writes are incomplete. */
    private void awaitWrites(long outstanding) throws IOException {
        long startNs = config.clock().nanoTime();
        idle.reset();
        while (postedWrites - completedWrites > outstanding) {
            int work = poll();
            if (violation != null && postedWrites - completedWrites > outstanding) {
                // The queue pair is in error: the writes still outstanding can only fail.
                throw new IOException("the client broke the protocol while a response was being written: "
                        + violation.getMessage(), violation);
            }
            if (work > 0) {
                continue;
            }
            long deadlineNs = Long.MAX_VALUE;
            String loss = peerLoss;
            if (loss != null && !link.isBroken()) {
                long sinceNs = config.clock().nanoTime() - Math.max(startNs, peerLossNs);
                if (sinceNs > unacknowledgedBoundNs) {
                    LOG.info("qp {}: a response stayed unacknowledged {} ms after the client left; breaking the "
                            + "queue pair", link.qp.qpNumber(), sinceNs / 1_000_000);
                    breakLink();
                } else {
                    deadlineNs = Math.max(startNs, peerLossNs) + unacknowledgedBoundNs + 1;
                }
            }
            if (loss != null && deadlineNs == Long.MAX_VALUE) {
                // Broken (or the break failed): the flushes end the wait; look again now and then anyway.
                deadlineNs = config.clock().nanoTime() + CLOCK_RECHECK_NS;
            }
            // Neither a drain nor a loss already seen ends this wait: only these writes' completions,
            // the bound or closing do. A loss seen for the first time makes the loop set the bound.
            waitForCompletions(work, deadlineNs, false, loss == null);
        }
    }

    /**
     * Waits for the writes whose blocks are still held: they return only as this thread sees the
     * writes complete, which it does not while a response waits for staging. Bounded like every
     * wait for writes: a healthy link completes them in microseconds, a dead one fails them by the
     * retry budget, a lost peer's by the unacknowledged bound.
     */
    @Override
    public boolean reclaimStaging(long deadlineNs) throws IOException {
        if (releaseCount == 0) {
            return false;
        }
        awaitWrites(0);
        return true;
    }

    /** Returns the blocks of every write that has completed. */
    private void returnCompleted() {
        while (releaseCount > 0 && releaseAfterWrite[releaseHead] <= completedWrites) {
            pool.release(releaseOffsets[releaseHead], releaseLengths[releaseHead]);
            releaseHead = (releaseHead + 1) % releaseAfterWrite.length;
            releaseCount--;
        }
    }

    /**
     * Returns blocks once write {@code wrId} has completed, which a signalled write posted after it
     * shows. Each entry names a different write not yet completed (it follows at least one posted
     * write), so the ring never fills.
     */
    private void returnAfter(long wrId, long offset, long bytes) {
        if (bytes == 0) {
            return;
        }
        if (wrId <= completedWrites) {
            pool.release(offset, bytes);
            return;
        }
        if (releaseCount == releaseAfterWrite.length) {
            throw new IllegalStateException("more than " + releaseCount + " staging returns pending on qp "
                    + link.qp.qpNumber());
        }
        int tail = (releaseHead + releaseCount) % releaseAfterWrite.length;
        releaseAfterWrite[tail] = wrId;
        releaseOffsets[tail] = offset;
        releaseLengths[tail] = bytes;
        releaseCount++;
    }

    private void postWrite(int opcode, long localAddress, int length, int lkey, long remoteAddress, int rkey,
            int immediate, boolean last) throws IOException {
        awaitWrites(SEND_DEPTH - 2);
        // Counted even if the post fails: the connection ends, and its blocks stay held until close.
        long wrId = ++postedWrites;
        boolean signaled = last || wrId % SIGNAL_INTERVAL == 0;
        int rc = link.postSend(wrId, opcode, signaled, localAddress, length, lkey, remoteAddress, rkey, immediate);
        if (rc != 0) {
            throw postFailed(rc);
        }
    }

    private IOException postFailed(int rc) {
        String loss = peerLoss;
        return new IOException("ibv_post_send failed: " + Errno.describe(rc) + (loss != null ? " (" + loss + ")" : ""));
    }

    /**
     * Posts RDMA WRITEs for [from, to), cut at the client's range boundaries. Its blocks return
     * with the next signalled write (every 64th, or the response's completion): signalling every
     * piece would cost a completion per 64 KiB and measurably less throughput.
     */
    @Override
    public void sendPiece(long sequence, long stagingOffset, long from, long to, RangeCursor ranges,
            long releaseOffset, long releaseBytes) throws IOException {
        try {
            write(stagingOffset, from, to, ranges, false);
        } finally {
            // Even after a failure: a write posted before it may still read these blocks.
            returnAfter(postedWrites, releaseOffset, releaseBytes);
        }
    }

    /**
     * Posts RDMA WRITEs for [from, to), cut at the client's range boundaries. With
     * {@code holdLast} the last is prepared as the first of a pair and not posted; it returns
     * whether one was.
     */
    private boolean write(long stagingOffset, long from, long to, RangeCursor ranges, boolean holdLast)
            throws IOException {
        if (to > from && stagingAddress == 0) {
            stagingAddress = pool.memory().address();
        }
        long at = from;
        while (at < to) {
            long chunk = ranges.chunk(to - at);
            if (holdLast && at + chunk == to) {
                // Room for it and the completion header that follows it.
                awaitWrites(SEND_DEPTH - 2);
                long wrId = postedWrites + 1;
                link.prepareFirstOfPair(wrId, ibv_wr_opcode.IBV_WR_RDMA_WRITE, wrId % SIGNAL_INTERVAL == 0,
                        stagingAddress + stagingOffset + at, (int) chunk, poolMemory.lkey(), ranges.position(),
                        ranges.key(), 0);
                ranges.advance(chunk);
                return true;
            }
            postWrite(ibv_wr_opcode.IBV_WR_RDMA_WRITE, stagingAddress + stagingOffset + at, (int) chunk,
                    poolMemory.lkey(), ranges.position(), ranges.key(), 0, false);
            ranges.advance(chunk);
            at += chunk;
        }
        return false;
    }

    /**
     * Posts the last piece, then the completion header by WRITE WITH IMMEDIATE on the same QP,
     * signalled; the response's blocks return to the pool when it completes. It does not wait for
     * it: the next request is taken and staged meanwhile. The piece's last write and the header
     * go in one post: one doorbell, and one provider call, per small response.
     */
    @Override
    public void sendEnd(long sequence, long stagingOffset, long from, long to, int wireStatus, int handlerStatus,
            long responseLength, RangeCursor ranges, long releaseOffset, long releaseBytes) throws IOException {
        try {
            boolean paired = write(stagingOffset, from, to, ranges, true);
            // The header's slot is that of its work request number, once it may be posted (with a
            // pair, the wait before the held write made room for both).
            if (!paired) {
                awaitWrites(SEND_DEPTH - 2);
            }
            long headerId = postedWrites + (paired ? 2 : 1);
            long header = (headerId % SEND_DEPTH) * MessageHeader.LENGTH;
            out.wrap(completionHeaders, header).reset(MessageType.RESPONSE, sequence)
                    .status(wireStatus)
                    .handlerStatus(handlerStatus)
                    .responseLength(responseLength);
            long headerAddress = ringAddress + (sequence % limits.maxInFlight()) * MessageHeader.LENGTH;
            if (paired) {
                int rc = link.postPreparedPair(headerId, ibv_wr_opcode.IBV_WR_RDMA_WRITE_WITH_IMM,
                        true, completionHeaders.address() + header, MessageHeader.LENGTH, completionHeaderMr.lkey(),
                        headerAddress, ringKey, (int) sequence);
                // Counted as posted only if it was: the blocks return after the last posted write.
                postedWrites += link.postedOfPair(rc);
                if (rc != 0) {
                    throw postFailed(rc);
                }
            } else {
                postWrite(ibv_wr_opcode.IBV_WR_RDMA_WRITE_WITH_IMM, completionHeaders.address() + header,
                        MessageHeader.LENGTH, completionHeaderMr.lkey(), headerAddress, ringKey, (int) sequence, true);
            }
        } finally {
            returnAfter(postedWrites, releaseOffset, releaseBytes);
        }
    }

    private void breakLink() {
        Link l = link;
        if (l == null) {
            return;
        }
        try {
            l.breakLink();
        } catch (VerbsException e) {
            LOG.debug("could not break qp {}: {}", l.qp.qpNumber(), e.getMessage());
        }
    }

    @Override
    public void breakConnection() {
        closing = true;
        breakLink();
        wake();
    }

    @Override
    public boolean close() {
        if (events != null) {
            // Before the link closes the channel's descriptor, whose number may then be reused.
            events.close();
            events = null;
        }
        Link l = link;
        if (l != null) {
            try {
                l.close();
            } catch (RuntimeException e) {
                LOG.error("releasing qp {} failed", l.qp.qpNumber(), e);
                return false;
            }
        }
        if (arena != null) {
            arena.close();
            arena = null;
            ServerMemory.receive(-accounted);
            accounted = 0;
        }
        // The queue pair is destroyed: no write reads the pool any more, and no READ writes it.
        if (readBytes > 0) {
            pool.release(readOffset, readBytes);
            readBytes = 0;
        }
        while (releaseCount > 0) {
            pool.release(releaseOffsets[releaseHead], releaseLengths[releaseHead]);
            releaseHead = (releaseHead + 1) % releaseAfterWrite.length;
            releaseCount--;
        }
        return true;
    }
}
