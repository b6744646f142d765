package dev.ofl.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ofl.api.ClientConfig;
import dev.ofl.api.Completion;
import dev.ofl.api.Limits;
import dev.ofl.api.Ofl;
import dev.ofl.api.OflClient;
import dev.ofl.api.OflHandler;
import dev.ofl.api.OflRefusedException;
import dev.ofl.api.OflServer;
import dev.ofl.api.OflStatus;
import dev.ofl.api.RefusalCode;
import dev.ofl.api.Region;
import dev.ofl.api.ResponseRanges;
import dev.ofl.api.ServerConfig;
import dev.ofl.api.spi.BootstrapServer;
import dev.ofl.api.spi.StagingPool;
import dev.ofl.conformance.Conditions;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The server-wide staging budget through the engine and the fake backend: nothing is borrowed
 * for a connection that sends no request, a response borrows its capacity and gives it back, a
 * response that finds the budget in use waits within the staging timeout, and past it the request
 * is answered BUSY without running its handler while the connection goes on.
 */
@Timeout(60)
class StagingBudgetTest {
    private static final long SECOND_NS = TimeUnit.SECONDS.toNanos(1);
    private static final int BUDGET = 64 << 10;
    private static final Limits LIMITS = new Limits(4096, BUDGET, 4, 4);
    private static final AtomicInteger SERVICES = new AtomicInteger();
    private static final int OP_ECHO = 1;
    private static final int OP_BLOCK = 2;

    private final List<AutoCloseable> closeables = new ArrayList<>();
    private final CountDownLatch handlerEntered = new CountDownLatch(1);
    private final CountDownLatch handlerRelease = new CountDownLatch(1);
    private final AtomicInteger handled = new AtomicInteger();
    private String service;
    private Arena arena;
    private MemorySegment memory;
    private StagingPool pool;

    private final OflHandler handler = (request, response) -> {
        handled.incrementAndGet();
        if (request.op() == OP_BLOCK) {
            handlerEntered.countDown();
            if (!handlerRelease.await(30, TimeUnit.SECONDS)) {
                throw new IllegalStateException("never released");
            }
        }
        response.write(request.payload());
        return 0;
    };

    @BeforeEach
    void setUp() {
        service = "staging-budget-" + SERVICES.incrementAndGet();
        arena = Arena.ofShared();
        memory = arena.allocate(2 * BUDGET);
    }

    @AfterEach
    void tearDown() throws Exception {
        handlerRelease.countDown();
        for (int i = closeables.size() - 1; i >= 0; i--) {
            closeables.get(i).close();
        }
        arena.close();
        FakeFaults.of(service).clear();
    }

    /** A fake server whose pool the test can watch; the budget is exactly one largest response. */
    private OflServer serve(Duration stagingTimeout) {
        ServerConfig config = ServerConfig.builder().backend(FakeBackend.NAME)
                .bind(new InetSocketAddress("127.0.0.1", 0)).serviceName(service).limits(LIMITS)
                .stagingBudgetBytes(BUDGET).stagingTimeout(stagingTimeout).build();
        pool = new StagingPool(config.stagingBudgetBytes(), StagingPool.Memory.offHeap(), config.clock());
        BootstrapServer server = BootstrapServer.start(config, FakeBackend.NAME, handler,
                (c, channel, id) -> new FakeServerTransport(c, channel, pool), s -> pool.close());
        closeables.add(server);
        return server;
    }

    private OflClient connect(OflServer server) {
        OflClient client = Ofl.connect(ClientConfig.builder().backend(FakeBackend.NAME).server(server.localAddress())
                .serviceName(service).limits(LIMITS).build());
        closeables.add(client);
        return client;
    }

    /** Submits a request whose response capacity is {@code capacity} bytes of the test's memory. */
    private static long submit(OflClient client, Region region, int op, long value, int capacity) {
        client.requestPayload().set(ValueLayout.JAVA_LONG_UNALIGNED, 0, value);
        return client.submit(op, 0, 8, new ResponseRanges().add(region, 0, capacity));
    }

    @Test
    void aConnectionThatSendsNoRequestBorrowsNothingAndResponsesGiveTheirExtentBack() {
        OflServer server = serve(Duration.ofSeconds(1));
        OflClient idle = connect(server);
        assertEquals(1, server.connectionCount());
        assertEquals(0, pool.committedBytes(), "a HELLO commits no staging");
        OflClient client = connect(server);
        Region region = client.registerRegion(memory);
        Completion completion = new Completion();
        for (int capacity : new int[] {8, 4096, 4097, BUDGET}) {
            long ticket = submit(client, region, OP_ECHO, capacity, capacity);
            assertEquals(OflStatus.OK, client.await(ticket, System.nanoTime() + 10 * SECOND_NS, completion));
            assertEquals(8, completion.responseLength());
            assertEquals(capacity, memory.get(ValueLayout.JAVA_LONG_UNALIGNED, 0));
        }
        assertEquals(BUDGET, pool.committedBytes(), "the budget is committed once a response needed it");
        Conditions.await(() -> pool.inUseBytes() == 0, "every extent to come back");
        assertEquals(BUDGET, pool.highWaterBytes(), "a full-capacity response borrowed the whole budget");
        idle.close();
        client.close();
        assertEquals(0, pool.inUseBytes());
    }

