package dev.ofl.tcp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ofl.api.ClientConfig;
import dev.ofl.api.IdleStrategy;
import dev.ofl.api.Limits;
import dev.ofl.api.NanoClock;
import dev.ofl.api.Ofl;
import dev.ofl.api.OflClient;
import dev.ofl.api.OflConnectionException;
import dev.ofl.api.OflServer;
import dev.ofl.api.RefusalCode;
import dev.ofl.api.Region;
import dev.ofl.api.ServerConfig;
import dev.ofl.api.WaitMode;
import dev.ofl.api.spi.BootstrapIo;
import dev.ofl.api.spi.RangeCursor;
import dev.ofl.api.spi.ResponseSink;
import dev.ofl.api.spi.StagingPool;
import dev.ofl.api.wire.Bootstrap;
import dev.ofl.api.wire.MessageHeader;
import dev.ofl.api.wire.MessageType;
import dev.ofl.api.wire.WireStatus;
import java.io.EOFException;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedSelectorException;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import java.util.function.IntSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The TCP transports against a hand-driven peer socket: how the client reassembles what the
 * socket delivers in any cut (a byte at a time, a header split across the end of its receive
 * buffer, a piece large enough to be read straight into the ranges), what {@code poll} reports as
 * work, how a send that the server does not read ends, and what the server transport says when a
 * client leaves.
 */
@Timeout(60)
class TcpWireTest {
    private static final long SECOND_NS = TimeUnit.SECONDS.toNanos(1);
    private static final String SERVICE = "wire";
    private static final Limits LIMITS = new Limits(1024, 1 << 20, 4, 4);
    /** The client's receive buffer (TcpClientTransport.RX_BYTES). */
    private static final int RX_BYTES = 64 << 10;

    private final List<AutoCloseable> closeables = new ArrayList<>();
    private Arena arena;
    private ServerSocketChannel listener;
    /** The send slots of the client transport made last. */
    private MemorySegment slots;

    /** Counts what the transport asks of its idle strategy (each write of the server transport resets it once). */
    static final class CountingIdle implements IdleStrategy {
        final AtomicInteger idles = new AtomicInteger();
        final AtomicInteger resets = new AtomicInteger();

        @Override
        public void idle(int workCount) {
            idles.incrementAndGet();
            Thread.onSpinWait();
        }

        @Override
        public void reset() {
            resets.incrementAndGet();
        }
    }

    /** Receives one response into one region: pieces at the offsets the headers name. */
    private static final class Sink implements ResponseSink {
        final RangeCursor cursor = new RangeCursor();
        final List<String> completions = new ArrayList<>();

        Sink(long rangeBytes) {
            this(rangeBytes, 0);
        }

        /** One range of the region whose id is {@code key}. */
        Sink(long rangeBytes, int key) {
            cursor.add(0, rangeBytes, key);
        }

        @Override
        public long receivingSequence() {
            return 0;
        }

        @Override
        public long piece(MessageHeader header) {
            return header.payloadLength();
        }

        @Override
        public RangeCursor cursor() {
            return cursor;
        }

        @Override
        public void complete(MessageHeader header) {
            completions.add("type " + header.type() + " sequence " + header.sequence() + " status "
                    + header.status() + " length " + header.responseLength());
        }
    }

    @BeforeEach
    void setUp() throws IOException {
        arena = Arena.ofShared();
        listener = ServerSocketChannel.open().bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
    }

    @AfterEach
    void tearDown() throws Exception {
        for (int i = closeables.size() - 1; i >= 0; i--) {
            closeables.get(i).close();
        }
        listener.close();
        arena.close();
    }

    private ClientConfig.Builder clientConfig() throws IOException {
        return ClientConfig.builder().server((InetSocketAddress) listener.getLocalAddress()).serviceName(SERVICE)
                .limits(LIMITS);
    }

