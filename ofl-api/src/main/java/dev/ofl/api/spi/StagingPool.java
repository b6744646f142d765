package dev.ofl.api.spi;

import dev.ofl.api.NanoClock;
import dev.ofl.api.OflException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A server's response staging memory, shared by all its connections and bounded by
 * {@link dev.ofl.api.ServerConfig#stagingBudgetBytes()}: a response borrows one contiguous
 * extent of whole {@link #BLOCK_BYTES}-byte blocks for its actual capacity when it starts, and
 * gives blocks back as the pieces written from them are sent (TCP) or their RDMA WRITEs complete.
 *
 * <p>The memory itself is obtained from the backend's {@link Memory} the first time a response
 * needs it (so a server that answered no request commits none), in one piece of the whole budget
 * (so that an RDMA backend registers it once), and kept until {@link #close()}.
 *
 * <p>Extents are first-fit over a bitmap of blocks, trying the caller's previous extent first, so
 * a connection whose responses keep their size gets the same extent back and its segment view can
 * be reused. Blocks are returned in any order and in any sub-range of an extent.
 *
 * <p>A borrower may hold a {@link Share}: the most it may hold at once, so that one connection
 * (a client that stops reading, or pipelines more than the pool holds) cannot take the whole pool.
 * Each block remembers the share that borrowed it, so blocks returned in any order, by whichever
 * thread, go back to the right account.
 *
 * <p>Thread-safe. {@link #tryReserve}, {@link #reserve} and {@link #release} allocate nothing
 * unless {@code reserve} has to wait.
 */
public final class StagingPool implements AutoCloseable {
    /** The unit of borrowing and returning. */
    public static final int BLOCK_BYTES = 4096;
    /** Returned by {@link #reserve} when no extent became free within the timeout, and by {@link #tryReserve} when none is free. */
    public static final long NO_EXTENT = -1;

    /** Where a pool's memory comes from: a backend allocates it, and for RDMA registers it. */
    public interface Memory {
        /**
         * Allocates the pool's memory; called once, by the first response that needs staging.
         *
         * @param bytes the budget, a multiple of {@link #BLOCK_BYTES}
         * @return at least {@code bytes} of memory aligned to {@link #BLOCK_BYTES}
         * @throws RuntimeException if it cannot be had; the next response asks again
         */
        MemorySegment allocate(long bytes);

        /** Frees the memory; called once by {@link StagingPool#close()}, never while it is in use. */
        void free();

        /**
         * Plain native memory from a shared arena, for backends whose devices need no registration.
         *
         * @return a new source; each pool needs its own
         */
        static Memory offHeap() {
            return new Memory() {
                private Arena arena;

                @Override
                public MemorySegment allocate(long bytes) {
                    Arena a = Arena.ofShared();
                    try {
                        MemorySegment segment = a.allocate(bytes, BLOCK_BYTES);
                        arena = a;
                        return segment;
                    } catch (RuntimeException | OutOfMemoryError e) {
                        a.close();
                        throw e;
                    }
                }

                @Override
                public void free() {
                    if (arena != null) {
                        arena.close();
                        arena = null;
                    }
                }
            };
        }
    }

    /**
     * One borrower's account: what it holds now and the most it may hold. Made by
     * {@link #share(long)}; its counts are guarded by the pool's lock.
     */
    public static final class Share {
        private final long limitBytes;
        private long heldBytes;

        private Share(long limitBytes) {
            this.limitBytes = limitBytes;
        }

        /**
         * The most this borrower may hold at once.
         *
         * @return bytes, a multiple of {@link #BLOCK_BYTES}
         */
        public long limitBytes() {
            return limitBytes;
        }
    }

    private final long budgetBytes;
    private final int blocks;
    /** One bit per block, set while the block is borrowed. */
    private final long[] used;
    /** The share each borrowed block counts against, or {@code null}: 0.1% of the budget in references. */
    private final Share[] owners;
    private final Memory source;
    private final NanoClock clock;
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition released = lock.newCondition();
    private MemorySegment memory;
    private long inUseBytes;
    private long highWaterBytes;
    private long waits;
    private long timeouts;
    private boolean pinned;
    private boolean closed;

    /**
     * Creates a pool; allocates nothing yet.
     *
     * @param budgetBytes the most memory the pool holds, at least one block; rounded up to whole blocks
     * @param source allocates the memory on first use
     * @param clock measures the timeouts of {@link #reserve}; it must advance with real time
     * @throws IllegalArgumentException if the budget is not positive or exceeds 2^31 blocks
     */
    public StagingPool(long budgetBytes, Memory source, NanoClock clock) {
        if (budgetBytes < 1) {
            throw new IllegalArgumentException("the staging budget must be at least 1 byte, was " + budgetBytes);
        }
        long n = blocksFor(budgetBytes);
        if (n > Integer.MAX_VALUE - 64) {
            throw new IllegalArgumentException("the staging budget of " + budgetBytes + " bytes is too large");
        }
        this.blocks = (int) n;
        this.budgetBytes = n * BLOCK_BYTES;
        this.used = new long[(blocks + 63) >>> 6];
        this.owners = new Share[blocks];
        this.source = source;
        this.clock = clock;
    }

    /**
     * Rounds a byte count up to whole blocks.
     *
     * @param bytes zero or more
     * @return the number of blocks that hold it
     */
    public static long blocksFor(long bytes) {
        return (bytes + BLOCK_BYTES - 1) / BLOCK_BYTES;
    }

    /**
     * The start of the block that holds a byte.
     *
     * @param offset a byte offset, zero or more
     * @return {@code offset} rounded down to a multiple of {@link #BLOCK_BYTES}
     */
    public static long blockFloor(long offset) {
        return offset - offset % BLOCK_BYTES;
    }

    /**
     * Borrows a contiguous extent, waiting up to a timeout for one to be returned. The clock is
     * read only when no extent is free at once, so a request whose staging is free costs none.
     *
     * @param bytes the extent's size, rounded up to whole blocks; at least 1 and at most the budget
     * @param preferredOffset an offset to try first (the caller's previous extent), or a negative value
     * @param timeoutNs how long to wait on the pool's clock, zero or more; zero does not wait
     * @return the extent's offset in {@link #memory()}, a multiple of {@link #BLOCK_BYTES}, or
     *     {@link #NO_EXTENT} if none became free in time or the waiting thread was interrupted
     *     (its interrupt status is kept); either counts in {@link #timeouts()}
     * @throws IllegalArgumentException if {@code bytes} is not positive or exceeds the budget, or
     *     {@code timeoutNs} is negative
     * @throws OflException if the pool's memory could not be allocated, naming the budget and the fix
     * @throws IllegalStateException if the pool was closed
     */
    public long reserve(long bytes, long preferredOffset, long timeoutNs) {
        return reserve(bytes, preferredOffset, timeoutNs, null);
    }

    /**
     * Borrows a contiguous extent against a share, as {@link #reserve(long, long, long)} does: an
     * extent that would take the share past its limit is waited for like one that is not free.
     *
     * @param bytes the extent's size, rounded up to whole blocks; at least 1 and at most the budget
     * @param preferredOffset an offset to try first (the caller's previous extent), or a negative value
     * @param timeoutNs how long to wait on the pool's clock, zero or more; zero does not wait
     * @param share the borrower's account, or {@code null} for none
     * @return the extent's offset, or {@link #NO_EXTENT} (see {@link #reserve(long, long, long)})
     * @throws IllegalArgumentException if {@code bytes} is not positive or exceeds the budget or
     *     the share's limit, or {@code timeoutNs} is negative
     * @throws OflException if the pool's memory could not be allocated, naming the budget and the fix
     * @throws IllegalStateException if the pool was closed
     */
    public long reserve(long bytes, long preferredOffset, long timeoutNs, Share share) {
        int n = blocksWithin(bytes, share);
        if (timeoutNs < 0) {
            throw new IllegalArgumentException("a staging timeout must be zero or more, was " + timeoutNs + " ns");
        }
        lock.lock();
        try {
            long at = take(n, preferredOffset, share);
            if (at != NO_EXTENT) {
                return at;
            }
            // Compared by difference, so a timeout as large as Long.MAX_VALUE cannot overflow.
            long startNs = clock.nanoTime();
            boolean waited = false;
            while (true) {
                long remainingNs = timeoutNs - (clock.nanoTime() - startNs);
                if (remainingNs <= 0) {
                    timeouts++;
                    return NO_EXTENT;
                }
                if (!waited) {
                    waits++;
                    waited = true;
                }
                try {
                    released.awaitNanos(remainingNs);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    timeouts++;
                    return NO_EXTENT;
                }
                at = take(n, preferredOffset, share);
                if (at != NO_EXTENT) {
                    return at;
                }
            }
        } finally {
            lock.unlock();
        }
    }

    /**
     * Borrows a contiguous extent if one is free now, without waiting and without reading the
     * clock. Unlike {@code reserve} with a zero timeout, it does not count in {@link #timeouts()}
     * when it finds none: it is for a caller that has something else to try before it waits.
     *
     * @param bytes the extent's size, rounded up to whole blocks; at least 1 and at most the budget
     * @param preferredOffset an offset to try first (the caller's previous extent), or a negative value
     * @return the extent's offset in {@link #memory()}, a multiple of {@link #BLOCK_BYTES}, or
     *     {@link #NO_EXTENT} if no extent of that size is free
     * @throws IllegalArgumentException if {@code bytes} is not positive or exceeds the budget
     * @throws OflException if the pool's memory could not be allocated, naming the budget and the fix
     * @throws IllegalStateException if the pool was closed
     */
    public long tryReserve(long bytes, long preferredOffset) {
        return tryReserve(bytes, preferredOffset, null);
    }

    /**
     * Borrows a contiguous extent against a share if one is free now and the share has room, as
     * {@link #tryReserve(long, long)} does.
     *
     * @param bytes the extent's size, rounded up to whole blocks; at least 1 and at most the budget
     * @param preferredOffset an offset to try first (the caller's previous extent), or a negative value
     * @param share the borrower's account, or {@code null} for none
     * @return the extent's offset, or {@link #NO_EXTENT}
     * @throws IllegalArgumentException if {@code bytes} is not positive or exceeds the budget or
     *     the share's limit
     * @throws OflException if the pool's memory could not be allocated, naming the budget and the fix
     * @throws IllegalStateException if the pool was closed
     */
    public long tryReserve(long bytes, long preferredOffset, Share share) {
        int n = blocksWithin(bytes, share);
        lock.lock();
        try {
            return take(n, preferredOffset, share);
        } finally {
            lock.unlock();
        }
    }

    /**
     * A new account for one borrower.
     *
     * @param limitBytes the most it may hold at once, rounded up to whole blocks; at least one
     *     block and at most the budget
     * @return the share, holding nothing
     * @throws IllegalArgumentException if the limit is not positive or exceeds the budget
     */
    public Share share(long limitBytes) {
        if (limitBytes < 1 || limitBytes > budgetBytes) {
            throw new IllegalArgumentException("a staging share of " + limitBytes + " bytes is not within the budget "
                    + "of " + budgetBytes + " bytes");
        }
        return new Share(blocksFor(limitBytes) * BLOCK_BYTES);
    }

    /**
     * What a share holds now.
     *
     * @param share an account of this pool
     * @return bytes, a multiple of {@link #BLOCK_BYTES}
     */
    public long heldBytes(Share share) {
        lock.lock();
        try {
            return share.heldBytes;
        } finally {
            lock.unlock();
        }
    }

    private int blocksWithin(long bytes, Share share) {
        if (bytes < 1 || bytes > budgetBytes) {
            throw new IllegalArgumentException("a staging extent of " + bytes + " bytes does not fit the budget of "
                    + budgetBytes + " bytes");
        }
        if (share != null && bytes > share.limitBytes) {
            throw new IllegalArgumentException("a staging extent of " + bytes + " bytes exceeds the share of "
                    + share.limitBytes + " bytes one connection may hold");
        }
        return (int) blocksFor(bytes);
    }

    /**
     * Marks {@code n} free blocks borrowed, the preferred ones if free, if the share has room for
     * them; the lock is held.
     */
    private long take(int n, long preferredOffset, Share share) {
        if (closed) {
            throw new IllegalStateException("the staging pool is closed");
        }
        long bytes = (long) n * BLOCK_BYTES;
        if (share != null && share.heldBytes + bytes > share.limitBytes) {
            return NO_EXTENT;
        }
        int start = find(n, preferredOffset < 0 ? -1 : (int) (preferredOffset / BLOCK_BYTES));
        if (start < 0) {
            return NO_EXTENT;
        }
        mark(start, n, true);
        if (memory == null) {
            allocateOrUndo(start, n);
        }
        if (share != null) {
            share.heldBytes += bytes;
            for (int b = start; b < start + n; b++) {
                owners[b] = share;
            }
        }
        inUseBytes += bytes;
        ServerMemory.STAGING_IN_USE.add(bytes);
        highWaterBytes = Math.max(highWaterBytes, inUseBytes);
        return (long) start * BLOCK_BYTES;
    }

    private void allocateOrUndo(int start, int n) {
        try {
            MemorySegment m = source.allocate(budgetBytes);
            if (m.byteSize() < budgetBytes) {
                throw new IllegalStateException("the staging memory has " + m.byteSize() + " bytes, not "
                        + budgetBytes);
            }
            memory = m;
            ServerMemory.STAGING.add(budgetBytes);
        } catch (RuntimeException | OutOfMemoryError e) {
            mark(start, n, false);
            throw new OflException("cannot allocate the response staging budget of " + budgetBytes + " bytes: " + e
                    + "; lower ServerConfig.stagingBudgetBytes (and the limits' maxResponseBytes with it) or give "
                    + "the process more memory", e);
        }
    }

    /**
     * Returns blocks of an extent; any block-aligned sub-range, in any order.
     *
     * @param offset the first byte returned, a multiple of {@link #BLOCK_BYTES}
     * @param bytes how many, a multiple of {@link #BLOCK_BYTES}; zero returns nothing
     * @throws IllegalArgumentException if the range is not block-aligned, lies outside the pool, or
     *     holds a block that is not borrowed (a bug: it would hand memory to two responses)
     */
    public void release(long offset, long bytes) {
        if (bytes == 0) {
            return;
        }
        if (offset < 0 || bytes < 0 || offset % BLOCK_BYTES != 0 || bytes % BLOCK_BYTES != 0
                || offset + bytes > budgetBytes) {
            throw new IllegalArgumentException("cannot return staging bytes [" + offset + ", " + (offset + bytes)
                    + "): not whole blocks of " + BLOCK_BYTES + " bytes within the budget of " + budgetBytes);
        }
        int start = (int) (offset / BLOCK_BYTES);
        int n = (int) (bytes / BLOCK_BYTES);
        lock.lock();
        try {
            for (int b = start; b < start + n; b++) {
                if ((used[b >>> 6] & (1L << b)) == 0) {
                    throw new IllegalArgumentException("staging block " + b + " (bytes [" + offset + ", "
                            + (offset + bytes) + ")) is returned but was not borrowed");
                }
            }
            mark(start, n, false);
            for (int b = start; b < start + n; b++) {
                Share owner = owners[b];
                if (owner != null) {
                    owner.heldBytes -= BLOCK_BYTES;
                    owners[b] = null;
                }
            }
            inUseBytes -= bytes;
            ServerMemory.STAGING_IN_USE.add(-bytes);
            released.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /** First fit of {@code n} free blocks, trying {@code preferred} first; -1 if none. */
    private int find(int n, int preferred) {
        if (preferred >= 0 && preferred + n <= blocks && free(preferred, n)) {
            return preferred;
        }
        int b = 0;
        while (b + n <= blocks) {
            long word = used[b >>> 6];
            if (word == -1L && (b & 63) == 0) {
                b += 64;
                continue;
            }
            if ((word & (1L << b)) != 0) {
                b++;
                continue;
            }
            int run = 1;
            while (run < n && (used[(b + run) >>> 6] & (1L << (b + run))) == 0) {
                run++;
            }
            if (run == n) {
                return b;
            }
            b += run + 1;
        }
        return -1;
    }

    private boolean free(int start, int n) {
        for (int b = start; b < start + n; b++) {
            if ((used[b >>> 6] & (1L << b)) != 0) {
                return false;
            }
        }
        return true;
    }

    private void mark(int start, int n, boolean borrowed) {
        for (int b = start; b < start + n; b++) {
            if (borrowed) {
                used[b >>> 6] |= 1L << b;
            } else {
                used[b >>> 6] &= ~(1L << b);
            }
        }
    }

    /**
     * The pool's memory, once a response needed it.
     *
     * @return the memory extents are offsets into, or {@code null} before the first {@link #reserve}
     */
    public MemorySegment memory() {
        lock.lock();
        try {
            return memory;
        } finally {
            lock.unlock();
        }
    }

    /**
     * A view of an extent the caller borrowed (allocates the view object).
     *
     * @param offset the extent's offset
     * @param bytes its size
     * @return the bytes {@code [offset, offset + bytes)} of {@link #memory()}
     */
    public MemorySegment view(long offset, long bytes) {
        return memory().asSlice(offset, bytes);
    }

    /**
     * The budget, rounded up to whole blocks.
     *
     * @return bytes
     */
    public long budgetBytes() {
        return budgetBytes;
    }

    /**
     * Memory the pool holds from its backend: zero until the first response, then the budget.
     *
     * @return bytes
     */
    public long committedBytes() {
        lock.lock();
        try {
            return memory == null ? 0 : budgetBytes;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Bytes borrowed now.
     *
     * @return a multiple of {@link #BLOCK_BYTES}
     */
    public long inUseBytes() {
        lock.lock();
        try {
            return inUseBytes;
        } finally {
            lock.unlock();
        }
    }

    /**
     * The most bytes ever borrowed at once.
     *
     * @return bytes
     */
    public long highWaterBytes() {
        lock.lock();
        try {
            return highWaterBytes;
        } finally {
            lock.unlock();
        }
    }

    /**
     * How many {@link #reserve} calls had to wait.
     *
     * @return a count
     */
    public long waits() {
        lock.lock();
        try {
            return waits;
        } finally {
            lock.unlock();
        }
    }

    /**
     * How many {@link #reserve} calls returned {@link #NO_EXTENT}.
     *
     * @return a count
     */
    public long timeouts() {
        lock.lock();
        try {
            return timeouts;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Keeps the memory allocated for the life of the process: called when a device might still
     * read an extent that could not be returned (its connection's teardown failed).
     */
    public void pin() {
        lock.lock();
        try {
            pinned = true;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Whether {@link #pin()} was called.
     *
     * @return {@code true} if the memory stays allocated
     */
    public boolean pinned() {
        lock.lock();
        try {
            return pinned;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Frees the memory through the backend, unless it was {@link #pin() pinned}; waiting
     * {@link #reserve} calls fail. Called once every connection has ended. Idempotent.
     */
    @Override
    public void close() {
        lock.lock();
        try {
            if (closed) {
                return;
            }
            closed = true;
            released.signalAll();
            if (memory != null && !pinned) {
                memory = null;
                ServerMemory.STAGING.add(-budgetBytes);
                source.free();
            }
        } finally {
            lock.unlock();
        }
    }
}
