package dev.ofl.verbs;

import dev.ofl.verbs.ffm.Verbs;
import dev.ofl.verbs.ffm.VerbsFunction;
import dev.ofl.verbs.ffm.ibv_pd;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * A protection domain ({@code struct ibv_pd}). Closing it closes its queue pairs first, then its
 * memory regions (so registered memory is deregistered only after the queue pairs are gone), then
 * calls {@code ibv_dealloc_pd}. Thread-safe.
 */
public final class ProtectionDomain extends OwnedResource {
    private final Context context;
    private final MemorySegment pd;

    private ProtectionDomain(Context context, MemorySegment pd) {
        super(context);
        this.context = context;
        this.pd = pd;
    }

    static ProtectionDomain allocate(Context context) {
        MemorySegment pd;
        int errno;
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment state = Native.captureState(arena);
            try {
                pd = (MemorySegment) Verbs.IBV_ALLOC_PD.invokeExact(
                        context.library().address(VerbsFunction.IBV_ALLOC_PD), state, context.address());
            } catch (Throwable t) {
                throw Native.unchecked(t);
            }
            errno = Verbs.errno(state);
        }
        if (pd.equals(MemorySegment.NULL)) {
            throw VerbsException.errno("ibv_alloc_pd", errno, "device " + context.deviceName(),
                    "close unused protection domains; the device's max_pd (ibv_devinfo -v) is reached");
        }
        ProtectionDomain domain = new ProtectionDomain(context, ibv_pd.reinterpret(pd));
        domain.attach();
        return domain;
    }

    /**
     * Returns the context this domain belongs to.
     *
     * @return the context
     */
    public Context context() {
        return context;
    }

    /**
     * Returns the native {@code struct ibv_pd *}.
     *
     * @return the domain, sized to the struct
     */
    public MemorySegment address() {
        return pd;
    }

    /**
     * Registers host memory ({@code ibv_reg_mr}). The memory must stay allocated until the region
     * is closed and every write that may target it has completed or been flushed.
     *
     * @param memory a native segment
     * @param accessFlags {@code IBV_ACCESS_*} bits of {@link dev.ofl.verbs.ffm.ibv_access_flags}
     * @return the region, owned by this domain
     * @throws IllegalArgumentException if {@code memory} is not native or is empty
     * @throws VerbsException if registration fails
     */
    public MemoryRegion register(MemorySegment memory, int accessFlags) {
        ensureOpen();
        return MemoryRegion.register(this, memory, accessFlags);
    }

    /**
     * Creates a reliable-connected queue pair ({@code ibv_create_qp}, {@code IBV_QPT_RC}) in the
     * RESET state, with only explicitly signalled sends completing.
     *
     * @param sendQueue the completion queue for sends
     * @param receiveQueue the completion queue for receives
     * @param capabilities the capacities to request
     * @return the queue pair, owned by this domain
     * @throws VerbsException if creation fails
     */
    public QueuePair createReliableConnected(CompletionQueue sendQueue, CompletionQueue receiveQueue,
            QueuePairCapabilities capabilities) {
        ensureOpen();
        return QueuePair.createRc(this, sendQueue, receiveQueue, capabilities);
    }

    @Override
    int closeRank() {
        return 0;
    }

    @Override
    void destroy() {
        int rc;
        try {
            rc = (int) Verbs.IBV_DEALLOC_PD.invokeExact(context.library().address(VerbsFunction.IBV_DEALLOC_PD), pd);
        } catch (Throwable t) {
            throw Native.unchecked(t);
        }
        if (rc != 0) {
            throw VerbsException.returned("ibv_dealloc_pd", rc, "pd " + Native.hex(pd) + " of " + context.deviceName(),
                    "close the queue pairs, memory regions and address handles of this domain first");
        }
    }

    @Override
    public String toString() {
        return "ProtectionDomain[" + context.deviceName() + ", " + Native.hex(pd) + "]";
    }
}
