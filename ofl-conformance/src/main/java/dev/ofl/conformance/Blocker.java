package dev.ofl.conformance;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/** Blocks a handler until the test releases it; both waits are bounded. Thread-safe. */
final class Blocker {
    private final CountDownLatch entered = new CountDownLatch(1);
    private final CountDownLatch released = new CountDownLatch(1);

    /** Called by the handler: records entry, then waits for {@link #release()}. */
    void block() throws InterruptedException {
        entered.countDown();
        if (!released.await(Fixture.WAIT_SECONDS * 2, TimeUnit.SECONDS)) {
            throw new IllegalStateException("the test never released the handler");
        }
    }

    /** Called by the test: returns once the handler is blocked, or fails. */
    void awaitEntered() {
        try {
            assertTrue(entered.await(Fixture.WAIT_SECONDS, TimeUnit.SECONDS), "the handler was never called");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }

    /** Lets the blocked handler go on. */
    void release() {
        released.countDown();
    }
}
