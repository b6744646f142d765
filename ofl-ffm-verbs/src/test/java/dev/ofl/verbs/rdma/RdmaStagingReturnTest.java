package dev.ofl.verbs.rdma;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ofl.api.ClientConfig;
import dev.ofl.api.Completion;
import dev.ofl.api.Limits;
import dev.ofl.api.Ofl;
import dev.ofl.api.OflClient;
import dev.ofl.api.OflHandler;
import dev.ofl.api.OflServer;
import dev.ofl.api.OflStatus;
import dev.ofl.api.Region;
import dev.ofl.api.ResponseRanges;
import dev.ofl.api.ServerConfig;
import dev.ofl.api.spi.BootstrapServer;
import dev.ofl.api.spi.StagingPool;
import dev.ofl.api.wire.MessageHeader;
import dev.ofl.api.wire.PayloadRead;
import dev.ofl.api.wire.RangeDescriptor;
import dev.ofl.conformance.Conditions;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The server's staging comes back whole however a connection ends: a server built as the backend
 * builds it, but over a {@link StagingPool} the test can watch, answers a client whose queue pair
 * is already in error with a response of many pieces; every write fails, the failure names the
 * rejected write, and once the connection is gone no block of the pool is still in use. Then the
 * server goes on serving. A response its handler finishes while the server closes still reaches
 * its client before the connection is torn down. A piece's blocks stay borrowed once its writes
 * are posted, until the connection's thread sees them complete. The extent a request's payload
 * was to be read into comes back when the read is refused and the connection ends.
 */
@Timeout(120)
class RdmaStagingReturnTest {
    private static final String SERVICE = "staging-return";
    private static final int RESPONSE_BYTES = 1 << 20;
    private static final int OP_LATE = 2;

    private StagingPool pool;

    private BootstrapServer serve(ServerConfig config, OflHandler handler) {
        return RdmaServer.start(config, handler, CompletionPoller.shared(), staging -> pool = staging,
                transport -> { });
    }

    /**
     * A closing server waits for the writes of the last response it posted before it tears the
     * connection down (the transport's flush): breaking the queue pair at once would drop the
     * writes still queued. The response is larger than what a provider holds in flight at once
     * (softverbs: its 4 MiB socket buffers), so that some of its writes are still queued when the
     * connection thread returns from posting them.
     */
    @Test
    void aResponseFinishedWhileTheServerClosesReachesItsClient() throws Exception {
        CountDownLatch entered = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        int bytes = 16 << 20;
        ServerConfig config = ServerConfig.builder().backend(RdmaBackend.NAME)
                .bind(new InetSocketAddress(TestEnvironment.address(), 0)).serviceName(SERVICE)
                .limits(new Limits(64, bytes, 1, 2)).drainTimeout(TestEnvironment.duration(30))
                .bootstrapTimeout(TestEnvironment.duration(5))
                .properties(TestEnvironment.rdmaProperties()).build();
        BootstrapServer server = serve(config, (request, response) -> {
            entered.countDown();
            assertTrue(release.await(TestEnvironment.seconds(60), TimeUnit.SECONDS), "never released");
            for (long at = 0; at < response.capacity(); at++) {
                response.buffer().set(java.lang.foreign.ValueLayout.JAVA_BYTE, at, (byte) (at * 5 + 1));
            }
            response.commit(response.capacity());
            return 0;
        });
        Thread closer = null;
        try (Arena arena = Arena.ofShared(); OflClient client = Ofl.connect(ClientConfig.builder()
                .backend(RdmaBackend.NAME).server(server.localAddress()).serviceName(SERVICE)
                .limits(new Limits(64, bytes, 1, 2)).connectTimeout(TestEnvironment.duration(5))
                .properties(TestEnvironment.rdmaProperties()).build())) {
            MemorySegment memory = arena.allocate(bytes, 4096);
            long ticket = client.submit(1, 0, 0, ResponseRanges.of(client.registerRegion(memory)));
            assertTrue(entered.await(TestEnvironment.seconds(30), TimeUnit.SECONDS), "the handler never ran");
            closer = Thread.ofPlatform().start(server::close);
            Conditions.await(server::closing, "the server to start closing");
            release.countDown();
            Completion completion = new Completion();
            assertEquals(OflStatus.OK, client.await(ticket, client.clock().nanoTime() + TestEnvironment.nanos(30),
                    completion), completion::toString);
            assertEquals(bytes, completion.responseLength());
            for (long at = 0; at < bytes; at++) {
                if (memory.get(java.lang.foreign.ValueLayout.JAVA_BYTE, at) != (byte) (at * 5 + 1)) {
                    throw new AssertionError("byte " + at + " of the last response differs");
                }
            }
        } finally {
            release.countDown();
            if (closer != null) {
                closer.join();
            }
            server.close();
        }
        assertEquals(0, server.statistics().undeliveredResponses());
    }

