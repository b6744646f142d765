package dev.ofl.conformance;

import static dev.ofl.conformance.Fixture.WAIT_SECONDS;
import static dev.ofl.conformance.Fixture.deadline;
import static dev.ofl.conformance.Fixture.within;
import static dev.ofl.conformance.ResponseChecks.assertEchoWorks;
import static dev.ofl.conformance.TestHandlers.echo;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ofl.api.Completion;
import dev.ofl.api.IdleStrategy;
import dev.ofl.api.OflClient;
import dev.ofl.api.OflServer;
import dev.ofl.api.OflStatus;
import dev.ofl.api.Region;
import dev.ofl.api.ResponseRanges;
import dev.ofl.api.WaitMode;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Threading and lifecycle as the user sees them: a client used by a second thread while a call is
 * in flight refuses that thread, naming both, and the call in flight goes on undisturbed; a client
 * may change hands between calls; a server can be awaited until it is closed, and its threads are
 * daemon threads.
 */
abstract class ThreadingBehaviour extends ConformanceBehaviour {
    ThreadingBehaviour(TransportUnderTest transport) {
        super(transport);
    }

    /**
     * While one thread waits in {@code await}, a second thread's {@code submit}, {@code await},
     * {@code reconnect} and {@code close} each fail with {@link IllegalStateException} naming both
     * threads and the call in flight; the first thread's call then completes with its bytes, and
     * the client, handed over afterwards, works on the second thread.
     */
    @Test
    void secondThreadWhileACallIsInFlightIsRefused() throws Exception {
        Blocker blocker = new Blocker();
        OflServer server = fixture.serve(b -> { }, (request, response) -> {
            if (request.op() == TestOp.BLOCK.code()) {
                blocker.block();
            }
            response.write(request.payload());
            return 0;
        });
        CountDownLatch polling = new CountDownLatch(1);
        // Busy polling calls the idle strategy from inside await: proof that the call is in flight.
        IdleStrategy signalling = work -> {
            polling.countDown();
            IdleStrategy.YIELD.idle(work);
        };
        OflClient client = fixture.connect(server, b -> b.waitMode(WaitMode.BUSY_POLL).idleStrategy(signalling));
        MemorySegment memory = fixture.allocate(4096);
        Region region = client.registerRegion(memory);
        client.requestPayload().set(Fixture.INT_LE, 0, 0x0F1F0F1F);
        long ticket = client.submit(TestOp.BLOCK.code(), 0, 4, new ResponseRanges().add(region, 0, 64));
        assertTrue(ticket >= 0, () -> "submit returned " + OflStatus.name((int) ticket));
        blocker.awaitEntered();

        ExecutorService threads = fixture.threads(1);
        Future<Completion> first = threads.submit(() -> {
            Thread.currentThread().setName("ofl-conformance-first");
            Completion completion = new Completion();
            assertEquals(OflStatus.OK, client.await(ticket, deadline(client), completion), completion::toString);
            return completion;
        });
        try {
            assertTrue(polling.await(WAIT_SECONDS, TimeUnit.SECONDS), "the first thread never polled in await");
            String second = Thread.currentThread().getName();
            List<Runnable> misuses = List.of(
                    () -> client.submit(TestOp.ECHO.code(), 0, 0, new ResponseRanges()),
                    () -> client.await(ticket, deadline(client), new Completion()),
                    client::reconnect,
                    client::close);
            for (Runnable misuse : misuses) {
                IllegalStateException refused = assertThrows(IllegalStateException.class, misuse::run,
                        "a second thread's call while the first waits in await");
                String message = refused.getMessage();
                assertTrue(message.contains("'" + second + "'") && message.contains("'ofl-conformance-first'")
                        && message.contains("inside await()") && message.contains("one thread at a time"),
                        "the refusal names both threads, the call in flight and the rule: " + message);
            }
        } finally {
            blocker.release();
        }
        Completion completion = within(first, "the first thread's await");
        assertEquals(4, completion.responseLength(), completion::toString);
        assertEquals(0x0F1F0F1F, memory.get(Fixture.INT_LE, 0), "the first thread's response");
        assertFalse(client.isBroken(), "the refused calls must not disturb the connection");
        assertEchoWorks(client, memory, ResponseRanges.of(region), "the client handed over after the call");
    }

