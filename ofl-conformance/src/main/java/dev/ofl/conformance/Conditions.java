package dev.ofl.conformance;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

/** Bounded waits for tests of any module: a condition a correct server reaches promptly. */
public final class Conditions {
    private static final long BOUND_NS = TimeUnit.SECONDS.toNanos(60);

    private Conditions() {
    }

    /**
     * Waits until the condition holds, checking about every millisecond, at most 60 s.
     *
     * @param condition what must become true
     * @param what the condition in words, for the failure
     * @throws AssertionError naming {@code what} if it did not become true within the bound
     */
    public static void await(BooleanSupplier condition, String what) {
        long deadlineNs = System.nanoTime() + BOUND_NS;
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadlineNs >= 0) {
                throw new AssertionError("timed out waiting for " + what);
            }
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
        }
    }
}
