package dev.ofl.api.spi;

import static dev.ofl.api.spi.StagingPool.BLOCK_BYTES;
import static dev.ofl.api.spi.StagingPool.NO_EXTENT;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ofl.api.NanoClock;
import dev.ofl.api.OflException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** The server-wide staging pool: budget, extents, partial returns, waiting and its memory's life. */
class StagingPoolTest {
    private static final long NOW = 1_000;
    /** A clock that never moves: only the zero timeouts most tests give keep them from waiting. */
    private static final NanoClock STOPPED = () -> NOW;
    /** The longest timeout there is: its deadline lies past the clock's range, so it must not overflow. */
    private static final long FOREVER = Long.MAX_VALUE;

    /** Counts allocations and frees of plain native memory. */
    private static final class CountingMemory implements StagingPool.Memory {
        private final StagingPool.Memory memory = StagingPool.Memory.offHeap();
        private final AtomicInteger allocations = new AtomicInteger();
        private final AtomicInteger frees = new AtomicInteger();
        private volatile boolean failing;

        @Override
        public MemorySegment allocate(long bytes) {
            allocations.incrementAndGet();
            if (failing) {
                throw new OutOfMemoryError("injected: no " + bytes + " bytes");
            }
            return memory.allocate(bytes);
        }

        @Override
        public void free() {
            frees.incrementAndGet();
            memory.free();
        }
    }

    private static StagingPool pool(int blocks, CountingMemory memory, NanoClock clock) {
        return new StagingPool((long) blocks * BLOCK_BYTES, memory, clock);
    }

    @Test
    void memoryIsAllocatedByTheFirstReservationOnlyAndFreedOnceAtClose() {
        CountingMemory memory = new CountingMemory();
        StagingPool pool = pool(8, memory, STOPPED);
        assertEquals(0, pool.committedBytes(), "a pool nobody borrowed from holds no memory");
        assertNull(pool.memory());
        long a = pool.reserve(100, -1, 0);
        long b = pool.reserve(BLOCK_BYTES + 1, -1, 0);
        assertEquals(0, a);
        assertEquals(BLOCK_BYTES, b, "extents are whole blocks: 100 bytes take one");
        assertEquals(3L * BLOCK_BYTES, pool.inUseBytes());
        assertEquals(8L * BLOCK_BYTES, pool.committedBytes());
        assertEquals(1, memory.allocations.get());
        pool.release(a, BLOCK_BYTES);
        pool.release(b, 2L * BLOCK_BYTES);
        assertEquals(0, pool.inUseBytes());
        assertEquals(3L * BLOCK_BYTES, pool.highWaterBytes());
        pool.close();
        pool.close();
        assertEquals(1, memory.frees.get(), "closed once, freed once");
        assertEquals(0, pool.committedBytes());
        assertThrows(IllegalStateException.class, () -> pool.reserve(1, -1, 0));
    }

    @Test
    void anExhaustedPoolAnswersNoExtentWhenTheTimeoutEndsAndCountsIt() {
        StagingPool pool = pool(4, new CountingMemory(), STOPPED);
        assertEquals(0, pool.reserve(4L * BLOCK_BYTES, -1, 0));
        assertEquals(NO_EXTENT, pool.reserve(1, -1, 0), "the whole budget is borrowed");
        assertEquals(1, pool.timeouts());
        assertThrows(IllegalArgumentException.class, () -> pool.reserve(5L * BLOCK_BYTES, -1, 0),
                "more than the budget can never be had");
        assertThrows(IllegalArgumentException.class, () -> pool.reserve(0, -1, 0));
        pool.close();
    }

    @Test
    void partialReturnsFreeBlocksForOthersWhileTheRestStaysBorrowed() {
        StagingPool pool = pool(4, new CountingMemory(), STOPPED);
        long extent = pool.reserve(4L * BLOCK_BYTES, -1, 0);
        pool.release(extent, 2L * BLOCK_BYTES);
        assertEquals(0, pool.reserve(2L * BLOCK_BYTES, -1, 0), "the returned head is reusable");
        assertEquals(NO_EXTENT, pool.reserve(1, -1, 0), "the tail is still borrowed");
        pool.release(3L * BLOCK_BYTES, BLOCK_BYTES);
        assertEquals(3L * BLOCK_BYTES, pool.reserve(1, -1, 0));
        assertEquals(4L * BLOCK_BYTES, pool.inUseBytes());
        pool.close();
    }