    /**
     * Thirty-two clients on virtual threads call a server in the same process, busy-polling: each
     * polls for a short window only, then waits parked, so that the server's own virtual threads
     * (and the other clients) run on the machine's few carriers, and every call succeeds. Run on
     * one CPU (one carrier) it fails for a client that polls without end, even one that parks
     * between polls.
     */
    @Test
    void virtualThreadClientsThatBusyPollLeaveAnInProcessServerRoom() throws Exception {
        assertVirtualThreadClientsAllServed(WaitMode.BUSY_POLL);
    }

    /**
     * The same with blocking waits: a waiting client parks its virtual thread (over RDMA, woken by
     * the process's completion poller) instead of holding its carrier in a native wait.
     */
    @Test
    void virtualThreadClientsThatBlockLeaveAnInProcessServerRoom() throws Exception {
        assertVirtualThreadClientsAllServed(WaitMode.BLOCKING);
    }

    private void assertVirtualThreadClientsAllServed(WaitMode mode) throws Exception {
        int clients = 32;
        int calls = 40;
        // All of them connect at once from one address: a burst, not an attack.
        OflServer server = fixture.serve(b -> b.maxConnectionsPerAddress(clients).maxPendingPerAddress(clients), echo());
        List<Future<String>> results = new java.util.ArrayList<>();
        try (ExecutorService threads = java.util.concurrent.Executors.newVirtualThreadPerTaskExecutor()) {
            for (int c = 0; c < clients; c++) {
                int id = c;
                results.add(threads.submit(() -> {
                    try (OflClient client = dev.ofl.api.Ofl.connect(fixture.clientBuilder(server.localAddress())
                            .waitMode(mode).connectTimeout(Duration.ofSeconds(WAIT_SECONDS)).build())) {
                        Region region = client.allocateRegion(64);
                        Completion completion = new Completion();
                        for (int i = 0; i < calls; i++) {
                            int value = id * 1000 + i;
                            client.requestPayload().set(Fixture.INT_LE, 0, value);
                            int status = client.call(TestOp.ECHO.code(), 0, 4, ResponseRanges.of(region),
                                    Fixture.CALL_TIMEOUT_NS, completion);
                            if (status != OflStatus.OK || region.segment().get(Fixture.INT_LE, 0) != value) {
                                return "client " + id + ", call " + i + ": " + OflStatus.name(status) + ", "
                                        + completion;
                            }
                        }
                        return null;
                    } catch (RuntimeException e) {
                        return "client " + id + ": " + e;
                    }
                }));
            }
        }
        for (Future<String> result : results) {
            String failure = within(result, "a virtual-thread client's calls");
            assertTrue(failure == null, failure);
        }
        assertEquals((long) clients * calls, server.statistics().requests(), "every call reached the handler");
    }

    /**
     * {@code awaitTermination} waits until {@code close()} has returned: bounded, it reports
     * {@code false} while the server runs; a thread waiting without a bound is released by a close
     * on another thread; afterwards both forms report at once. The server's acceptor is a daemon
     * thread, as documented, so that a forgotten server never keeps the JVM alive.
     */
    @Test
    void serverCanBeAwaitedUntilClosed() throws Exception {
        OflServer server = fixture.serve(b -> { }, echo());
        OflClient client = fixture.connect(server, b -> { });
        assertEchoWorks(client, fixture.allocate(256), null, "before close");
        String acceptor = "ofl-" + server.backend() + "-accept-" + server.localAddress().getPort();
        List<Thread> accepting = Thread.getAllStackTraces().keySet().stream()
                .filter(t -> t.getName().equals(acceptor)).toList();
        assertEquals(1, accepting.size(), "threads named " + acceptor);
        assertTrue(accepting.getFirst().isDaemon(), acceptor + " is a daemon thread");

        assertFalse(server.awaitTermination(Duration.ZERO), "a running server has not terminated");
        assertFalse(server.awaitTermination(Duration.ofMillis(20)), "a running server has not terminated");
        ExecutorService threads = fixture.threads(1);
        CountDownLatch waiting = new CountDownLatch(1);
        Future<Boolean> waiter = threads.submit(() -> {
            waiting.countDown();
            server.awaitTermination();
            return true;
        });
        assertTrue(waiting.await(WAIT_SECONDS, TimeUnit.SECONDS), "the waiter never started");
        assertFalse(waiter.isDone(), "awaitTermination() returned while the server runs");
        client.close();
        server.close();
        assertTrue(within(waiter, "awaitTermination() after close()"), "the waiter was released");
        assertTrue(server.awaitTermination(Duration.ZERO), "a closed server has terminated");
        assertTrue(server.awaitTermination(Duration.ofDays(365L * 1000)), "a closed server has terminated");
    }
}
