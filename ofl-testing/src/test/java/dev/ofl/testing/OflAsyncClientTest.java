package dev.ofl.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ofl.api.ClientConfig;
import dev.ofl.api.Completion;
import dev.ofl.api.Ofl;
import dev.ofl.api.OflAsyncClient;
import dev.ofl.api.OflClient;
import dev.ofl.api.OflConnectionException;
import dev.ofl.api.OflServer;
import dev.ofl.api.OflStatus;
import dev.ofl.api.Region;
import dev.ofl.api.ResponseRanges;
import dev.ofl.api.ServerConfig;
import dev.ofl.api.WaitMode;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * {@code OflClient.poll} and the asynchronous client over the fake backend's faults: responses land
 * exactly, a timeout breaks the connection before its future completes and drops (never resends)
 * what was in flight, reconnects are retried with back-off, and close fails what was not sent.
 */
@Timeout(60)
class OflAsyncClientTest {
    private static final int OP_ECHO = 1;
    private static final Duration WAIT = Duration.ofSeconds(30);
    private static final AtomicInteger SERVICES = new AtomicInteger();

    private String service;
    private FakeFaults faults;
    private OflServer server;

    @BeforeEach
    void setUp() {
        service = "async-" + SERVICES.incrementAndGet();
        faults = FakeFaults.of(service);
        server = Ofl.serve(ServerConfig.builder().backend(FakeBackend.NAME)
                .bind(new InetSocketAddress("127.0.0.1", 0)).serviceName(service).build(), (request, response) -> {
                    response.write(request.payload());
                    return 0;
                });
    }

    @AfterEach
    void tearDown() {
        server.close();
        faults.clear();
    }

    private ClientConfig config(WaitMode mode) {
        return ClientConfig.builder().backend(FakeBackend.NAME).server(server.localAddress()).serviceName(service)
                .waitMode(mode).build();
    }

    private static MemorySegment payload(long value) {
        MemorySegment payload = MemorySegment.ofArray(new byte[8]);
        payload.set(ValueLayout.JAVA_LONG_UNALIGNED, 0, value);
        return payload;
    }

    @Test
    void pollSaysPendingUntilTheResponseArrivesAndTimesOutLikeAwait() {
        try (OflClient client = Ofl.connect(config(WaitMode.BUSY_POLL)); Arena arena = Arena.ofShared()) {
            Region region = client.registerRegion(arena.allocate(8));
            Completion completion = new Completion();
            faults.delayResponses(Duration.ofMillis(300));
            client.requestPayload().set(ValueLayout.JAVA_LONG_UNALIGNED, 0, 41);
            long ticket = client.submit(OP_ECHO, 0, 8, ResponseRanges.of(region));
            long deadline = client.deadlineAfter(WAIT);
            assertEquals(OflStatus.PENDING, client.poll(ticket, deadline, completion), "300 ms before the response");
            int status;
            while ((status = client.poll(ticket, deadline, completion)) == OflStatus.PENDING) {
                Thread.onSpinWait();
            }
            assertEquals(OflStatus.OK, status);
            assertEquals(41, region.segment().get(ValueLayout.JAVA_LONG_UNALIGNED, 0));
            assertEquals(ticket, completion.ticket());

            long awaited = client.submit(OP_ECHO, 0, 8, ResponseRanges.of(region));
            assertEquals(OflStatus.PENDING, client.poll(awaited, client.deadlineAfter(WAIT), completion));
            assertEquals(OflStatus.OK, client.await(awaited, client.deadlineAfter(WAIT), completion),
                    "a ticket polled PENDING can then be awaited");

            faults.delayResponses(Duration.ofSeconds(2));
            long lost = client.submit(OP_ECHO, 0, 8, ResponseRanges.of(region));
            assertEquals(OflStatus.PENDING, client.poll(lost, client.deadlineAfter(WAIT), completion));
            assertEquals(OflStatus.TIMED_OUT, client.poll(lost, client.clock().nanoTime() - 1, completion),
                    "a passed deadline times out, as await does");
            assertTrue(client.isBroken(), "and breaks the connection first");
        }
    }