    @Test
    void fragmentedFreeBlocksDoNotMakeAContiguousExtent() {
        StagingPool pool = pool(4, new CountingMemory(), STOPPED);
        long[] single = new long[4];
        for (int i = 0; i < 4; i++) {
            single[i] = pool.reserve(1, -1, 0);
        }
        pool.release(single[0], BLOCK_BYTES);
        pool.release(single[2], BLOCK_BYTES);
        assertEquals(NO_EXTENT, pool.reserve(2L * BLOCK_BYTES, -1, 0),
                "two free blocks that are not adjacent cannot hold a 2-block response");
        pool.release(single[1], BLOCK_BYTES);
        assertEquals(0, pool.reserve(3L * BLOCK_BYTES, -1, 0), "first fit once blocks 0..2 are free");
        pool.close();
    }

    @Test
    void thePreviousExtentIsTriedFirstSoAConnectionKeepsItsView() {
        StagingPool pool = pool(16, new CountingMemory(), STOPPED);
        long other = pool.reserve(BLOCK_BYTES, -1, 0);
        long mine = pool.reserve(2L * BLOCK_BYTES, 8L * BLOCK_BYTES, 0);
        assertEquals(8L * BLOCK_BYTES, mine);
        pool.release(other, BLOCK_BYTES);
        pool.release(mine, 2L * BLOCK_BYTES);
        assertEquals(mine, pool.reserve(2L * BLOCK_BYTES, mine, 0), "first fit would have chosen 0");
        pool.close();
    }

    @Test
    void returningWhatIsNotBorrowedOrNotWholeBlocksIsRefused() {
        StagingPool pool = pool(4, new CountingMemory(), STOPPED);
        long extent = pool.reserve(BLOCK_BYTES, -1, 0);
        assertThrows(IllegalArgumentException.class, () -> pool.release(extent, 100));
        assertThrows(IllegalArgumentException.class, () -> pool.release(extent + 1, BLOCK_BYTES));
        assertThrows(IllegalArgumentException.class, () -> pool.release(BLOCK_BYTES, BLOCK_BYTES),
                "block 1 was never borrowed");
        assertThrows(IllegalArgumentException.class, () -> pool.release(0, 5L * BLOCK_BYTES));
        pool.release(extent, BLOCK_BYTES);
        IllegalArgumentException twice = assertThrows(IllegalArgumentException.class,
                () -> pool.release(extent, BLOCK_BYTES));
        assertTrue(twice.getMessage().contains("not borrowed"), twice.getMessage());
        pool.release(extent, 0);
        pool.close();
    }

    @Test
    void aFailedAllocationIsReportedWithTheFixAndRetriedByTheNextReservation() {
        CountingMemory memory = new CountingMemory();
        memory.failing = true;
        StagingPool pool = pool(4, memory, STOPPED);
        OflException e = assertThrows(OflException.class, () -> pool.reserve(1, -1, 0));
        assertTrue(e.getMessage().contains("stagingBudgetBytes"), e.getMessage());
        assertEquals(0, pool.inUseBytes(), "the failed reservation holds nothing");
        memory.failing = false;
        assertEquals(0, pool.reserve(4L * BLOCK_BYTES, -1, 0), "every block is free again");
        assertEquals(2, memory.allocations.get());
        pool.close();
    }

    @Test
    void aPinnedPoolKeepsItsMemory() {
        CountingMemory memory = new CountingMemory();
        StagingPool pool = pool(2, memory, STOPPED);
        pool.reserve(1, -1, 0);
        pool.pin();
        pool.close();
        assertTrue(pool.pinned());
        assertEquals(0, memory.frees.get(), "a device might still read it");
    }

    @Test
    void aWaitingReservationGetsTheExtentWhenItIsReturned() throws Exception {
        StagingPool pool = pool(4, new CountingMemory(), NanoClock.SYSTEM);
        long all = pool.reserve(4L * BLOCK_BYTES, -1, FOREVER);
        ExecutorService executor = Executors.newSingleThreadExecutor();
        try {
            Future<Long> waiting = executor.submit(() -> pool.reserve(3L * BLOCK_BYTES, -1, FOREVER));
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (pool.waits() == 0 && System.nanoTime() - deadline < 0) {
                Thread.onSpinWait();
            }
            assertEquals(1, pool.waits(), "the second reservation waits");
            assertFalse(waiting.isDone());
            pool.release(all, 4L * BLOCK_BYTES);
            assertEquals(0L, waiting.get(10, TimeUnit.SECONDS));
        } finally {
            executor.shutdownNow();
        }
        pool.close();
    }

