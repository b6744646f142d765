package dev.ofl.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ofl.api.ClientConfig;
import dev.ofl.api.Completion;
import dev.ofl.api.ConnectionThreads;
import dev.ofl.api.Limits;
import dev.ofl.api.Ofl;
import dev.ofl.api.OflClient;
import dev.ofl.api.OflHandler;
import dev.ofl.api.OflStatus;
import dev.ofl.api.RefusalCode;
import dev.ofl.api.Region;
import dev.ofl.api.ResponseRanges;
import dev.ofl.api.ServerConfig;
import dev.ofl.api.spi.BootstrapServer;
import dev.ofl.api.spi.ServerTransport;
import dev.ofl.api.spi.StagingPool;
import dev.ofl.api.wire.Bootstrap;
import dev.ofl.api.wire.TransportKind;
import dev.ofl.conformance.Conditions;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.ValueLayout;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * What {@code BootstrapServer} does around its connections: the after-close action when a
 * handler outlives the drain and when connections were refused, a connection whose transport
 * cannot be made, and the kind of thread a connection runs on.
 */
@Timeout(60)
class BootstrapServerTest {
    private static final long SECOND_NS = TimeUnit.SECONDS.toNanos(1);
    private static final Limits LIMITS = new Limits(256, 4096, 2, 2);
    private static final AtomicInteger SERVICES = new AtomicInteger();
    private static final int OP_ECHO = 1;
    private static final int OP_BLOCK = 2;

    private final List<AutoCloseable> closeables = new ArrayList<>();
    private final CountDownLatch handlerEntered = new CountDownLatch(1);
    private final CountDownLatch handlerRelease = new CountDownLatch(1);
    private final AtomicInteger afterClose = new AtomicInteger();
    private final AtomicBoolean handlerOnVirtualThread = new AtomicBoolean();
    private final OflHandler handler = (request, response) -> {
        handlerOnVirtualThread.set(Thread.currentThread().isVirtual());
        if (request.op() == OP_BLOCK) {
            handlerEntered.countDown();
            if (!handlerRelease.await(30, TimeUnit.SECONDS)) {
                throw new IllegalStateException("never released");
            }
        }
        response.write(request.payload());
        return 0;
    };
    private String service;
    private Arena arena;

    @BeforeEach
    void setUp() {
        service = "bootstrap-server-" + SERVICES.incrementAndGet();
        arena = Arena.ofShared();
    }

    @AfterEach
    void tearDown() throws Exception {
        handlerRelease.countDown();
        for (int i = closeables.size() - 1; i >= 0; i--) {
            closeables.get(i).close();
        }
        arena.close();
    }

    private ServerConfig.Builder config() {
        return ServerConfig.builder().backend(FakeBackend.NAME).bind(new InetSocketAddress("127.0.0.1", 0))
                .serviceName(service).limits(LIMITS);
    }

    private BootstrapServer start(ServerConfig config, ServerTransport.Factory transports) {
        BootstrapServer server = BootstrapServer.start(config, FakeBackend.NAME, handler, transports,
                s -> afterClose.incrementAndGet());
        closeables.add(server);
        return server;
    }

    private ServerTransport.Factory fake(ServerConfig config) {
        StagingPool pool = new StagingPool(config.stagingBudgetBytes(), StagingPool.Memory.offHeap(), config.clock());
        closeables.add(pool);
        return (c, channel, id) -> new FakeServerTransport(c, channel, pool);
    }

    private OflClient connect(BootstrapServer server) {
        OflClient client = Ofl.connect(ClientConfig.builder().backend(FakeBackend.NAME).server(server.localAddress())
                .serviceName(service).limits(LIMITS).build());
        closeables.add(client);
        return client;
    }

    private long submit(OflClient client, int op, long value) {
        Region region = client.registerRegion(arena.allocate(64));
        client.requestPayload().set(ValueLayout.JAVA_LONG_UNALIGNED, 0, value);
        return client.submit(op, 0, 8, new ResponseRanges().add(region, 0, 8));
    }

