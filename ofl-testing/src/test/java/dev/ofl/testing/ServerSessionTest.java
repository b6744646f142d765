package dev.ofl.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ofl.api.ClientConfig;
import dev.ofl.api.Completion;
import dev.ofl.api.Limits;
import dev.ofl.api.Ofl;
import dev.ofl.api.OflClient;
import dev.ofl.api.OflConnectionException;
import dev.ofl.api.OflHandler;
import dev.ofl.api.OflRefusedException;
import dev.ofl.api.OflResponse;
import dev.ofl.api.OflServer;
import dev.ofl.api.OflStatus;
import dev.ofl.api.RefusalCode;
import dev.ofl.api.Region;
import dev.ofl.api.ResponseRanges;
import dev.ofl.api.ServerConfig;
import dev.ofl.api.ServerStatistics;
import dev.ofl.api.spi.BootstrapServer;
import dev.ofl.api.spi.RangeCursor;
import dev.ofl.api.spi.StagingPool;
import dev.ofl.api.wire.WireStatus;
import dev.ofl.conformance.Conditions;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The server session's side of the transport contract, watched through a transport that records
 * what the session asks of the fake one: a response cut into pieces of at least the piece size,
 * contiguous, with every staging block handed back exactly once; what a refusing or failing
 * handler loses; a request that breaks the protocol; a piece the transport cannot send; a
 * transport that cannot release its resources; and the transport's setup failing.
 */
@Timeout(60)
class ServerSessionTest {
    private static final long SECOND_NS = TimeUnit.SECONDS.toNanos(1);
    private static final int PIECE = 16 << 10;
    private static final int CAPACITY = 64 << 10;
    private static final Limits LIMITS = new Limits(4096, CAPACITY, 4, 4);
    private static final AtomicInteger SERVICES = new AtomicInteger();
    private static final int OP_STREAM = 1;
    private static final int OP_STREAM_THEN_REFUSE = 2;
    private static final int OP_STREAM_THEN_THROW = 3;
    private static final int OP_SWALLOW_PIECE_FAILURE = 4;

    /** One call of sendPiece or sendEnd, as the session made it. */
    record Sent(boolean end, long sequence, long staging, long from, long to, int wireStatus, int handlerStatus,
            long responseLength, long releaseOffset, long releaseBytes) {
    }

    private final List<AutoCloseable> closeables = new ArrayList<>();
    private final List<Sent> sent = new CopyOnWriteArrayList<>();
    private final AtomicInteger pieceFailures = new AtomicInteger();
    private final AtomicBoolean closeFails = new AtomicBoolean();
    private final AtomicBoolean corruptNextRequest = new AtomicBoolean();
    private final AtomicInteger handlerFailures = new AtomicInteger();
    private final AtomicBoolean handlerSawPieceFailure = new AtomicBoolean();
    private final Completion completion = new Completion();
    private String service;
    private Arena arena;
    private MemorySegment memory;
    private StagingPool pool;

    private final OflHandler handler = (request, response) -> {
        long bytes = request.payload().get(ValueLayout.JAVA_LONG_UNALIGNED, 0);
        switch (request.op()) {
            case OP_STREAM -> stream(response, bytes);
            case OP_STREAM_THEN_REFUSE -> {
                stream(response, bytes);
                return 23;
            }
            case OP_STREAM_THEN_THROW -> {
                stream(response, bytes);
                throw new IllegalStateException("after the pieces");
            }
            case OP_SWALLOW_PIECE_FAILURE -> {
                try {
                    stream(response, bytes);
                } catch (OflConnectionException e) {
                    handlerSawPieceFailure.set(true);
                }
                return 0;
            }
            default -> throw new IllegalStateException("no op " + request.op());
        }
        return 0;
    };

    /** Writes {@code bytes} bytes, byte i being (byte) i, committing 4 KiB at a time. */
    private static void stream(OflResponse response, long bytes) {
        for (long at = 0; at < bytes; at += 4096) {
            long n = Math.min(4096, bytes - at);
            for (long i = 0; i < n; i++) {
                response.buffer().set(ValueLayout.JAVA_BYTE, response.committed() + i, (byte) (at + i));
            }
            response.commit(n);
        }
    }

    /** The fake transport, with what the session sends recorded and a few failures on demand. */
    private final class Recording extends ForwardingServerTransport {
        Recording(FakeServerTransport fake) {
            super(fake);
        }

        @Override
        public int nextRequest() throws IOException {
            int slot = fake.nextRequest();
            if (corruptNextRequest.getAndSet(false)) {
                fake.message(slot).set(ValueLayout.JAVA_BYTE, 0, (byte) 0x7F);
            }
            return slot;
        }

