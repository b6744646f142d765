package dev.ofl.verbs.rdma;

import dev.ofl.api.Limits;
import dev.ofl.api.NanoClock;
import dev.ofl.api.RefusalCode;
import dev.ofl.api.spi.BootstrapIo;
import dev.ofl.api.wire.Bootstrap;
import dev.ofl.api.wire.FailureReason;
import dev.ofl.api.wire.MessageHeader;
import dev.ofl.api.wire.MessageType;
import dev.ofl.api.wire.PayloadRead;
import dev.ofl.api.wire.ProtocolException;
import dev.ofl.api.wire.RangeDescriptor;
import dev.ofl.api.wire.TransportKind;
import dev.ofl.verbs.MemoryRegion;
import dev.ofl.verbs.ffm.ibv_access_flags;
import dev.ofl.verbs.ffm.ibv_wc;
import dev.ofl.verbs.ffm.ibv_wc_opcode;
import dev.ofl.verbs.ffm.ibv_wc_status;
import dev.ofl.verbs.ffm.ibv_wr_opcode;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.util.ArrayDeque;
import java.util.concurrent.locks.LockSupport;

/**
 * One end of an RDMA connection built by hand from the backend's own verbs wrappers ({@link Link},
 * {@link RdmaDevice}), so that a test can play a client or a server that breaks the protocol in
 * ways the real transports never would: any SEND contents, any ring header, any immediate, writes
 * at any time. It speaks the TCP bootstrap of PROTOCOL.md §3 like a real peer.
 */
final class VerbsPeer implements AutoCloseable {
    /** One polled work completion. */
    record Wc(long wrId, int status, int opcode, int byteLength, int immediate) {
        boolean ok() {
            return status == ibv_wc_status.IBV_WC_SUCCESS;
        }

        @Override
        public String toString() {
            return ibv_wc_status.name(status) + " " + ibv_wc_opcode.name(opcode) + " wr " + wrId + " len "
                    + byteLength + " imm " + immediate;
        }
    }

    static final int SLOT_BYTES = 64 << 10;
    private static final int REMOTE_WRITABLE = ibv_access_flags.IBV_ACCESS_LOCAL_WRITE
            | ibv_access_flags.IBV_ACCESS_REMOTE_WRITE;

    final SocketChannel channel;
    final RdmaDevice device;
    final Link link;
    private final Arena arena = Arena.ofShared();
    /** Where this peer sends from: requests (client) or headers and pieces (server). */
    final MemorySegment send;
    final MemoryRegion sendMr;
    /** Client: the completion ring. Server: the receive slots. */
    final MemorySegment receive;
    final MemoryRegion receiveMr;
    private final ArrayDeque<Wc> polled = new ArrayDeque<>();
    private final RdmaSettings settings = RdmaSettings.from(TestEnvironment.rdmaProperties());
    private long nextWrId = 1000;

    /** A reading client's WELCOME's inline limit; {@link PayloadRead#NOT_NEGOTIATED} otherwise. */
    long inlineLimit = PayloadRead.NOT_NEGOTIATED;

