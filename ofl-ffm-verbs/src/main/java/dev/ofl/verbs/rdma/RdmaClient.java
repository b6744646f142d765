package dev.ofl.verbs.rdma;

import dev.ofl.api.ClientConfig;
import dev.ofl.api.Limits;
import dev.ofl.api.OflConnectionException;
import dev.ofl.api.OflException;
import dev.ofl.api.Region;
import dev.ofl.api.ResponseRanges;
import dev.ofl.api.WaitMode;
import dev.ofl.api.spi.AbstractClient;
import dev.ofl.api.spi.BootstrapIo;
import dev.ofl.api.spi.ClientBootstrap;
import dev.ofl.api.spi.RequestEncoder;
import dev.ofl.api.wire.Bootstrap;
import dev.ofl.api.wire.MessageChecks;
import dev.ofl.api.wire.MessageHeader;
import dev.ofl.api.wire.ProtocolException;
import dev.ofl.api.wire.RefusalCode;
import dev.ofl.api.wire.TransportKind;
import dev.ofl.verbs.Errno;
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
import java.nio.channels.SocketChannel;
import java.util.Arrays;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The RDMA client. One thread at a time (plus a liveness thread that only breaks the QP).
 *
 * <p>Memory: the send slots and the completion ring live in a shared arena owned by the client for
 * its whole life, so their addresses survive reconnects; each connection registers them (and the
 * caller's regions) anew, and deregisters them only after its QP is in ERR and drained.
 */
final class RdmaClient extends AbstractClient<AbstractClient.Slot> implements RequestEncoder.RangeAddressing {
    private static final Logger LOG = LoggerFactory.getLogger(RdmaClient.class);
    private static final int RING_SLOT_BYTES = MessageHeader.LENGTH;
    private static final int REMOTE_WRITABLE = ibv_access_flags.IBV_ACCESS_LOCAL_WRITE
            | ibv_access_flags.IBV_ACCESS_REMOTE_WRITE;
    private static final int MAX_INLINE = 256;

    private final RdmaSettings settings;
    private final Arena arena;
    private final MemorySegment sendSlots;
    private final MemorySegment ring;
    /** The response header is copied here before it is checked: the ring stays remotely writable. */
    private final MemorySegment headerCopy;
    private final MessageHeader header = new MessageHeader();
    private final Libc libc;
    /** Set when a queue pair could not be destroyed: its registered memory must then never be freed. */
    private boolean leaked;

    private RdmaDevice device;
    private Link link;
    private MemoryRegion sendSlotsMr;
    private MemoryRegion[] regionMrs = new MemoryRegion[4];
    private SocketChannel socket;

    RdmaClient(ClientConfig config) {
        // Settings first: a bad property must fail before any memory is allocated.
        this(config, RdmaSettings.from(config.properties()), Arena.ofShared());
    }

    private RdmaClient(ClientConfig config, RdmaSettings settings, Arena arena) {
        this(config, settings, arena, slotMemory(config.limits(), arena));
    }

    private RdmaClient(ClientConfig config, RdmaSettings settings, Arena arena, MemorySegment sendSlots) {
        super(config, slots(config.limits(), sendSlots));
        this.arena = arena;
        this.settings = settings;
        this.sendSlots = sendSlots;
        try {
            this.ring = arena.allocate((long) RING_SLOT_BYTES * limits.maxInFlight(), 4096);
            this.headerCopy = arena.allocate(MessageHeader.LENGTH, 64);
            this.libc = new Libc();
            connect();
        } catch (RuntimeException | Error e) {
            releaseResources();
            throw e;
        }
    }

    private static MemorySegment slotMemory(Limits limits, Arena arena) {
        try {
            return arena.allocate(slotBytes(limits) * (limits.maxInFlight() + 1L), 4096);
        } catch (RuntimeException | Error e) {
            arena.close();
            throw e;
        }
    }

    private static long slotBytes(Limits limits) {
        return (MessageHeader.requestLength(limits.maxRequestBytes(), limits.maxRanges()) + 63) & ~63L;
    }

    /**
     * One slot more than may be in flight: the slot requestPayload() hands out is never one whose
     * SEND the NIC may still be reading (or retransmitting).
     */
    private static Slot[] slots(Limits limits, MemorySegment memory) {
        long bytes = slotBytes(limits);
        Slot[] slots = new Slot[limits.maxInFlight() + 1];
        for (int i = 0; i < slots.length; i++) {
            slots[i] = new Slot(memory.asSlice(i * bytes, bytes), limits.maxRequestBytes());
        }
        return slots;
    }

    @Override
    protected void connect() {
        InetSocketAddress server = config.server();
        long deadlineNs = System.nanoTime() + config.connectTimeout().toNanos();
        SocketChannel channel = null;
        Link created = null;
        try {
            channel = ClientBootstrap.open(config);
            InetAddress local = ((InetSocketAddress) channel.getLocalAddress()).getAddress();
            if (device != null && !device.gid.gid().ipv4().map(local::equals).orElse(false)) {
                device.close();
                device = null;
            }
            if (device == null) {
                device = RdmaDevice.open(local, settings);
            }
            int n = limits.maxInFlight();
            created = Link.create(device, 2 * n + 8, n, MAX_INLINE, waitMode == WaitMode.BLOCKING,
                    ibv_access_flags.IBV_ACCESS_REMOTE_WRITE);
            MemoryRegion slotsMr = created.register(sendSlots, ibv_access_flags.IBV_ACCESS_LOCAL_WRITE);
            MemoryRegion ringMr = created.register(ring, REMOTE_WRITABLE);
            MemoryRegion[] mrs = new MemoryRegion[Math.max(4, regionMrs.length)];
            for (Region region : regions) {
                mrs[region.id()] = created.register(region.segment(), REMOTE_WRITABLE);
            }
            for (int i = 0; i < n; i++) {
                int rc = created.postReceive(i, 0, 0, 0);
                if (rc != 0) {
                    throw new OflException("ibv_post_recv of completion receive " + i + " failed: "
                            + Errno.describe(rc));
                }
            }
            Bootstrap.Endpoint hello = created.endpoint(new Bootstrap.Endpoint(RefusalCode.ACCEPTED,
                    TransportKind.RDMA, config.serviceName(), limits, 0, 0, null, 0, 0, 0, "", null),
                    ring.address(), ringMr.rkey());
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
            connected();
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
    protected void onRegister(Region region) {
        if (region.id() >= regionMrs.length) {
            regionMrs = Arrays.copyOf(regionMrs, regionMrs.length * 2);
        }
        if (link != null && !isBroken()) {
            try {
                regionMrs[region.id()] = link.register(region.segment(), REMOTE_WRITABLE);
            } catch (VerbsException e) {
                throw new OflException("cannot register " + region + " for RDMA: " + e.getMessage(), e);
            }
        }
    }

    @Override
    protected RequestEncoder.RangeAddressing addressing() {
        return this;
    }

    @Override
    protected void checkRanges(ResponseRanges ranges) {
        for (int i = 0; i < ranges.count(); i++) {
            if (regionMrs[ranges.region(i).id()] == null) {
                throw new IllegalArgumentException(ranges.region(i) + " is not registered with this connection");
            }
        }
    }

    @Override
    protected void send(Slot slot, long length, ResponseRanges ranges) {
        MemorySegment message = slot.message();
        int rc = link.postSend(message.address(), ibv_wr_opcode.IBV_WR_SEND, true, message.address(), (int) length,
                sendSlotsMr.lkey(), 0, 0, 0);
        if (rc != 0) {
            throw broken("ibv_post_send of a request failed: " + Errno.describe(rc), null);
        }
    }

    @Override
    protected int poll() {
        int n = link.poll();
        if (n < 0) {
            throw broken("ibv_poll_cq failed: " + Errno.describe(-n), null);
        }
        for (int i = 0; i < n; i++) {
            MemorySegment wc = link.completion(i);
            int status = ibv_wc.status(wc);
            int opcode = ibv_wc.opcode(wc);
            if (status != ibv_wc_status.IBV_WC_SUCCESS) {
                throw broken(failure(status, opcode), null);
            }
            if (opcode == ibv_wc_opcode.IBV_WC_RECV_RDMA_WITH_IMM) {
                onResponse(ibv_wc.imm_data(wc));
            } else if (opcode != ibv_wc_opcode.IBV_WC_SEND) {
                throw broken("the server broke the protocol: unexpected completion "
                        + ibv_wc_opcode.name(opcode) + " (it must not SEND to a client)", null);
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
        Slot slot = receivingSlot();
        long sequence = receivingSequence();
        if (slot == null) {
            throw broken("the server broke the protocol: a completion arrived while no request was outstanding",
                    null);
        }
        if (immediate != (int) sequence) {
            throw broken("the server broke the protocol: immediate " + Integer.toUnsignedString(immediate)
                    + " does not name the oldest outstanding request, " + sequence, null);
        }
        // Check and read a private copy: the server can still write the ring slot.
        MemorySegment.copy(ring, (sequence % limits.maxInFlight()) * RING_SLOT_BYTES, headerCopy, 0,
                RING_SLOT_BYTES);
        header.wrap(headerCopy, 0);
        try {
            MessageChecks.checkRdmaResponse(header, sequence, slot.capacity());
        } catch (ProtocolException e) {
            throw broken("the server broke the protocol: " + e.getMessage(), null);
        }
        completeReceiving(header.status(), header.handlerStatus(), header.responseLength());
        int rc = link.postReceive(0, 0, 0, 0);
        if (rc != 0) {
            throw broken("ibv_post_recv failed: " + Errno.describe(rc), null);
        }
    }

    @Override
    protected void waitForProgress(long deadlineNs) {
        int rc = link.cq.requestNotify(false);
        if (rc != 0) {
            throw broken("ibv_req_notify_cq failed: " + Errno.describe(rc), null);
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

    /** Moves the QP to ERR so that no late write can land; the socket stays until reconnect or close. */
    @Override
    protected void breakTransport() {
        if (link == null) {
            return;
        }
        try {
            link.breakLink();
        } catch (VerbsException e) {
            // Without ERR the only way to be sure nothing lands is to destroy the queue pair.
            LOG.warn("moving qp {} to ERR failed ({}); destroying it", link.qp.qpNumber(), e.getMessage());
            try {
                tearDown();
            } catch (RuntimeException f) {
                leaked = true;
                LOG.error("could not destroy qp after a failed move to ERR", f);
            }
        }
    }

    @Override
    protected String lossReason() {
        Link l = link;
        return l == null ? "not connected" : l.lossReason();
    }

    /** The queue pair's state as the device reports it ({@code IBV_QPS_*}); for tests. */
    int queuePairState() {
        return link.qp.queryState();
    }

    /** Closes the socket (stopping the liveness thread quietly), then the link in its order. */
    @Override
    protected void tearDown() {
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

    /**
     * Releases everything. If the queue pair could not be destroyed, the registered memory is
     * leaked on purpose rather than freed under a device that may still write into it.
     */
    @Override
    protected void releaseResources() {
        try {
            tearDown();
        } catch (RuntimeException e) {
            leaked = true;
            throw e;
        } finally {
            if (libc != null) {
                libc.close();
            }
            if (leaked) {
                LOG.error("a queue pair of this client could not be destroyed; its registered memory is left "
                        + "allocated so that the device cannot write into freed memory");
            } else {
                try {
                    if (device != null) {
                        device.close();
                        device = null;
                    }
                } finally {
                    arena.close();
                }
            }
        }
    }

    @Override
    public String backend() {
        return RdmaBackend.NAME;
    }
}