        @Override
        public void sendPiece(long sequence, long stagingOffset, long from, long to, RangeCursor ranges,
                long releaseOffset, long releaseBytes) throws IOException {
            sent.add(new Sent(false, sequence, stagingOffset, from, to, -1, -1, -1, releaseOffset, releaseBytes));
            if (pieceFailures.get() > 0) {
                pieceFailures.decrementAndGet();
                pool.release(releaseOffset, releaseBytes);
                throw new IOException("injected: a piece that cannot be sent");
            }
            fake.sendPiece(sequence, stagingOffset, from, to, ranges, releaseOffset, releaseBytes);
        }

        @Override
        public void sendEnd(long sequence, long stagingOffset, long from, long to, int wireStatus, int handlerStatus,
                long responseLength, RangeCursor ranges, long releaseOffset, long releaseBytes) throws IOException {
            sent.add(new Sent(true, sequence, stagingOffset, from, to, wireStatus, handlerStatus, responseLength,
                    releaseOffset, releaseBytes));
            fake.sendEnd(sequence, stagingOffset, from, to, wireStatus, handlerStatus, responseLength, ranges,
                    releaseOffset, releaseBytes);
        }

        @Override
        public boolean close() {
            boolean closed = fake.close();
            return closed && !closeFails.get();
        }
    }

    @BeforeEach
    void setUp() {
        service = "server-session-" + SERVICES.incrementAndGet();
        arena = Arena.ofShared();
        memory = arena.allocate(CAPACITY);
    }

    @AfterEach
    void tearDown() throws Exception {
        for (int i = closeables.size() - 1; i >= 0; i--) {
            closeables.get(i).close();
        }
        arena.close();
    }

    private OflServer serve() {
        ServerConfig config = ServerConfig.builder().backend(FakeBackend.NAME)
                .bind(new InetSocketAddress("127.0.0.1", 0)).serviceName(service).limits(LIMITS)
                .stagingBudgetBytes(2 * CAPACITY)
                .handlerErrorListener((request, failure) -> handlerFailures.incrementAndGet()).build();
        pool = new StagingPool(config.stagingBudgetBytes(), StagingPool.Memory.offHeap(), config.clock());
        BootstrapServer server = BootstrapServer.start(config, FakeBackend.NAME, handler,
                (c, channel, id) -> new Recording(new FakeServerTransport(c, channel, pool)), s -> pool.close());
        closeables.add(server);
        return server;
    }

    private OflClient connect(OflServer server) {
        OflClient client = Ofl.connect(ClientConfig.builder().backend(FakeBackend.NAME).server(server.localAddress())
                .serviceName(service).limits(LIMITS).build());
        closeables.add(client);
        return client;
    }

    private int call(OflClient client, Region region, int op, long bytes) {
        client.requestPayload().set(ValueLayout.JAVA_LONG_UNALIGNED, 0, bytes);
        return client.call(op, 0, 8, new ResponseRanges().add(region, 0, CAPACITY), 10 * SECOND_NS, completion);
    }

    private List<Sent> sentFor(long sequence) {
        return sent.stream().filter(s -> s.sequence() == sequence).toList();
    }

    /** Every block of the response's extent was handed back once, in order, with nothing overlapping. */
    private static void assertExtentHandedBackOnce(List<Sent> calls) {
        long base = calls.getFirst().staging();
        long next = base;
        for (Sent s : calls) {
            assertEquals(base, s.staging(), "one extent per response");
            assertEquals(next, s.releaseOffset(), "releases are contiguous: " + calls);
            assertEquals(0, s.releaseBytes() % StagingPool.BLOCK_BYTES, "whole blocks: " + calls);
            next += s.releaseBytes();
        }
        assertEquals(StagingPool.blocksFor(CAPACITY) * StagingPool.BLOCK_BYTES, next - base,
                "the whole extent for the capacity: " + calls);
    }

