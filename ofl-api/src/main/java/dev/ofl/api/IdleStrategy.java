package dev.ofl.api;

/**
 * What a busy-polling loop does when a poll found no work. Poll methods return a work count; the
 * loop passes it here, and a count of zero means idle.
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
}
