package dev.ofl.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ofl.api.ClientConfig;
import dev.ofl.api.Completion;
import dev.ofl.api.Ofl;
import dev.ofl.api.OflClient;
import dev.ofl.api.OflClientPool;
import dev.ofl.api.OflException;
import dev.ofl.api.OflServer;
import dev.ofl.api.OflStatus;
import dev.ofl.api.ResponseRanges;
import dev.ofl.api.ServerConfig;
import dev.ofl.api.WaitMode;
import java.lang.foreign.ValueLayout;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The pool under the faults it exists for: a fatal timeout, a server that refuses reconnects for a
 * while, every place lent, many threads and two servers. Each response must land exactly in the
 * lease's own region, and a broken client is never lent again before it is reconnected.
 */
@Timeout(60)
class OflClientPoolTest {
    private static final int OP_ECHO = 1;
    private static final Duration WAIT = Duration.ofSeconds(30);
    private static final AtomicInteger SERVICES = new AtomicInteger();

    private String service;
    private FakeFaults faults;
    private final List<OflServer> servers = new ArrayList<>();
    private OflClientPool pool;

    @BeforeEach
    void setUp() {
        service = "pool-" + SERVICES.incrementAndGet();
        faults = FakeFaults.of(service);
    }

    @AfterEach
    void tearDown() {
        if (pool != null) {
            pool.close();
        }
        servers.forEach(OflServer::close);
        faults.clear();
    }

    private InetSocketAddress serve() {
        OflServer server = Ofl.serve(ServerConfig.builder().backend(FakeBackend.NAME)
                .bind(new InetSocketAddress("127.0.0.1", 0)).serviceName(service).build(), (request, response) -> {
                    response.write(request.payload());
                    return 0;
                });
        servers.add(server);
        return server.localAddress();
    }

    private OflClientPool.Builder poolBuilder() {
        // The template's server is a placeholder: each borrow names its own.
        ClientConfig template = ClientConfig.builder().backend(FakeBackend.NAME)
                .server(new InetSocketAddress("127.0.0.1", 1)).serviceName(service).waitMode(WaitMode.BLOCKING)
                .build();
        return OflClientPool.builder(template).regionBytes(64).backoff(Duration.ofMillis(1), Duration.ofMillis(20));
    }

    /** Echoes {@code value} through the lease and says whether it landed in the lease's region. */
    private static int echo(OflClientPool.Lease lease, long value, Duration timeout) {
        OflClient client = lease.client();
        client.requestPayload().set(ValueLayout.JAVA_LONG_UNALIGNED, 0, value);
        int status = client.call(OP_ECHO, 0, 8, ResponseRanges.of(lease.region()), timeout, new Completion());
        if (status == OflStatus.OK && lease.region().segment().get(ValueLayout.JAVA_LONG_UNALIGNED, 0) != value) {
            throw new AssertionError("the response to " + value + " did not land in the lease's region");
        }
        return status;
    }