    /** Connects a client transport to the listener, answering its HELLO by hand; returns the peer's socket. */
    private SocketChannel connect(TcpClientTransport transport) throws Exception {
        CompletableFuture<SocketChannel> peer = CompletableFuture.supplyAsync(() -> {
            try {
                SocketChannel accepted = listener.accept();
                Bootstrap.Frame frame = Bootstrap.decodeFrame(readFully(accepted, Bootstrap.FRAME_LENGTH),
                        Bootstrap.HELLO);
                Bootstrap.decodeBody(readFully(accepted, frame.bodyLength()));
                accepted.write(ByteBuffer.wrap(Bootstrap.encode(Bootstrap.WELCOME,
                        Bootstrap.Endpoint.tcp(RefusalCode.ACCEPTED, SERVICE, LIMITS, ""))));
                return accepted;
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        transport.connect(List.of(), System.nanoTime() + 10 * SECOND_NS);
        SocketChannel accepted = peer.get(10, TimeUnit.SECONDS);
        closeables.add(accepted);
        return accepted;
    }

    private TcpClientTransport client(ClientConfig config, long slotBytes) {
        slots = arena.allocate(slotBytes);
        TcpClientTransport transport = new TcpClientTransport(config, slots, slotBytes);
        closeables.add(transport::close);
        return transport;
    }

    /**
     * A region handle comes only from a client's registerRegion: one from a client of a real
     * server, the first it registers (id 0, the key the sink's range names), is handed to the
     * transport under test.
     */
    private Region region(TcpClientTransport transport, long bytes) {
        return region(transport, bytes, 0);
    }

    /** As {@link #region(TcpClientTransport, long)}, but the owner's region with id {@code id} (the others unused). */
    private Region region(TcpClientTransport transport, long bytes, int id) {
        OflServer server = Ofl.serve(ServerConfig.builder().bind(new InetSocketAddress(InetAddress.getLoopbackAddress(),
                0)).serviceName(SERVICE).limits(LIMITS).build(), (request, response) -> 0);
        closeables.add(server);
        OflClient owner = Ofl.connect(ClientConfig.builder().server(server.localAddress()).serviceName(SERVICE)
                .limits(LIMITS).build());
        closeables.add(owner);
        Region region = null;
        for (int i = 0; i <= id; i++) {
            region = owner.registerRegion(arena.allocate(i == id ? bytes : 8));
        }
        assertEquals(id, region.id());
        transport.register(region);
        return region;
    }

    private static byte[] readFully(SocketChannel channel, int length) throws IOException {
        return BootstrapIo.readFully(channel, length, System.nanoTime() + 10 * SECOND_NS, NanoClock.SYSTEM);
    }

    private static void writeFully(SocketChannel channel, byte[] bytes, int from, int to) throws IOException {
        ByteBuffer buffer = ByteBuffer.wrap(bytes, from, to - from);
        while (buffer.hasRemaining()) {
            channel.write(buffer);
        }
    }

    /** DATA(piece of {@code pieceBytes} bytes, each {@code pattern(i)}) then RESPONSE, as the server frames them. */
    private static byte[] response(int pieceBytes) {
        MemorySegment wire = MemorySegment.ofArray(new byte[2 * MessageHeader.LENGTH + pieceBytes]);
        new MessageHeader().wrap(wire, 0).reset(MessageType.DATA, 0).payloadLength(pieceBytes).responseOffset(0);
        for (int i = 0; i < pieceBytes; i++) {
            wire.set(ValueLayout.JAVA_BYTE, MessageHeader.LENGTH + i, pattern(i));
        }
        new MessageHeader().wrap(wire, MessageHeader.LENGTH + pieceBytes).reset(MessageType.RESPONSE, 0)
                .status(WireStatus.OK).handlerStatus(0).responseLength(pieceBytes);
        return wire.toArray(ValueLayout.JAVA_BYTE);
    }

    private static byte pattern(int i) {
        return (byte) (i * 31 + 7);
    }

    private static String expectedCompletion(int pieceBytes) {
        return "type " + MessageType.RESPONSE + " sequence 0 status " + WireStatus.OK + " length " + pieceBytes;
    }

    private static void assertPlaced(Region region, int pieceBytes) {
        for (int i = 0; i < pieceBytes; i++) {
            assertEquals(pattern(i), region.segment().get(ValueLayout.JAVA_BYTE, i), "byte " + i);
        }
    }

    /** Polls until a poll reports work; returns what it reported. */
    private static int pollUntilWork(IntSupplier poll) {
        long deadlineNs = System.nanoTime() + 10 * SECOND_NS;
        while (System.nanoTime() - deadlineNs < 0) {
            int work = poll.getAsInt();
            if (work != 0) {
                return work;
            }
            Thread.onSpinWait();
        }
        throw new AssertionError("no poll reported work within 10 s");
    }

    /** Polls until {@code done} holds, within a deadline. */
    private static void pollUntil(TcpClientTransport transport, Sink sink, BooleanSupplier done, String what) {
        long deadlineNs = System.nanoTime() + 10 * SECOND_NS;
        while (!done.getAsBoolean()) {
            assertTrue(System.nanoTime() - deadlineNs < 0, what + " did not happen within 10 s");
            poll(transport, sink);
        }
    }

    private static int poll(TcpClientTransport transport, ResponseSink sink) {
        try {
            return transport.poll(sink);
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    @Test
    void aResponseDeliveredOneByteAtATimeIsReassembledAndEachByteCountsAsWork() throws Exception {
        TcpClientTransport transport = client(clientConfig().build(), 64);
        SocketChannel peer = connect(transport);
        int pieceBytes = 100;
        Region region = region(transport, pieceBytes);
        Sink sink = new Sink(pieceBytes);
        assertEquals(0, transport.poll(sink), "nothing arrived: no work");
        byte[] wire = response(pieceBytes);
        for (int i = 0; i < wire.length; i++) {
            writeFully(peer, wire, i, i + 1);
            assertEquals(1 + (i == MessageHeader.LENGTH - 1 || i == wire.length - 1 ? 1 : 0),
                    pollUntilWork(() -> poll(transport, sink)),
                    "byte " + i + ": one read, plus one header when it completes one");
        }
        assertEquals(List.of(expectedCompletion(pieceBytes)), sink.completions);
        assertPlaced(region, pieceBytes);
        assertEquals(0, transport.poll(sink), "nothing more arrived");
    }

    @Test
    void aHeaderSplitAcrossTheEndOfTheReceiveBufferIsMovedToItsStart() throws Exception {
        TcpClientTransport transport = client(clientConfig().build(), 64);
        SocketChannel peer = connect(transport);
        // DATA header and piece, then 22 bytes of the RESPONSE header: 10 bytes short of the
        // buffer's end, too few for the header's remaining 10 bytes plus anything after.
        int firstWrite = RX_BYTES - 10;
        int pieceBytes = firstWrite - MessageHeader.LENGTH - 22;
        Region region = region(transport, pieceBytes);
        Sink sink = new Sink(pieceBytes);
        byte[] wire = response(pieceBytes);
        writeFully(peer, wire, 0, firstWrite);
        pollUntil(transport, sink, () -> sink.cursor.consumed() == pieceBytes, "placing the piece");
        writeFully(peer, wire, firstWrite, wire.length);
        pollUntil(transport, sink, () -> !sink.completions.isEmpty(), "the completion");
        assertEquals(List.of(expectedCompletion(pieceBytes)), sink.completions);
        assertPlaced(region, pieceBytes);
    }

    @Test
    void aLargePieceIsReadStraightIntoTheRangesAndOnlyBytesReadCountAsWork() throws Exception {
        TcpClientTransport transport = client(clientConfig().build(), 64);
        SocketChannel peer = connect(transport);
        int pieceBytes = 48 << 10;
        Region region = region(transport, pieceBytes);
        Sink sink = new Sink(pieceBytes);
        byte[] wire = response(pieceBytes);
        writeFully(peer, wire, 0, MessageHeader.LENGTH);
        assertEquals(2, pollUntilWork(() -> poll(transport, sink)), "one read and one header");
        assertEquals(0, transport.poll(sink), "the piece has not begun to arrive");
        int at = MessageHeader.LENGTH;
        for (int chunk : new int[] {1, 4096, 20_000}) {
            writeFully(peer, wire, at, at + chunk);
            at += chunk;
            long placed = sink.cursor.consumed();
            assertEquals(1, pollUntilWork(() -> poll(transport, sink)), "a direct read is one piece of work");
            assertTrue(sink.cursor.consumed() > placed, "bytes went into the range");
            long sent = at - MessageHeader.LENGTH;
            pollUntil(transport, sink, () -> sink.cursor.consumed() == sent, "placing what was sent");
            assertEquals(0, transport.poll(sink), "nothing more arrived");
        }
        writeFully(peer, wire, at, wire.length);
        pollUntil(transport, sink, () -> !sink.completions.isEmpty(), "the completion");
        assertEquals(List.of(expectedCompletion(pieceBytes)), sink.completions);
        assertPlaced(region, pieceBytes);
    }

    /**
     * A request the server never reads: the send keeps polling the socket, hands empty rounds to
     * the idle strategy in busy-poll mode (never in blocking mode, which waits in select), and
     * gives up after {@code connectTimeout} without progress.
     */
    @Test
    void aSendTheServerNeverReadsEndsWithTheTimeoutNamedAndIdlesOnlyWhenBusyPolling() throws Exception {
        for (WaitMode mode : WaitMode.values()) {
            CountingIdle idle = new CountingIdle();
            long slotBytes = 64L << 20;
            TcpClientTransport transport = client(clientConfig().waitMode(mode).idleStrategy(idle)
                    .connectTimeout(Duration.ofMillis(200)).build(), slotBytes);
            connect(transport);
            MemorySegment slot = slots;
            OflConnectionException e = assertThrows(OflConnectionException.class,
                    () -> transport.send(0, slot, slotBytes, new Sink(0)), mode.toString());
            assertInstanceOf(IOException.class, e.getCause(), e::toString);
            assertTrue(e.getMessage().contains("the server has not read for PT0.2S (connectTimeout) while a request "
                    + "was being sent"), e.getMessage());
            assertTrue(idle.resets.get() >= 1, mode + ": the send resets the idle strategy");
            if (mode == WaitMode.BUSY_POLL) {
                assertTrue(idle.idles.get() > 0, "busy polling idles between empty rounds");
            } else {
                assertEquals(0, idle.idles.get(), "blocking waits in select, not in the idle strategy");
            }
        }
    }

    /**
     * A response written at once is one segment on the loopback: one read takes it, and the same
     * poll parses both headers and places the piece between them.
     */
    @Test
    void aSmallResponseThatArrivedWholeIsParsedWholeByOnePoll() throws Exception {
        TcpClientTransport transport = client(clientConfig().build(), 64);
        SocketChannel peer = connect(transport);
        int pieceBytes = 100;
        Region region = region(transport, pieceBytes);
        Sink sink = new Sink(pieceBytes);
        byte[] wire = response(pieceBytes);
        writeFully(peer, wire, 0, wire.length);
        assertEquals(3, pollUntilWork(() -> poll(transport, sink)), "one read and two headers");
        assertEquals(List.of(expectedCompletion(pieceBytes)), sink.completions);
        assertPlaced(region, pieceBytes);
    }

    /**
     * A piece of 16 KiB or more whose header came alone is read straight into the ranges, and only
     * the piece: the RESPONSE sent with it in one write comes from a later read (through the
     * receive buffer the same read would take both).
     */
    @Test
    void aPieceOfSixteenKiBOrMoreIsReadAloneThoughItsEndFollowsInTheSameWrite() throws Exception {
        TcpClientTransport transport = client(clientConfig().build(), 64);
        SocketChannel peer = connect(transport);
        int largest = 48 << 10;
        Region region = region(transport, largest);
        for (int pieceBytes : new int[] {16 << 10, largest}) {
            region.segment().fill((byte) 0);
            Sink sink = new Sink(pieceBytes);
            byte[] wire = response(pieceBytes);
            writeFully(peer, wire, 0, MessageHeader.LENGTH);
            assertEquals(2, pollUntilWork(() -> poll(transport, sink)), pieceBytes + ": one read and one header");
            writeFully(peer, wire, MessageHeader.LENGTH, wire.length);
            assertEquals(1, pollUntilWork(() -> poll(transport, sink)), pieceBytes + ": one read into the range");
            assertEquals(List.of(), sink.completions, pieceBytes + ": the read stopped at the piece's end");
            pollUntil(transport, sink, () -> !sink.completions.isEmpty(), "the completion");
            assertEquals(List.of(expectedCompletion(pieceBytes)), sink.completions);
            assertPlaced(region, pieceBytes);
        }
    }

    /**
     * A large piece's first bytes that came in one segment with its header are placed by the poll
     * that parsed the header; only the rest is read straight into the ranges.
     */
    @Test
    void theBytesOfALargePieceThatCameWithItsHeaderArePlacedByTheSamePoll() throws Exception {
        TcpClientTransport transport = client(clientConfig().build(), 64);
        SocketChannel peer = connect(transport);
        int pieceBytes = 48 << 10;
        int first = 1000;
        Region region = region(transport, pieceBytes);
        Sink sink = new Sink(pieceBytes);
        byte[] wire = response(pieceBytes);
        writeFully(peer, wire, 0, MessageHeader.LENGTH + first);
        assertEquals(2, pollUntilWork(() -> poll(transport, sink)), "one read and one header");
        assertEquals(first, sink.cursor.consumed(), "the bytes that came with the header are placed");
        writeFully(peer, wire, MessageHeader.LENGTH + first, wire.length);
        pollUntil(transport, sink, () -> !sink.completions.isEmpty(), "the completion");
        assertEquals(List.of(expectedCompletion(pieceBytes)), sink.completions);
        assertPlaced(region, pieceBytes);
    }

    /**
     * A server that closes in the middle of a response, in a small piece (read through the receive
     * buffer) or a large one (read straight into the ranges): the poll fails saying so.
     */
    @Test
    void aServerThatClosesInTheMiddleOfAResponseFailsThePollSayingSo() throws Exception {
        for (int pieceBytes : new int[] {100, 48 << 10}) {
            TcpClientTransport transport = client(clientConfig().build(), 64);
            SocketChannel peer = connect(transport);
            Region region = region(transport, pieceBytes);
            Sink sink = new Sink(pieceBytes);
            byte[] wire = response(pieceBytes);
            writeFully(peer, wire, 0, MessageHeader.LENGTH + 10);
            pollUntil(transport, sink, () -> sink.cursor.consumed() == 10, "placing the first bytes");
            peer.close();
            long deadlineNs = System.nanoTime() + 10 * SECOND_NS;
            OflConnectionException e = null;
            while (e == null) {
                assertTrue(System.nanoTime() - deadlineNs < 0, pieceBytes + ": the close was not seen within 10 s");
                try {
                    transport.poll(sink);
                } catch (OflConnectionException failure) {
                    e = failure;
                }
            }
            assertEquals("the connection to the server failed: java.io.IOException: the server closed the connection",
                    e.getMessage(), pieceBytes + " bytes");
            assertEquals(List.of(), sink.completions);
            assertEquals(pattern(9), region.segment().get(ValueLayout.JAVA_BYTE, 9), "what came before the close");
        }
    }

    /**
     * Waiting: nothing by the deadline is no work; a response that arrives wakes the wait, which
     * reads it at once and reports what it parsed.
     */
    @Test
    void awaitProgressReportsNothingAtTheDeadlineAndReadsWhatWokeIt() throws Exception {
        TcpClientTransport transport = client(clientConfig().waitMode(WaitMode.BLOCKING).build(), 64);
        SocketChannel peer = connect(transport);
        int pieceBytes = 100;
        Region region = region(transport, pieceBytes);
        Sink sink = new Sink(pieceBytes);
        long nowNs = System.nanoTime();
        assertEquals(0, transport.awaitProgress(sink, nowNs + TimeUnit.MILLISECONDS.toNanos(20), nowNs));
        byte[] wire = response(pieceBytes);
        writeFully(peer, wire, 0, wire.length);
        long deadlineNs = System.nanoTime() + 10 * SECOND_NS;
        int work;
        do {
            nowNs = System.nanoTime();
            work = transport.awaitProgress(sink, deadlineNs, nowNs);
        } while (work == 0 && nowNs - deadlineNs < 0);
        assertEquals(3, work, "one read and two headers");
        assertEquals(List.of(expectedCompletion(pieceBytes)), sink.completions);
        assertPlaced(region, pieceBytes);
    }

    /**
     * A response waiting while a send stalls is read and completes; that progress restarts the
     * idle strategy (and the stall clock) before the send gives up.
     */
    @Test
    void aResponseReadWhileTheSendStallsCompletesAndResetsTheIdleStrategy() throws Exception {
        CountingIdle idle = new CountingIdle();
        long slotBytes = 64L << 20;
        TcpClientTransport transport = client(clientConfig().waitMode(WaitMode.BLOCKING).idleStrategy(idle)
                .connectTimeout(Duration.ofSeconds(1)).build(), slotBytes);
        SocketChannel peer = connect(transport);
        int pieceBytes = 100;
        Region region = region(transport, pieceBytes);
        Sink sink = new Sink(pieceBytes);
        byte[] wire = response(pieceBytes);
        writeFully(peer, wire, 0, wire.length);
        MemorySegment slot = slots;
        OflConnectionException e = assertThrows(OflConnectionException.class,
                () -> transport.send(0, slot, slotBytes, sink));
        assertTrue(e.getMessage().contains("the server has not read for PT1S (connectTimeout)"), e.getMessage());
        assertNull(transport.lossReason(), "a server that stops reading is there still: no peer loss");
        assertEquals(List.of(expectedCompletion(pieceBytes)), sink.completions, "read while the send stalled");
        assertPlaced(region, pieceBytes);
        assertTrue(idle.resets.get() >= 2, "the send's reset and the progress's: " + idle.resets.get());
    }

    /** Region ids need not be dense: one far beyond the table (of 4, doubled: 8) is registered and receives. */
    @Test
    void aRegionWhoseIdIsBeyondTwiceTheTableIsRegisteredAndReceives() throws Exception {
        TcpClientTransport transport = client(clientConfig().build(), 64);
        SocketChannel peer = connect(transport);
        int pieceBytes = 100;
        Region region = region(transport, pieceBytes, 9);
        Sink sink = new Sink(pieceBytes, 9);
        byte[] wire = response(pieceBytes);
        writeFully(peer, wire, 0, wire.length);
        pollUntil(transport, sink, () -> !sink.completions.isEmpty(), "the completion");
        assertPlaced(region, pieceBytes);
    }

    /** Breaking closes the selector with the socket: a wait on it fails at once, not at its deadline. */
    @Test
    void aWaitOnABrokenTransportFailsAtOnce() throws Exception {
        TcpClientTransport transport = client(clientConfig().waitMode(WaitMode.BLOCKING).build(), 64);
        connect(transport);
        transport.breakConnection();
        long nowNs = System.nanoTime();
        assertThrows(ClosedSelectorException.class,
                () -> transport.awaitProgress(new Sink(0), nowNs + 30 * SECOND_NS, nowNs));
    }

    /** The server transport reports a client that leaves before a request and one that leaves inside one apart. */
    @Test
    void theServerTransportSaysWhetherTheClientLeftBetweenRequestsOrInsideOne() throws Exception {
        for (boolean midRequest : new boolean[] {false, true}) {
            CountingIdle idle = new CountingIdle();
            try (SocketChannel client = SocketChannel.open(listener.getLocalAddress());
                    SocketChannel accepted = listener.accept()) {
                ServerConfig config = ServerConfig.builder().bind((InetSocketAddress) listener.getLocalAddress())
                        .serviceName(SERVICE).limits(LIMITS).waitMode(WaitMode.BUSY_POLL).idleStrategy(idle).build();
                StagingPool pool = new StagingPool(config.stagingBudgetBytes(), StagingPool.Memory.offHeap(),
                        config.clock());
                closeables.add(pool::close);
                TcpServerTransport transport = new TcpServerTransport(config, accepted, pool, 0);
                closeables.add(transport::close);
                transport.accept(Bootstrap.Endpoint.tcp(RefusalCode.ACCEPTED, SERVICE, LIMITS, ""));
                transport.start();
                transport.sendEnd(0, 0, 0, 0, WireStatus.OK, 0, 0, new RangeCursor(), 0, 0);
                assertTrue(idle.resets.get() >= 1, "a write resets the idle strategy");
                assertTrue(idle.idles.get() >= 1, "busy polling hands every write to the idle strategy");
                MessageHeader sent = new MessageHeader().wrap(
                        MemorySegment.ofArray(readFully(client, MessageHeader.LENGTH)), 0);
                assertEquals(MessageType.RESPONSE, sent.type());
                idle.resets.set(0);
                idle.idles.set(0);
                if (midRequest) {
                    client.write(ByteBuffer.wrap(new byte[10]));
                }
                // Shut down, not closed: the resource closes at the end of the block.
                client.shutdownOutput();
                EOFException e = assertThrows(EOFException.class, transport::nextRequest);
                if (midRequest) {
                    assertEquals("the client closed the connection in the middle of a request (10 of "
                            + MessageHeader.LENGTH + " bytes)", e.getMessage());
                } else {
                    assertEquals("the client closed the connection", e.getMessage());
                }
                assertTrue(idle.resets.get() >= 1, "reading a request resets the idle strategy");
                if (midRequest) {
                    assertTrue(idle.idles.get() >= 1, "busy polling hands every read to the idle strategy");
                }
            }
        }
    }
}
