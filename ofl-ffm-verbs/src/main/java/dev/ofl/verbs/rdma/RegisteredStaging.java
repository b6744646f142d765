package dev.ofl.verbs.rdma;

import dev.ofl.api.spi.StagingPool;
import dev.ofl.verbs.MemoryRegion;
import dev.ofl.verbs.ffm.ibv_access_flags;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * A server's staging pool memory on an RDMA device: allocated and registered once, in the
 * protection domain every connection's queue pair of that server is created in, the first time a
 * response needs it; deregistered and freed when the pool closes, after every connection ended.
 * Only local write access: the NIC reads it for RDMA WRITEs and writes into it for the RDMA READs
 * of request payloads; no peer can address it.
 */
final class RegisteredStaging implements StagingPool.Memory {
    private final RdmaDevice device;
    private Arena arena;
    private MemoryRegion region;
    /** Written before the pool publishes its memory (under the pool's lock), read after a reservation. */
    private volatile int lkey;

    RegisteredStaging(RdmaDevice device) {
        this.device = device;
    }

    @Override
    public MemorySegment allocate(long bytes) {
        Arena a = Arena.ofShared();
        try {
            MemorySegment memory = a.allocate(bytes, StagingPool.BLOCK_BYTES);
            region = device.domain.register(memory, ibv_access_flags.IBV_ACCESS_LOCAL_WRITE);
            lkey = region.lkey();
            arena = a;
            return memory;
        } catch (RuntimeException | OutOfMemoryError e) {
            a.close();
            throw e;
        }
    }

    /** The local key of the registration; valid once a reservation from the pool succeeded. */
    int lkey() {
        return lkey;
    }

    @Override
    public void free() {
        if (region != null) {
            region.close();
            region = null;
        }
        if (arena != null) {
            arena.close();
            arena = null;
        }
    }
}
