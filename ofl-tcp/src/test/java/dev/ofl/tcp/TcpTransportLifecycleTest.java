package dev.ofl.tcp;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
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
import dev.ofl.api.OflServer;
import dev.ofl.api.OflStatus;
import dev.ofl.api.RefusalCode;
import dev.ofl.api.Region;
import dev.ofl.api.ResponseRanges;
import dev.ofl.api.ServerConfig;
import dev.ofl.api.spi.ClientSession;
import dev.ofl.api.spi.ClientTransport;
import dev.ofl.api.spi.RangeCursor;
import dev.ofl.api.spi.ResponseSink;
import dev.ofl.api.spi.ServerMemory;
import dev.ofl.api.spi.StagingPool;
import dev.ofl.api.wire.Bootstrap;
import dev.ofl.api.wire.MessageHeader;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The TCP transports' own lifecycle and region bookkeeping: what breaking, disconnecting and
 * closing leave usable, and regions beyond the initial table or beyond what a byte buffer can view.
 */
@Timeout(60)
class TcpTransportLifecycleTest {
    private static final long SECOND_NS = TimeUnit.SECONDS.toNanos(1);
    private static final Limits LIMITS = new Limits(1024, 1 << 20, 4, 4);
    private static final OflHandler ECHO = (request, response) -> {
        response.write(request.payload());
        return 0;
    };

    private final List<AutoCloseable> closeables = new ArrayList<>();
    private Arena arena;
    private OflServer server;