    @Test
    void closingWakesWaitersWithAnError() throws Exception {
        StagingPool pool = pool(1, new CountingMemory(), NanoClock.SYSTEM);
        pool.reserve(1, -1, FOREVER);
        ExecutorService executor = Executors.newSingleThreadExecutor();
        try {
            Future<Long> waiting = executor.submit(() -> pool.reserve(1, -1, FOREVER));
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (pool.waits() == 0 && System.nanoTime() - deadline < 0) {
                Thread.onSpinWait();
            }
            pool.close();
            java.util.concurrent.ExecutionException e = assertThrows(java.util.concurrent.ExecutionException.class,
                    () -> waiting.get(10, TimeUnit.SECONDS));
            assertTrue(e.getCause() instanceof IllegalStateException, String.valueOf(e.getCause()));
        } finally {
            executor.shutdownNow();
        }
    }

    /**
     * Threads borrow extents of random sizes, fill them with their own mark, return them in random
     * pieces, and check that nobody else wrote into them: extents never overlap and the budget
     * holds at every moment.
     */
    @Test
    void theBudgetHoldsAndExtentsNeverOverlapUnderConcurrency() throws Exception {
        int blocks = 64;
        StagingPool pool = pool(blocks, new CountingMemory(), NanoClock.SYSTEM);
        int threads = 4;
        int rounds = 2_000;
        AtomicLong borrowed = new AtomicLong();
        AtomicLong mostBorrowed = new AtomicLong();
        CountDownLatch start = new CountDownLatch(1);
        ExecutorService executor = Executors.newFixedThreadPool(threads);
        List<Future<Integer>> results = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            byte mark = (byte) (t + 1);
            long seed = 17 + t;
            results.add(executor.submit(() -> {
                SplittableRandom random = new SplittableRandom(seed);
                start.await();
                int granted = 0;
                for (int r = 0; r < rounds; r++) {
                    long bytes = 1 + random.nextLong(24L * BLOCK_BYTES);
                    long at = pool.reserve(bytes, -1, TimeUnit.SECONDS.toNanos(10));
                    if (at == NO_EXTENT) {
                        continue;
                    }
                    granted++;
                    long extent = StagingPool.blocksFor(bytes) * BLOCK_BYTES;
                    long now = borrowed.addAndGet(extent);
                    mostBorrowed.accumulateAndGet(now, Math::max);
                    MemorySegment view = pool.view(at, extent);
                    view.fill(mark);
                    Thread.yield();
                    for (long i = 0; i < extent; i += 512) {
                        if (view.get(ValueLayout.JAVA_BYTE, i) != mark) {
                            throw new AssertionError("byte " + (at + i) + " of an extent was written by another");
                        }
                    }
                    long returned = 0;
                    while (returned < extent) {
                        long piece = Math.min(extent - returned,
                                (1 + random.nextLong(4)) * BLOCK_BYTES);
                        borrowed.addAndGet(-piece);
                        pool.release(at + returned, piece);
                        returned += piece;
                    }
                }
                return granted;
            }));
        }
        start.countDown();
        int granted = 0;
        for (Future<Integer> result : results) {
            granted += result.get(60, TimeUnit.SECONDS);
        }
        executor.shutdown();
        assertEquals((long) threads * rounds, granted, "with a 10 s bound every reservation is served");
        assertTrue(mostBorrowed.get() <= (long) blocks * BLOCK_BYTES, "borrowed " + mostBorrowed.get());
        assertTrue(pool.highWaterBytes() <= (long) blocks * BLOCK_BYTES);
        assertNotEquals(0, pool.highWaterBytes());
        assertEquals(0, pool.inUseBytes(), "everything came back");
        pool.close();
    }

    @Test
    void theBudgetIsRoundedUpToWholeBlocksFromOneByte() {
        assertEquals(BLOCK_BYTES, new StagingPool(1, new CountingMemory(), STOPPED).budgetBytes());
        assertEquals(2 * BLOCK_BYTES, new StagingPool(BLOCK_BYTES + 1, new CountingMemory(), STOPPED).budgetBytes());
        assertThrows(IllegalArgumentException.class, () -> new StagingPool(0, new CountingMemory(), STOPPED));
        assertThrows(IllegalArgumentException.class, () -> new StagingPool(
                (Integer.MAX_VALUE - 63L) * BLOCK_BYTES, new CountingMemory(), STOPPED), "more blocks than a bit map holds");
        assertEquals(BLOCK_BYTES, StagingPool.blockFloor(2L * BLOCK_BYTES - 1));
        assertEquals(2L * BLOCK_BYTES, StagingPool.blockFloor(2L * BLOCK_BYTES));
        assertEquals(0, StagingPool.blockFloor(BLOCK_BYTES - 1));
    }

    @Test
    void anExtentFitsExactlyAtTheEndOfThePool() {
        StagingPool pool = pool(4, new CountingMemory(), STOPPED);
        assertEquals(0, pool.reserve(BLOCK_BYTES, -1, 0));
        assertEquals(BLOCK_BYTES, pool.reserve(3L * BLOCK_BYTES, -1, 0), "blocks 1 to 3 are the last three");
        pool.release(3L * BLOCK_BYTES, BLOCK_BYTES);
        assertEquals(3L * BLOCK_BYTES, pool.reserve(BLOCK_BYTES, 3L * BLOCK_BYTES, 0), "the last block, preferred");
        pool.release(0, 4L * BLOCK_BYTES);
        assertEquals(0, pool.inUseBytes());
        pool.close();
    }

    @Test
    void firstFitLooksAtEveryBlockOfAPartlyUsedWordAndSkipsFullOnes() {
        StagingPool pool = pool(130, new CountingMemory(), STOPPED);
        assertEquals(0, pool.reserve(BLOCK_BYTES, -1, 0));
        assertEquals(BLOCK_BYTES, pool.reserve(BLOCK_BYTES, -1, 0), "the next block of the same word");
        assertEquals(2L * BLOCK_BYTES, pool.reserve(62L * BLOCK_BYTES, -1, 0), "the rest of the first word");
        assertEquals(64L * BLOCK_BYTES, pool.reserve(BLOCK_BYTES, -1, 0), "past the full first word");
        assertEquals(65L * BLOCK_BYTES, pool.reserve(65L * BLOCK_BYTES, -1, 0), "up to the pool's end");
        assertEquals(NO_EXTENT, pool.reserve(BLOCK_BYTES, -1, 0), "nothing left");
        pool.release(BLOCK_BYTES, BLOCK_BYTES);
        assertEquals(BLOCK_BYTES, pool.reserve(BLOCK_BYTES, -1, 0), "the one hole in a full pool");
        pool.close();
    }

    @Test
    void aPreferredExtentIsTakenOnlyIfEveryOneOfItsBlocksIsFree() {
        StagingPool pool = pool(8, new CountingMemory(), STOPPED);
        long a = pool.reserve(2L * BLOCK_BYTES, -1, 0);
        long b = pool.reserve(2L * BLOCK_BYTES, -1, 0);
        assertEquals(2L * BLOCK_BYTES, b);
        pool.release(a, 2L * BLOCK_BYTES);
        assertEquals(4L * BLOCK_BYTES, pool.reserve(3L * BLOCK_BYTES, a, 0),
                "the preferred offset's third block is borrowed: first fit instead");
        assertEquals(a, pool.reserve(2L * BLOCK_BYTES, a, 0), "exactly the two free blocks before a borrowed one");
        pool.close();
    }

    @Test
    void returningTheLastBlockIsAllowedAndBeyondItIsRefusedNamingTheRange() {
        StagingPool pool = pool(2, new CountingMemory(), STOPPED);
        assertEquals(0, pool.reserve(2L * BLOCK_BYTES, -1, 0));
        IllegalArgumentException beyond = assertThrows(IllegalArgumentException.class,
                () -> pool.release(2L * BLOCK_BYTES, BLOCK_BYTES));
        assertTrue(beyond.getMessage().contains("[" + 2 * BLOCK_BYTES + ", " + 3 * BLOCK_BYTES + ")"),
                beyond.getMessage());
        pool.release(BLOCK_BYTES, BLOCK_BYTES);
        IllegalArgumentException twice = assertThrows(IllegalArgumentException.class,
                () -> pool.release(BLOCK_BYTES, BLOCK_BYTES));
        assertTrue(twice.getMessage().contains("block 1 (bytes [" + BLOCK_BYTES + ", " + 2 * BLOCK_BYTES + "))"),
                twice.getMessage());
        assertEquals(BLOCK_BYTES, pool.inUseBytes());
        pool.close();
    }

    @Test
    void aZeroTimeoutDoesNotWait() {
        AtomicLong now = new AtomicLong(NOW);
        StagingPool pool = pool(1, new CountingMemory(), now::get);
        assertEquals(0, pool.reserve(BLOCK_BYTES, -1, 0));
        assertEquals(NO_EXTENT, pool.reserve(BLOCK_BYTES, -1, 0));
        assertEquals(0, pool.waits(), "a zero timeout is not waited for");
        assertEquals(1, pool.timeouts());
        assertThrows(IllegalArgumentException.class, () -> pool.reserve(BLOCK_BYTES, -1, -1));
        pool.close();
    }

    /** The timeout runs from the first clock reading, taken once no extent was free. */
    @Test
    void aReservationWaitsOutItsTimeoutOnThePoolsClock() {
        long stepNs = TimeUnit.MILLISECONDS.toNanos(1);
        AtomicLong now = new AtomicLong(NOW);
        // Each reading is a millisecond after the one before it.
        StagingPool pool = pool(1, new CountingMemory(), () -> now.getAndAdd(stepNs));
        assertEquals(0, pool.reserve(BLOCK_BYTES, -1, FOREVER));
        assertEquals(NOW, now.get(), "a free extent is had without reading the clock");
        assertEquals(NO_EXTENT, pool.reserve(BLOCK_BYTES, -1, 3 * stepNs / 2));
        assertEquals(1, pool.waits(), "half a millisecond was left after the second reading");
        assertEquals(1, pool.timeouts(), "and none after the third");
        assertEquals(NOW + 3 * stepNs, now.get(), "read at the start and before and after the one wait");
        pool.close();
    }

    @Test
    void tryingToReserveNeitherWaitsNorReadsTheClock() {
        NanoClock unread = () -> {
            throw new AssertionError("tryReserve read the clock");
        };
        StagingPool pool = pool(4, new CountingMemory(), unread);
        long first = pool.tryReserve(3L * BLOCK_BYTES, -1);
        assertEquals(0, first);
        assertEquals(NO_EXTENT, pool.tryReserve(2L * BLOCK_BYTES, -1), "two blocks are not free");
        assertEquals(3L * BLOCK_BYTES, pool.tryReserve(1, -1), "the last block is");
        assertEquals(0, pool.waits(), "a try that finds nothing does not wait");
        assertEquals(0, pool.timeouts(), "and is not a timeout: the caller may still wait");
        pool.release(first, 3L * BLOCK_BYTES);
        assertEquals(BLOCK_BYTES, pool.tryReserve(2L * BLOCK_BYTES, BLOCK_BYTES), "the preferred offset first");
        assertEquals(3L * BLOCK_BYTES, pool.inUseBytes());
        assertThrows(IllegalArgumentException.class, () -> pool.tryReserve(0, -1));
        assertThrows(IllegalArgumentException.class, () -> pool.tryReserve(5L * BLOCK_BYTES, -1));
        pool.close();
        assertThrows(IllegalStateException.class, () -> pool.tryReserve(1, -1));
    }

    @Test
    void anInterruptedReservationGivesUpKeepingTheInterrupt() {
        StagingPool pool = pool(1, new CountingMemory(), System::nanoTime);
        assertEquals(0, pool.reserve(BLOCK_BYTES, -1, 0));
        Thread.currentThread().interrupt();
        try {
            assertEquals(NO_EXTENT, pool.reserve(BLOCK_BYTES, -1, TimeUnit.DAYS.toNanos(1)));
            assertTrue(Thread.currentThread().isInterrupted(), "the interrupt is kept for the caller");
        } finally {
            Thread.interrupted();
        }
        assertEquals(1, pool.waits());
        assertEquals(1, pool.timeouts());
        assertEquals(BLOCK_BYTES, pool.inUseBytes());
        pool.close();
    }

    @Test
    void theProcessWideStagingFigureFollowsAllocationAndClose() {
        long before = ServerMemory.stagingBytes();
        StagingPool pool = pool(3, new CountingMemory(), STOPPED);
        assertEquals(before, ServerMemory.stagingBytes(), "nothing allocated yet");
        pool.release(pool.reserve(BLOCK_BYTES, -1, 0), BLOCK_BYTES);
        assertEquals(before + 3L * BLOCK_BYTES, ServerMemory.stagingBytes());
        pool.close();
        assertEquals(before, ServerMemory.stagingBytes());
    }

    @Test
    void observersDoNotKeepThePoolLockedAndAFreshPoolIsNotPinned() throws Exception {
        StagingPool pool = pool(1, new CountingMemory(), STOPPED);
        assertFalse(pool.pinned());
        pool.highWaterBytes();
        pool.pinned();
        pool.budgetBytes();
        pool.pin();
        AtomicLong reserved = new AtomicLong(-2);
        Thread other = Thread.ofPlatform().start(() -> reserved.set(pool.reserve(BLOCK_BYTES, -1, 0)));
        other.join(TimeUnit.MINUTES.toMillis(1));
        assertFalse(other.isAlive(), "another thread could not take the pool's lock");
        assertEquals(0, reserved.get());
        assertTrue(pool.pinned());
    }

    @Test
    void offHeapMemoryIsFreedOnceAndViewsOfItDieWithIt() {
        StagingPool.Memory memory = StagingPool.Memory.offHeap();
        memory.free();
        MemorySegment segment = memory.allocate(BLOCK_BYTES);
        assertEquals(0, segment.address() % BLOCK_BYTES, "aligned to a block");
        segment.set(ValueLayout.JAVA_BYTE, 0, (byte) 1);
        memory.free();
        assertThrows(IllegalStateException.class, () -> segment.get(ValueLayout.JAVA_BYTE, 0),
                "the memory was freed");
        memory.free();
    }

    @Test
    void aShareCapsWhatOneBorrowerHoldsWhileOthersStillBorrow() {
        StagingPool pool = pool(8, new CountingMemory(), STOPPED);
        StagingPool.Share share = pool.share(3L * BLOCK_BYTES);
        long first = pool.reserve(2L * BLOCK_BYTES, -1, 0, share);
        assertEquals(StagingPool.NO_EXTENT, pool.reserve(2L * BLOCK_BYTES, -1, 0, share),
                "two more blocks would take the share past its three");
        assertEquals(StagingPool.NO_EXTENT, pool.tryReserve(2L * BLOCK_BYTES, -1, share));
        assertEquals(2L * BLOCK_BYTES, pool.heldBytes(share));
        long other = pool.reserve(5L * BLOCK_BYTES, -1, 0, pool.share(8L * BLOCK_BYTES));
        assertTrue(other >= 0, "another share borrows the rest of the pool");
        pool.release(first + BLOCK_BYTES, BLOCK_BYTES);
        assertEquals(BLOCK_BYTES, pool.heldBytes(share), "a block returned piecemeal goes back to its share");
        pool.release(other, 5L * BLOCK_BYTES);
        assertTrue(pool.reserve(2L * BLOCK_BYTES, -1, 0, share) >= 0, "room in the share again");
        assertEquals(3L * BLOCK_BYTES, pool.heldBytes(share));
        assertThrows(IllegalArgumentException.class, () -> pool.reserve(4L * BLOCK_BYTES, -1, 0, share),
                "an extent larger than the share can never be had");
        assertThrows(IllegalArgumentException.class, () -> pool.share(9L * BLOCK_BYTES));
    }

    @Test
    void aBorrowerWaitingForItsShareGetsItWhenItsOwnBlocksReturn() throws Exception {
        StagingPool pool = pool(8, new CountingMemory(), NanoClock.SYSTEM);
        StagingPool.Share share = pool.share(2L * BLOCK_BYTES);
        long held = pool.reserve(2L * BLOCK_BYTES, -1, FOREVER, share);
        ExecutorService executor = Executors.newSingleThreadExecutor();
        try {
            Future<Long> waiting = executor.submit(() -> pool.reserve(BLOCK_BYTES, -1, FOREVER, share));
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (pool.waits() == 0 && System.nanoTime() - deadline < 0) {
                Thread.onSpinWait();
            }
            assertEquals(1, pool.waits(), "the share is full though the pool has room: it waits");
            assertFalse(waiting.isDone());
            pool.release(held, BLOCK_BYTES);
            assertTrue(waiting.get(10, TimeUnit.SECONDS) >= 0);
        } finally {
            executor.shutdownNow();
        }
        assertEquals(2L * BLOCK_BYTES, pool.heldBytes(share));
        pool.close();
    }
}
