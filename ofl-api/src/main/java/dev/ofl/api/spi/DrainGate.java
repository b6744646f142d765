package dev.ofl.api.spi;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * Decides, race-free, between a connection taking its next request and the server closing it
 * while draining: a request that got in finishes (handler and response); once closed, no request
 * gets in. Thread-safe.
 */
public final class DrainGate {
    private static final int IDLE = 0;
    private static final int BUSY = 1;
    private static final int CLOSED = 2;

    private final AtomicInteger state = new AtomicInteger(IDLE);

    /** Creates an open, idle gate. */
    public DrainGate() {
    }

    /**
     * Called by the connection thread before it handles a request.
     *
     * @return {@code true} if it may; {@code false} if the server closed the connection
     */
    public boolean enter() {
        return state.compareAndSet(IDLE, BUSY);
    }

    /** Called by the connection thread when the request's response was sent. */
    public void exit() {
        state.compareAndSet(BUSY, IDLE);
    }

    /**
     * Called while draining: closes the gate if no request is being handled.
     *
     * @return {@code true} if the connection was idle and may be closed now
     */
    public boolean closeIfIdle() {
        return state.compareAndSet(IDLE, CLOSED) || state.get() == CLOSED;
    }
}