    private static byte[] readUntilClosed(SocketChannel channel) throws IOException {
        ByteBuffer buffer = ByteBuffer.allocate(4096);
        while (channel.read(buffer) >= 0) {
            if (!buffer.hasRemaining()) {
                throw new AssertionError("more than a WELCOME");
            }
        }
        return Arrays.copyOf(buffer.array(), buffer.position());
    }

    private byte[] hello(int transport) {
        return Bootstrap.encode(Bootstrap.HELLO, new Bootstrap.Endpoint(RefusalCode.ACCEPTED, transport, service,
                LIMITS, 0, 0, null, 0, 0, 0, "", null));
    }

    /**
     * A handler that outlives the drain timeout: close() returns without it, its connection is
     * broken, and the after-close action waits for it, running once when it ends.
     */
    @Test
    void theAfterCloseActionWaitsForAHandlerThatOutlivedTheDrain() throws Exception {
        ServerConfig config = config().drainTimeout(Duration.ofMillis(50)).build();
        BootstrapServer server = start(config, fake(config));
        OflClient client = connect(server);
        submit(client, OP_BLOCK, 3);
        assertTrue(handlerEntered.await(30, TimeUnit.SECONDS));
        server.close();
        assertTrue(server.closing());
        assertTrue(server.awaitTermination(Duration.ZERO), "close() returned: the server has terminated");
        assertEquals(0, afterClose.get(), "the handler still runs: what connections share is still in use");
        handlerRelease.countDown();
        Conditions.await(() -> afterClose.get() == 1, "the after-close action once the handler ended");
        Conditions.await(() -> server.connectionCount() == 0, "the connection's place to come back");
        assertEquals(1, afterClose.get());
        Conditions.await(client::isBroken, "the client to see the forced close");
    }