    @Test
    void aLargeResponseTravelsInContiguousPiecesAndHandsEveryBlockBackOnce() {
        OflServer server = serve();
        OflClient client = connect(server);
        Region region = client.registerRegion(memory);
        long bytes = 40_000;
        assertEquals(OflStatus.OK, call(client, region, OP_STREAM, bytes));
        assertEquals(bytes, completion.responseLength());
        for (int i = 0; i < bytes; i++) {
            assertEquals((byte) i, memory.get(ValueLayout.JAVA_BYTE, i), "byte " + i);
        }
        List<Sent> calls = sentFor(0);
        // Committed 4 KiB at a time: a piece leaves once 16 KiB are pending, the rest with the end.
        assertEquals(3, calls.size(), calls::toString);
        assertEquals(new Sent(false, 0, calls.get(0).staging(), 0, PIECE, -1, -1, -1, calls.get(0).staging(),
                PIECE), calls.get(0));
        assertEquals(PIECE, calls.get(1).from());
        assertEquals(2 * PIECE, calls.get(1).to());
        Sent end = calls.get(2);
        assertTrue(end.end());
        assertEquals(2 * PIECE, end.from());
        assertEquals(bytes, end.to());
        assertEquals(WireStatus.OK, end.wireStatus());
        assertEquals(0, end.handlerStatus());
        assertEquals(bytes, end.responseLength());
        assertExtentHandedBackOnce(calls);
        Conditions.await(() -> pool.inUseBytes() == 0, "the extent to come back");

        // The next response gets the same extent back and its sequence.
        assertEquals(OflStatus.OK, call(client, region, OP_STREAM, 100));
        List<Sent> second = sentFor(1);
        assertEquals(1, second.size(), "a response below the piece size goes with its end: " + second);
        assertEquals(calls.getFirst().staging(), second.getFirst().staging(), "the extent is reused");
        assertEquals(0, second.getFirst().from());
        assertEquals(100, second.getFirst().to());
        assertExtentHandedBackOnce(second);
        assertEquals(new ServerStatistics(1, 0, 2, 0, 0, 0, 0, 0, 0, 0), server.statistics());
    }

    /** A response over three ranges of two regions lands in each range in order, and nowhere else. */
    @Test
    void aResponseIsCutAtTheBoundariesOfSeveralRanges() {
        OflServer server = serve();
        OflClient client = connect(server);
        MemorySegment second = arena.allocate(CAPACITY);
        memory.fill((byte) 0x5A);
        second.fill((byte) 0x5A);
        Region a = client.registerRegion(memory);
        Region b = client.registerRegion(second);
        client.requestPayload().set(ValueLayout.JAVA_LONG_UNALIGNED, 0, 20_000);
        ResponseRanges ranges = new ResponseRanges().add(a, 100, 5_000).add(b, 0, 10_000).add(a, 8_000, 5_000);
        assertEquals(OflStatus.OK, client.call(OP_STREAM, 0, 8, ranges, 10 * SECOND_NS, completion));
        assertEquals(20_000, completion.responseLength());
        for (int i = 0; i < 20_000; i++) {
            byte got = i < 5_000 ? memory.get(ValueLayout.JAVA_BYTE, 100 + i)
                    : i < 15_000 ? second.get(ValueLayout.JAVA_BYTE, i - 5_000)
                    : memory.get(ValueLayout.JAVA_BYTE, 8_000 + i - 15_000);
            assertEquals((byte) i, got, "response byte " + i);
        }
        assertEquals((byte) 0x5A, memory.get(ValueLayout.JAVA_BYTE, 99));
        assertEquals((byte) 0x5A, memory.get(ValueLayout.JAVA_BYTE, 5_100));
        assertEquals((byte) 0x5A, memory.get(ValueLayout.JAVA_BYTE, 7_999));
        assertEquals((byte) 0x5A, memory.get(ValueLayout.JAVA_BYTE, 13_000));
        assertEquals((byte) 0x5A, second.get(ValueLayout.JAVA_BYTE, 10_000));
    }

    @Test
    void aRefusalAfterPiecesSendsNothingMoreAndCarriesTheHandlersStatus() {
        OflServer server = serve();
        OflClient client = connect(server);
        Region region = client.registerRegion(memory);
        assertEquals(OflStatus.REFUSED, call(client, region, OP_STREAM_THEN_REFUSE, 20_000));
        assertEquals(23, completion.handlerStatus());
        assertEquals(0, completion.responseLength());
        List<Sent> calls = sentFor(0);
        assertEquals(2, calls.size(), calls::toString);
        Sent end = calls.get(1);
        assertEquals(PIECE, end.from(), "what was sent stays sent");
        assertEquals(PIECE, end.to(), "what was committed after the last piece is dropped");
        assertEquals(WireStatus.REFUSED, end.wireStatus());
        assertEquals(23, end.handlerStatus());
        assertEquals(0, end.responseLength());
        assertExtentHandedBackOnce(calls);

        assertEquals(OflStatus.HANDLER_FAILED, call(client, region, OP_STREAM_THEN_THROW, 20_000));
        assertEquals(0, completion.handlerStatus(), "a failed handler's status is not sent");
        Sent failed = sentFor(1).getLast();
        assertEquals(PIECE, failed.to());
        assertEquals(WireStatus.HANDLER_FAILED, failed.wireStatus());
        assertEquals(0, failed.handlerStatus());
        assertEquals(0, failed.responseLength());
        assertExtentHandedBackOnce(sentFor(1));
        assertEquals(1, handlerFailures.get());
        assertEquals(new ServerStatistics(1, 0, 2, 1, 1, 0, 0, 0, 0, 0), server.statistics());
        Conditions.await(() -> pool.inUseBytes() == 0, "the extents to come back");
    }

