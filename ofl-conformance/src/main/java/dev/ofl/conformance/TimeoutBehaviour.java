package dev.ofl.conformance;

import static dev.ofl.conformance.Fixture.WAIT_SECONDS;
import static dev.ofl.conformance.Fixture.awaitCondition;
import static dev.ofl.conformance.Fixture.within;
import static dev.ofl.conformance.ResponseChecks.assertSentinel;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ofl.api.Completion;
import dev.ofl.api.OflClient;
import dev.ofl.api.OflConnectionException;
import dev.ofl.api.OflHandler;
import dev.ofl.api.OflServer;
import dev.ofl.api.OflStatus;
import dev.ofl.api.Region;
import dev.ofl.api.ResponseRanges;
import dev.ofl.api.WaitMode;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * Timeouts and late writes: a timed-out {@code await} returns after its deadline, in every wait
 * mode, with the connection broken first, so that a response the handler writes afterwards never
 * lands.
 */
abstract class TimeoutBehaviour extends ConformanceBehaviour {
    TimeoutBehaviour(TransportUnderTest transport) {
        super(transport);
    }

    /**
     * A timeout breaks the connection before {@code await} returns: the handler's response, written
     * after the client gave up, never lands; the ranges still hold the sentinel.
     */
    @Test
    void lateResponseAfterTimeoutNeverLands() throws InterruptedException {
        Blocker blocker = new Blocker();
        AtomicReference<String> lateOutcome = new AtomicReference<>();
        CountDownLatch lateWriteAttempted = new CountDownLatch(1);
        OflServer server = fixture.serve(b -> { }, lateWriter(blocker, lateOutcome, lateWriteAttempted));
        OflClient client = fixture.connect(server, b -> { });
        // 1.25 MiB over two ranges: more than any backend's piece size, so that pieces are sent from
        // inside the handler as well as at its end.
        MemorySegment memory = fixture.allocate(2 << 20);
        Region region = client.registerRegion(memory);
        ResponseRanges ranges = new ResponseRanges().add(region, 0, 640 << 10).add(region, 1 << 20, 640 << 10);
        long ticket = client.submit(TestOp.BLOCK.code(), 0, 0, ranges);
        assertTrue(ticket >= 0);
        blocker.awaitEntered();
        Completion completion = new Completion();
        int status = client.await(ticket, client.clock().nanoTime() + TimeUnit.MILLISECONDS.toNanos(50), completion);
        assertEquals(OflStatus.TIMED_OUT, status, completion::toString);
        assertTrue(client.isBroken(), "a timeout must leave the client broken");
        blocker.release();
        assertTrue(lateWriteAttempted.await(WAIT_SECONDS, TimeUnit.SECONDS), "the handler never wrote its late response");
        awaitCondition(() -> server.connectionCount() == 0,
                "the server to notice the broken connection after the late write (" + lateOutcome.get() + ")");
        assertSentinel(memory, 0, memory.byteSize(), "region after a late response (" + lateOutcome.get() + ")");
        assertTrue(client.isBroken());
        assertThrows(OflConnectionException.class, () -> client.submit(TestOp.ECHO.code(), 0, 0, new ResponseRanges()),
                "submit on a broken client");
    }

    /**
     * In {@link WaitMode#BLOCKING} too, {@code await} gives {@link OflStatus#TIMED_OUT} once its
     * deadline has passed while the handler blocks: it returns (bounded by an outer wait), the
     * client's clock reads at or past the deadline when it does, the client is broken, and the
     * response the handler writes afterwards never lands.
     */
    @Test
    void blockingAwaitTimesOutAfterItsDeadline() throws Exception {
        Blocker blocker = new Blocker();
        AtomicReference<String> lateOutcome = new AtomicReference<>();
        CountDownLatch lateWriteAttempted = new CountDownLatch(1);
        OflServer server = fixture.serve(b -> { }, lateWriter(blocker, lateOutcome, lateWriteAttempted));
        OflClient client = fixture.connect(server, b -> b.waitMode(WaitMode.BLOCKING));
        MemorySegment memory = fixture.allocate(2 << 20);
        Region region = client.registerRegion(memory);
        ResponseRanges ranges = new ResponseRanges().add(region, 0, 640 << 10).add(region, 1 << 20, 640 << 10);
        long ticket = client.submit(TestOp.BLOCK.code(), 0, 0, ranges);
        assertTrue(ticket >= 0);
        blocker.awaitEntered();
        Completion completion = new Completion();
        long deadlineNs = client.clock().nanoTime() + TimeUnit.MILLISECONDS.toNanos(50);
        ExecutorService waiter = fixture.threads(1);
        long[] outcome;
        try {
            outcome = within(waiter.submit(() -> {
                int status = client.await(ticket, deadlineNs, completion);
                return new long[] {status, client.clock().nanoTime()};
            }), "await in BLOCKING mode with a 50 ms deadline");
        } finally {
            blocker.release();
        }
        assertEquals(OflStatus.TIMED_OUT, (int) outcome[0], completion::toString);
        assertTrue(outcome[1] - deadlineNs >= 0, () -> "await returned TIMED_OUT " + (deadlineNs - outcome[1])
                + " ns before its deadline");
        assertTrue(client.isBroken(), "a timeout must leave the client broken");
        assertTrue(lateWriteAttempted.await(WAIT_SECONDS, TimeUnit.SECONDS), "the handler never wrote its late response");
        awaitCondition(() -> server.connectionCount() == 0,
                "the server to notice the broken connection after the late write (" + lateOutcome.get() + ")");
        assertSentinel(memory, 0, memory.byteSize(), "region after a late response (" + lateOutcome.get() + ")");
    }

    /**
     * Blocks on {@code blocker}, then writes the whole capacity (0x11 bytes) and records how that
     * went: the response of a client that has given up.
     */
    private static OflHandler lateWriter(Blocker blocker, AtomicReference<String> lateOutcome,
            CountDownLatch lateWriteAttempted) {
        return (request, response) -> {
            blocker.block();
            try {
                byte[] late = new byte[(int) response.capacity()];
                java.util.Arrays.fill(late, (byte) 0x11);
                response.write(MemorySegment.ofArray(late));
                lateOutcome.set("committed " + late.length + " bytes");
            } catch (RuntimeException e) {
                lateOutcome.set("write failed: " + e);
                throw e;
            } finally {
                lateWriteAttempted.countDown();
            }
            return 0;
        };
    }
}
