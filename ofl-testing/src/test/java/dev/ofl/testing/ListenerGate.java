package dev.ofl.testing;

import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

/**
 * Holds a server's listener thread where it reads the server's clock: a test clock calls
 * {@link #pass()} on every read, and after {@link #hold()} the listener (the thread whose name has
 * {@code -accept-}) stops there until {@link #release()}. Meanwhile sockets queue in the kernel
 * unaccepted, and {@code close()} waits for a listener that does not come.
 */
final class ListenerGate {
    private final long waitMs;
    private final Semaphore arrived = new Semaphore(0);
    private volatile CountDownLatch closed;

    /** @param waitMs how long {@link #hold()} waits for the listener to come to the gate */
    ListenerGate(long waitMs) {
        this.waitMs = waitMs;
    }

    /** Called by the test clock on every read: the listener waits here while the gate is closed. */
    void pass() {
        CountDownLatch gate = closed;
        if (gate == null || !Thread.currentThread().getName().contains("-accept-") || inRepeatedLog()) {
            return;
        }
        arrived.release();
        try {
            gate.await();
        } catch (InterruptedException e) {
            // Whoever interrupts the listener is ending it: let it go, and let it see why.
            Thread.currentThread().interrupt();
        }
    }

    /**
     * The server's rate-limited log reads the clock under its lock, which connection threads take
     * to log: a listener held there would hold them too.
     */
    private static boolean inRepeatedLog() {
        return StackWalker.getInstance().walk(frames -> frames.anyMatch(
                frame -> frame.getClassName().equals("dev.ofl.api.spi.RepeatedLog")));
    }

    /** Closes the gate and returns once the listener waits at it (it reads the clock at least every tick). */
    void hold() throws InterruptedException {
        assertNull(closed, "the listener is held already");
        closed = new CountDownLatch(1);
        assertTrue(arrived.tryAcquire(waitMs, TimeUnit.MILLISECONDS), "the listener never read the clock");
    }

    /** Lets the listener go on, if it is held; a test's clean-up calls this whatever happened. */
    void release() {
        CountDownLatch gate = closed;
        closed = null;
        if (gate != null) {
            gate.countDown();
        }
    }
}
