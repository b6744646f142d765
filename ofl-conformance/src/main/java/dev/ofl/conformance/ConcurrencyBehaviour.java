package dev.ofl.conformance;

import static dev.ofl.conformance.Fixture.CALL_TIMEOUT_NS;
import static dev.ofl.conformance.Fixture.INT_LE;
import static dev.ofl.conformance.Fixture.WAIT_SECONDS;
import static dev.ofl.conformance.Fixture.deadline;
import static dev.ofl.conformance.Patterns.randomBytes;
import static dev.ofl.conformance.ResponseChecks.assertBytes;
import static dev.ofl.conformance.ResponseChecks.assertSentinel;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ofl.api.Completion;
import dev.ofl.api.Limits;
import dev.ofl.api.OflClient;
import dev.ofl.api.OflServer;
import dev.ofl.api.OflStatus;
import dev.ofl.api.Region;
import dev.ofl.api.ResponseRanges;
import dev.ofl.api.WaitMode;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicIntegerArray;
import org.junit.jupiter.api.Test;

/**
 * Concurrency: in-flight requests are bounded and kept in order; handlers of different connections
 * run at the same time, and those of one connection one at a time.
 */
abstract class ConcurrencyBehaviour extends ConformanceBehaviour {
    /** Requests each client has in flight at once in the overlap behaviour. */
    static final int PIPELINED = 8;

    ConcurrencyBehaviour(TransportUnderTest transport) {
        super(transport);
    }

    /**
     * Submits fill the negotiated in-flight capacity, then get {@link OflStatus#IN_FLIGHT_FULL} with
     * nothing sent; the handler sees requests in submission order; completions match their tickets
     * when awaited out of order.
     */
    @Test
    void inFlightIsBoundedAndOrderIsKept() {
        List<long[]> seen = new CopyOnWriteArrayList<>();
        OflServer server = fixture.serve(b -> { }, (request, response) -> {
            seen.add(new long[] {request.sequence(), request.op(), request.generation()});
            MemorySegment opBytes = MemorySegment.ofArray(new byte[4]);
            opBytes.set(INT_LE, 0, request.op());
            response.write(opBytes);
            response.write(request.payload());
            return 0;
        });
        int inFlight = 4;
        OflClient client = fixture.connect(server, b -> b.limits(new Limits(4096, 1 << 20, Limits.MAX_RANGES, inFlight)));
        MemorySegment memory = fixture.allocate(inFlight * 1024L);
        Region region = client.registerRegion(memory);
        long[] tickets = new long[inFlight];
        byte[][] payloads = new byte[inFlight][];
        for (int i = 0; i < inFlight; i++) {
            payloads[i] = randomBytes(100 + i, 77 + i);
            MemorySegment.copy(MemorySegment.ofArray(payloads[i]), 0, client.requestPayload(), 0, payloads[i].length);
            tickets[i] = client.submit(100 + i, 1000 + i, payloads[i].length,
                    new ResponseRanges().add(region, i * 1024L, 1024));
            assertTrue(tickets[i] >= 0, "submit " + i + " returned " + OflStatus.name((int) tickets[i]));
        }
        assertEquals(OflStatus.IN_FLIGHT_FULL, client.submit(999, 0, 0, new ResponseRanges()),
                "a submit beyond the negotiated maxInFlight");
        Completion completion = new Completion();
        for (int i : new int[] {3, 1, 0, 2}) {
            int status = client.await(tickets[i], deadline(client), completion);
            assertEquals(OflStatus.OK, status, completion::toString);
            assertEquals(tickets[i], completion.ticket(), "completion of ticket " + i);
            assertEquals(4 + payloads[i].length, completion.responseLength(), "response length of ticket " + i);
            assertEquals(100 + i, memory.get(INT_LE, i * 1024L), "op echoed into ticket " + i + "'s range");
            assertBytes(payloads[i], memory, i * 1024L + 4, "payload echoed into ticket " + i + "'s range");
        }
        assertEquals(inFlight, seen.size(), "handler calls");
        for (int i = 0; i < inFlight; i++) {
            assertArrayEquals(new long[] {i, 100 + i, 1000 + i}, seen.get(i), "request " + i + " as the handler saw it");
        }
        long next = client.submit(200, 2000, 0, new ResponseRanges().add(region, 0, 1024));
        assertTrue(next >= 0, "submit after the in-flight requests completed");
        assertEquals(OflStatus.OK, client.await(next, deadline(client), completion), completion::toString);
        assertEquals(inFlight + 1, seen.size(), "handler calls");
        assertArrayEquals(new long[] {inFlight, 200, 2000}, seen.get(inFlight),
                "the refused submit must not have used a sequence number");
    }

