package dev.ofl.verbs;

import dev.ofl.verbs.ffm.Verbs;
import dev.ofl.verbs.ffm.VerbsFunction;
import dev.ofl.verbs.ffm.ibv_access_flags;
import dev.ofl.verbs.ffm.ibv_mr;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * Registered host memory ({@code struct ibv_mr}): the segment, its local key for scatter/gather
 * entries and its remote key for the peer. Closing it calls {@code ibv_dereg_mr}; a failure is
 * reported, and the memory must then stay allocated. Registering is checked first against the
 * locked-memory limit ({@link MemlockLimit}). Thread-safe.
 */
public final class MemoryRegion extends OwnedResource {
    /** The device names softverbs gives its devices. */
    private static final String SOFTVERBS_DEVICE_PREFIX = "softverbs";

    private final ProtectionDomain domain;
    private final MemorySegment mr;
    private final MemorySegment memory;
    private final int accessFlags;
    private final int lkey;
    private final int rkey;
    private final long pinnedBytes;

    private MemoryRegion(ProtectionDomain domain, MemorySegment mr, MemorySegment memory, int accessFlags,
            long pinnedBytes) {
        super(domain);
        this.domain = domain;
        this.mr = mr;
        this.memory = memory;
        this.accessFlags = accessFlags;
        this.lkey = ibv_mr.lkey(mr);
        this.rkey = ibv_mr.rkey(mr);
        this.pinnedBytes = pinnedBytes;
    }

    static MemoryRegion register(ProtectionDomain domain, MemorySegment memory, int accessFlags) {
        if (!memory.isNative() || memory.byteSize() == 0) {
            throw new IllegalArgumentException("only non-empty native memory can be registered, got " + memory);
        }
        if ((accessFlags & ibv_access_flags.IBV_ACCESS_RELAXED_ORDERING) != 0) {
            // Relaxed ordering lets a NIC place a WRITE after the WRITE WITH IMMEDIATE that follows
            // it: completion would no longer imply placement, ofl's one ordering guarantee.
            throw new IllegalArgumentException("IBV_ACCESS_RELAXED_ORDERING is never used: ofl relies on a "
                    + "completion implying that every earlier write of the connection was placed");
        }
        String values = "address " + Native.hex(memory) + ", length " + memory.byteSize() + ", access 0x"
                + Integer.toHexString(accessFlags) + ", device " + domain.context().deviceName();
        long pinned = MemlockLimit.pinnedBytes(memory.address(), memory.byteSize(), MemlockLimit.pageSize());
        MemlockLimit.reserve(pinned, values, pinsMemory(domain.context()));
        MemorySegment mr;
        int errno;
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment state = Native.captureState(arena);
            try {
                mr = (MemorySegment) Verbs.IBV_REG_MR.invokeExact(
                        domain.context().library().address(VerbsFunction.IBV_REG_MR), state, domain.address(), memory,
                        memory.byteSize(), accessFlags);
            } catch (Throwable t) {
                MemlockLimit.released(pinned);
                throw Native.unchecked(t);
            }
            errno = Verbs.errno(state);
        }
        if (mr.equals(MemorySegment.NULL)) {
            MemlockLimit.released(pinned);
            String fix = errno == Errno.ENOMEM || errno == Errno.EPERM || errno == Errno.EAGAIN
                    ? MemlockLimit.explainFailure(pinned)
                    : "register page-aligned native memory with valid IBV_ACCESS_* flags (REMOTE_WRITE needs LOCAL_WRITE)";
            throw VerbsException.errno("ibv_reg_mr", errno, values, fix);
        }
        MemoryRegion region = new MemoryRegion(domain, ibv_mr.reinterpret(mr), memory, accessFlags, pinned);
        try {
            region.attach();
        } catch (RuntimeException e) {
            region.destroyQuietly(e);
            throw e;
        }
        return region;
    }

    /**
     * softverbs copies through Unix sockets and pins nothing, so the kernel's limit does not apply
     * to its registrations and the check would refuse what it accepts; they are still counted.
     */
    private static boolean pinsMemory(Context context) {
        return !context.deviceName().startsWith(SOFTVERBS_DEVICE_PREFIX);
    }

    /**
     * Returns the registered memory.
     *
     * @return the segment given to {@link ProtectionDomain#register(MemorySegment, int)}
     */
    public MemorySegment segment() {
        return memory;
    }

    /**
     * Returns the registered start address, for remote writes (the peer's {@code remote_addr}).
     *
     * @return the address
     */
    public long address() {
        return memory.address();
    }

    /**
     * Returns the registered length in bytes.
     *
     * @return the length
     */
    public long length() {
        return memory.byteSize();
    }

    /**
     * Returns the local key, for {@code ibv_sge.lkey}.
     *
     * @return the key (unsigned 32 bits)
     */
    public int lkey() {
        return lkey;
    }

    /**
     * Returns the remote key, for the peer's {@code wr.rdma.rkey}.
     *
     * @return the key (unsigned 32 bits)
     */
    public int rkey() {
        return rkey;
    }

    /**
     * Returns the access flags the region was registered with.
     *
     * @return {@code IBV_ACCESS_*} bits
     */
    public int accessFlags() {
        return accessFlags;
    }

    /**
     * Returns the native {@code struct ibv_mr *}.
     *
     * @return the region, sized to the struct
     */
    public MemorySegment nativeRegion() {
        return mr;
    }

    @Override
    int closeRank() {
        return 1;
    }

    @Override
    void destroy() {
        int rc;
        try {
            rc = (int) Verbs.IBV_DEREG_MR.invokeExact(domain.context().library().address(VerbsFunction.IBV_DEREG_MR), mr);
        } catch (Throwable t) {
            throw Native.unchecked(t);
        }
        if (rc != 0) {
            throw VerbsException.returned("ibv_dereg_mr", rc, "address " + Native.hex(memory) + ", length "
                            + memory.byteSize() + ", lkey 0x" + Integer.toHexString(lkey),
                    "close the memory windows bound to this region first; until deregistration succeeds the "
                            + "memory must stay allocated");
        }
        MemlockLimit.released(pinnedBytes);
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
        return "MemoryRegion[" + Native.hex(memory) + "+" + memory.byteSize() + ", lkey 0x" + Integer.toHexString(lkey)
                + ", rkey 0x" + Integer.toHexString(rkey) + "]";
    }
}