    /** A staging timeout past what nanoseconds can count (292 years) means waiting for ever, not a failure. */
    @Test
    void aStagingTimeoutBeyondTheRangeOfNanosecondsServes() {
        OflServer server = serve(Duration.ofSeconds(Long.MAX_VALUE));
        OflClient client = connect(server);
        Region region = client.registerRegion(memory);
        Completion completion = new Completion();
        for (int i = 0; i < 3; i++) {
            long ticket = submit(client, region, OP_ECHO, i, 8);
            assertEquals(OflStatus.OK, client.await(ticket, System.nanoTime() + 10 * SECOND_NS, completion));
            assertEquals(i, memory.get(ValueLayout.JAVA_LONG_UNALIGNED, 0));
        }
        assertEquals(0, server.statistics().handlerFailures() + server.statistics().protocolViolations());
        assertEquals(0, server.statistics().busyResponses());
    }

    @Test
    void aResponseThatFindsNoStagingWithinTheTimeoutIsBusyAndTheConnectionGoesOn() throws Exception {
        OflServer server = serve(Duration.ofMillis(50));
        OflClient holder = connect(server);
        OflClient other = connect(server);
        Region holderRegion = holder.registerRegion(memory.asSlice(0, BUDGET));
        Region otherRegion = other.registerRegion(memory.asSlice(BUDGET, BUDGET));
        Completion completion = new Completion();
        long held = submit(holder, holderRegion, OP_BLOCK, 1, BUDGET);
        assertTrue(handlerEntered.await(30, TimeUnit.SECONDS));
        assertEquals(BUDGET, pool.inUseBytes(), "the blocked response holds the whole budget");

        long refused = submit(other, otherRegion, OP_ECHO, 2, 8);
        assertEquals(OflStatus.BUSY, other.await(refused, System.nanoTime() + 10 * SECOND_NS, completion));
        assertEquals(0, completion.responseLength());
        assertEquals(1, handled.get(), "the handler did not run for the BUSY request");
        assertEquals(1, pool.timeouts());
        assertEquals(1, server.statistics().busyResponses(), "the server counts the BUSY answer");
        assertEquals(0, server.statistics().requests(),
                "the running request is counted when its handler returns, the BUSY one never");

        handlerRelease.countDown();
        assertEquals(OflStatus.OK, holder.await(held, System.nanoTime() + 10 * SECOND_NS, completion));
        long again = submit(other, otherRegion, OP_ECHO, 3, 8);
        assertEquals(OflStatus.OK, other.await(again, System.nanoTime() + 10 * SECOND_NS, completion),
                "the connection that got BUSY goes on");
        assertEquals(3, memory.get(ValueLayout.JAVA_LONG_UNALIGNED, BUDGET));
        assertEquals(1, other.statistics().refused(), "BUSY counts as a refusal at the client");
        assertEquals(2, server.statistics().requests(), "only requests whose handler ran are counted");
    }

    @Test
    void receiveMemoryThatCannotBeHadIsRefusedBeforeAnyWelcomeAndTheNextClientIsServed() {
        OflServer server = serve(Duration.ofSeconds(1));
        FakeFaults.of(service).failServerSetups(1);
        OflRefusedException refused = assertThrows(OflRefusedException.class, () -> connect(server));
        assertEquals(RefusalCode.TRANSPORT_SETUP_FAILED, refused.code());
        assertTrue(refused.getMessage().contains("receive slots"), refused.getMessage());
        assertEquals(0, server.statistics().connectionsAccepted(), "no accepting WELCOME was sent");
        // The server gives the place back just after it sent the refusal the client has read.
        Conditions.await(() -> server.connectionCount() == 0, "the refused connection to give its place back");
        OflClient client = connect(server);
        Region region = client.registerRegion(memory);
        assertEquals(OflStatus.OK, client.await(submit(client, region, OP_ECHO, 5, 8),
                System.nanoTime() + 10 * SECOND_NS, new Completion()));
    }

    @Test
    void aResponseWaitsForStagingReturnedWithinTheTimeout() throws Exception {
        OflServer server = serve(Duration.ofSeconds(30));
        OflClient holder = connect(server);
        OflClient waiter = connect(server);
        Region holderRegion = holder.registerRegion(memory.asSlice(0, BUDGET));
        Region waiterRegion = waiter.registerRegion(memory.asSlice(BUDGET, BUDGET));
        Completion completion = new Completion();
        long held = submit(holder, holderRegion, OP_BLOCK, 1, BUDGET);
        assertTrue(handlerEntered.await(30, TimeUnit.SECONDS));
        long waiting = submit(waiter, waiterRegion, OP_ECHO, 7, 8);
        Conditions.await(() -> pool.waits() == 1, "the second response to wait for staging");
        assertEquals(1, handled.get(), "its handler waits too");
        handlerRelease.countDown();
        assertEquals(OflStatus.OK, holder.await(held, System.nanoTime() + 10 * SECOND_NS, completion));
        assertEquals(OflStatus.OK, waiter.await(waiting, System.nanoTime() + 10 * SECOND_NS, completion));
        assertEquals(7, memory.get(ValueLayout.JAVA_LONG_UNALIGNED, BUDGET));
        assertEquals(0, pool.timeouts());
        assertEquals(2, server.statistics().requests());
    }
}
