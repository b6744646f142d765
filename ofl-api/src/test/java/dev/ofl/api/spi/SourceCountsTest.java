package dev.ofl.api.spi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Places per source address and in total: taken only below both limits, given back exactly. */
@Timeout(120)
class SourceCountsTest {
    private static final InetAddress A = new InetSocketAddress("10.0.0.1", 0).getAddress();
    private static final InetAddress B = new InetSocketAddress("10.0.0.2", 0).getAddress();

    @Test
    void theSourceLimitComesBeforeTheTotal() {
        SourceCounts counts = new SourceCounts();
        assertEquals(SourceCounts.TAKEN, counts.tryAcquire(A, 2, 3));
        assertEquals(SourceCounts.TAKEN, counts.tryAcquire(A, 2, 3));
        assertEquals(SourceCounts.SOURCE_FULL, counts.tryAcquire(A, 2, 3));
        assertEquals(SourceCounts.TAKEN, counts.tryAcquire(B, 2, 3));
        assertEquals(SourceCounts.ALL_FULL, counts.tryAcquire(B, 2, 3));
        assertEquals(SourceCounts.SOURCE_FULL, counts.tryAcquire(A, 2, 3), "both full: the source's limit is named");
        assertEquals(3, counts.total());
        assertEquals(2, counts.count(A));
    }

    @Test
    void releasedPlacesCanBeTakenAgainAndEmptySourcesAreForgotten() {
        SourceCounts counts = new SourceCounts();
        counts.tryAcquire(A, 1, 1);
        counts.release(A);
        assertEquals(0, counts.total());
        assertEquals(0, counts.count(A));
        assertEquals(SourceCounts.TAKEN, counts.tryAcquire(B, 1, 1));
    }

    @Test
    void givingBackAPlaceNeverTakenIsABug() {
        assertThrows(IllegalStateException.class, () -> new SourceCounts().release(A));
    }

    @Test
    void releasingOneOfSeveralPlacesKeepsTheRest() {
        SourceCounts counts = new SourceCounts();
        counts.tryAcquire(A, 3, 3);
        counts.tryAcquire(A, 3, 3);
        counts.release(A);
        assertEquals(1, counts.count(A));
        assertEquals(1, counts.total());
        counts.release(A);
        assertEquals(0, counts.count(A));
        assertThrows(IllegalStateException.class, () -> counts.release(A), "both places were given back");
    }

    @Test
    void awaitingAPlaceReturnsAtOnceWhenThereIsOneOrTheSourceIsFull() {
        SourceCounts counts = new SourceCounts();
        assertEquals(SourceCounts.TAKEN, counts.awaitAcquire(A, 1, 2, TimeUnit.DAYS.toNanos(1)));
        assertEquals(SourceCounts.SOURCE_FULL, counts.awaitAcquire(A, 1, 2, TimeUnit.DAYS.toNanos(1)),
                "a full source is not waited for: only a place given back in total is");
        assertEquals(1, counts.total());
    }

    @Test
    void awaitingWhileEverythingIsTakenGivesUpAtTheTimeout() {
        SourceCounts counts = new SourceCounts();
        counts.tryAcquire(A, 1, 1);
        assertEquals(SourceCounts.ALL_FULL, counts.awaitAcquire(B, 1, 1, TimeUnit.MILLISECONDS.toNanos(5)));
        assertEquals(SourceCounts.ALL_FULL, counts.awaitAcquire(B, 1, 1, 0), "no time left: one try");
        assertEquals(0, counts.count(B));
        assertEquals(1, counts.total());
    }

    @Test
    void aPlaceGivenBackWakesTheWaiterWhichTakesIt() throws Exception {
        SourceCounts counts = new SourceCounts();
        counts.tryAcquire(A, 1, 1);
        AtomicInteger outcome = new AtomicInteger(-1);
        CountDownLatch started = new CountDownLatch(1);
        Thread waiter = Thread.ofPlatform().start(() -> {
            started.countDown();
            outcome.set(counts.awaitAcquire(B, 1, 1, TimeUnit.MINUTES.toNanos(10)));
        });
        assertTrue(started.await(1, TimeUnit.MINUTES));
        // The waiter holds the monitor only while not waiting: once it waits, release() gets in.
        while (waiter.isAlive() && waiter.getState() != Thread.State.TIMED_WAITING) {
            Thread.onSpinWait();
        }
        assertTrue(waiter.isAlive(), "the waiter ended without waiting for a place: " + outcome.get());
        counts.release(A);
        waiter.join(TimeUnit.MINUTES.toMillis(1));
        assertFalse(waiter.isAlive(), "the waiter was not woken by the place given back");
        assertEquals(SourceCounts.TAKEN, outcome.get());
        assertEquals(1, counts.count(B));
        assertEquals(1, counts.total());
    }

    @Test
    void anInterruptedWaiterGivesUpAndKeepsItsInterrupt() {
        SourceCounts counts = new SourceCounts();
        counts.tryAcquire(A, 1, 1);
        Thread.currentThread().interrupt();
        try {
            assertEquals(SourceCounts.ALL_FULL, counts.awaitAcquire(B, 1, 1, TimeUnit.DAYS.toNanos(1)));
            assertTrue(Thread.currentThread().isInterrupted(), "the interrupt is kept for the caller");
        } finally {
            Thread.interrupted();
        }
        assertEquals(0, counts.count(B));
    }
}
