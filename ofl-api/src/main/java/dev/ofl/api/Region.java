package dev.ofl.api;

import java.lang.foreign.MemorySegment;
import java.util.Objects;

/**
 * Host memory registered with one client as a destination for response bytes. Obtained from
 * {@link OflClient#registerRegion(MemorySegment)} and valid, across reconnects, until the client
 * is closed.
 *
 * <p>Ownership: the caller owns the segment and must keep it alive until the client is closed;
 * the transport may write into it (for RDMA, the NIC writes into it directly) whenever a request
 * naming it is outstanding. Immutable and thread-safe.
 */
public final class Region {
    private final Object owner;
    private final int id;
    private final MemorySegment segment;

    // Package-private so that a handle only comes from registerRegion (through ApiAccess): a region
    // cannot be forged from the outside.
    Region(Object owner, int id, MemorySegment segment) {
        this.owner = Objects.requireNonNull(owner, "owner");
        this.id = id;
        this.segment = Objects.requireNonNull(segment, "segment");
    }

    /**
     * The client this region belongs to.
     *
     * @return the owning client object
     */
    public Object owner() {
        return owner;
    }

    /**
     * The region's index within its client.
     *
     * @return an index from zero, in registration order
     */
    public int id() {
        return id;
    }

    /**
     * The registered memory.
     *
     * @return the segment passed at registration
     */
    public MemorySegment segment() {
        return segment;
    }

    /**
     * The registered length.
     *
     * @return the segment's size in bytes
     */
    public long byteSize() {
        return segment.byteSize();
    }

    @Override
    public String toString() {
        return "Region[id=" + id + ", address=0x" + Long.toHexString(segment.address())
                + ", bytes=" + segment.byteSize() + "]";
    }
}