    private static void await(BooleanSupplier condition, String what) throws InterruptedException {
        long deadlineNs = System.nanoTime() + WAIT.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadlineNs > 0) {
                throw new AssertionError("timed out waiting for " + what);
            }
            Thread.sleep(1);
        }
    }

    @Test
    void aClientGivenBackIsLentAgainWithItsRegion() throws Exception {
        InetSocketAddress server = serve();
        pool = poolBuilder().standbyPerServer(0).build();
        OflClient first;
        try (OflClientPool.Lease lease = pool.borrow(server, WAIT)) {
            assertEquals(OflStatus.OK, echo(lease, 1, WAIT));
            first = lease.client();
            assertEquals(server, lease.server());
        }
        try (OflClientPool.Lease lease = pool.borrow(server, WAIT)) {
            assertSame(first, lease.client(), "the idle client is lent again");
            assertEquals(OflStatus.OK, echo(lease, 2, WAIT));
        }
        OflClientPool.Statistics stats = pool.statistics();
        assertEquals(2, stats.borrows());
        assertEquals(1, stats.connectsOnBorrow());
        assertEquals(1, stats.idle());
        assertEquals(0, stats.lent());
    }

    /** A client given back with a request in flight is reconnected (dropping it) before it is lent again. */
    @Test
    void aClientGivenBackWithARequestInFlightIsReconnectedFirst() throws Exception {
        InetSocketAddress server = serve();
        pool = poolBuilder().standbyPerServer(0).build();
        OflClient client;
        try (OflClientPool.Lease lease = pool.borrow(server, WAIT)) {
            client = lease.client();
            faults.delayResponses(Duration.ofMillis(200));
            client.requestPayload().set(ValueLayout.JAVA_LONG_UNALIGNED, 0, 77);
            client.submit(OP_ECHO, 0, 8, ResponseRanges.of(lease.region()));
            assertEquals(1, client.outstanding());
        }
        faults.delayResponses(Duration.ZERO);
        assertEquals(1, pool.statistics().returnedBroken(), "counted as given back broken");
        await(() -> pool.statistics().reconnects() == 1, "the reconnect that drops the request");
        try (OflClientPool.Lease lease = pool.borrow(server, WAIT)) {
            assertSame(client, lease.client());
            assertEquals(0, lease.client().outstanding());
            assertEquals(OflStatus.OK, echo(lease, 78, WAIT));
        }
    }

    @Test
    void aClosedLeaseCannotBeUsed() {
        InetSocketAddress server = serve();
        pool = poolBuilder().build();
        OflClientPool.Lease lease = pool.borrow(server, WAIT);
        lease.close();
        lease.close();
        IllegalStateException e = assertThrows(IllegalStateException.class, lease::client);
        assertTrue(e.getMessage().contains("was closed"), e.getMessage());
        assertThrows(IllegalStateException.class, lease::region);
    }

    /**
     * The reason the pool exists: a call times out (its response is dropped), the caller gives the
     * broken client back and borrows again at once, and gets the standby, connected before the
     * timeout; the broken client is reconnected in the background, and nothing is connected on the
     * caller's thread.
     */
    @Test
    void aFatalTimeoutCostsTheCallerNoReconnect() throws Exception {
        InetSocketAddress server = serve();
        pool = poolBuilder().standbyPerServer(1).maxIdlePerServer(1).build();
        OflClient broken;
        try (OflClientPool.Lease lease = pool.borrow(server, WAIT)) {
            await(() -> pool.statistics().idle() == 1, "the standby");
            faults.dropResponses(1);
            assertEquals(OflStatus.TIMED_OUT, echo(lease, 3, Duration.ofMillis(50)));
            // The call may time out before the server took the request: the drop would fall on a later one.
            faults.dropResponses(0);
            assertTrue(lease.client().isBroken());
            broken = lease.client();
        }
        try (OflClientPool.Lease lease = pool.borrow(server, WAIT)) {
            assertNotSame(broken, lease.client(), "a broken client is not lent before it is reconnected");
            assertFalse(lease.client().isBroken());
            assertEquals(OflStatus.OK, echo(lease, 4, WAIT));
        }
        await(() -> pool.statistics().reconnects() == 1, "the background reconnect");
        OflClientPool.Statistics stats = pool.statistics();
        assertEquals(1, stats.connectsOnBorrow(), "only the very first borrow connected on the caller's thread");
        assertEquals(1, stats.returnedBroken());
        // Reconnected, then kept or (the idle place taken by the standby) closed.
        assertEquals(1, broken.statistics().reconnects(), "the broken client was reconnected");
        for (int round = 0; round < 20; round++) {
            // And the standby stands again beside every lent client, round after round.
            long mended = pool.statistics().reconnects();
            try (OflClientPool.Lease lease = pool.borrow(server, WAIT)) {
                await(() -> pool.statistics().idle() >= 1, "the standby beside lease " + round);
                faults.dropResponses(1);
                assertEquals(OflStatus.TIMED_OUT, echo(lease, 10 + round, Duration.ofMillis(20)));
                faults.dropResponses(0);
            }
            try (OflClientPool.Lease lease = pool.borrow(server, WAIT)) {
                assertEquals(OflStatus.OK, echo(lease, 100 + round, WAIT));
            }
            await(() -> pool.statistics().reconnects() > mended, "the reconnect of round " + round);
        }
        assertEquals(1, pool.statistics().connectsOnBorrow(), "no borrow connected on the caller's thread");
    }

    @Test
    void aServerThatRefusesForAWhileIsRetriedWithBackOff() throws Exception {
        InetSocketAddress server = serve();
        pool = poolBuilder().standbyPerServer(0).build();
        OflClient client;
        try (OflClientPool.Lease lease = pool.borrow(server, WAIT)) {
            faults.dropResponses(1);
            assertEquals(OflStatus.TIMED_OUT, echo(lease, 5, Duration.ofMillis(50)));
            faults.dropResponses(0);
            client = lease.client();
            faults.failServerSetups(3);
        }
        await(() -> pool.statistics().reconnects() == 1, "the reconnect after the refusals");
        assertTrue(pool.statistics().reconnectFailures() >= 3, pool.statistics().toString());
        try (OflClientPool.Lease lease = pool.borrow(server, WAIT)) {
            assertSame(client, lease.client(), "the mended client is lent again");
            assertEquals(OflStatus.OK, echo(lease, 6, WAIT));
        }
    }

    @Test
    void aBorrowWaitsWhileEveryPlaceIsLentAndFailsAfterItsTimeout() throws Exception {
        InetSocketAddress server = serve();
        pool = poolBuilder().maxLeasesPerServer(1).standbyPerServer(0).build();
        OflClientPool.Lease held = pool.borrow(server, WAIT);
        OflException e = assertThrows(OflException.class, () -> pool.borrow(server, Duration.ofMillis(20)));
        assertTrue(e.getMessage().contains("1 are lent (maxLeasesPerServer)"), e.getMessage());
        ExecutorService threads = Executors.newSingleThreadExecutor();
        try {
            Future<Integer> waiting = threads.submit(() -> {
                try (OflClientPool.Lease lease = pool.borrow(server, WAIT)) {
                    return echo(lease, 7, WAIT);
                }
            });
            await(() -> pool.statistics().waiting() == 1, "the second borrow to start waiting");
            assertFalse(waiting.isDone());
            held.close();
            assertEquals(OflStatus.OK, waiting.get(WAIT.toSeconds(), TimeUnit.SECONDS));
        } finally {
            threads.shutdownNow();
        }
    }

    @Test
    void manyThreadsShareTwoServersAndEveryResponseLandsInItsOwnLease() throws Exception {
        List<InetSocketAddress> addresses = List.of(serve(), serve());
        pool = poolBuilder().maxLeasesPerServer(3).build();
        int threads = 8;
        int calls = 300;
        try (ExecutorService workers = Executors.newFixedThreadPool(threads)) {
            List<Future<String>> results = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                int id = t;
                results.add(workers.submit(() -> {
                    for (int i = 0; i < calls; i++) {
                        InetSocketAddress target = addresses.get((id + i) % 2);
                        try (OflClientPool.Lease lease = pool.borrow(target, WAIT)) {
                            int status = echo(lease, id * 1_000_000L + i, WAIT);
                            if (status != OflStatus.OK) {
                                return "thread " + id + " call " + i + ": " + OflStatus.name(status);
                            }
                        }
                    }
                    return null;
                }));
            }
            for (Future<String> result : results) {
                String failure = result.get(WAIT.toSeconds(), TimeUnit.SECONDS);
                assertTrue(failure == null, failure);
            }
        }
        OflClientPool.Statistics stats = pool.statistics();
        assertEquals((long) threads * calls, stats.borrows());
        assertEquals(0, stats.lent());
        assertTrue(stats.connectsOnBorrow() + stats.standbyConnects() <= 2 * (3 + 4L + 1),
                "no more connections than places, idle and standby: " + stats);
    }

    @Test
    void closingThePoolClosesIdleClientsAndRefusesBorrows() {
        InetSocketAddress server = serve();
        pool = poolBuilder().standbyPerServer(0).build();
        OflClientPool.Lease idle = pool.borrow(server, WAIT);
        OflClient idleClient = idle.client();
        idle.close();
        OflClientPool.Lease lent = pool.borrow(server, WAIT);
        OflClient lentClient = lent.client();
        OflClientPool.Lease second = pool.borrow(server, WAIT);
        second.close();
        pool.close();
        OflException e = assertThrows(OflException.class, () -> pool.borrow(server, WAIT));
        assertTrue(e.getMessage().contains("closed"), e.getMessage());
        assertEquals(OflStatus.OK, echo(lent, 8, WAIT), "a lent client works until its lease ends");
        lent.close();
        IllegalStateException closed = assertThrows(IllegalStateException.class, () -> lentClient.allocateRegion(8),
                "closed with its lease");
        assertTrue(closed.getMessage().contains("closed"), closed.getMessage());
        assertSame(idleClient, lentClient, "the idle client was the one lent");
        pool.close();
    }
}
