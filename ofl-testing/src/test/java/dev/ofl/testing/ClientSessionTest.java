package dev.ofl.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ofl.api.ClientConfig;
import dev.ofl.api.Completion;
import dev.ofl.api.IdleStrategy;
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
import dev.ofl.api.WaitMode;
import dev.ofl.conformance.Conditions;
import java.lang.foreign.Arena;
import java.lang.foreign.ValueLayout;
import java.net.InetSocketAddress;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The client session's ownership and connection handling over the fake backend: a client handed
 * between threads after each kind of call, a registration refused while another thread is inside
 * a call, a reconnect that ends the server's side of the old connection, calls that end in a
 * timeout, an interrupt or a loss leaving their ticket spent, and how each wait mode waits: a
 * BLOCKING client sleeps in its transport's wait for progress, a busy-polling one never does.
 */
@Timeout(60)
class ClientSessionTest {
    private static final long SECOND_NS = TimeUnit.SECONDS.toNanos(1);
    private static final Limits LIMITS = new Limits(256, 4096, 4, 2);
    private static final AtomicInteger SERVICES = new AtomicInteger();
    private static final int OP_ECHO = 1;
    private static final int OP_BLOCK = 2;

    private final CountDownLatch handlerEntered = new CountDownLatch(1);
    private final CountDownLatch handlerRelease = new CountDownLatch(1);
    private final ExecutorService other = Executors.newSingleThreadExecutor(
            r -> Thread.ofPlatform().name("ofl-client-session-other").unstarted(r));
    private final OflHandler handler = (request, response) -> {
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
    private FakeFaults faults;
    private Arena arena;
    private OflServer server;
    private OflClient client;

    @BeforeEach
    void setUp() {
        service = "client-session-" + SERVICES.incrementAndGet();
        faults = FakeFaults.of(service);
        arena = Arena.ofShared();
        server = Ofl.serve(ServerConfig.builder().backend(FakeBackend.NAME)
                .bind(new InetSocketAddress("127.0.0.1", 0)).serviceName(service).limits(LIMITS).build(), handler);
    }

    @AfterEach
    void tearDown() throws Exception {
        handlerRelease.countDown();
        other.shutdownNow();
        assertTrue(other.awaitTermination(30, TimeUnit.SECONDS));
        if (client != null) {
            client.close();
        }
        server.close();
        faults.clear();
        arena.close();
    }

    private OflClient connect(ClientConfig.Builder settings) {
        client = Ofl.connect(settings.backend(FakeBackend.NAME).server(server.localAddress()).serviceName(service)
                .limits(LIMITS).build());
        return client;
    }

    private static long submit(OflClient client, Region region, int op, long value) {
        client.requestPayload().set(ValueLayout.JAVA_LONG_UNALIGNED, 0, value);
        return client.submit(op, 0, 8, new ResponseRanges().add(region, 0, 8));
    }

    private static long deadline(OflClient client) {
        return client.clock().nanoTime() + 10 * SECOND_NS;
    }

    private <T> T onOther(Callable<T> task) throws Exception {
        Future<T> result = other.submit(task);
        return result.get(30, TimeUnit.SECONDS);
    }

    /**
     * A timeout passed where await wants a deadline lies far behind the client's clock (here 10
     * days ahead of the machine's): refused, nothing broken, the ticket still outstanding; the
     * Duration forms take a timeout.
     */
    @Test
    void aTimeoutPassedAsADeadlineIsRefusedAndTheDurationFormsTakeTimeouts() {
        long tenDaysNs = TimeUnit.DAYS.toNanos(10);
        OflClient c = connect(ClientConfig.builder().clock(() -> System.nanoTime() + tenDaysNs));
        Region region = c.registerRegion(arena.allocate(8));
        long ticket = submit(c, region, OP_ECHO, 7);
        Completion completion = new Completion();
        IllegalArgumentException refused = assertThrows(IllegalArgumentException.class,
                () -> c.await(ticket, 10 * SECOND_NS, completion));
        assertTrue(refused.getMessage().contains("absolute deadline") && refused.getMessage().contains("Duration"),
                refused.getMessage());
        assertFalse(c.isBroken(), "a refused await breaks nothing");
        assertEquals(OflStatus.OK, c.await(ticket, java.time.Duration.ofSeconds(10), completion));
        assertEquals(7, region.segment().get(ValueLayout.JAVA_LONG_UNALIGNED, 0));
        c.requestPayload().set(ValueLayout.JAVA_LONG_UNALIGNED, 0, 8L);
        assertEquals(OflStatus.OK, c.call(OP_ECHO, 0, 8, ResponseRanges.of(region), java.time.Duration.ofSeconds(10),
                completion));
        assertEquals(8, region.segment().get(ValueLayout.JAVA_LONG_UNALIGNED, 0));
        assertThrows(IllegalArgumentException.class, () -> c.deadlineAfter(java.time.Duration.ofNanos(-1)));
        long forEver = c.deadlineAfter(java.time.Duration.ofSeconds(Long.MAX_VALUE));
        assertTrue(forEver - c.clock().nanoTime() > 0, "a timeout of centuries saturates, never wraps into the past");
        assertEquals(0, c.statistics().brokenConnections());
    }

    /** After registerRegion, reconnect and close have returned, another thread may use the client. */
    @Test
    void aClientIsHandedOverAfterEachKindOfCall() throws Exception {
        OflClient c = connect(ClientConfig.builder());
        Region mine = c.registerRegion(arena.allocate(64));
        Region theirs = onOther(() -> c.registerRegion(arena.allocate(64)));
        c.reconnect();
        assertEquals(OflStatus.OK, (int) onOther(() -> {
            Completion completion = new Completion();
            return c.await(submit(c, theirs, OP_ECHO, 5), deadline(c), completion);
        }));
        assertEquals(5, theirs.segment().get(ValueLayout.JAVA_LONG_UNALIGNED, 0));
        Completion completion = new Completion();
        assertEquals(OflStatus.OK, c.await(submit(c, mine, OP_ECHO, 6), deadline(c), completion));
        c.close();
        assertTrue(onOther(() -> {
            c.close();
            return true;
        }), "close() is idempotent on any thread once the first returned");
    }

    /** While one thread is inside await, another's registerRegion is refused naming both threads. */
    @Test
    void registeringWhileAnotherThreadIsInsideACallIsRefused() throws Exception {
        CountDownLatch polling = new CountDownLatch(1);
        IdleStrategy signalling = work -> {
            polling.countDown();
            IdleStrategy.YIELD.idle(work);
        };
        OflClient c = connect(ClientConfig.builder().waitMode(WaitMode.BUSY_POLL).idleStrategy(signalling));
        Region region = c.registerRegion(arena.allocate(64));
        long ticket = submit(c, region, OP_BLOCK, 7);
        assertTrue(handlerEntered.await(30, TimeUnit.SECONDS));
        Future<Integer> first = other.submit(() -> c.await(ticket, deadline(c), new Completion()));
        assertTrue(polling.await(30, TimeUnit.SECONDS), "the other thread never polled in await");
        IllegalStateException refused = assertThrows(IllegalStateException.class,
                () -> c.registerRegion(arena.allocate(64)));
        assertTrue(refused.getMessage().contains("OflClient.registerRegion()")
                && refused.getMessage().contains("'ofl-client-session-other' is inside await()"), refused.getMessage());
        handlerRelease.countDown();
        assertEquals(OflStatus.OK, (int) first.get(30, TimeUnit.SECONDS));
        assertEquals(7, region.segment().get(ValueLayout.JAVA_LONG_UNALIGNED, 0));
        c.registerRegion(arena.allocate(64));
    }

    /** A reconnect leaves the old connection: the server's side of it ends, one connection stays. */
    @Test
    void aReconnectEndsTheServersSideOfTheOldConnection() {
        OflClient c = connect(ClientConfig.builder());
        Region region = c.registerRegion(arena.allocate(64));
        for (int i = 0; i < 3; i++) {
            c.reconnect();
            Completion completion = new Completion();
            assertEquals(OflStatus.OK, c.await(submit(c, region, OP_ECHO, i), deadline(c), completion));
        }
        Conditions.await(() -> server.connectionCount() == 1, "the old connections to end");
        assertEquals(4, server.statistics().connectionsAccepted());
        assertEquals(3, c.statistics().reconnects());
        assertEquals(0, c.statistics().brokenConnections(), "a reconnect is not a break");
    }

    /** A call ended by an interrupt is spent like one ended by a timeout: awaiting it again is refused. */
    @Test
    void aTicketEndedByAnInterruptIsSpentAndTheNextOneMayBeSubmitted() {
        OflClient c = connect(ClientConfig.builder());
        Region region = c.registerRegion(arena.allocate(64));
        faults.stallRequests(true);
        long ticket = submit(c, region, OP_ECHO, 1);
        Thread.currentThread().interrupt();
        try {
            assertThrows(OflConnectionException.class, () -> c.await(ticket, deadline(c), new Completion()));
        } finally {
            assertTrue(Thread.interrupted(), "the interrupt stays set");
        }
        assertThrows(IllegalArgumentException.class, () -> c.await(ticket, deadline(c), new Completion()),
                "an interrupted ticket is spent");
        assertEquals(1, c.statistics().interrupts());
        faults.stallRequests(false);
        c.reconnect();
        assertEquals(OflStatus.OK, c.await(submit(c, region, OP_ECHO, 2), deadline(c), new Completion()));
        assertFalse(c.isBroken());
    }

    /**
     * The thread of a call that waits for a handler still running: observed in a timed wait
     * (the fake transport's wait for progress) in BLOCKING mode; never in BUSY_POLL mode, whose
     * polls spin (the fake link's lock may make it BLOCKED for a moment, never WAITING).
     */
    @Test
    void aBlockingClientSleepsInItsTransportWhileABusyOneSpins() throws Exception {
        for (WaitMode mode : new WaitMode[] {WaitMode.BLOCKING, WaitMode.BUSY_POLL}) {
            CountDownLatch entered = new CountDownLatch(1);
            CountDownLatch release = new CountDownLatch(1);
            String name = service + "-" + mode;
            try (OflServer blocking = Ofl.serve(ServerConfig.builder().backend(FakeBackend.NAME)
                    .bind(new InetSocketAddress("127.0.0.1", 0)).serviceName(name).limits(LIMITS).build(),
                    (request, response) -> {
                        entered.countDown();
                        if (!release.await(30, TimeUnit.SECONDS)) {
                            throw new IllegalStateException("never released");
                        }
                        response.write(request.payload());
                        return 0;
                    });
                    OflClient c = Ofl.connect(ClientConfig.builder().backend(FakeBackend.NAME)
                            .server(blocking.localAddress()).serviceName(name).limits(LIMITS).waitMode(mode)
                            .idleStrategy(IdleStrategy.BUSY_SPIN).build())) {
                Region region = c.registerRegion(arena.allocate(64));
                AtomicReference<Thread> caller = new AtomicReference<>();
                Future<Integer> status = other.submit(() -> {
                    caller.set(Thread.currentThread());
                    c.requestPayload().set(ValueLayout.JAVA_LONG_UNALIGNED, 0, 5L);
                    return c.call(OP_ECHO, 0, 8, new ResponseRanges().add(region, 0, 8), 30 * SECOND_NS,
                            new Completion());
                });
                try {
                    assertTrue(entered.await(30, TimeUnit.SECONDS), mode + ": the handler to start");
                    Thread thread = caller.get();
                    if (mode == WaitMode.BLOCKING) {
                        Conditions.await(() -> thread.getState() == Thread.State.TIMED_WAITING,
                                "the BLOCKING caller to sleep in the transport's wait for progress");
                    } else {
                        for (int sample = 0; sample < 200; sample++) {
                            Thread.State state = thread.getState();
                            assertTrue(state == Thread.State.RUNNABLE || state == Thread.State.BLOCKED,
                                    "a BUSY_POLL caller was seen " + state);
                            Thread.sleep(1);
                        }
                    }
                } finally {
                    // Also on failure: the handler would otherwise hold the server's close.
                    release.countDown();
                }
                assertEquals(OflStatus.OK, status.get(30, TimeUnit.SECONDS), mode.toString());
            }
        }
    }
}
