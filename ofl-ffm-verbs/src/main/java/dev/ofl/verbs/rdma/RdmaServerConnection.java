package dev.ofl.verbs.rdma;

import dev.ofl.api.Limits;
import dev.ofl.api.OflConnectionException;
import dev.ofl.api.OflHandler;
import dev.ofl.api.ServerConfig;
import dev.ofl.api.WaitMode;
import dev.ofl.api.spi.AbstractResponse;
import dev.ofl.api.spi.BootstrapIo;
import dev.ofl.api.spi.BootstrapServer;
import dev.ofl.api.spi.DrainGate;
import dev.ofl.api.spi.RequestView;
import dev.ofl.api.wire.Bootstrap;
import dev.ofl.api.wire.MessageChecks;
import dev.ofl.api.wire.MessageHeader;
import dev.ofl.api.wire.MessageType;
import dev.ofl.api.wire.ProtocolException;
import dev.ofl.api.wire.RangeDescriptor;
import dev.ofl.api.wire.RefusalCode;
import dev.ofl.api.wire.TransportKind;
import dev.ofl.api.wire.WireStatus;
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
import java.nio.channels.SocketChannel;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One server-side RDMA connection, on its own thread: after the bootstrap, take a request from a
 * receive slot, run the handler, RDMA WRITE its response pieces into the client's ranges, WRITE
 * WITH IMMEDIATE the completion header into the client's ring, repost the slot.
 *
 * <p>Memory: receive slots, the response staging area and the header buffer belong to a confined
 * arena of this thread and are registered with the connection's {@link Link}; the arena is freed
 * only after the link is closed (QP in ERR, drained, destroyed, regions deregistered).
 */
final class RdmaServerConnection implements BootstrapServer.Connection {
    private static final Logger LOG = LoggerFactory.getLogger(RdmaServerConnection.class);
    /** A posted WRITE costs no system call, so pieces can be small and start travelling early. */
    private static final int FLUSH_BYTES = 64 << 10;
    private static final int SEND_DEPTH = 256;
    /** Every this many writes one is signalled, so the send queue's progress can be observed. */
    private static final int SIGNAL_INTERVAL = 64;
    private static final int MAX_INLINE = 256;
    private static final int IDLE_WAIT_MS = 100;

    /** Ends the connection quietly: the peer left or the server closes. */
    private static final class Ended extends OflConnectionException {
        private static final long serialVersionUID = 1L;

        Ended(String message) {
            super(message);
        }
    }

    private final BootstrapServer server;
    private final RdmaDevice device;
    private final RdmaSettings settings;
    private final OflHandler handler;
    private final ServerConfig config;
    private final SocketChannel channel;
    private final long id;
    private final String peer;
    private final MessageHeader header = new MessageHeader();
    private RequestView request;
    private Response response;
    private final Libc libc = new Libc();
    private final DrainGate drain = new DrainGate();
    private volatile String peerLoss;
    private volatile Link link;

    private Limits limits;
    private long ringAddress;
    private int ringKey;
    private MemorySegment receiveSlots;
    private MemorySegment[] receiveSlotViews;
    private long slotBytes;
    private MemoryRegion receiveMr;
    private final int[] pendingSlots = new int[Limits.MAX_IN_FLIGHT];
    private final int[] pendingLengths = new int[Limits.MAX_IN_FLIGHT];
    private int pendingHead;
    private int pendingCount;
    private long postedWrites;
    private long completedWrites;

    RdmaServerConnection(BootstrapServer server, RdmaDevice device, RdmaSettings settings, OflHandler handler,
            SocketChannel channel, long id) {
        this.server = server;
        this.device = device;
        this.settings = settings;
        this.handler = handler;
        this.config = server.config();
        this.channel = channel;
        this.id = id;
        this.peer = BootstrapServer.remote(channel);
    }