    private VerbsPeer(SocketChannel channel, int slots, int remoteAccess, int sendAccess) {
        this.channel = channel;
        try {
            device = RdmaDevice.open(((InetSocketAddress) channel.getLocalAddress()).getAddress(), settings);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
        // One receive more than the slots: a test whose client runs more requests in flight than it
        // negotiated posts it, so that the server's extra response never depends on how soon the test
        // thread re-posts (the server's RNR retries are bounded).
        link = Link.create(device, device.gid, 64, slots + 1, 256, false, remoteAccess);
        send = arena.allocate(SLOT_BYTES * 4L, 4096);
        sendMr = link.register(send, sendAccess);
        receive = arena.allocate((long) SLOT_BYTES * slots, 4096);
        receiveMr = link.register(receive, REMOTE_WRITABLE);
    }

    /**
     * Bootstraps as a client: posts {@code limits.maxInFlight()} zero-length receives, sends a
     * HELLO naming its ring, and moves its queue pair to RTS towards the server's WELCOME.
     */
    static VerbsPeer client(InetSocketAddress server, String service, Limits limits, int rnrRetry) throws IOException {
        return client(server, service, limits, rnrRetry, false);
    }

    /**
     * Bootstraps as a client that offers payload reads (docs/PROTOCOL.md 7.3): its send area may be
     * read remotely, and {@link #inlineLimit} holds the WELCOME's answer.
     */
    static VerbsPeer readingClient(InetSocketAddress server, String service, Limits limits) throws IOException {
        return client(server, service, limits, RdmaSettings.RNR_RETRY_BOUNDED, true);
    }

    private static VerbsPeer client(InetSocketAddress server, String service, Limits limits, int rnrRetry,
            boolean offerRead) throws IOException {
        SocketChannel channel = SocketChannel.open(server);
        int read = offerRead ? ibv_access_flags.IBV_ACCESS_REMOTE_READ : 0;
        VerbsPeer peer = new VerbsPeer(channel, limits.maxInFlight(), ibv_access_flags.IBV_ACCESS_REMOTE_WRITE | read,
                ibv_access_flags.IBV_ACCESS_LOCAL_WRITE | read);
        for (int i = 0; i < limits.maxInFlight(); i++) {
            check(peer.link.postReceive(i, 0, 0, 0), "ibv_post_recv");
        }
        Bootstrap.Endpoint hello = peer.link.endpoint(new Bootstrap.Endpoint(RefusalCode.ACCEPTED, TransportKind.RDMA,
                service, limits, 0, 0, null, 0, 0, 0, "", offerRead ? PayloadRead.offer() : null),
                peer.receive.address(), peer.receiveMr.rkey());
        BootstrapIo.writeFully(channel, Bootstrap.encode(Bootstrap.HELLO, hello));
        Bootstrap.Endpoint welcome = read(channel, Bootstrap.WELCOME);
        if (welcome.status() != RefusalCode.ACCEPTED) {
            throw new IllegalStateException("refused: " + welcome);
        }
        try {
            peer.inlineLimit = PayloadRead.inlineBytes(welcome.extensions());
        } catch (ProtocolException e) {
            throw new IOException(e);
        }
        peer.link.connect(welcome, peer.settings, rnrRetry);
        return peer;
    }

    /**
     * Bootstraps as a server on an accepted socket: reads the HELLO, posts one receive slot of
     * {@value #SLOT_BYTES} bytes per request in flight, answers with an accepting WELCOME (which
     * agrees to failure reasons when the HELLO offered them, as an ofl server does).
     *
     * @return the peer and the client's HELLO (its ring address and key)
     */
    static VerbsPeer server(SocketChannel accepted, String service, Bootstrap.Endpoint[] helloOut)
            throws IOException {
        Bootstrap.Endpoint hello = read(accepted, Bootstrap.HELLO);
        helloOut[0] = hello;
        int n = hello.limits().maxInFlight();
        VerbsPeer peer = new VerbsPeer(accepted, n, 0, ibv_access_flags.IBV_ACCESS_LOCAL_WRITE);
        for (int i = 0; i < n; i++) {
            check(peer.link.postReceive(i, peer.receive.address() + (long) i * SLOT_BYTES, SLOT_BYTES,
                    peer.receiveMr.lkey()), "ibv_post_recv");
        }
        peer.link.connect(hello, peer.settings, RdmaSettings.RNR_RETRY_BOUNDED);
        BootstrapIo.writeFully(accepted, Bootstrap.encode(Bootstrap.WELCOME, peer.link.endpoint(
                new Bootstrap.Endpoint(RefusalCode.ACCEPTED, TransportKind.RDMA, service, hello.limits(), 0, 0, null,
                        0, 0, 0, "", offered(hello) ? FailureReason.record() : null), 0, 0)));
        return peer;
    }

    private static boolean offered(Bootstrap.Endpoint hello) {
        try {
            return FailureReason.present(hello.extensions());
        } catch (ProtocolException e) {
            throw new IllegalStateException("malformed HELLO: " + e.getMessage(), e);
        }
    }

    private static Bootstrap.Endpoint read(SocketChannel channel, int type) throws IOException {
        long deadlineNs = System.nanoTime() + TestEnvironment.nanos(10);
        try {
            Bootstrap.Frame frame = Bootstrap.decodeFrame(
                    BootstrapIo.readFully(channel, Bootstrap.FRAME_LENGTH, deadlineNs, NanoClock.SYSTEM), type);
            return Bootstrap.decodeBody(BootstrapIo.readFully(channel, frame.bodyLength(), deadlineNs,
                    NanoClock.SYSTEM));
        } catch (ProtocolException e) {
            throw new IOException(e);
        }
    }

    private static void check(int rc, String call) {
        if (rc != 0) {
            throw new IllegalStateException(call + " failed: errno " + rc);
        }
    }

    /** Writes a REQUEST into send slot 0: header, payload, descriptors; returns its length. */
    int request(long sequence, int payloadLength, long[] rangeAddresses, int[] rangeLengths, int[] keys) {
        long length = MessageHeader.requestLength(payloadLength, rangeLengths.length);
        send.asSlice(0, length).fill((byte) 0);
        new MessageHeader().wrap(send, 0).reset(MessageType.REQUEST, sequence).op(1)
                .payloadLength(payloadLength).rangeCount(rangeLengths.length);
        for (int i = 0; i < payloadLength; i++) {
            send.set(java.lang.foreign.ValueLayout.JAVA_BYTE, MessageHeader.LENGTH + i, (byte) (i + 1));
        }
        long at = MessageHeader.rangesOffset(payloadLength);
        for (int i = 0; i < rangeLengths.length; i++, at += RangeDescriptor.LENGTH) {
            RangeDescriptor.write(send, at, rangeAddresses[i], rangeLengths[i], keys[i]);
        }
        return (int) length;
    }

    /** The header of send slot 0, to spoil a field after {@link #request}. */
    MessageHeader sendHeader() {
        return new MessageHeader().wrap(send, 0);
    }

    /** Posts a signalled SEND of {@code length} bytes from offset 0 of the send area. */
    void postSend(int length) {
        postSend(0, length);
    }

    /** Posts a signalled SEND of {@code length} bytes from {@code offset} of the send area. */
    void postSend(long offset, int length) {
        check(link.postSend(nextWrId++, ibv_wr_opcode.IBV_WR_SEND, true, send.address() + offset, length,
                sendMr.lkey(), 0, 0, 0), "ibv_post_send");
    }

    /** Where {@link #announce} writes, past the request in slot 0. */
    long announcementOffset() {
        return 2L * SLOT_BYTES;
    }

    /**
     * Writes the announcement of the request {@link #request} wrote (docs/PROTOCOL.md 7.3): its
     * header with {@link PayloadRead#FLAG}, a descriptor of the payload in slot 0, its ranges.
     *
     * @return the announcement's length
     */
    int announce(int length, int payload) {
        long at = announcementOffset();
        MemorySegment.copy(send, 0, send, at, MessageHeader.LENGTH);
        MessageHeader header = new MessageHeader().wrap(send, at);
        header.flags(PayloadRead.FLAG);
        RangeDescriptor.write(send, at + PayloadRead.DESCRIPTOR_OFFSET, send.address() + MessageHeader.LENGTH,
                payload, sendMr.rkey());
        int ranges = header.rangeCount();
        MemorySegment.copy(send, MessageHeader.rangesOffset(payload), send, at + PayloadRead.RANGES_OFFSET,
                (long) RangeDescriptor.LENGTH * ranges);
        return (int) PayloadRead.announcementLength(ranges);
    }

    /** Posts a signalled WRITE (or WRITE WITH IMMEDIATE) of {@code length} bytes from {@code offset} of the send area. */
    void postWrite(boolean withImmediate, long offset, int length, long remoteAddress, int rkey, int immediate) {
        check(link.postSend(nextWrId++, withImmediate ? ibv_wr_opcode.IBV_WR_RDMA_WRITE_WITH_IMM
                : ibv_wr_opcode.IBV_WR_RDMA_WRITE, true, send.address() + offset, length, sendMr.lkey(), remoteAddress,
                rkey, immediate), "ibv_post_send");
    }

    /** The next work completion, within the (scaled) number of seconds, or an AssertionError. */
    Wc next(long seconds) {
        long deadlineNs = System.nanoTime() + TestEnvironment.nanos(seconds);
        while (polled.isEmpty()) {
            int n = link.poll();
            if (n < 0) {
                throw new IllegalStateException("ibv_poll_cq failed: errno " + -n);
            }
            for (int i = 0; i < n; i++) {
                MemorySegment wc = link.completion(i);
                polled.add(new Wc(ibv_wc.wr_id(wc), ibv_wc.status(wc), ibv_wc.opcode(wc), ibv_wc.byte_len(wc),
                        ibv_wc.imm_data(wc)));
            }
            if (n == 0) {
                if (System.nanoTime() - deadlineNs > 0) {
                    throw new AssertionError("no work completion within " + TestEnvironment.seconds(seconds) + " s");
                }
                Thread.onSpinWait();
            }
        }
        return polled.poll();
    }

    /** The next completion that is not one of this peer's own successful SENDs or WRITEs. */
    Wc nextReceive(long seconds) {
        while (true) {
            Wc wc = next(seconds);
            if (!wc.ok() || (wc.opcode() != ibv_wc_opcode.IBV_WC_SEND
                    && wc.opcode() != ibv_wc_opcode.IBV_WC_RDMA_WRITE)) {
                return wc;
            }
        }
    }

    /**
     * True once the bootstrap socket has reached end of stream or was reset (the other side closed
     * it) within the (scaled) number of seconds; bytes that arrive meanwhile are discarded.
     */
    boolean closedByPeer(long seconds) throws IOException {
        channel.configureBlocking(false);
        long deadlineNs = System.nanoTime() + TestEnvironment.nanos(seconds);
        ByteBuffer buffer = ByteBuffer.allocate(256);
        while (System.nanoTime() - deadlineNs < 0) {
            int n;
            try {
                n = channel.read(buffer.clear());
            } catch (IOException reset) {
                return true;
            }
            if (n < 0) {
                return true;
            }
            LockSupport.parkNanos(1_000_000L);
        }
        return false;
    }

    @Override
    public void close() {
        BootstrapIo.closeQuietly(channel);
        link.close();
        device.close();
        arena.close();
    }
}
