package dev.ofl.verbs;

import dev.ofl.verbs.ffm.Verbs;
import dev.ofl.verbs.ffm.VerbsFunction;
import dev.ofl.verbs.ffm.ibv_async_event;
import dev.ofl.verbs.ffm.ibv_event_type;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * One asynchronous event of a device context, as {@link Context#takeAsyncEvent()} took it: a port
 * that went down or came up, a fatal device error, a GID table change, or an error of one queue
 * pair or completion queue. Must be {@linkplain #acknowledge() acknowledged} once, after the
 * object it names is no longer looked up: libibverbs makes destroying a queue pair or completion
 * queue wait for the acknowledgement of every event about it. Used by one thread.
 */
public final class AsyncEvent {
    private final Context context;
    private final Arena arena;
    private final MemorySegment event;
    private final int type;
    private final int port;
    private final long element;
    private boolean acknowledged;

    AsyncEvent(Context context, Arena arena, MemorySegment event) {
        this.context = context;
        this.arena = arena;
        this.event = event;
        this.type = ibv_async_event.event_type(event);
        this.port = ibv_async_event.element_port_num(event);
        this.element = ibv_async_event.element(event);
    }

    /**
     * Returns the event's type.
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

    /**
     * Acknowledges the event ({@code ibv_ack_async_event}) and frees its copy. Idempotent.
     */
    public void acknowledge() {
        if (acknowledged) {
            return;
        }
        acknowledged = true;
        try {
            Verbs.IBV_ACK_ASYNC_EVENT.invokeExact(context.library().address(VerbsFunction.IBV_ACK_ASYNC_EVENT), event);
        } catch (Throwable t) {
            throw Native.unchecked(t);
        } finally {
            arena.close();
        }
    }

    @Override
    public String toString() {
        return typeName() + (isPortEvent() ? " on port " + port : "") + " of " + context.deviceName();
    }
}
