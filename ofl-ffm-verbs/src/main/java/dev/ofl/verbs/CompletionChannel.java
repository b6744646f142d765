package dev.ofl.verbs;

import dev.ofl.verbs.ffm.Verbs;
import dev.ofl.verbs.ffm.VerbsFunction;
import dev.ofl.verbs.ffm.ibv_comp_channel;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;

/**
 * A completion event channel ({@code struct ibv_comp_channel}): its file descriptor becomes
 * readable when a completion queue armed with {@link CompletionQueue#requestNotify(boolean)} gets
 * a completion. Closed after the completion queues of its context. One thread at a time may
 * {@link #awaitEvent()}; creation and closing are thread-safe.
 */
public final class CompletionChannel extends OwnedResource {
    private final Context context;
    private final MemorySegment channel;
    private final Arena scratchArena;
    private final MemorySegment eventQueueOut;
    private final MemorySegment eventContextOut;
    private final MemorySegment captureState;
    /** Copy-on-write array: read on every event, so iterating it must not allocate. */
    private volatile CompletionQueue[] queues = new CompletionQueue[0];

    private CompletionChannel(Context context, MemorySegment channel) {
        super(context);
        this.context = context;
        this.channel = channel;
        this.scratchArena = Arena.ofShared();
        this.eventQueueOut = scratchArena.allocate(ValueLayout.ADDRESS);
        this.eventContextOut = scratchArena.allocate(ValueLayout.ADDRESS);
        this.captureState = Native.captureState(scratchArena);
    }

    static CompletionChannel create(Context context) {
        MemorySegment channel;
        int errno;
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment state = Native.captureState(arena);
            try {
                channel = (MemorySegment) Verbs.IBV_CREATE_COMP_CHANNEL.invokeExact(
                        context.library().address(VerbsFunction.IBV_CREATE_COMP_CHANNEL), state, context.address());
            } catch (Throwable t) {
                throw Native.unchecked(t);
            }
            errno = Verbs.errno(state);
        }
        if (channel.equals(MemorySegment.NULL)) {
            throw VerbsException.errno("ibv_create_comp_channel", errno, "device " + context.deviceName(),
                    "raise the open-file limit (ulimit -n) if it is EMFILE; otherwise check the device with ibv_devinfo");
        }
        CompletionChannel created;
        try {
            created = new CompletionChannel(context, ibv_comp_channel.reinterpret(channel));
        } catch (RuntimeException e) {
            destroyNative(context, channel, e);
            throw e;
        }
        try {
            created.attach();
        } catch (RuntimeException e) {
            created.scratchArena.close();
            destroyNative(context, channel, e);
            throw e;
        }
        return created;
    }

    private static void destroyNative(Context context, MemorySegment channel, RuntimeException primary) {
        try {
            int ignored = (int) Verbs.IBV_DESTROY_COMP_CHANNEL.invokeExact(
                    context.library().address(VerbsFunction.IBV_DESTROY_COMP_CHANNEL), channel);
        } catch (Throwable t) {
            primary.addSuppressed(t);
        }
    }

    /**
     * Returns the file descriptor that becomes readable on a completion event, for
     * {@code poll}/{@code epoll}-style waiting.
     *
     * @return the descriptor
     */
    public int fileDescriptor() {
        return ibv_comp_channel.fd(channel);
    }

    /**
     * Returns the native {@code struct ibv_comp_channel *}.
     *
     * @return the channel, sized to the struct
     */
    public MemorySegment address() {
        return channel;
    }

    /**
     * Blocks until an armed completion queue of this channel has a completion
     * ({@code ibv_get_cq_event}). Acknowledge each event with
     * {@link CompletionQueue#acknowledgeEvents(int)} and re-arm the queue before polling it empty.
     * Allocation-free; only one thread at a time may wait on a channel.
     *
     * @return the completion queue that fired
     * @throws VerbsException if waiting fails (for example {@code EINTR} or a closed descriptor)
     */
    public CompletionQueue awaitEvent() {
        if (getEvent() != 0) {
            throw VerbsException.errno("ibv_get_cq_event", Verbs.errno(captureState), "channel fd " + fileDescriptor(),
                    "retry on EINTR; otherwise the channel was closed while waiting");
        }
        return fired();
    }

    /**
     * Takes one pending event without waiting ({@code ibv_get_cq_event} on a descriptor the caller
     * made non-blocking with {@code O_NONBLOCK}, as rdma-core documents for event polling). Each
     * event taken must be acknowledged like one from {@link #awaitEvent()}. Allocation-free; only
     * one thread at a time may take events from a channel.
     *
     * @return the completion queue that fired, or {@code null} when no event is pending
     * @throws VerbsException if reading the channel fails with anything but {@code EAGAIN}
     */
    public CompletionQueue takeEvent() {
        if (getEvent() != 0) {
            int errno = Verbs.errno(captureState);
            if (errno == Errno.EAGAIN) {
                return null;
            }
            throw VerbsException.errno("ibv_get_cq_event", errno, "channel fd " + fileDescriptor() + " (non-blocking)",
                    "the channel was closed while in use; close it only after its last reader is done");
        }
        return fired();
    }

    /** One {@code ibv_get_cq_event}; errno is in {@link #captureState} when it returns non-zero. */
    private int getEvent() {
        ensureOpen();
        try {
            return (int) Verbs.IBV_GET_CQ_EVENT.invokeExact(context.library().address(VerbsFunction.IBV_GET_CQ_EVENT),
                    captureState, channel, eventQueueOut, eventContextOut);
        } catch (Throwable t) {
            throw Native.unchecked(t);
        }
    }

    private CompletionQueue fired() {
        long fired = eventQueueOut.get(ValueLayout.JAVA_LONG, 0);
        for (CompletionQueue queue : queues) {
            if (queue.address().address() == fired) {
                queue.eventReceived();
                return queue;
            }
        }
        throw new IllegalStateException("ibv_get_cq_event returned cq 0x" + Long.toHexString(fired)
                + ", which was not created on this channel");
    }

    void register(CompletionQueue queue) {
        synchronized (this) {
            CompletionQueue[] grown = Arrays.copyOf(queues, queues.length + 1);
            grown[grown.length - 1] = queue;
            queues = grown;
        }
    }

    void unregister(CompletionQueue queue) {
        synchronized (this) {
            queues = Arrays.stream(queues).filter(q -> q != queue).toArray(CompletionQueue[]::new);
        }
    }

    @Override
    int closeRank() {
        return 2;
    }

    @Override
    void destroy() {
        int rc;
        try {
            rc = (int) Verbs.IBV_DESTROY_COMP_CHANNEL.invokeExact(
                    context.library().address(VerbsFunction.IBV_DESTROY_COMP_CHANNEL), channel);
        } catch (Throwable t) {
            throw Native.unchecked(t);
        }
        if (rc != 0) {
            throw VerbsException.returned("ibv_destroy_comp_channel", rc, "channel fd " + fileDescriptor(),
                    "close the completion queues that use this channel first");
        }
        scratchArena.close();
    }

    @Override
    public String toString() {
        return "CompletionChannel[" + context.deviceName() + ", fd " + fileDescriptor() + "]";
    }
}
