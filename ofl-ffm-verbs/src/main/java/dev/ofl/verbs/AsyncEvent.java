package dev.ofl.verbs;

import dev.ofl.verbs.ffm.Verbs;
import dev.ofl.verbs.ffm.VerbsFunction;
import dev.ofl.verbs.ffm.ibv_async_event;
import dev.ofl.verbs.ffm.ibv_event_type;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * Reads a device context's asynchronous events, one at a time, into one buffer of its own: a port
 * that went down or came up, a fatal device error, a GID table change, or an error of one queue
 * pair or completion queue. {@link #take()} reads the next event without waiting (the context's
 * {@linkplain Context#asyncEventDescriptor() descriptor} must be non-blocking); its fields are then
 * readable until it is {@linkplain #acknowledge() acknowledged}, which must happen before the next
 * {@code take()}: libibverbs makes destroying a queue pair or completion queue wait for the
 * acknowledgement of every event about it. Taking and acknowledging allocate nothing. Used by one
 * thread at a time; {@link #close()} frees the buffer, after the last event was acknowledged.
 */
public final class AsyncEvent implements AutoCloseable {
    private final Context context;
    private final Arena arena = Arena.ofShared();
    private final MemorySegment event = ibv_async_event.allocate(arena);
    private final MemorySegment state = Native.captureState(arena);
    private boolean pending;
    private int type;
    private int port;
    private long element;

    AsyncEvent(Context context) {
        this.context = context;
    }

    /**
     * Takes the next pending event ({@code ibv_get_async_event}) without waiting.
     *
     * @return {@code true} if an event was taken, {@code false} if none is pending
     * @throws IllegalStateException if the previous event was not acknowledged
     * @throws VerbsException if reading fails with anything but {@code EAGAIN}: after the device
     *     was removed the kernel answers {@code EIO}
     */
    public boolean take() {
        if (pending) {
            throw new IllegalStateException("the previous event was not acknowledged");
        }
        int rc;
        try {
            rc = (int) Verbs.IBV_GET_ASYNC_EVENT.invokeExact(
                    context.library().address(VerbsFunction.IBV_GET_ASYNC_EVENT), state, context.address(), event);
        } catch (Throwable t) {
            throw Native.unchecked(t);
        }
        if (rc != 0) {
            int errno = Verbs.errno(state);
            if (errno == Errno.EAGAIN) {
                return false;
            }
            throw VerbsException.errno("ibv_get_async_event", errno, "device " + context.deviceName()
                    + " (non-blocking)", "the device was removed or failed; close this context and open the device "
                    + "again");
        }
        pending = true;
        type = ibv_async_event.event_type(event);
        port = ibv_async_event.element_port_num(event);
        element = ibv_async_event.element(event);
        return true;
    }

    /**
     * Returns the type of the event taken.
     *
     * @return an {@code ibv_event_type} value
     */
    public int type() {
        return type;
    }

    /**
     * Returns the C name of the event's type, for messages.
     *
     * @return for example {@code IBV_EVENT_PORT_ERR}
     */
    public String typeName() {
        return ibv_event_type.name(type);
    }

    /**
     * Tells whether the event is about a port ({@code PORT_ACTIVE}, {@code PORT_ERR}, the LID,
     * P_Key, SM, client re-register and GID changes), so that {@link #port()} is meaningful.
     *
     * @return true for a port event
     */
    public boolean isPortEvent() {
        return switch (type) {
            case ibv_event_type.IBV_EVENT_PORT_ACTIVE, ibv_event_type.IBV_EVENT_PORT_ERR,
                    ibv_event_type.IBV_EVENT_LID_CHANGE, ibv_event_type.IBV_EVENT_PKEY_CHANGE,
                    ibv_event_type.IBV_EVENT_SM_CHANGE, ibv_event_type.IBV_EVENT_CLIENT_REREGISTER,
                    ibv_event_type.IBV_EVENT_GID_CHANGE -> true;
            default -> false;
        };
    }

    /**
     * Returns the port of a port event.
     *
     * @return the port number, from 1; meaningless unless {@link #isPortEvent()}
     */
    public int port() {
        return port;
    }

    /**
     * Returns the address of the queue pair, completion queue, SRQ or WQ the event is about.
     *
     * @return the address; meaningless for port and device events
     */
    public long element() {
        return element;
    }

    /** Acknowledges the event taken ({@code ibv_ack_async_event}); does nothing if there is none. */
    public void acknowledge() {
        if (!pending) {
            return;
        }
        pending = false;
        try {
            Verbs.IBV_ACK_ASYNC_EVENT.invokeExact(context.library().address(VerbsFunction.IBV_ACK_ASYNC_EVENT), event);
        } catch (Throwable t) {
            throw Native.unchecked(t);
        }
    }

    /** Acknowledges an event still taken, then frees the buffer. Idempotent. */
    @Override
    public void close() {
        if (arena.scope().isAlive()) {
            acknowledge();
            arena.close();
        }
    }

    @Override
    public String toString() {
        return typeName() + (isPortEvent() ? " on port " + port : "") + " of " + context.deviceName();
    }
}
