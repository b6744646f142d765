package dev.ofl.api;

/**
 * A monotonic nanosecond clock. Deadlines passed to {@link OflClient#await} are instants of the
 * client's clock; tests inject their own.
 *
 * <p>Compare instants overflow-safely: {@code now - deadlineNs >= 0} means the deadline passed.
 */
@FunctionalInterface
public interface NanoClock {
    /** The system's monotonic clock, {@link System#nanoTime()}. */
    NanoClock SYSTEM = System::nanoTime;

    /**
     * Returns the current instant.
     *
     * @return nanoseconds from an arbitrary fixed origin
     */
    long nanoTime();
}