    @BeforeEach
    void setUp() {
        arena = Arena.ofShared();
        server = Ofl.serve(ServerConfig.builder().bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))
                .serviceName("lifecycle").limits(LIMITS).build(), ECHO);
    }

    @AfterEach
    void tearDown() throws Exception {
        for (int i = closeables.size() - 1; i >= 0; i--) {
            closeables.get(i).close();
        }
        server.close();
        arena.close();
    }

    private ClientConfig config() {
        return ClientConfig.builder().server(server.localAddress()).serviceName("lifecycle").limits(LIMITS).build();
    }

    private OflClient connect() {
        OflClient client = Ofl.connect(config());
        closeables.add(client);
        return client;
    }

    private static int echo(OflClient client, Region region, long value) {
        client.requestPayload().set(ValueLayout.JAVA_LONG_UNALIGNED, 0, value);
        return client.call(1, 0, 8, new ResponseRanges().add(region, 0, 8), 10 * SECOND_NS, new Completion());
    }

    @Test
    void regionsBeyondTheInitialTableAreUsable() {
        OflClient client = connect();
        List<Region> regions = new ArrayList<>();
        for (int i = 0; i < 11; i++) {
            regions.add(client.registerRegion(arena.allocate(64)));
        }
        for (int i = 0; i < regions.size(); i++) {
            assertEquals(OflStatus.OK, echo(client, regions.get(i), 1000 + i), "region " + i);
            assertEquals(1000 + i, regions.get(i).segment().get(ValueLayout.JAVA_LONG_UNALIGNED, 0), "region " + i);
        }
    }

    /**
     * One response of 120,000 bytes scattered over six regions (two beyond the initial table), a
     * range of 20,000 bytes at an odd offset in each: the piece is larger than the client reads
     * through its receive buffer, so most of it is read straight into ranges that cross from region
     * to region. Every byte lands in order; none around the ranges changes.
     */
    @Test
    void aLargePieceLandsExactlyInRangesAcrossSixRegions() {
        int regions = 6;
        int rangeBytes = 20_000;
        Limits limits = new Limits(64, 1 << 20, 8, 1);
        try (OflServer own = Ofl.serve(ServerConfig.builder()
                .bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0)).serviceName("lifecycle")
                .limits(limits).build(), (request, response) -> {
                    MemorySegment buffer = response.buffer();
                    for (int i = 0; i < response.capacity(); i++) {
                        buffer.set(ValueLayout.JAVA_BYTE, i, (byte) (i * 7 + i / 251));
                    }
                    response.commit(response.capacity());
                    return 0;
                });
                OflClient client = Ofl.connect(ClientConfig.builder().server(own.localAddress())
                        .serviceName("lifecycle").limits(limits).build())) {
            ResponseRanges ranges = new ResponseRanges();
            List<Region> registered = new ArrayList<>();
            for (int r = 0; r < regions; r++) {
                Region region = client.registerRegion(arena.allocate(rangeBytes + 100).fill((byte) 0x5A));
                registered.add(region);
                ranges.add(region, 3 + 11 * r, rangeBytes);
            }
            Completion completion = new Completion();
            assertEquals(OflStatus.OK, client.call(1, 0, 0, ranges, 10 * SECOND_NS, completion), completion::toString);
            assertEquals((long) regions * rangeBytes, completion.responseLength());
            for (int r = 0; r < regions; r++) {
                MemorySegment memory = registered.get(r).segment();
                int start = 3 + 11 * r;
                for (int at = 0; at < memory.byteSize(); at++) {
                    int stream = r * rangeBytes + at - start;
                    byte expected = at >= start && at < start + rangeBytes ? (byte) (stream * 7 + stream / 251)
                            : (byte) 0x5A;
                    if (memory.get(ValueLayout.JAVA_BYTE, at) != expected) {
                        throw new AssertionError("region " + r + ", byte " + at + " is "
                                + memory.get(ValueLayout.JAVA_BYTE, at) + ", expected " + expected);
                    }
                }
            }
        }
    }

    @Test
    @SuppressWarnings("restricted")
    void regionsLargerThanAByteBufferCanViewAreRefusedWithTheFix() {
        OflClient client = connect();
        // Registering only records the region: these views of a small allocation are never touched.
        MemorySegment base = arena.allocate(64);
        // The JDK views at most Integer.MAX_VALUE - 8 bytes as a ByteBuffer.
        long largest = Integer.MAX_VALUE - 8;
        assertDoesNotThrow(() -> client.registerRegion(base.reinterpret(largest)));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> client.registerRegion(base.reinterpret(largest + 1)));
        assertTrue(e.getMessage().contains("at most " + largest + " bytes; split " + (largest + 1)
                + " bytes into several regions"), e.getMessage());
    }

    @Test
    void breakingOrDisconnectingTheClientTransportClosesItsSocket() {
        OflClient client = connect();
        Region region = client.registerRegion(arena.allocate(64));
        ClientTransport transport = ((ClientSession) client).transport();
        transport.breakConnection();
        assertThrows(OflConnectionException.class, () -> echo(client, region, 1));
        client.reconnect();
        assertEquals(OflStatus.OK, echo(client, region, 2));
        transport.disconnect();
        assertThrows(OflConnectionException.class, () -> echo(client, region, 3));
        client.reconnect();
        assertEquals(OflStatus.OK, echo(client, region, 4));
    }

    @Test
    void aClosedClientTransportReleasesEverythingAndReadsNoMore() {
        long slotBytes = MessageHeader.requestLength(LIMITS.maxRequestBytes(), LIMITS.maxRanges());
        MemorySegment slots = arena.allocate(slotBytes * 2);
        TcpClientTransport transport = new TcpClientTransport(config(), slots, slotBytes);
        transport.connect(List.of(), System.nanoTime() + 10 * SECOND_NS);
        assertTrue(transport.close(), "nothing of the TCP transport outlives close()");
        assertThrows(OflConnectionException.class, () -> transport.poll(new IdleSink()),
                "the socket is closed, not read");
    }

    /** The server's staging pool is allocated by the first response that needs it and freed when the server closes. */
    @Test
    void closingTheServerFreesItsStagingPool() {
        long budget = 2 << 20;
        long during;
        try (OflServer own = Ofl.serve(ServerConfig.builder()
                .bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0)).serviceName("lifecycle")
                .limits(LIMITS).stagingBudgetBytes(budget).build(), ECHO);
                OflClient client = Ofl.connect(ClientConfig.builder().server(own.localAddress())
                        .serviceName("lifecycle").limits(LIMITS).build())) {
            Region region = client.registerRegion(arena.allocate(64));
            assertEquals(OflStatus.OK, echo(client, region, 5));
            during = ServerMemory.stagingBytes();
        }
        // A difference, not figures: a pool of an earlier test whose connection outlived its server's
        // drain may end at any time, which only widens it.
        long after = ServerMemory.stagingBytes();
        assertTrue(during - after >= budget, "closing the server freed the budget the first response allocated: "
                + during + " bytes while serving, " + after + " after");
    }

    @Test
    void closingTheServerTransportClosesItsSocketAndFreesItsBuffers() throws IOException {
        try (ServerSocketChannel listener = ServerSocketChannel.open()
                .bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
                SocketChannel client = SocketChannel.open(listener.getLocalAddress());
                SocketChannel accepted = listener.accept()) {
            ServerConfig config = ServerConfig.builder().bind((InetSocketAddress) listener.getLocalAddress())
                    .serviceName("lifecycle").limits(LIMITS).build();
            assertTrue(client.isConnected());
            StagingPool pool = new StagingPool(config.stagingBudgetBytes(), StagingPool.Memory.offHeap(),
                    config.clock());
            TcpServerTransport transport = new TcpServerTransport(config, accepted, pool, 0);
            long before = ServerMemory.receiveBytes();
            // The largest limits a client may ask for: what it commits must not grow with them.
            Limits largest = new Limits(Limits.MAX_REQUEST_BYTES, Limits.MAX_RESPONSE_BYTES, Limits.MAX_RANGES,
                    Limits.MAX_IN_FLIGHT);
            transport.accept(Bootstrap.Endpoint.tcp(RefusalCode.ACCEPTED, "lifecycle", largest, ""));
            assertTrue(transport.committedBytes() <= 64 << 10, "an accepted HELLO commits "
                    + transport.committedBytes() + " bytes");
            assertEquals(transport.committedBytes(), ServerMemory.receiveBytes() - before,
                    "the process-wide accounting sees it");
            assertEquals(0, pool.committedBytes(), "no staging before a request");
            assertTrue(transport.close());
            assertEquals(0, transport.committedBytes());
            assertEquals(before, ServerMemory.receiveBytes(), "the buffers are freed");
            assertFalse(accepted.isOpen(), "the socket is closed");
            assertTrue(transport.close(), "close() is idempotent");
        }
    }

    @Test
    void breakingTheServerTransportClosesItsSocket() throws IOException {
        try (ServerSocketChannel listener = ServerSocketChannel.open()
                .bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
                SocketChannel client = SocketChannel.open(listener.getLocalAddress());
                SocketChannel accepted = listener.accept()) {
            ServerConfig config = ServerConfig.builder().bind((InetSocketAddress) listener.getLocalAddress())
                    .serviceName("lifecycle").limits(LIMITS).build();
            assertTrue(client.isConnected());
            TcpServerTransport transport = new TcpServerTransport(config, accepted,
                    new StagingPool(1, StagingPool.Memory.offHeap(), config.clock()), 0);
            transport.breakConnection();
            assertFalse(accepted.isOpen());
            assertTrue(transport.close(), "a transport that never accepted closes too");
        }
    }

    /** A sink for a transport with nothing outstanding. */
    private static final class IdleSink implements ResponseSink {
        private final RangeCursor cursor = new RangeCursor();

        @Override
        public long receivingSequence() {
            return -1;
        }

        @Override
        public long piece(MessageHeader header) {
            throw new AssertionError("no piece expected");
        }

        @Override
        public RangeCursor cursor() {
            return cursor;
        }

        @Override
        public void complete(MessageHeader header) {
            throw new AssertionError("no completion expected");
        }
    }
}