    @ParameterizedTest
    @EnumSource(WaitMode.class)
    void manyThreadsShareOneConnectionAndEveryResponseLandsInItsOwnRange(WaitMode mode) throws Exception {
        int threads = 4;
        int calls = 250;
        try (OflAsyncClient async = OflAsyncClient.builder(config(mode)).connect()) {
            Region region = async.allocateRegion(8L * threads * calls);
            try (ExecutorService workers = Executors.newFixedThreadPool(threads)) {
                List<Future<String>> results = new ArrayList<>();
                for (int t = 0; t < threads; t++) {
                    int id = t;
                    results.add(workers.submit(() -> {
                        List<CompletableFuture<OflAsyncClient.Reply>> replies = new ArrayList<>();
                        for (int i = 0; i < calls; i++) {
                            long offset = 8L * (id * calls + i);
                            replies.add(async.call(OP_ECHO, 0, payload(offset),
                                    new ResponseRanges().add(region, offset, 8), WAIT));
                        }
                        for (int i = 0; i < calls; i++) {
                            OflAsyncClient.Reply reply = replies.get(i).get(WAIT.toSeconds(), TimeUnit.SECONDS);
                            long offset = 8L * (id * calls + i);
                            if (reply.status() != OflStatus.OK
                                    || region.segment().get(ValueLayout.JAVA_LONG_UNALIGNED, offset) != offset) {
                                return "thread " + id + " call " + i + ": " + reply;
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
            assertEquals((long) threads * calls, async.statistics().ok());
        }
    }

    /**
     * One response dropped among requests in flight: that request completes TIMED_OUT (the
     * connection broken first), the others in flight behind it complete exceptionally as dropped
     * and are not sent again, and the client reconnects by itself for what comes next.
     */
    @Test
    void aTimeoutDropsWhatWasInFlightAndTheClientReconnects() throws Exception {
        try (OflAsyncClient async = OflAsyncClient.builder(config(WaitMode.BUSY_POLL))
                .backoff(Duration.ofMillis(1), Duration.ofMillis(10)).connect()) {
            Region region = async.allocateRegion(64);
            // Every response 2 s late: the first request times out at 300 ms with the other three
            // still in flight (sent long before), whatever the machine's load.
            faults.delayResponses(Duration.ofSeconds(2));
            List<CompletableFuture<OflAsyncClient.Reply>> replies = new ArrayList<>();
            replies.add(async.call(OP_ECHO, 0, payload(1), new ResponseRanges().add(region, 0, 8),
                    Duration.ofMillis(300)));
            for (int i = 1; i < 4; i++) {
                replies.add(async.call(OP_ECHO, 0, payload(i + 1), new ResponseRanges().add(region, 8L * i, 8), WAIT));
            }
            assertEquals(OflStatus.TIMED_OUT, replies.getFirst().get(WAIT.toSeconds(), TimeUnit.SECONDS).status());
            int dropped = 0;
            for (CompletableFuture<OflAsyncClient.Reply> reply : replies.subList(1, 4)) {
                try {
                    assertEquals(OflStatus.OK, reply.get(WAIT.toSeconds(), TimeUnit.SECONDS).status());
                } catch (ExecutionException e) {
                    assertInstanceOf(OflConnectionException.class, e.getCause());
                    assertTrue(e.getCause().getMessage().contains("not sent again"), e.getCause().getMessage());
                    dropped++;
                }
            }
            assertEquals(3, dropped, "the three behind the timed-out one were still in flight");
            assertEquals(3, async.droppedRequests());
            faults.delayResponses(Duration.ZERO);
            OflAsyncClient.Reply after = async.call(OP_ECHO, 0, payload(99), new ResponseRanges().add(region, 0, 8),
                    WAIT).get(WAIT.toSeconds(), TimeUnit.SECONDS);
            assertEquals(OflStatus.OK, after.status());
            assertEquals(99, region.segment().get(ValueLayout.JAVA_LONG_UNALIGNED, 0));
            assertEquals(1, async.statistics().reconnects());
            assertEquals(5, async.statistics().calls(), "the dropped requests were not sent again");
        }
    }

    /**
     * A short timeout behind a long one holds at its own deadline: it times out (breaking the
     * connection) and the long one, not yet answered, is dropped; without the check the short one
     * would wait behind the long one and complete late, answered.
     */
    @ParameterizedTest
    @EnumSource(WaitMode.class)
    void aShortTimeoutBehindALongOneHoldsAtItsOwnDeadline(WaitMode mode) throws Exception {
        try (OflAsyncClient async = OflAsyncClient.builder(config(mode)).connect()) {
            Region region = async.allocateRegion(16);
            faults.delayResponses(Duration.ofSeconds(2));
            CompletableFuture<OflAsyncClient.Reply> slow = async.call(OP_ECHO, 0, payload(1),
                    new ResponseRanges().add(region, 0, 8), WAIT);
            CompletableFuture<OflAsyncClient.Reply> quick = async.call(OP_ECHO, 0, payload(2),
                    new ResponseRanges().add(region, 8, 8), Duration.ofMillis(200));
            assertEquals(OflStatus.TIMED_OUT, quick.get(WAIT.toSeconds(), TimeUnit.SECONDS).status());
            ExecutionException e = org.junit.jupiter.api.Assertions.assertThrows(ExecutionException.class,
                    () -> slow.get(WAIT.toSeconds(), TimeUnit.SECONDS));
            assertTrue(e.getCause().getMessage().contains("not sent again"), e.getCause().getMessage());
        }
    }

    @Test
    void reconnectsAreRetriedWithBackOffAndQueuedRequestsWait() throws Exception {
        try (OflAsyncClient async = OflAsyncClient.builder(config(WaitMode.BLOCKING))
                .backoff(Duration.ofMillis(1), Duration.ofMillis(5)).connect()) {
            Region region = async.allocateRegion(8);
            faults.dropResponses(1);
            assertEquals(OflStatus.TIMED_OUT, async.call(OP_ECHO, 0, payload(1), ResponseRanges.of(region),
                    Duration.ofMillis(10)).get(WAIT.toSeconds(), TimeUnit.SECONDS).status());
            faults.dropResponses(0);
            faults.failServerSetups(3);
            long start = System.nanoTime();
            OflAsyncClient.Reply reply = async.call(OP_ECHO, 0, payload(7), ResponseRanges.of(region), WAIT)
                    .get(WAIT.toSeconds(), TimeUnit.SECONDS);
            assertTrue(System.nanoTime() - start >= TimeUnit.MILLISECONDS.toNanos(1 + 2 + 4),
                    "three refused attempts waited 1, 2 and 4 ms before the next");
            assertEquals(OflStatus.OK, reply.status());
            assertEquals(7, region.segment().get(ValueLayout.JAVA_LONG_UNALIGNED, 0));
            assertEquals(1, async.statistics().reconnects(), "three refusals, then one reconnect");
        }
    }

    @Test
    void aRequestWhoseDeadlinePassesWhileQueuedIsNeverSent() throws Exception {
        try (OflAsyncClient async = OflAsyncClient.builder(config(WaitMode.BUSY_POLL))
                .backoff(Duration.ofMillis(200), Duration.ofMillis(200)).connect()) {
            Region region = async.allocateRegion(8);
            faults.dropResponses(1);
            assertEquals(OflStatus.TIMED_OUT, async.call(OP_ECHO, 0, payload(1), ResponseRanges.of(region),
                    Duration.ofMillis(10)).get(WAIT.toSeconds(), TimeUnit.SECONDS).status());
            faults.dropResponses(0);
            faults.failServerSetups(1);
            OflAsyncClient.Reply reply = async.call(OP_ECHO, 0, payload(2), ResponseRanges.of(region),
                    Duration.ofMillis(20)).get(WAIT.toSeconds(), TimeUnit.SECONDS);
            assertEquals(OflStatus.TIMED_OUT, reply.status(), "expired during the 200 ms back-off");
            assertEquals(1, async.statistics().calls(), "only the first request was ever sent");
        }
    }

    @Test
    void closeLetsWhatIsInFlightFinishAndFailsWhatIsQueued() throws Exception {
        ClientConfig twoInFlight = ClientConfig.builder().backend(FakeBackend.NAME).server(server.localAddress())
                .serviceName(service).limits(new dev.ofl.api.Limits(256, 4096, 1, 2)).build();
        OflAsyncClient async = OflAsyncClient.builder(twoInFlight).connect();
        Region region = async.allocateRegion(64);
        faults.delayResponses(Duration.ofMillis(300));
        List<CompletableFuture<Long>> echoed = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            long offset = 8L * i;
            // Read on the client thread as the reply completes: the region is freed with the client.
            echoed.add(async.call(OP_ECHO, 0, payload(i), new ResponseRanges().add(region, offset, 8), WAIT)
                    .thenApply(reply -> reply.status() == OflStatus.OK
                            ? region.segment().get(ValueLayout.JAVA_LONG_UNALIGNED, offset) : -1L));
        }
        long sentBy = System.nanoTime() + WAIT.toNanos();
        while (async.statistics().calls() < 2 && System.nanoTime() - sentBy < 0) {
            Thread.sleep(1);
        }
        assertEquals(2, async.statistics().calls(), "two sent, three queued behind them");
        async.close();
        for (int i = 0; i < 5; i++) {
            try {
                assertEquals(i, echoed.get(i).get(WAIT.toSeconds(), TimeUnit.SECONDS));
                assertTrue(i < 2, "only the two in flight finish: " + i);
            } catch (ExecutionException e) {
                assertTrue(i >= 2, "the two in flight finish: " + i + " failed with " + e.getCause());
                assertInstanceOf(RejectedExecutionException.class, e.getCause());
            }
        }
    }

    @Test
    void aRegionCanBeAllocatedFromACallbackOnTheClientThread() throws Exception {
        try (OflAsyncClient async = OflAsyncClient.builder(config(WaitMode.BUSY_POLL)).connect()) {
            Region region = async.allocateRegion(8);
            Region fromCallback = async.call(OP_ECHO, 0, payload(5), ResponseRanges.of(region), WAIT)
                    .thenApply(reply -> async.allocateRegion(16)).get(WAIT.toSeconds(), TimeUnit.SECONDS);
            assertEquals(16, fromCallback.segment().byteSize());
        }
    }

    @Test
    void closeFailsWhatWasNotSentAndRefusesNewCalls() throws Exception {
        OflAsyncClient async = OflAsyncClient.builder(config(WaitMode.BUSY_POLL)).connect();
        Region region = async.allocateRegion(8);
        async.close();
        CompletableFuture<OflAsyncClient.Reply> late = async.call(OP_ECHO, 0, payload(1), ResponseRanges.of(region),
                WAIT);
        ExecutionException e = org.junit.jupiter.api.Assertions.assertThrows(ExecutionException.class,
                () -> late.get(WAIT.toSeconds(), TimeUnit.SECONDS));
        assertInstanceOf(RejectedExecutionException.class, e.getCause());
        async.close();
    }
}
