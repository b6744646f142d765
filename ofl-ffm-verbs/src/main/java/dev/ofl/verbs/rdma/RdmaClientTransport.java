package dev.ofl.verbs.rdma;

import dev.ofl.api.ClientConfig;
import dev.ofl.api.Limits;
import dev.ofl.api.OflConnectionException;
import dev.ofl.api.OflException;
import dev.ofl.api.RefusalCode;
import dev.ofl.api.Region;
import dev.ofl.api.spi.BootstrapIo;
import dev.ofl.api.spi.ClientBootstrap;
import dev.ofl.api.spi.ClientTransport;
import dev.ofl.api.spi.LivenessWatcher;
import dev.ofl.api.spi.ResponseSink;
import dev.ofl.api.wire.Bootstrap;
import dev.ofl.api.wire.MessageHeader;
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
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketTimeoutException;
import java.nio.channels.SocketChannel;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The RDMA client transport: requests are SENDs from the session's send slots into the server's
 * pre-posted receives; the server WRITEs response bytes straight into the caller's ranges and the
 * completion header, with its sequence as immediate, into this side's completion ring. A server
 * that answers the HELLO's offer with an inline limit reads a larger payload itself, by RDMA READ
 * from the send slot; the SEND then carries the header, a descriptor of the payload and the ranges,
 * from an announcement area of one small buffer per send slot (docs/PROTOCOL.md 7.3). A send slot
 * is written again only once its request's response arrived or the connection broke, so the
 * server never reads a later request's bytes.
 *
 * <p>Memory: the completion ring, the header copy and the announcements live in an arena owned by
 * the transport for the client's whole life; each connection registers them, the send slots and
 * the caller's regions anew, and deregisters them only after its QP is in ERR and drained. If a QP cannot be destroyed,
 * {@link #close()} keeps all of it allocated and says so.
 */
final class RdmaClientTransport implements ClientTransport {
    private static final Logger LOG = LoggerFactory.getLogger(RdmaClientTransport.class);
    private static final int RING_SLOT_BYTES = MessageHeader.LENGTH;
    private static final int REMOTE_WRITABLE = ibv_access_flags.IBV_ACCESS_LOCAL_WRITE
            | ibv_access_flags.IBV_ACCESS_REMOTE_WRITE;
    private static final int MAX_INLINE = 256;

    /**
     * How often a client retries a server that is not ready to receive. The server posts its
     * receives before its WELCOME, so a retry should never be needed; tests set 0 to make one fatal.
     */
    static volatile int rnrRetry = RdmaSettings.RNR_RETRY_FOREVER;

    private final ClientConfig config;
    private final Limits limits;
    private final RdmaSettings settings;
    private final Arena arena;
    private final MemorySegment sendSlots;
    private final MemorySegment ring;
    /** The response header is copied here before it is checked: the ring stays remotely writable. */
    private final MemorySegment headerCopy;
    private final MessageHeader header = new MessageHeader();
    /** Per send slot: a REQUEST that describes its payload instead of carrying it. */
    private final MemorySegment announcements;
    private final MemorySegment[] announcementViews;
    private final MessageHeader request = new MessageHeader();
    /** Payloads longer than this go by descriptor; {@link PayloadRead#NOT_NEGOTIATED} for none. */
    private long inlineLimit = PayloadRead.NOT_NEGOTIATED;
    /** Whether the current connection's server sends failure reasons; set by connect. */
    private boolean failureReasons;
    private MemoryRegion announcementsMr;
    private final Libc libc;
    /** Set when a queue pair could not be destroyed: its registered memory must then never be freed. */
    private boolean leaked;

    private RdmaDevice device;
    private Link link;
    /** The link's completion channel in the process's poller, once a virtual thread waited on it. */
    private CompletionPoller.Registration events;
    /** The process's poller; tests give one of their own. */
    private final CompletionPoller poller = CompletionPoller.shared();
    private MemoryRegion sendSlotsMr;
    private MemoryRegion[] regionMrs = new MemoryRegion[4];
    private SocketChannel socket;
    private String path = "";

    RdmaClientTransport(ClientConfig config, MemorySegment sendSlots, long slotBytes) {
        this.config = config;
        this.limits = config.limits();
        // Settings first: a bad property must fail before any memory is allocated.
        this.settings = RdmaSettings.from(config.properties());
        this.sendSlots = sendSlots;
        this.arena = Arena.ofShared();
        try {
            this.ring = arena.allocate((long) RING_SLOT_BYTES * limits.maxInFlight(), 4096);
            this.headerCopy = arena.allocate(MessageHeader.LENGTH, 64);
            int slots = (int) (sendSlots.byteSize() / slotBytes);
            long announcementBytes = (PayloadRead.announcementLength(limits.maxRanges()) + 63) & ~63L;
            this.announcements = arena.allocate(announcementBytes * slots, 64);
            this.announcementViews = new MemorySegment[slots];
            for (int i = 0; i < slots; i++) {
                announcementViews[i] = announcements.asSlice(i * announcementBytes, announcementBytes);
            }
            this.libc = new Libc();
        } catch (RuntimeException | Error e) {
            arena.close();
            throw e;
        }
    }

    @Override
    public void connect(List<Region> regions, long deadlineNs) {
        InetSocketAddress server = config.server();
        SocketChannel channel = null;
        Link created = null;
        try {
            // Everything the HELLO describes is made before the TCP connect, on the device of the
            // address the connection will leave from: the server's bootstrap timeout runs from its
            // accept, and this set-up takes seconds on a slow host (docs/PROTOCOL.md 3.3).
            InetAddress local = ClientBootstrap.sourceAddress(config);
            GidEntry gid = null;
            if (device != null && device.failure() != null) {
                // A device that failed is opened afresh, as after the driver's recovery.
                LOG.info("opening {} again after its failure: {}", device.context.deviceName(), device.failure());
                closeFailed(device);
                device = null;
            }
            if (device != null && device.address.equals(local)) {
                try {
                    // The table may have been renumbered since the last connection.
                    gid = device.currentGid();
                } catch (GidSelectionException e) {
                    LOG.debug("{} is no longer carried by {}: {}", local, device.context, e.getMessage());
                }
            }
            if (gid == null) {
                if (device != null) {
                    device.close();
                    device = null;
                }
                device = RdmaDevice.open(local, settings);
                gid = device.gid;
            }
            int n = limits.maxInFlight();
            // Remote read: a server that reads payloads reads them from the send slots, which are
            // the only memory registered for it.
            // A completion channel in either wait mode: a busy-polling client on a virtual thread
            // waits parked on it after its short spin (ClientSession).
            created = Link.create(device, gid, 2 * n + 8, n, MAX_INLINE, true,
                    ibv_access_flags.IBV_ACCESS_REMOTE_WRITE | ibv_access_flags.IBV_ACCESS_REMOTE_READ);
            MemoryRegion slotsMr = created.register(sendSlots,
                    ibv_access_flags.IBV_ACCESS_LOCAL_WRITE | ibv_access_flags.IBV_ACCESS_REMOTE_READ);
            MemoryRegion announcementsRegion = created.register(announcements, ibv_access_flags.IBV_ACCESS_LOCAL_WRITE);
            MemoryRegion ringMr = created.register(ring, REMOTE_WRITABLE);
            MemoryRegion[] mrs = new MemoryRegion[Math.max(regionMrs.length, regions.size())];
            for (Region region : regions) {
                // A region whose memory the caller freed is never registered again: the address may
                // belong to other memory now. The client refuses every request that names it.
                if (region.segment().scope().isAlive()) {
                    mrs[region.id()] = created.register(region.segment(), REMOTE_WRITABLE);
                }
            }
            for (int i = 0; i < n; i++) {
                int rc = created.postReceive(i, 0, 0, 0);
                if (rc != 0) {
                    throw new OflException("ibv_post_recv of completion receive " + i + " failed: "
                            + Errno.describe(rc));
                }
            }
            // The set-up took part of the connect timeout; the TCP connect gets what is left.
            long leftNs = deadlineNs - config.clock().nanoTime();
            if (leftNs <= 0) {
                throw new SocketTimeoutException("the RDMA set-up took the whole connect timeout ("
                        + config.connectTimeout() + ") before the TCP connect");
            }
            channel = ClientBootstrap.open(config, local, Duration.ofNanos(leftNs));
            Bootstrap.Endpoint hello = created.endpoint(new Bootstrap.Endpoint(RefusalCode.ACCEPTED,
                    TransportKind.RDMA, config.serviceName(), limits, 0, 0, null, 0, 0, 0, "", PayloadRead.offer()),
                    ring.address(), ringMr.rkey());
            Bootstrap.Endpoint welcome = ClientBootstrap.exchange(channel, server, hello, deadlineNs, config.clock(),
                    config.authentication());
            long inline;
            boolean reasons = ClientBootstrap.failureReasons(welcome);
            try {
                inline = PayloadRead.inlineBytes(welcome.extensions());
            } catch (ProtocolException e) {
                throw new OflException("server " + server + " sent a malformed WELCOME: " + e.getMessage(), e);
            }
            try {
                created.connect(welcome, settings, rnrRetry);
            } catch (IllegalArgumentException e) {
                throw new OflException("server " + server + " sent unusable queue-pair parameters: "
                        + e.getMessage(), e);
            }
            Link watched = created;
            LivenessWatcher.shared().watch(channel, reason -> {
                try {
                    watched.lose(reason);
                } catch (VerbsException e) {
                    LOG.warn("could not move qp {} to ERR after losing the server: {}", watched.qp.qpNumber(),
                            e.getMessage());
                }
            });
            link = created;
            sendSlotsMr = slotsMr;
            announcementsMr = announcementsRegion;
            inlineLimit = inline;
            failureReasons = reasons;
            regionMrs = mrs;
            socket = channel;
            path = device.context.deviceName() + " " + gid + ", qp " + created.qp.qpNumber();
            LOG.debug("rdma connection to {} as qp {} on {}", server, created.qp.qpNumber(), device.context);
        } catch (IOException e) {
            cleanup(channel, created);
            throw new OflConnectionException("cannot connect to " + server + ": " + e
                    + "; is an ofl rdma server running and bound to exactly that address and port?", e);
        } catch (VerbsException e) {
            cleanup(channel, created);
            throw new OflException("cannot set up RDMA to " + server + ": " + e.getMessage(), e);
        } catch (RuntimeException e) {
            cleanup(channel, created);
            throw e;
        }
    }

    /** Closes a device that failed; its context may refuse, which changes nothing for the next one. */
    private static void closeFailed(RdmaDevice failed) {
        try {
            failed.close();
        } catch (VerbsException e) {
            LOG.warn("closing the failed {} failed: {}", failed.context.deviceName(), e.getMessage());
        }
    }

    private static void cleanup(SocketChannel channel, Link link) {
        BootstrapIo.closeQuietly(channel);
        BootstrapIo.closeQuietly(link);
    }

    @Override
    public long rangeAddress(Region region, long offset) {
        return region.segment().address() + offset;
    }

    @Override
    public int rangeKey(Region region) {
        MemoryRegion mr = region.id() < regionMrs.length ? regionMrs[region.id()] : null;
        if (mr == null) {
            throw new IllegalArgumentException(region + " is not registered with this connection");
        }
        return mr.rkey();
    }

    @Override
    public void register(Region region) {
        if (region.id() >= regionMrs.length) {
            regionMrs = Arrays.copyOf(regionMrs, Math.max(region.id() + 1, regionMrs.length * 2));
        }
        if (link != null && link.lossReason() == null && !link.isBroken()) {
            try {
                regionMrs[region.id()] = link.register(region.segment(), REMOTE_WRITABLE);
            } catch (VerbsException e) {
                throw new OflException("cannot register " + region + " for RDMA: " + e.getMessage(), e);
            }
        }
    }

    @Override
    public boolean countsPlacedBytes() {
        return false;
    }

    @Override
    public void send(int slot, MemorySegment message, long length, ResponseSink sink) {
        long payload = request.wrap(message, 0).payloadLength();
        int rc;
        if (inlineLimit != PayloadRead.NOT_NEGOTIATED && payload > inlineLimit) {
            rc = announce(slot, message, (int) payload);
        } else {
            rc = link.postSend(message.address(), ibv_wr_opcode.IBV_WR_SEND, true, message.address(), (int) length,
                    sendSlotsMr.lkey(), 0, 0, 0);
        }
        if (rc != 0) {
            throw new OflConnectionException("ibv_post_send of a request failed: " + Errno.describe(rc));
        }
    }

    /**
     * Sends the header, a descriptor of the payload where it lies in the send slot, and the
     * ranges; the server reads the payload from there.
     */
    private int announce(int slot, MemorySegment message, int payload) {
        MemorySegment announcement = announcementViews[slot];
        MemorySegment.copy(message, 0, announcement, 0, MessageHeader.LENGTH);
        request.wrap(announcement, 0).flags(PayloadRead.FLAG);
        RangeDescriptor.write(announcement, PayloadRead.DESCRIPTOR_OFFSET, message.address() + MessageHeader.LENGTH,
                payload, sendSlotsMr.rkey());
        int ranges = request.rangeCount();
        MemorySegment.copy(message, MessageHeader.rangesOffset(payload), announcement, PayloadRead.RANGES_OFFSET,
                (long) RangeDescriptor.LENGTH * ranges);
        return link.postSend(announcement.address(), ibv_wr_opcode.IBV_WR_SEND, true, announcement.address(),
                (int) PayloadRead.announcementLength(ranges), announcementsMr.lkey(), 0, 0, 0);
    }

    /** Payloads longer than this go by descriptor on the current connection; for tests. */
    long inlineLimit() {
        return inlineLimit;
    }

    @Override
    public int poll(ResponseSink sink) throws ProtocolException {
        int n = link.poll();
        if (n < 0) {
            throw new OflConnectionException("ibv_poll_cq failed: " + Errno.describe(-n));
        }
        for (int i = 0; i < n; i++) {
            MemorySegment wc = link.completion(i);
            int status = ibv_wc.status(wc);
            int opcode = ibv_wc.opcode(wc);
            if (status != ibv_wc_status.IBV_WC_SUCCESS) {
                throw new OflConnectionException(failure(status, opcode));
            }
            if (opcode == ibv_wc_opcode.IBV_WC_RECV_RDMA_WITH_IMM) {
                onResponse(ibv_wc.imm_data(wc), sink);
            } else if (opcode != ibv_wc_opcode.IBV_WC_SEND) {
                throw new ProtocolException("completion opcode", opcode, "unexpected "
                        + ibv_wc_opcode.name(opcode) + " (a server must not SEND to a client)");
            }
        }
        return n;
    }

    private String failure(int status, int opcode) {
        String loss = link.lossReason();
        if (loss != null) {
            return loss;
        }
        String what = ibv_wc_status.name(status) + " on " + ibv_wc_opcode.name(opcode);
        if (status == ibv_wc_status.IBV_WC_RETRY_EXC_ERR) {
            return what + ": the server's queue pair did not acknowledge (server dead, unreachable or its "
                    + "connection closed)";
        }
        return what;
    }

    private void onResponse(int immediate, ResponseSink sink) throws ProtocolException {
        long sequence = sink.receivingSequence();
        if (sequence < 0) {
            throw new ProtocolException("immediate", Integer.toUnsignedLong(immediate),
                    "a completion arrived while no request was outstanding");
        }
        if (immediate != (int) sequence) {
            throw new ProtocolException("immediate", Integer.toUnsignedLong(immediate),
                    "does not name the oldest outstanding request, " + sequence);
        }
        // Check and read a private copy: the server can still write the ring slot.
        MemorySegment.copy(ring, (sequence % limits.maxInFlight()) * RING_SLOT_BYTES, headerCopy, 0,
                RING_SLOT_BYTES);
        sink.complete(header.wrap(headerCopy, 0));
        int rc = link.postReceive(0, 0, 0, 0);
        if (rc != 0) {
            throw new OflConnectionException("ibv_post_recv failed: " + Errno.describe(rc));
        }
    }

    @Override
    public int awaitProgress(ResponseSink sink, long deadlineNs, long nowNs) throws ProtocolException {
        if (Thread.currentThread().isVirtual()) {
            return awaitParked(sink, deadlineNs, nowNs);
        }
        int rc = link.cq.requestNotify(false);
        if (rc != 0) {
            throw new OflConnectionException("ibv_req_notify_cq failed: " + Errno.describe(rc));
        }
        // A completion that arrived before the queue was armed raises no event: look once more.
        int work = poll(sink);
        if (work > 0) {
            return work;
        }
        int timeoutMs = (int) Math.min(Integer.MAX_VALUE, Math.max(1, (deadlineNs - nowNs + 999_999) / 1_000_000));
        if (libc.awaitReadable(link.channel.fileDescriptor(), timeoutMs) > 0) {
            link.channel.awaitEvent();
            link.cq.acknowledgeEvents(1);
        }
        return 0;
    }

    /**
     * A virtual thread's wait: it parks, and the process's {@link CompletionPoller} unparks it when
     * the completion channel fires, instead of blocking in {@code poll(2)}, which would hold its
     * carrier (16 virtual-thread clients on 2 carriers starved an in-process server). The order
     * loses no completion: events already raised are taken (the poller made the descriptor
     * non-blocking), the queue is armed, polled once more, and only then is the descriptor armed
     * with the poller, which reports at once one already readable. A timed park, as a client's wait
     * always is, allocates a timer task on a virtual thread.
     */
    private int awaitParked(ResponseSink sink, long deadlineNs, long nowNs) throws ProtocolException {
        try {
            if (events == null) {
                events = poller.register(link.channel.fileDescriptor());
            }
            int rc = link.rearm();
            if (rc != 0) {
                throw new OflConnectionException("ibv_req_notify_cq failed: " + Errno.describe(rc));
            }
            int work = poll(sink);
            if (work > 0) {
                return work;
            }
            events.arm();
        } catch (IOException e) {
            throw new OflConnectionException("waiting for completions failed: " + e.getMessage(), e);
        }
        // The bootstrap socket's loss raises no completion: bounded by the poller's sweep, the
        // session then looks at the loss again.
        events.park(deadlineNs - nowNs);
        return 0;
    }

    /**
     * Moves the QP to ERR so that no late write can land, then closes the bootstrap socket so that
     * the server learns at once that this connection is over (and frees what it holds for it).
     */
    @Override
    public void breakConnection() {
        if (link == null) {
            return;
        }
        try {
            link.breakLink();
            BootstrapIo.closeQuietly(socket);
        } catch (VerbsException e) {
            // Without ERR the only way to be sure nothing lands is to destroy the queue pair.
            LOG.warn("moving qp {} to ERR failed ({}); destroying it", link.qp.qpNumber(), e.getMessage());
            try {
                disconnect();
            } catch (RuntimeException f) {
                leaked = true;
                LOG.error("could not destroy qp after a failed move to ERR", f);
            }
        }
    }

    @Override
    public boolean failureReasons() {
        return failureReasons;
    }

    @Override
    public String lossReason() {
        Link l = link;
        return l == null ? "not connected" : l.lossReason();
    }

    @Override
    public boolean lossIsLinkFailure() {
        Link l = link;
        return l != null && l.linkFailed();
    }

    /** The device of the current or last connection; for tests. */
    RdmaDevice device() {
        return device;
    }

    /** The current connection's link; for tests. */
    Link link() {
        return link;
    }

    /** The queue pair's state as the device reports it ({@code IBV_QPS_*}); for tests. */
    int queuePairState() {
        return link.qp.queryState();
    }

    /** Closes the socket (ending its liveness watch quietly), then the link in its order. */
    @Override
    public void disconnect() {
        SocketChannel s = socket;
        socket = null;
        BootstrapIo.closeQuietly(s);
        Link l = link;
        link = null;
        if (events != null) {
            // Before the link closes the channel's descriptor, whose number may then be reused.
            events.close();
            events = null;
        }
        sendSlotsMr = null;
        announcementsMr = null;
        inlineLimit = PayloadRead.NOT_NEGOTIATED;
        Arrays.fill(regionMrs, null);
        if (l != null) {
            l.close();
        }
    }

    /**
     * Releases everything. If the queue pair could not be destroyed, the registered memory is
     * leaked on purpose rather than freed under a device that may still write into it.
     */
    @Override
    public boolean close() {
        try {
            disconnect();
        } catch (RuntimeException e) {
            leaked = true;
            LOG.error("releasing the rdma connection failed", e);
        } finally {
            libc.close();
        }
        if (leaked) {
            LOG.error("a queue pair of this client could not be destroyed; its registered memory is left "
                    + "allocated so that the device cannot write into freed memory");
            return false;
        }
        try {
            if (device != null) {
                device.close();
                device = null;
            }
        } finally {
            arena.close();
        }
        return true;
    }

    @Override
    public String backend() {
        return RdmaBackend.NAME;
    }

    @Override
    public String path() {
        return path;
    }
}