    /**
     * When the last connection ends while close() still waits for the listener, that connection's
     * thread runs the after-close action, and close() returns only once the action is done: what
     * the connections shared is released by then. The listener is held at its clock, which keeps
     * close() waiting for it (a second) while the client leaves.
     */
    @Test
    void closeReturnsOnlyOnceTheAfterCloseActionALastConnectionRanIsDone() throws Exception {
        ListenerGate listener = new ListenerGate(30_000);
        ServerConfig config = config().clock(() -> {
            listener.pass();
            return System.nanoTime();
        }).build();
        CountDownLatch actionEntered = new CountDownLatch(1);
        CountDownLatch actionRelease = new CountDownLatch(1);
        AtomicReference<String> actionThread = new AtomicReference<>();
        AtomicBoolean actionDone = new AtomicBoolean();
        BootstrapServer server = BootstrapServer.start(config, FakeBackend.NAME, handler, fake(config), s -> {
            actionThread.set(Thread.currentThread().getName());
            actionEntered.countDown();
            try {
                actionRelease.await(30, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            actionDone.set(true);
        });
        closeables.add(server);
        closeables.add(listener::release);
        closeables.add(actionRelease::countDown);
        OflClient client = connect(server);
        Completion completion = new Completion();
        assertEquals(OflStatus.OK, client.await(submit(client, OP_ECHO, 5), client.clock().nanoTime() + 10 * SECOND_NS,
                completion), completion::toString);
        listener.hold();
        Thread closer = Thread.ofPlatform().start(server::close);
        Conditions.await(server::closing, "close() to begin");
        client.close();
        assertTrue(actionEntered.await(30, TimeUnit.SECONDS), "the after-close action never ran");
        assertTrue(actionThread.get().contains("-conn-"), "the action ran on " + actionThread.get()
                + ", not on the connection's thread");
        // close() gave up on the listener after a second; it must now wait for the action.
        closer.join(3_000);
        assertTrue(closer.isAlive(), "close() returned while the after-close action still ran");
        actionRelease.countDown();
        closer.join(30_000);
        assertFalse(closer.isAlive(), "close() did not return once the action was done");
        assertTrue(actionDone.get());
        assertTrue(server.awaitTermination(Duration.ZERO));
    }

    /** Refused connections end at once: they hold up neither close() nor its after-close action. */
    @Test
    void refusedConnectionsDoNotHoldUpTheAfterCloseAction() throws Exception {
        ServerConfig config = config().drainTimeout(Duration.ofSeconds(30)).build();
        BootstrapServer server = start(config, fake(config));
        for (int i = 0; i < 3; i++) {
            try (SocketChannel channel = SocketChannel.open(server.localAddress())) {
                channel.write(ByteBuffer.wrap(hello(TransportKind.TCP)));
                byte[] answer = readUntilClosed(channel);
                assertTrue(answer.length > Bootstrap.FRAME_LENGTH, "a refusal came");
            }
        }
        Conditions.await(() -> server.statistics().connectionsRefused() == 3, "three refusals");
        Conditions.await(() -> server.pendingHandshakes() == 0, "the decisions to give their places back");
        server.close();
        assertEquals(1, afterClose.get(), "no refused connection is waited for");
    }

    /** A transport that cannot be made: the socket is closed unanswered and its pending place given back. */
    @Test
    void aConnectionWhoseTransportCannotBeMadeIsClosedAndGivesItsPlaceBack() throws Exception {
        ServerConfig config = config().build();
        ServerTransport.Factory working = fake(config);
        AtomicInteger made = new AtomicInteger();
        BootstrapServer server = start(config, (c, channel, id) -> {
            if (made.incrementAndGet() == 1) {
                throw new IllegalStateException("no transport for the first connection");
            }
            return working.create(c, channel, id);
        });
        try (SocketChannel channel = SocketChannel.open(server.localAddress())) {
            channel.write(ByteBuffer.wrap(hello(TransportKind.IN_PROCESS)));
            assertEquals(0, readUntilClosed(channel).length, "closed without an answer");
        }
        Conditions.await(() -> server.pendingHandshakes() == 0, "the pending place to come back");
        assertEquals(0, server.connectionCount());
        OflClient client = connect(server);
        assertEquals(OflStatus.OK, client.await(submit(client, OP_ECHO, 4), client.clock().nanoTime()
                + 10 * SECOND_NS, new Completion()));
        server.close();
        assertEquals(1, afterClose.get());
    }

    /** A connection runs on a virtual thread exactly when its transport only parks. */
    @Test
    void aConnectionRunsOnAVirtualThreadOnlyIfItsTransportParks() {
        ServerConfig config = config().build();
        ServerTransport.Factory fake = fake(config);
        AtomicBoolean parks = new AtomicBoolean();
        BootstrapServer server = start(config, (c, channel, id) -> {
            FakeServerTransport transport = (FakeServerTransport) fake.create(c, channel, id);
            return parks.get() ? new Parking(transport) : transport;
        });
        for (boolean virtual : new boolean[] {false, true, false}) {
            parks.set(virtual);
            OflClient client = connect(server);
            assertEquals(OflStatus.OK, client.await(submit(client, OP_ECHO, 5), client.clock().nanoTime()
                    + 10 * SECOND_NS, new Completion()));
            assertEquals(virtual, handlerOnVirtualThread.get());
            client.close();
        }
        assertFalse(server.closing());
    }

    /** A configuration asking for platform connection threads gets them even from a parking transport. */
    @Test
    void platformConnectionThreadsAreHonouredForAParkingTransport() {
        ServerConfig config = config().connectionThreads(ConnectionThreads.PLATFORM).build();
        ServerTransport.Factory fake = fake(config);
        BootstrapServer server = start(config, (c, channel, id) ->
                new Parking((FakeServerTransport) fake.create(c, channel, id)));
        OflClient client = connect(server);
        assertEquals(OflStatus.OK, client.await(submit(client, OP_ECHO, 5), client.clock().nanoTime()
                + 10 * SECOND_NS, new Completion()));
        assertEquals(false, handlerOnVirtualThread.get());
        client.close();
    }

    /** The fake transport, saying that it only blocks by parking. */
    private static final class Parking extends ForwardingServerTransport {
        Parking(FakeServerTransport fake) {
            super(fake);
        }

        @Override
        public boolean parksVirtualThreads() {
            return true;
        }
    }
}
