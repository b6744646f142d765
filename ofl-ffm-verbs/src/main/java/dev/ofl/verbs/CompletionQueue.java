package dev.ofl.verbs;

import dev.ofl.verbs.ffm.Verbs;
import dev.ofl.verbs.ffm.VerbsFunction;
import dev.ofl.verbs.ffm.ibv_context;
import dev.ofl.verbs.ffm.ibv_cq;
import dev.ofl.verbs.ffm.ibv_wc;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * A completion queue ({@code struct ibv_cq}). {@link #poll(int, MemorySegment)} and
 * {@link #requestNotify(boolean)} call the provider's {@code poll_cq} and {@code req_notify_cq}
 * through the context's ops table, read once at creation; they are allocation-free and return
 * status values. One thread at a time may poll a queue; the data-path methods must not race with
 * {@link #close()}. Closed after the protection domains of its context (so after the queue pairs
 * that use it), acknowledging any unacknowledged events first.
 */
public final class CompletionQueue extends OwnedResource {
    /** Size of one {@code struct ibv_wc}, for sizing the array given to {@link #poll(int, MemorySegment)}. */
    public static final long WORK_COMPLETION_BYTES = ibv_wc.sizeof();

    private final Context context;
    private final CompletionChannel channel;
    private final MemorySegment cq;
    private final MemorySegment pollCq;
    private final MemorySegment reqNotifyCq;
    private int unacknowledgedEvents;
    private boolean live = true;

    private CompletionQueue(Context context, CompletionChannel channel, MemorySegment cq) {
        super(context);
        this.context = context;
        this.channel = channel;
        this.cq = cq;
        MemorySegment ops = ibv_context.reinterpret(ibv_cq.context(cq));
        this.pollCq = ibv_context.ops_poll_cq(ops);
        this.reqNotifyCq = ibv_context.ops_req_notify_cq(ops);
    }

    static CompletionQueue create(Context context, int minimumEntries, CompletionChannel channel, int completionVector) {
        if (minimumEntries < 1) {
            throw new IllegalArgumentException("a completion queue needs at least 1 entry, got " + minimumEntries);
        }
        MemorySegment cq;
        int errno;
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment state = Native.captureState(arena);
            MemorySegment channelAddress = channel == null ? MemorySegment.NULL : channel.address();
            try {
                cq = (MemorySegment) Verbs.IBV_CREATE_CQ.invokeExact(context.library().address(VerbsFunction.IBV_CREATE_CQ),
                        state, context.address(), minimumEntries, MemorySegment.NULL,
                        channelAddress, completionVector);
            } catch (Throwable t) {
                throw Native.unchecked(t);
            }
            errno = Verbs.errno(state);
        }
        if (cq.equals(MemorySegment.NULL)) {
            throw VerbsException.errno("ibv_create_cq", errno, "device " + context.deviceName() + ", cqe "
                            + minimumEntries + ", comp_vector " + completionVector,
                    "ask for at most the device's max_cqe entries (ibv_devinfo -v) and a completion vector below "
                            + "num_comp_vectors; on ENOMEM raise the locked-memory limit (ulimit -l)");
        }
        CompletionQueue queue = new CompletionQueue(context, channel, ibv_cq.reinterpret(cq));
        try {
            queue.attach();
        } catch (RuntimeException e) {
            queue.destroyQuietly(e);
            throw e;
        }
        if (channel != null) {
            channel.register(queue);
        }
        return queue;
    }

    /**
     * Polls up to {@code maxEntries} completions into {@code workCompletions}
     * ({@code ibv_poll_cq}). Allocation-free.
     *
     * @param maxEntries the most completions to take, at least 1
     * @param workCompletions native memory for at least {@code maxEntries} {@code struct ibv_wc}
     *     ({@link #WORK_COMPLETION_BYTES} each)
     * @return the number of completions written (0 when empty), or a negative value when the
     *     provider failed ({@code -EBADF} after close)
     * @throws IndexOutOfBoundsException if {@code workCompletions} is too small
     */
    public int poll(int maxEntries, MemorySegment workCompletions) {
        if (maxEntries * WORK_COMPLETION_BYTES > workCompletions.byteSize()) {
            throw new IndexOutOfBoundsException("poll of " + maxEntries + " completions needs "
                    + maxEntries * WORK_COMPLETION_BYTES + " bytes, the array has " + workCompletions.byteSize());
        }
        if (!live) {
            return -Errno.EBADF;
        }
        try {
            return (int) Verbs.POLL_CQ.invokeExact(pollCq, cq, maxEntries, workCompletions);
        } catch (Throwable t) {
            throw Native.unchecked(t);
        }
    }

    /**
     * Arms the queue: the next completion signals the channel ({@code ibv_req_notify_cq}).
     * Allocation-free.
     *
     * @param solicitedOnly signal only for solicited completions
     * @return 0, or an errno value ({@code EBADF} after close)
     */
    public int requestNotify(boolean solicitedOnly) {
        if (!live) {
            return Errno.EBADF;
        }
        try {
            return (int) Verbs.REQ_NOTIFY_CQ.invokeExact(reqNotifyCq, cq, solicitedOnly ? 1 : 0);
        } catch (Throwable t) {
            throw Native.unchecked(t);
        }
    }

    /**
     * Acknowledges events returned by {@link CompletionChannel#awaitEvent()} for this queue
     * ({@code ibv_ack_cq_events}). Acknowledge in batches: each call takes a mutex.
     *
     * @param events how many, at most the number not yet acknowledged
     */
    public synchronized void acknowledgeEvents(int events) {
        if (events < 0 || events > unacknowledgedEvents) {
            throw new IllegalArgumentException("cannot acknowledge " + events + " events; " + unacknowledgedEvents
                    + " are unacknowledged");
        }
        ack(events);
    }

    synchronized void eventReceived() {
        unacknowledgedEvents++;
    }

    private void ack(int events) {
        if (events == 0) {
            return;
        }
        try {
            Verbs.IBV_ACK_CQ_EVENTS.invokeExact(context.library().address(VerbsFunction.IBV_ACK_CQ_EVENTS), cq, events);
        } catch (Throwable t) {
            throw Native.unchecked(t);
        }
        unacknowledgedEvents -= events;
    }

    /**
     * Returns the number of entries the queue holds, which may exceed what was asked for.
     *
     * @return {@code cqe}
     */
    public int capacity() {
        return ibv_cq.cqe(cq);
    }

    /**
     * Returns the channel this queue signals.
     *
     * @return the channel, or {@code null} for a polled-only queue
     */
    public CompletionChannel channel() {
        return channel;
    }

    /**
     * Returns the native {@code struct ibv_cq *}.
     *
     * @return the queue, sized to the struct
     */
    public MemorySegment address() {
        return cq;
    }

    @Override
    int closeRank() {
        return 1;
    }

    @Override
    synchronized void destroy() {
        ack(unacknowledgedEvents);
        int rc;
        try {
            rc = (int) Verbs.IBV_DESTROY_CQ.invokeExact(context.library().address(VerbsFunction.IBV_DESTROY_CQ), cq);
        } catch (Throwable t) {
            throw Native.unchecked(t);
        }
        if (rc != 0) {
            throw VerbsException.returned("ibv_destroy_cq", rc, "cq " + Native.hex(cq) + " of " + context.deviceName(),
                    "close the queue pairs that use this completion queue first");
        }
        live = false;
        if (channel != null) {
            channel.unregister(this);
        }
    }

    private void destroyQuietly(RuntimeException primary) {
        try {
            destroy();
        } catch (RuntimeException e) {
            primary.addSuppressed(e);
        }
    }

    @Override
    public String toString() {
        return "CompletionQueue[" + context.deviceName() + ", " + Native.hex(cq) + ", cqe " + capacity() + "]";
    }
}