    /** Four clients on four threads: their handlers run at the same time (they meet at a barrier). */
    @Test
    void handlersRunConcurrentlyAcrossConnections() throws Exception {
        int clients = 4;
        CyclicBarrier barrier = new CyclicBarrier(clients);
        OflServer server = fixture.serve(b -> { }, (request, response) -> {
            barrier.await(WAIT_SECONDS, TimeUnit.SECONDS);
            response.write(request.payload());
            return 0;
        });
        List<WaitMode> modes = fixture.transport().waitModes();
        WaitMode mode = modes.contains(WaitMode.BLOCKING) ? WaitMode.BLOCKING : modes.get(0);
        List<OflClient> connected = new ArrayList<>();
        for (int i = 0; i < clients; i++) {
            connected.add(fixture.connect(server, b -> b.waitMode(mode)));
        }
        ExecutorService threads = Executors.newFixedThreadPool(clients);
        try {
            List<Future<String>> results = new ArrayList<>();
            for (int i = 0; i < clients; i++) {
                OflClient client = connected.get(i);
                int id = i;
                results.add(threads.submit(() -> {
                    MemorySegment memory = fixture.allocate(512);
                    ResponseRanges ranges = ResponseRanges.of(client.registerRegion(memory));
                    byte[] payload = randomBytes(300 + id, id);
                    MemorySegment.copy(MemorySegment.ofArray(payload), 0, client.requestPayload(), 0, payload.length);
                    Completion completion = new Completion();
                    int status = client.call(TestOp.ECHO.code(), id, payload.length, ranges, CALL_TIMEOUT_NS, completion);
                    if (status != OflStatus.OK || completion.responseLength() != payload.length) {
                        return "client " + id + ": " + completion;
                    }
                    long mismatch = MemorySegment.mismatch(memory, 0, payload.length, MemorySegment.ofArray(payload), 0,
                            payload.length);
                    return mismatch < 0 ? "ok" : "client " + id + ": echo differs at byte " + mismatch;
                }));
            }
            for (Future<String> result : results) {
                assertEquals("ok", result.get(WAIT_SECONDS * 2, TimeUnit.SECONDS));
            }
            assertFalse(barrier.isBroken(), "handlers did not overlap");
            assertEquals(clients, server.connectionCount(), "connections open");
        } finally {
            threads.shutdownNow();
            assertTrue(threads.awaitTermination(WAIT_SECONDS, TimeUnit.SECONDS));
        }
    }

    /**
     * Handlers of one connection never overlap, and those of different connections do. Two clients
     * each pipeline {@value #PIPELINED} requests; the first handler of each connection holds until
     * both are running (so handlers of different connections overlap) and the test has submitted
     * everything, so that a server handing one connection's requests to several threads would run
     * the next ones meanwhile. Each handler counts its connection's running handlers on entry: the
     * most seen must be one, and the handler must see the requests in sequence order.
     */
    @Test
    void handlersOfOneConnectionNeverOverlap() throws InterruptedException {
        int clients = 2;
        AtomicIntegerArray running = new AtomicIntegerArray(clients);
        AtomicIntegerArray mostRunning = new AtomicIntegerArray(clients);
        List<List<Long>> sequences = List.of(new CopyOnWriteArrayList<>(), new CopyOnWriteArrayList<>());
        CountDownLatch firstHandlersRunning = new CountDownLatch(clients);
        CountDownLatch release = new CountDownLatch(1);
        OflServer server = fixture.serve(b -> { }, (request, response) -> {
            int id = (int) request.generation();
            int now = running.incrementAndGet(id);
            mostRunning.accumulateAndGet(id, now, Math::max);
            try {
                sequences.get(id).add(request.sequence());
                if (request.sequence() == 0) {
                    firstHandlersRunning.countDown();
                    if (!release.await(WAIT_SECONDS * 2, TimeUnit.SECONDS)) {
                        throw new IllegalStateException("the test never released the first handler");
                    }
                }
                response.write(request.payload());
                return 0;
            } finally {
                running.decrementAndGet(id);
            }
        });
        List<OflClient> connected = new ArrayList<>();
        List<MemorySegment> memories = new ArrayList<>();
        long[][] tickets = new long[clients][PIPELINED];
        byte[][][] payloads = new byte[clients][PIPELINED][];
        try {
            for (int id = 0; id < clients; id++) {
                OflClient client = fixture.connect(server,
                        b -> b.limits(new Limits(4096, 1 << 20, Limits.MAX_RANGES, PIPELINED)));
                MemorySegment memory = fixture.allocate(PIPELINED * 512L);
                Region region = client.registerRegion(memory);
                connected.add(client);
                memories.add(memory);
                for (int i = 0; i < PIPELINED; i++) {
                    payloads[id][i] = randomBytes(100 + i, 31L * id + i);
                    MemorySegment.copy(MemorySegment.ofArray(payloads[id][i]), 0, client.requestPayload(), 0,
                            payloads[id][i].length);
                    tickets[id][i] = client.submit(TestOp.ECHO.code(), id, payloads[id][i].length,
                            new ResponseRanges().add(region, i * 512L, 512));
                    long ticket = tickets[id][i];
                    assertTrue(ticket >= 0, () -> "submit returned " + OflStatus.name((int) ticket));
                }
            }
            assertTrue(firstHandlersRunning.await(WAIT_SECONDS, TimeUnit.SECONDS),
                    "the first handlers of two connections never ran at the same time");
        } finally {
            release.countDown();
        }
        Completion completion = new Completion();
        for (int id = 0; id < clients; id++) {
            for (int i = 0; i < PIPELINED; i++) {
                String what = "client " + id + ", request " + i;
                assertEquals(OflStatus.OK, connected.get(id).await(tickets[id][i], deadline(connected.get(id)),
                        completion), () -> what + ": " + completion);
                assertEquals(payloads[id][i].length, completion.responseLength(), what);
                assertBytes(payloads[id][i], memories.get(id), i * 512L, what);
                assertSentinel(memories.get(id), i * 512L + payloads[id][i].length, 512 - payloads[id][i].length,
                        what + ": the rest of its range");
            }
        }
        for (int id = 0; id < clients; id++) {
            assertEquals(1, mostRunning.get(id), "most handlers of connection " + id + " running at once");
            List<Long> expected = new ArrayList<>();
            for (long i = 0; i < PIPELINED; i++) {
                expected.add(i);
            }
            assertEquals(expected, sequences.get(id), "sequences connection " + id + "'s handler saw, in order");
        }
    }
}
