package dev.ofl.api;

/**
 * What a busy-polling loop does when a poll found no work. Poll methods return a work count; the
 * loop passes it here, and a count of zero means idle.
 *
 * <p>A duty cycle calls {@link #reset()} when it starts waiting for something new, then
 * {@link #idle(int)} after every poll with the poll's work count, so that a strategy that backs
 * off (spin, then yield, then park) starts again from its cheapest step whenever work arrives.
 *
 * <p>Implementations are used by one thread at a time and must not allocate.
 */
@FunctionalInterface
public interface IdleStrategy {
    /** Spins with {@link Thread#onSpinWait()}: the lowest wake-up latency at the cost of a core. */
    IdleStrategy BUSY_SPIN = workCount -> {
        if (workCount == 0) {
            Thread.onSpinWait();
        }
    };

    /** Yields the processor when idle: gentler on a shared machine, slower to notice work. */
    IdleStrategy YIELD = workCount -> {
        if (workCount == 0) {
            Thread.yield();
        }
    };

    /**
     * Called after each poll.
     *
     * @param workCount the number of work items the poll did; zero means it found nothing
     */
    void idle(int workCount);

    /** Called when a wait for something new begins; a stateful strategy restarts its backoff. */
    default void reset() {
    }
}