    /**
     * A piece the transport cannot send ends the connection even if the handler swallows the
     * failure; it is the connection's failure, not the handler's, and the response counts as
     * undelivered.
     */
    @Test
    void aPieceThatCannotBeSentEndsTheConnectionAndIsNotTheHandlersFailure() {
        OflServer server = serve();
        OflClient client = connect(server);
        Region region = client.registerRegion(memory);
        pieceFailures.set(1);
        assertThrows(OflConnectionException.class, () -> call(client, region, OP_SWALLOW_PIECE_FAILURE, 20_000));
        assertTrue(handlerSawPieceFailure.get(), "the handler was told");
        Conditions.await(() -> server.connectionCount() == 0, "the connection to end");
        assertEquals(0, handlerFailures.get(), "the transport's failure is not reported as the handler's");
        ServerStatistics statistics = server.statistics();
        assertEquals(1, statistics.requests());
        assertEquals(0, statistics.handlerFailures(), statistics::toString);
        assertEquals(1, statistics.undeliveredResponses(), statistics::toString);
        assertEquals(1, sentFor(0).size(), "nothing is sent after the failed piece: " + sent);
        Conditions.await(() -> pool.inUseBytes() == 0, "the extent to come back");
        assertFalse(pool.pinned());
    }

    /** A request that breaks the protocol is counted, and closes its connection without an answer. */
    @Test
    void aRequestThatBreaksTheProtocolClosesTheConnection() {
        OflServer server = serve();
        OflClient client = connect(server);
        Region region = client.registerRegion(memory);
        assertEquals(OflStatus.OK, call(client, region, OP_STREAM, 8));
        corruptNextRequest.set(true);
        assertThrows(OflConnectionException.class, () -> call(client, region, OP_STREAM, 8));
        Conditions.await(() -> server.connectionCount() == 0, "the connection to end");
        ServerStatistics statistics = server.statistics();
        assertEquals(1, statistics.protocolViolations(), statistics::toString);
        assertEquals(1, statistics.requests(), "the broken request was not handled");
        assertEquals(1, sent.size(), "no answer to the broken request: " + sent);
        client.reconnect();
        assertEquals(OflStatus.OK, call(client, region, OP_STREAM, 8));
    }

    /**
     * A transport that could not release its resources pins the staging memory, so that a device
     * cannot write into freed memory; the extent it held is not handed out again.
     */
    @Test
    void aTransportThatCannotCloseCleanlyPinsTheStaging() {
        OflServer server = serve();
        OflClient client = connect(server);
        Region region = client.registerRegion(memory);
        assertEquals(OflStatus.OK, call(client, region, OP_STREAM, 8));
        assertFalse(pool.pinned());
        closeFails.set(true);
        client.close();
        Conditions.await(() -> server.connectionCount() == 0, "the connection to end");
        Conditions.await(pool::pinned, "the staging to be pinned");
        server.close();
        assertTrue(pool.pinned(), "closing the server leaves pinned memory allocated");
    }

    /** A transport that closes cleanly gives back an extent a response still held when the connection ended. */
    @Test
    void aCleanCloseNeitherPinsNorLeaksStaging() {
        OflServer server = serve();
        OflClient client = connect(server);
        Region region = client.registerRegion(memory);
        assertEquals(OflStatus.OK, call(client, region, OP_STREAM, 30_000));
        client.close();
        Conditions.await(() -> server.connectionCount() == 0, "the connection to end");
        assertFalse(pool.pinned());
        assertEquals(0, pool.inUseBytes());
    }

    /** A transport whose setup fails refuses the client with TRANSPORT_SETUP_FAILED, and nothing stays taken. */
    @Test
    void aTransportSetupFailureIsRefusedAndGivesItsPlaceBack() {
        OflServer server = serve();
        FakeFaults.of(service).failServerSetups(1);
        try {
            OflRefusedException refused = assertThrows(OflRefusedException.class, () -> connect(server));
            assertEquals(RefusalCode.TRANSPORT_SETUP_FAILED, refused.code());
            assertTrue(refused.getMessage().contains("injected"), refused.getMessage());
        } finally {
            FakeFaults.of(service).clear();
        }
        Conditions.await(() -> server.connectionCount() == 0, "the place to come back");
        assertEquals(1, server.statistics().connectionsRefused());
        assertEquals(0, server.statistics().connectionsAccepted());
        OflClient client = connect(server);
        assertEquals(OflStatus.OK, call(client, client.registerRegion(memory), OP_STREAM, 8));
    }
}