    @Override
    public void run() {
        boolean admitted = false;
        // Not try-with-resources: the arena holds memory registered with the NIC and may be freed
        // only after the link is closed (QP in ERR, drained, destroyed), in the finally below.
        Arena arena = Arena.ofConfined();
        try {
            Bootstrap.Endpoint hello = server.acceptHello(channel, TransportKind.RDMA, id);
            if (hello == null) {
                return;
            }
            admitted = true;
            Bootstrap.Endpoint welcome;
            try {
                welcome = setUp(arena, hello);
            } catch (RuntimeException e) {
                LOG.warn("connection {} from {}: setting up the queue pair failed", id, peer, e);
                server.refuse(channel, id, RefusalCode.TRANSPORT_SETUP_FAILED, String.valueOf(e.getMessage()));
                return;
            }
            server.welcome(channel, welcome);
            Link watched = link;
            Liveness.watch(channel, "ofl-rdma-liveness-" + watched.qp.qpNumber(), reason -> {
                peerLoss = reason;
                breakQuietly(watched);
            });
            LOG.debug("connection {} from {} accepted with {} on qp {}", id, peer, limits, watched.qp.qpNumber());
            serve();
        } catch (Ended e) {
            LOG.debug("connection {} from {} ended: {}", id, peer, e.getMessage());
        } catch (ProtocolException e) {
            server.counters().protocolViolation();
            LOG.warn("closing connection {} from {}: {}", id, peer, e.getMessage());
        } catch (IOException e) {
            LOG.info("connection {} from {} failed: {}", id, peer, e.toString());
        } catch (OflConnectionException e) {
            LOG.warn("connection {} from {} ended: {}", id, peer, e.getMessage());
        } catch (RuntimeException | Error e) {
            LOG.error("connection {} from {} ended by an unexpected failure", id, peer, e);
        } finally {
            BootstrapIo.closeQuietly(channel);
            Link l = link;
            boolean released = true;
            if (l != null) {
                try {
                    l.close();
                } catch (RuntimeException e) {
                    released = false;
                    LOG.error("connection {}: releasing its verbs objects failed; its registered memory is left "
                            + "allocated so that the device cannot write into freed memory", id, e);
                }
            }
            if (released) {
                arena.close();
            }
            libc.close();
            if (admitted) {
                server.release();
            }
        }
    }

    private Bootstrap.Endpoint setUp(Arena arena, Bootstrap.Endpoint hello) {
        limits = hello.limits();
        ringAddress = hello.ringAddress();
        ringKey = hello.ringKey();
        int n = limits.maxInFlight();
        Link created = Link.create(device, SEND_DEPTH, n, MAX_INLINE, config.waitMode() == WaitMode.BLOCKING, 0);
        link = created;
        slotBytes = (MessageHeader.requestLength(limits.maxRequestBytes(), limits.maxRanges()) + 63) & ~63L;
        receiveSlots = arena.allocate(slotBytes * n, 4096);
        receiveMr = created.register(receiveSlots, ibv_access_flags.IBV_ACCESS_LOCAL_WRITE);
        receiveSlotViews = new MemorySegment[n];
        for (int i = 0; i < n; i++) {
            receiveSlotViews[i] = receiveSlots.asSlice(i * slotBytes, slotBytes);
        }
        request = new RequestView(n);
        response = new Response(arena, created);
        for (int i = 0; i < n; i++) {
            postReceive(i);
        }
        // A client whose receives are posted never makes us wait; a broken one must not hold this
        // thread forever, so RNR retries are bounded here.
        created.connect(hello, settings, RdmaSettings.RNR_RETRY_BOUNDED);
        return created.endpoint(new Bootstrap.Endpoint(RefusalCode.ACCEPTED, TransportKind.RDMA, config.serviceName(),
                limits, 0, 0, null, 0, 0, 0, "", null), 0, 0);
    }

    private void postReceive(int slot) {
        int rc = link.postReceive(slot, receiveSlots.address() + slot * slotBytes, (int) slotBytes, receiveMr.lkey());
        if (rc != 0) {
            throw new OflConnectionException("ibv_post_recv of receive slot " + slot + " failed: "
                    + Errno.describe(rc));
        }
    }

    private void serve() throws ProtocolException, IOException {
        long sequence = 0;
        while (true) {
            while (pendingCount == 0) {
                if (poll() == 0) {
                    idle();
                }
            }
            int slot = pendingSlots[pendingHead];
            int length = pendingLengths[pendingHead];
            // pendingSlots is sized for the protocol cap; only maxInFlight entries are ever used.
            pendingHead = (pendingHead + 1) % pendingSlots.length;
            pendingCount--;
            handle(slot, length, sequence);
            sequence++;
            if (server.closing()) {
                throw new Ended("the server is closing");
            }
        }
    }