    @Test
    void aResponseToAClientInErrorFailsAndReturnsEveryBlock() throws Exception {
        CountDownLatch entered = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        ServerConfig config = ServerConfig.builder().backend(RdmaBackend.NAME)
                .bind(new InetSocketAddress(TestEnvironment.address(), 0)).serviceName(SERVICE)
                .limits(new Limits(64, RESPONSE_BYTES, 1, 2))
                .bootstrapTimeout(TestEnvironment.duration(5))
                .properties(TestEnvironment.rdmaProperties()).build();
        String log;
        try (OflServer server = serve(config, (request, response) -> {
            if (request.op() == OP_LATE) {
                entered.countDown();
                assertTrue(release.await(TestEnvironment.seconds(60), TimeUnit.SECONDS), "never released");
                // Piece by piece: each commit posts writes and leaves blocks to return after them.
                long piece = 64 << 10;
                for (long at = 0; at < response.capacity(); at += piece) {
                    response.buffer().asSlice(at, piece).fill((byte) 0x11);
                    response.commit(piece);
                }
                return 0;
            }
            response.write(request.payload());
            return 0;
        }); Arena arena = Arena.ofShared()) {
            ClientConfig clientConfig = ClientConfig.builder().backend(RdmaBackend.NAME).server(server.localAddress())
                    .serviceName(SERVICE).limits(new Limits(64, RESPONSE_BYTES, 1, 2))
                    .connectTimeout(TestEnvironment.duration(5))
                    .properties(TestEnvironment.rdmaProperties()).build();
            MemorySegment memory = arena.allocate(RESPONSE_BYTES, 4096);
            StderrCapture stderr = StderrCapture.start();
            try (stderr; OflClient client = Ofl.connect(clientConfig)) {
                Region region = client.registerRegion(memory);
                Completion completion = new Completion();
                long ticket = client.submit(OP_LATE, 0, 0, ResponseRanges.of(region));
                assertTrue(entered.await(TestEnvironment.seconds(30), TimeUnit.SECONDS), "the handler never ran");
                // The client gives up: its queue pair goes to ERR, and every later write to it fails.
                assertEquals(OflStatus.TIMED_OUT, client.await(ticket, client.clock().nanoTime() + 1_000_000L,
                        completion));
                release.countDown();
                Conditions.await(() -> server.statistics().undeliveredResponses() == 1,
                        "the server to see its response's writes fail");
                Conditions.await(() -> server.connectionCount() == 0, "the connection to end");
                Conditions.await(() -> pool.inUseBytes() == 0, "every block of the failed response to return");
            }
            log = stderr.text();
            assertTrue(pool.highWaterBytes() >= RESPONSE_BYTES / 2, "the response borrowed its blocks: "
                    + pool.highWaterBytes());
            assertTrue(log.contains("broke while a response was being delivered: a response write was not accepted ("),
                    "the server's log must name the rejected write:\n" + log);
            // The server goes on: another client is answered.
            try (OflClient client = Ofl.connect(clientConfig)) {
                Region region = client.registerRegion(memory);
                client.requestPayload().set(java.lang.foreign.ValueLayout.JAVA_LONG_UNALIGNED, 0, 42L);
                Completion completion = new Completion();
                assertEquals(OflStatus.OK, client.call(1, 0, 8, new ResponseRanges().add(region, 0, 8),
                        TestEnvironment.nanos(10), completion), completion::toString);
                assertEquals(42L, memory.get(java.lang.foreign.ValueLayout.JAVA_LONG_UNALIGNED, 0));
            }
            Conditions.await(() -> pool.inUseBytes() == 0, "the echo's block to return");
        }
    }

