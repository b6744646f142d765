package dev.ofl.verbs.rdma;

import dev.ofl.api.ClientConfig;
import dev.ofl.api.Completion;
import dev.ofl.api.IdleStrategy;
import dev.ofl.api.Limits;
import dev.ofl.api.NanoClock;
import dev.ofl.api.OflClient;
import dev.ofl.api.OflConnectionException;
import dev.ofl.api.OflException;
import dev.ofl.api.OflStatus;
import dev.ofl.api.Region;
import dev.ofl.api.ResponseRanges;
import dev.ofl.api.WaitMode;
import dev.ofl.api.spi.BootstrapIo;
import dev.ofl.api.spi.ClientBootstrap;
import dev.ofl.api.spi.RequestEncoder;
import dev.ofl.api.wire.Bootstrap;
import dev.ofl.api.wire.MessageChecks;
import dev.ofl.api.wire.MessageHeader;
import dev.ofl.api.wire.ProtocolException;
import dev.ofl.api.wire.RefusalCode;
import dev.ofl.api.wire.TransportKind;
import dev.ofl.api.wire.WireStatus;
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
import java.net.InetSocketAddress;
import java.nio.channels.SocketChannel;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The RDMA client. One thread at a time (plus a liveness thread that only breaks the QP).
 *
 * <p>Memory: the send slots and the completion ring live in a shared arena owned by the client for
 * its whole life, so their addresses survive reconnects; each connection registers them (and the
 * caller's regions) anew, and deregisters them only after its QP is in ERR and drained.
 */
final class RdmaClient implements OflClient, RequestEncoder.RangeAddressing {
    private static final Logger LOG = LoggerFactory.getLogger(RdmaClient.class);
    private static final int RING_SLOT_BYTES = MessageHeader.LENGTH;
    private static final int REMOTE_WRITABLE = ibv_access_flags.IBV_ACCESS_LOCAL_WRITE
            | ibv_access_flags.IBV_ACCESS_REMOTE_WRITE;
    private static final int MAX_INLINE = 256;

    private static final class Slot {
        MemorySegment message;
        MemorySegment payload;
        long capacity;
        long ticket = -1;
        boolean done;
        boolean awaited = true;
        int status;
        int handlerStatus;
        long length;
    }

    private final ClientConfig config;
    private final Limits limits;
    private final RdmaSettings settings;
    private final NanoClock clock;
    private final IdleStrategy idle;
    private final WaitMode waitMode;
    private final Arena arena = Arena.ofShared();
    private final MemorySegment sendSlots;
    private final MemorySegment ring;
    private final Slot[] slots;
    private final long slotBytes;
    private final List<Region> regions = new ArrayList<>();
    private final RequestEncoder encoder = new RequestEncoder();
    private final MessageHeader header = new MessageHeader();
    private final Libc libc = new Libc();
    /** The response header is copied here before it is checked: the ring stays remotely writable. */
    private final MemorySegment headerCopy = arena.allocate(MessageHeader.LENGTH, 64);

    private RdmaDevice device;
    private Link link;
    private MemoryRegion sendSlotsMr;
    private MemoryRegion[] regionMrs = new MemoryRegion[4];
    private SocketChannel socket;
    private String brokenReason;
    private boolean closed;

    private long nextTicket;
    private long oldestTicket;
    private long receivingTicket;
    private long ticketBase;

    RdmaClient(ClientConfig config) {
        this.config = config;
        this.limits = config.limits();
        this.settings = RdmaSettings.from(config.properties());
        this.clock = config.clock();
        this.idle = config.idleStrategy();
        this.waitMode = config.waitMode();
        int n = limits.maxInFlight();
        this.slotBytes = (MessageHeader.requestLength(limits.maxRequestBytes(), limits.maxRanges()) + 63) & ~63L;
        this.sendSlots = arena.allocate(slotBytes * (n + 1), 4096);
        this.ring = arena.allocate((long) RING_SLOT_BYTES * n, 4096);
        // One slot more than may be in flight: the slot requestPayload() hands out is never one
        // whose SEND the NIC may still be reading (or retransmitting).
        this.slots = new Slot[n + 1];
        for (int i = 0; i < slots.length; i++) {
            Slot slot = new Slot();
            slot.message = sendSlots.asSlice(i * slotBytes, slotBytes);
            slot.payload = slot.message.asSlice(MessageHeader.LENGTH, limits.maxRequestBytes());
            slots[i] = slot;
        }
        try {
            connect();
        } catch (RuntimeException e) {
            closeResources();
            throw e;
        }
    }

    private void connect() {
        InetSocketAddress server = config.server();
        long deadlineNs = System.nanoTime() + config.connectTimeout().toNanos();
        SocketChannel channel = null;
        Link created = null;
        try {
            channel = ClientBootstrap.open(config);
            java.net.InetAddress local = ((InetSocketAddress) channel.getLocalAddress()).getAddress();
            if (device != null && !device.gid.gid().ipv4().map(local::equals).orElse(false)) {
                device.close();
                device = null;
            }
            if (device == null) {
                device = RdmaDevice.open(local, settings);
            }
            int n = limits.maxInFlight();
            created = Link.create(device, 2 * n + 8, n, MAX_INLINE,
                    waitMode == WaitMode.BLOCKING, ibv_access_flags.IBV_ACCESS_REMOTE_WRITE);
            MemoryRegion slotsMr = created.register(sendSlots, ibv_access_flags.IBV_ACCESS_LOCAL_WRITE);
            MemoryRegion ringRegion = created.register(ring, REMOTE_WRITABLE);
            MemoryRegion[] mrs = new MemoryRegion[Math.max(4, regions.size())];
            for (Region region : regions) {
                mrs[region.id()] = created.register(region.segment(), REMOTE_WRITABLE);
            }
            for (int i = 0; i < n; i++) {
                int rc = created.postReceive(i, 0, 0, 0);
                if (rc != 0) {
                    throw new OflException("ibv_post_recv of completion receive " + i + " failed: "
                            + Link.describe(rc));
                }
            }
            Bootstrap.Endpoint hello = created.endpoint(new Bootstrap.Endpoint(RefusalCode.ACCEPTED,
                    TransportKind.RDMA, config.serviceName(), limits, 0, 0, null, 0, 0, 0, "", null),
                    ring.address(), ringRegion.rkey());
            Bootstrap.Endpoint welcome = ClientBootstrap.exchange(channel, server, hello, deadlineNs);
            try {
                created.connect(welcome, settings, RdmaSettings.RNR_RETRY_FOREVER);
            } catch (IllegalArgumentException e) {
                throw new OflException("server " + server + " sent unusable queue-pair parameters: "
                        + e.getMessage(), e);
            }
            link = created;
            sendSlotsMr = slotsMr;
            regionMrs = mrs;
            socket = channel;
            brokenReason = null;
            ticketBase = nextTicket;
            oldestTicket = nextTicket;
            receivingTicket = nextTicket;
            Link watched = created;
            Liveness.watch(channel, "ofl-rdma-liveness-" + created.qp.qpNumber(), reason -> {
                try {
                    watched.lose(reason);
                } catch (VerbsException e) {
                    LOG.warn("could not move qp {} to ERR after losing the server: {}", watched.qp.qpNumber(),
                            e.getMessage());
                }
            });
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

    private static void cleanup(SocketChannel channel, Link link) {
        BootstrapIo.closeQuietly(channel);
        BootstrapIo.closeQuietly(link);
    }

    @Override
    public long address(Region region, long offset) {
        return region.segment().address() + offset;
    }

    @Override
    public int key(Region region) {
        return regionMrs[region.id()].rkey();
    }

    @Override
    public Region registerRegion(MemorySegment segment) {
        ensureOpen();
        if (!segment.isNative()) {
            throw new IllegalArgumentException("regions must be native (off-heap) memory; allocate it from an Arena");
        }
        Region region = new Region(this, regions.size(), segment);
        if (region.id() >= regionMrs.length) {
            regionMrs = Arrays.copyOf(regionMrs, regionMrs.length * 2);
        }
        if (link != null && brokenReason == null) {
            try {
                regionMrs[region.id()] = link.register(segment, REMOTE_WRITABLE);
            } catch (VerbsException e) {
                throw new OflException("cannot register " + region + " for RDMA: " + e.getMessage(), e);
            }
        }
        regions.add(region);
        return region;
    }

    @Override
    public MemorySegment requestPayload() {
        return slotOf(nextTicket).payload;
    }

    private Slot slotOf(long ticket) {
        return slots[(int) (ticket % slots.length)];
    }

    @Override
    public long submit(int op, long generation, int payloadLength, ResponseRanges ranges) {
        ensureUsable();
        if (nextTicket - oldestTicket == limits.maxInFlight()) {
            return OflStatus.IN_FLIGHT_FULL;
        }
        RequestEncoder.check(this, regions, limits, payloadLength, ranges);
        for (int i = 0; i < ranges.count(); i++) {
            if (regionMrs[ranges.region(i).id()] == null) {
                throw new IllegalArgumentException(ranges.region(i) + " is not registered with this connection");
            }
        }
        Slot slot = slotOf(nextTicket);
        long length = encoder.encode(slot.message, nextTicket - ticketBase, op, generation, payloadLength, ranges,
                this);
        slot.capacity = ranges.totalLength();
        slot.ticket = nextTicket;
        slot.done = false;
        slot.awaited = false;
        int rc = link.postSend(nextTicket, ibv_wr_opcode.IBV_WR_SEND, true, slot.message.address(), (int) length,
                sendSlotsMr.lkey(), 0, 0, 0);
        if (rc != 0) {
            slot.awaited = true;
            throw broken("ibv_post_send of request " + nextTicket + " failed: " + Link.describe(rc));
        }
        return nextTicket++;
    }

    @Override
    public int await(long ticket, long deadlineNs, Completion completion) {
        ensureOpen();
        if (ticket < 0 || slotOf(ticket).ticket != ticket || slotOf(ticket).awaited) {
            throw new IllegalArgumentException("ticket " + ticket + " is not outstanding (awaited already, dropped"
                    + " by a reconnect, or never issued)");
        }
        Slot slot = slotOf(ticket);
        while (!slot.done) {
            if (brokenReason != null) {
                release(slot);
                throw new OflConnectionException("ticket " + ticket + " was lost: " + brokenReason
                        + "; call reconnect()");
            }
            int work;
            try {
                work = poll();
            } catch (OflConnectionException e) {
                release(slot);
                throw e;
            }
            if (slot.done) {
                break;
            }
            if (clock.nanoTime() - deadlineNs >= 0) {
                // The QP goes to ERR before we return: from now on nothing lands in any range.
                breakConnection("ticket " + ticket + " timed out");
                release(slot);
                completion.set(ticket, OflStatus.TIMED_OUT, 0, 0);
                return OflStatus.TIMED_OUT;
            }
            if (work == 0) {
                if (waitMode == WaitMode.BLOCKING) {
                    waitForCompletion(deadlineNs);
                } else {
                    idle.idle(0);
                }
            }
        }
        int status = WireStatus.toOflStatus(slot.status);
        completion.set(ticket, status, slot.handlerStatus, status == OflStatus.OK ? slot.length : 0);
        release(slot);
        return status;
    }

    private void release(Slot slot) {
        slot.awaited = true;
        while (oldestTicket < nextTicket && slotOf(oldestTicket).awaited) {
            oldestTicket++;
        }
    }

    private int poll() {
        int n = link.poll();
        if (n < 0) {
            throw broken("ibv_poll_cq failed: " + Link.describe(-n));
        }
        for (int i = 0; i < n; i++) {
            MemorySegment wc = link.completion(i);
            int status = ibv_wc.status(wc);
            int opcode = ibv_wc.opcode(wc);
            if (status != ibv_wc_status.IBV_WC_SUCCESS) {
                throw broken(failure(status, opcode));
            }
            if (opcode == ibv_wc_opcode.IBV_WC_RECV_RDMA_WITH_IMM) {
                onResponse(ibv_wc.imm_data(wc));
            } else if (opcode != ibv_wc_opcode.IBV_WC_SEND) {
                throw broken("the server broke the protocol: unexpected completion "
                        + ibv_wc_opcode.name(opcode) + " (it must not SEND to a client)");
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

    private void onResponse(int immediate) {
        long sequence = receivingTicket - ticketBase;
        if (receivingTicket == nextTicket) {
            throw broken("the server broke the protocol: a completion arrived while no request was outstanding");
        }
        if (immediate != (int) sequence) {
            throw broken("the server broke the protocol: immediate " + Integer.toUnsignedString(immediate)
                    + " does not name the oldest outstanding request, " + sequence);
        }
        Slot slot = slotOf(receivingTicket);
        // Check and read a private copy: the server can still write the ring slot.
        MemorySegment.copy(ring, (sequence % limits.maxInFlight()) * RING_SLOT_BYTES, headerCopy, 0,
                RING_SLOT_BYTES);
        header.wrap(headerCopy, 0);
        try {
            MessageChecks.checkRdmaResponse(header, sequence, slot.capacity);
        } catch (ProtocolException e) {
            throw broken("the server broke the protocol: " + e.getMessage());
        }
        slot.status = header.status();
        slot.handlerStatus = header.handlerStatus();
        slot.length = header.responseLength();
        slot.done = true;
        receivingTicket++;
        int rc = link.postReceive(0, 0, 0, 0);
        if (rc != 0) {
            throw broken("ibv_post_recv failed: " + Link.describe(rc));
        }
    }

    private void waitForCompletion(long deadlineNs) {
        int rc = link.cq.requestNotify(false);
        if (rc != 0) {
            throw broken("ibv_req_notify_cq failed: " + Link.describe(rc));
        }
        // A completion that arrived before the queue was armed raises no event: look once more.
        if (poll() > 0) {
            return;
        }
        long remainingNs = deadlineNs - clock.nanoTime();
        int timeoutMs = (int) Math.min(Integer.MAX_VALUE, Math.max(1, (remainingNs + 999_999) / 1_000_000));
        if (libc.awaitReadable(link.channel.fileDescriptor(), timeoutMs) > 0) {
            link.channel.awaitEvent();
            link.cq.acknowledgeEvents(1);
        }
    }

    private OflConnectionException broken(String reason) {
        breakConnection(reason);
        return new OflConnectionException(reason + "; the client is broken until reconnect()");
    }

    /** Moves the QP to ERR first, so that no late write can land; the socket stays for reconnect. */
    private void breakConnection(String reason) {
        if (brokenReason == null) {
            brokenReason = reason;
            LOG.debug("rdma connection to {} broken: {}", config.server(), reason);
        }
        if (link != null) {
            try {
                link.breakLink();
            } catch (VerbsException e) {
                // Without ERR the only way to be sure nothing lands is to destroy the queue pair.
                LOG.warn("moving qp {} to ERR failed ({}); destroying it", link.qp.qpNumber(), e.getMessage());
                tearDownConnection();
            }
        }
    }

    private void ensureOpen() {
        if (closed) {
            throw new IllegalStateException("the client is closed");
        }
    }

    private void ensureUsable() {
        ensureOpen();
        if (brokenReason == null && link != null && link.lossReason() != null) {
            breakConnection(link.lossReason());
        }
        if (brokenReason != null) {
            throw new OflConnectionException("the connection is broken (" + brokenReason + "); call reconnect()");
        }
    }

    @Override
    public void reconnect() {
        ensureOpen();
        breakConnection("reconnect() was called");
        tearDownConnection();
        for (Slot slot : slots) {
            slot.awaited = true;
        }
        oldestTicket = nextTicket;
        receivingTicket = nextTicket;
        connect();
    }

    /** Closes the socket (stopping the liveness thread quietly), then the link in its order. */
    private void tearDownConnection() {
        SocketChannel s = socket;
        socket = null;
        BootstrapIo.closeQuietly(s);
        Link l = link;
        link = null;
        sendSlotsMr = null;
        Arrays.fill(regionMrs, null);
        if (l != null) {
            l.close();
        }
    }

    /** The queue pair's state as the device reports it ({@code IBV_QPS_*}); for tests. */
    int queuePairState() {
        return link.qp.queryState();
    }

    @Override
    public boolean isBroken() {
        return brokenReason != null || link == null || link.lossReason() != null;
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
        return RdmaBackend.NAME;
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        if (brokenReason == null) {
            brokenReason = "closed";
        }
        closeResources();
    }

    /**
     * Releases everything. If the queue pair could not be destroyed, the registered memory is
     * leaked on purpose rather than freed under a device that may still write into it.
     */
    private void closeResources() {
        try {
            tearDownConnection();
        } catch (RuntimeException e) {
            LOG.error("could not release the RDMA connection; its registered memory is left allocated", e);
            libc.close();
            throw e;
        }
        try {
            if (device != null) {
                device.close();
                device = null;
            }
        } finally {
            libc.close();
            arena.close();
        }
    }
}