    private void handle(int slot, int byteLength, long sequence) throws ProtocolException, IOException {
        MemorySegment message = receiveSlotViews[slot];
        if (byteLength < MessageHeader.LENGTH) {
            throw new ProtocolException("request byte length", byteLength, "shorter than the 64-byte header");
        }
        header.wrap(message, 0);
        long length = MessageChecks.checkRequest(header, limits, sequence);
        if (length != byteLength) {
            throw new ProtocolException("request byte length", byteLength,
                    "the header describes a message of " + length + " bytes");
        }
        long capacity = MessageChecks.checkRanges(message, 0, header, limits);
        request.set(slot, message, header, capacity);
        response.begin(message, header, sequence, capacity);
        if (!drain.enter()) {
            throw new Ended("the server is closing");
        }
        // Draining lets a request that got in finish: its handler and its response.
        try {
            int outcome = response.run(handler, request);
            // The payload is dead and the ranges were copied: give the slot back before
            // responding, so that the client's next request never waits for it.
            postReceive(slot);
            server.counters().request(outcome);
            response.finish(outcome);
        } finally {
            drain.exit();
        }
    }

    /** Takes completions: receives join the pending queue, signalled writes advance the count. */
    private int poll() {
        int n = link.poll();
        if (n < 0) {
            throw new OflConnectionException("ibv_poll_cq failed: " + Errno.describe(-n));
        }
        for (int i = 0; i < n; i++) {
            MemorySegment wc = link.completion(i);
            int status = ibv_wc.status(wc);
            int opcode = ibv_wc.opcode(wc);
            if (status != ibv_wc_status.IBV_WC_SUCCESS) {
                onFailedCompletion(status, opcode);
            }
            long wrId = ibv_wc.wr_id(wc);
            if (opcode == ibv_wc_opcode.IBV_WC_RECV && wrId >= 0 && wrId < limits.maxInFlight()
                    && pendingCount < limits.maxInFlight()) {
                int tail = (pendingHead + pendingCount) % pendingSlots.length;
                pendingSlots[tail] = (int) wrId;
                pendingLengths[tail] = ibv_wc.byte_len(wc);
                pendingCount++;
            } else if (opcode == ibv_wc_opcode.IBV_WC_RDMA_WRITE && wrId > completedWrites && wrId <= postedWrites) {
                completedWrites = wrId;
            } else {
                throw new OflConnectionException("unexpected completion " + ibv_wc_opcode.name(opcode) + " (work "
                        + "request " + wrId + "): the client used the queue pair outside the protocol");
            }
        }
        return n;
    }

    private void onFailedCompletion(int status, int opcode) {
        String loss = peerLoss;
        if (loss != null || server.closing()) {
            throw new Ended(loss != null ? loss : "the server is closing");
        }
        String what = ibv_wc_status.name(status) + " on " + ibv_wc_opcode.name(opcode);
        if (status == ibv_wc_status.IBV_WC_RETRY_EXC_ERR || status == ibv_wc_status.IBV_WC_REM_ACCESS_ERR) {
            server.counters().undeliveredResponse();
            throw new OflConnectionException("a response write was not accepted (" + what + "): the client's queue "
                    + "pair is in error (it timed out, or is gone) or its region is no longer registered; "
                    + "nothing was placed");
        }
        throw new OflConnectionException("work completion failed: " + what);
    }

    private void idle() {
        if (peerLoss != null) {
            throw new Ended(peerLoss);
        }
        if (config.waitMode() == WaitMode.BUSY_POLL) {
            config.idleStrategy().idle(0);
            return;
        }
        Link l = link;
        int rc = l.cq.requestNotify(false);
        if (rc != 0) {
            throw new OflConnectionException("ibv_req_notify_cq failed: " + Errno.describe(rc));
        }
        if (poll() > 0) {
            return;
        }
        // Bounded so that a liveness loss that raised no completion event is still noticed.
        if (libc.awaitReadable(l.channel.fileDescriptor(), IDLE_WAIT_MS) > 0) {
            l.channel.awaitEvent();
            l.cq.acknowledgeEvents(1);
        }
    }

    private void postWrite(int opcode, long localAddress, int length, int lkey, long remoteAddress, int rkey,
            int immediate, boolean last) {
        while (postedWrites - completedWrites >= SEND_DEPTH - 1) {
            if (poll() == 0) {
                idle();
            }
        }
        long wrId = ++postedWrites;
        boolean signaled = last || wrId % SIGNAL_INTERVAL == 0;
        int rc = link.postSend(wrId, opcode, signaled, localAddress, length, lkey, remoteAddress, rkey, immediate);
        if (rc != 0) {
            if (peerLoss != null) {
                throw new Ended(peerLoss);
            }
            throw new OflConnectionException("ibv_post_send failed: " + Errno.describe(rc));
        }
    }