    /**
     * The transport learns that a write completed only by polling, which it does not do between
     * posting a piece and returning to the handler: right after a piece is committed, every block
     * of the response is still borrowed, including those the piece handed over (a write may still
     * be reading them). Once the response is delivered they all come back.
     */
    @Test
    void aPiecesBlocksStayBorrowedUntilItsWritesAreSeenComplete() throws Exception {
        int piece = 64 << 10;
        int capacity = 4 * piece;
        AtomicLong afterPiece = new AtomicLong(-1);
        ServerConfig config = ServerConfig.builder().backend(RdmaBackend.NAME)
                .bind(new InetSocketAddress(TestEnvironment.address(), 0)).serviceName(SERVICE)
                .limits(new Limits(64, capacity, 1, 2)).bootstrapTimeout(TestEnvironment.duration(5))
                .properties(TestEnvironment.rdmaProperties()).build();
        try (OflServer server = serve(config, (request, response) -> {
            response.buffer().fill((byte) 0x3C);
            // One piece: its writes are posted and its blocks handed to the transport.
            response.commit(piece);
            afterPiece.set(pool.inUseBytes());
            response.commit(response.capacity() - piece);
            return 0;
        }); Arena arena = Arena.ofShared(); OflClient client = Ofl.connect(ClientConfig.builder()
                .backend(RdmaBackend.NAME).server(server.localAddress()).serviceName(SERVICE)
                .limits(new Limits(64, capacity, 1, 2)).connectTimeout(TestEnvironment.duration(5))
                .properties(TestEnvironment.rdmaProperties()).build())) {
            MemorySegment memory = arena.allocate(capacity, 4096);
            Completion completion = new Completion();
            assertEquals(OflStatus.OK, client.call(1, 0, 0, ResponseRanges.of(client.registerRegion(memory)),
                    TestEnvironment.nanos(30), completion), completion::toString);
            assertEquals(capacity, completion.responseLength());
            assertEquals(-1L, memory.mismatch(arena.allocate(capacity).fill((byte) 0x3C)), "the response's bytes");
            assertEquals(capacity, afterPiece.get(), "blocks of a posted piece came back before its writes were "
                    + "seen complete");
            Conditions.await(() -> pool.inUseBytes() == 0, "the response's blocks to return once its writes completed");
        }
    }

    /**
     * A payload the client described with a key that allows no remote read: the server borrowed an
     * extent to read it into, the READ is refused, the connection ends as a violation without the
     * request ever being released, and closing the connection returns the extent.
     */
    @Test
    void anExtentBorrowedForAPayloadThatCannotBeReadReturnsWhenTheConnectionEnds() throws Exception {
        Limits limits = new Limits(16 << 10, 16 << 10, 4, 2);
        int payload = 8192;
        ServerConfig config = ServerConfig.builder().backend(RdmaBackend.NAME)
                .bind(new InetSocketAddress(TestEnvironment.address(), 0)).serviceName(SERVICE).limits(limits)
                .bootstrapTimeout(TestEnvironment.duration(5)).properties(TestEnvironment.rdmaProperties()).build();
        try (OflServer server = serve(config, (request, response) -> {
            response.write(request.payload());
            return 0;
        })) {
            try (VerbsPeer hostile = VerbsPeer.readingClient(server.localAddress(), SERVICE, limits)) {
                assertTrue(payload > hostile.inlineLimit, "the payload goes by descriptor");
                int length = hostile.request(0, payload, new long[] {hostile.receive.address() + 4096}, new int[] {64},
                        new int[] {hostile.receiveMr.rkey()});
                int announced = hostile.announce(length, payload);
                // The ring's key, registered for remote write only: the server's READ is refused.
                RangeDescriptor.write(hostile.send, hostile.announcementOffset() + PayloadRead.DESCRIPTOR_OFFSET,
                        hostile.send.address() + MessageHeader.LENGTH, payload, hostile.receiveMr.rkey());
                hostile.postSend(hostile.announcementOffset(), announced);
                assertTrue(hostile.closedByPeer(20), "the server kept the connection whose payload it could not read");
            }
            Conditions.await(() -> server.connectionCount() == 0, "the connection to end");
            assertEquals(1, server.statistics().protocolViolations());
            assertTrue(pool.highWaterBytes() >= payload, "an extent was borrowed for the payload: "
                    + pool.highWaterBytes());
            Conditions.await(() -> pool.inUseBytes() == 0, "the payload's extent to return");
        }
    }
}
