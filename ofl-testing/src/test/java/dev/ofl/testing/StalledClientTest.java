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
import dev.ofl.api.OflServer;
import dev.ofl.api.OflStatus;
import dev.ofl.api.Region;
import dev.ofl.api.ResponseRanges;
import dev.ofl.api.ServerConfig;
import dev.ofl.api.spi.BootstrapServer;
import dev.ofl.api.spi.RangeCursor;
import dev.ofl.api.spi.StagingPool;
import dev.ofl.conformance.Conditions;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A client that stops taking its responses, over the fake backend with an injected server clock:
 * the engine breaks its connection once a piece made no progress for the send timeout, its
 * staging comes back, and it never held more than its share; other clients are served throughout.
 * And a transport whose blocks come back only as it sees its writes complete (RDMA's way) is asked
 * for them before a response waits on the pool.
 */
@Timeout(60)
class StalledClientTest {
    private static final long SECOND_NS = TimeUnit.SECONDS.toNanos(1);
    private static final int BUDGET = 256 << 10;
    private static final int LARGEST = 64 << 10;
    private static final Limits LIMITS = new Limits(4096, LARGEST, 4, 4);
    private static final AtomicInteger SERVICES = new AtomicInteger();

    private final List<AutoCloseable> closeables = new ArrayList<>();
    private final String service = "stalled-client-" + SERVICES.incrementAndGet();
    private final AtomicLong offsetNs = new AtomicLong();
    private final Arena arena = Arena.ofShared();
    private StagingPool pool;

    /** Writes the capacity's worth of bytes, each its offset plus the request's first payload byte. */
    private final OflHandler handler = (request, response) -> {
        byte seed = request.payload().get(ValueLayout.JAVA_BYTE, 0);
        MemorySegment buffer = response.buffer();
        for (long i = 0; i < response.capacity(); i++) {
            buffer.set(ValueLayout.JAVA_BYTE, i, (byte) (seed + i));
        }
        response.commit(response.capacity());
        return 0;
    };

    @AfterEach
    void tearDown() throws Exception {
        for (int i = closeables.size() - 1; i >= 0; i--) {
            closeables.get(i).close();
        }
        arena.close();
        FakeFaults.of(service).clear();
    }

    private OflServer serve(Consumer<ServerConfig.Builder> settings, ServerTransportWrapper wrap) {
        ServerConfig.Builder builder = ServerConfig.builder().backend(FakeBackend.NAME)
                .bind(new InetSocketAddress("127.0.0.1", 0)).serviceName(service).limits(LIMITS)
                .stagingBudgetBytes(BUDGET).sendTimeout(Duration.ofSeconds(5))
                .clock(() -> System.nanoTime() + offsetNs.get());
        settings.accept(builder);
        ServerConfig config = builder.build();
        pool = new StagingPool(config.stagingBudgetBytes(), StagingPool.Memory.offHeap(), config.clock());
        BootstrapServer server = BootstrapServer.start(config, FakeBackend.NAME, handler,
                (c, channel, id) -> wrap.wrap(new FakeServerTransport(c, channel, pool)), s -> pool.close());
        closeables.add(server);
        return server;
    }

    /** Wraps each connection's transport, or not. */
    @FunctionalInterface
    private interface ServerTransportWrapper {
        dev.ofl.api.spi.ServerTransport wrap(FakeServerTransport fake);
    }

    private OflClient connect(OflServer server) {
        OflClient client = Ofl.connect(ClientConfig.builder().backend(FakeBackend.NAME).server(server.localAddress())
                .serviceName(service).limits(LIMITS).build());
        closeables.add(client);
        return client;
    }

    private static long submit(OflClient client, Region region, byte seed, int capacity) {
        client.requestPayload().set(ValueLayout.JAVA_BYTE, 0, seed);
        return client.submit(1, 0, 1, new ResponseRanges().add(region, 0, capacity));
    }

    private static void assertResponse(MemorySegment memory, byte seed, int length) {
        for (int i = 0; i < length; i++) {
            if (memory.get(ValueLayout.JAVA_BYTE, i) != (byte) (seed + i)) {
                throw new AssertionError("byte " + i + " of a " + length + "-byte response");
            }
        }
    }

    @Test
    void aClientThatStopsTakingItsResponseIsBrokenAfterTheSendTimeoutAndItsStagingComesBack() {
        OflServer server = serve(b -> { }, fake -> fake);
        OflClient stalled = connect(server);
        OflClient other = connect(server);
        MemorySegment stalledMemory = arena.allocate(LARGEST);
        MemorySegment otherMemory = arena.allocate(LARGEST);
        Region stalledRegion = stalled.registerRegion(stalledMemory);
        Region otherRegion = other.registerRegion(otherMemory);
        Completion completion = new Completion();

        FakeFaults.of(service).stallDeliveries(1);
        long stuck = submit(stalled, stalledRegion, (byte) 1, LARGEST);
        Conditions.await(() -> FakeFaults.of(service).stallsArmed() == 0, "the stalled connection's first send");
        assertEquals(LARGEST, pool.inUseBytes(), "the stalled response holds its staging");
        for (int round = 0; round < 3; round++) {
            long ticket = submit(other, otherRegion, (byte) (10 + round), LARGEST);
            assertEquals(OflStatus.OK, other.await(ticket, System.nanoTime() + 10 * SECOND_NS, completion),
                    "another client is served while one is stalled");
            assertResponse(otherMemory, (byte) (10 + round), LARGEST);
        }
        assertEquals(0, server.statistics().sendTimeouts(), "nothing is broken within the send timeout");

        offsetNs.addAndGet(6 * SECOND_NS);
        Conditions.await(() -> server.statistics().sendTimeouts() == 1, "the stalled connection to be broken");
        Conditions.await(() -> pool.inUseBytes() == 0, "the stalled response's staging to come back");
        assertThrows(OflConnectionException.class,
                () -> stalled.await(stuck, System.nanoTime() + 10 * SECOND_NS, completion));
        assertTrue(stalled.isBroken());
        Conditions.await(() -> server.connectionCount() == 1, "the broken connection to end");
        assertEquals(1, server.statistics().undeliveredResponses());
        long again = submit(other, otherRegion, (byte) 20, LARGEST);
        assertEquals(OflStatus.OK, other.await(again, System.nanoTime() + 10 * SECOND_NS, completion));
        assertFalse(other.isBroken());
    }

    @Test
    void aConnectionWhoseBlocksComeBackOnlyAsItSeesItsWritesIsAskedForThemBeforeWaiting() {
        AtomicInteger reclaims = new AtomicInteger();
        // Budget = two largest responses; responses pipelined four deep need the first ones' blocks.
        OflServer server = serve(b -> b.stagingBudgetBytes(2 * LARGEST).stagingTimeout(Duration.ofMinutes(5)),
                fake -> new HoldingUntilReclaimed(fake, reclaims));
        OflClient client = connect(server);
        MemorySegment memory = arena.allocate(4L * LARGEST);
        Region region = client.registerRegion(memory);
        Completion completion = new Completion();
        for (int round = 0; round < 3; round++) {
            long[] tickets = new long[4];
            for (int i = 0; i < tickets.length; i++) {
                client.requestPayload().set(ValueLayout.JAVA_BYTE, 0, (byte) (round * 4 + i));
                tickets[i] = client.submit(1, 0, 1, new ResponseRanges().add(region, (long) i * LARGEST, LARGEST));
            }
            for (int i = 0; i < tickets.length; i++) {
                assertEquals(OflStatus.OK, client.await(tickets[i], System.nanoTime() + 10 * SECOND_NS, completion),
                        () -> "a pipelined response; a wait on the pool alone would have taken the staging timeout");
                assertResponse(memory.asSlice((long) i * LARGEST), (byte) (round * 4 + i), LARGEST);
            }
        }
        assertTrue(reclaims.get() > 0, "the engine never asked the transport for its blocks");
        assertEquals(0, pool.timeouts());
    }

    /**
     * Keeps the blocks a completion hands back until the engine asks for them, as an RDMA
     * transport keeps them until it sees the writes complete.
     */
    private static final class HoldingUntilReclaimed extends ForwardingServerTransport {
        private final AtomicInteger reclaims;
        private final List<long[]> held = new ArrayList<>();

        HoldingUntilReclaimed(FakeServerTransport fake, AtomicInteger reclaims) {
            super(fake);
            this.reclaims = reclaims;
        }

        @Override
        public void sendPiece(long sequence, long stagingOffset, long from, long to, RangeCursor ranges,
                long releaseOffset, long releaseBytes) throws IOException {
            held.add(new long[] {releaseOffset, releaseBytes});
            fake.sendPiece(sequence, stagingOffset, from, to, ranges, releaseOffset, 0);
        }

        @Override
        public void sendEnd(long sequence, long stagingOffset, long from, long to, int wireStatus, int handlerStatus,
                long responseLength, RangeCursor ranges, long releaseOffset, long releaseBytes) throws IOException {
            held.add(new long[] {releaseOffset, releaseBytes});
            fake.sendEnd(sequence, stagingOffset, from, to, wireStatus, handlerStatus, responseLength, ranges,
                    releaseOffset, 0);
        }

        @Override
        public boolean reclaimStaging(long deadlineNs) {
            if (held.isEmpty()) {
                return false;
            }
            reclaims.incrementAndGet();
            for (long[] blocks : held) {
                fake.staging().release(blocks[0], blocks[1]);
            }
            // Something was held, even if only empty hand-backs: the engine looks again.
            held.clear();
            return true;
        }

        @Override
        public boolean close() {
            reclaimStaging(0);
            return super.close();
        }
    }
}