    private static void breakQuietly(Link link) {
        try {
            link.breakLink();
        } catch (VerbsException e) {
            LOG.debug("could not break qp {}: {}", link.qp.qpNumber(), e.getMessage());
        }
    }

    @Override
    public void closeIfIdle() {
        if (drain.closeIfIdle()) {
            forceClose();
        }
    }

    @Override
    public void forceClose() {
        BootstrapIo.closeQuietly(channel);
        Link l = link;
        if (l != null) {
            peerLoss = "the server is closing";
            breakQuietly(l);
        }
    }

    /** Posts pieces as RDMA WRITEs into the client's ranges, then the header by WRITE WITH IMMEDIATE. */
    private final class Response extends AbstractResponse {
        private final MemoryRegion stagingMr;
        private final MemorySegment completionHeader;
        private final MemoryRegion completionHeaderMr;
        private final MessageHeader out = new MessageHeader();
        private final long[] rangeAddresses = new long[Limits.MAX_RANGES];
        private final long[] rangeLengths = new long[Limits.MAX_RANGES];
        private final int[] rangeKeys = new int[Limits.MAX_RANGES];
        private int cursorRange;
        private long cursorOffset;
        private long sequence;

        Response(Arena arena, Link created) {
            super(arena.allocate(Math.max(1, limits.maxResponseBytes()), 4096), FLUSH_BYTES);
            stagingMr = created.register(staging(), ibv_access_flags.IBV_ACCESS_LOCAL_WRITE);
            completionHeader = arena.allocate(MessageHeader.LENGTH, 64);
            completionHeaderMr = created.register(completionHeader, ibv_access_flags.IBV_ACCESS_LOCAL_WRITE);
        }

        /** Starts a response; copies the range descriptors, so the receive slot can be reposted. */
        void begin(MemorySegment message, MessageHeader h, long requestSequence, long responseCapacity) {
            sequence = requestSequence;
            cursorRange = 0;
            cursorOffset = 0;
            long at = MessageHeader.rangesOffset((int) h.payloadLength());
            for (int i = 0; i < h.rangeCount(); i++, at += RangeDescriptor.LENGTH) {
                rangeAddresses[i] = RangeDescriptor.address(message, at);
                rangeLengths[i] = RangeDescriptor.length(message, at);
                rangeKeys[i] = RangeDescriptor.key(message, at);
            }
            begin(responseCapacity);
        }

        /** Posts RDMA WRITEs for [from, to), split at the client's range boundaries. */
        @Override
        protected void sendPiece(long from, long to) {
            long at = from;
            while (at < to) {
                long chunk = Math.min(rangeLengths[cursorRange] - cursorOffset, to - at);
                postWrite(ibv_wr_opcode.IBV_WR_RDMA_WRITE, staging().address() + at, (int) chunk,
                        stagingMr.lkey(), rangeAddresses[cursorRange] + cursorOffset, rangeKeys[cursorRange], 0, false);
                at += chunk;
                cursorOffset += chunk;
                if (cursorOffset == rangeLengths[cursorRange]) {
                    cursorRange++;
                    cursorOffset = 0;
                }
            }
        }

        /**
         * Posts the last piece, then the completion header by WRITE WITH IMMEDIATE on the same QP,
         * and waits for it: the staging area is reused by the next request only when every write
         * from it has completed.
         */
        @Override
        protected void sendEnd(long from, long to, int wireStatus, int handlerStatus) {
            sendPiece(from, to);
            out.wrap(completionHeader, 0).reset(MessageType.RESPONSE, sequence)
                    .status(wireStatus)
                    .handlerStatus(handlerStatus)
                    .responseLength(wireStatus == WireStatus.OK ? to : 0);
            long slot = sequence % limits.maxInFlight();
            postWrite(ibv_wr_opcode.IBV_WR_RDMA_WRITE_WITH_IMM, completionHeader.address(), MessageHeader.LENGTH,
                    completionHeaderMr.lkey(), ringAddress + slot * MessageHeader.LENGTH, ringKey, (int) sequence,
                    true);
            while (completedWrites < postedWrites) {
                if (poll() == 0) {
                    idle();
                }
            }
        }
    }
}
