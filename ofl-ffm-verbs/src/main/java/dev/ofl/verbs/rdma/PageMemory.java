package dev.ofl.verbs.rdma;

import dev.ofl.api.OflConnectionException;
import dev.ofl.verbs.Errno;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.VarHandle;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Per-connection registered memory in pages of its own, mapped with {@code mmap(2)} and unmapped
 * when the owning arena closes.
 *
 * <p>Why not {@code Arena.allocate}: that is {@code malloc}, and glibc raises its mmap threshold
 * each time a large block is freed, so after the first connection the next ones' megabytes of
 * receive slots come from its heaps, one per connection thread, and stay there when freed.
 * Measured over 3,000 HELLO-and-leave RDMA cycles, the process's malloc heaps grew to 196 MiB of
 * which 27 MiB were in use. A mapping of its own goes back to the kernel at close, whatever
 * the allocator's state; and registered memory shares no page with unrelated heap data, which is
 * what a provider that pins or marks registered pages wants anyway.
 *
 * <p>{@link #mappedBytes()} and {@link #mappings()} count what is mapped now, so that tests can
 * check a connection gave back all of it. Thread-safe.
 */
final class PageMemory {
    private static final long PAGE = 4096;
    private static final int PROT_READ_WRITE = 0x1 | 0x2;
    private static final int MAP_PRIVATE_ANONYMOUS = 0x02 | 0x20;
    private static final long MAP_FAILED = -1L;
    private static final StructLayout CALL_STATE = Linker.Option.captureStateLayout();
    private static final VarHandle ERRNO = CALL_STATE.varHandle(MemoryLayout.PathElement.groupElement("errno"));
    private static final MethodHandle MMAP = handle("mmap", FunctionDescriptor.of(ValueLayout.JAVA_LONG,
            ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG, ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.JAVA_INT,
            ValueLayout.JAVA_LONG), Linker.Option.captureCallState("errno"));
    private static final MethodHandle MUNMAP = handle("munmap", FunctionDescriptor.of(ValueLayout.JAVA_INT,
            ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG));
    private static final AtomicLong MAPPED_BYTES = new AtomicLong();
    private static final AtomicLong MAPPINGS = new AtomicLong();

    // Restricted: needs native access, which the RDMA backend needs anyway.
    @SuppressWarnings("restricted")
    private static MethodHandle handle(String name, FunctionDescriptor descriptor, Linker.Option... options) {
        Linker linker = Linker.nativeLinker();
        return linker.downcallHandle(linker.defaultLookup().find(name).orElseThrow(), descriptor, options);
    }

    private PageMemory() {
    }

    /**
     * What {@link #allocate} maps for a size: whole pages.
     *
     * @param bytes the size asked for
     * @return bytes, a multiple of the page size
     */
    static long pages(long bytes) {
        return (bytes + PAGE - 1) & -PAGE;
    }

    /**
     * Maps {@code bytes} (rounded up to whole pages) of zeroed, page-aligned memory that
     * {@code arena}'s closing unmaps.
     *
     * @return the segment, exactly {@code bytes} long
     * @throws OflConnectionException if the kernel refuses the mapping
     */
    // Restricted: reinterpret gives the mapping its size and lifetime; the backend has native access anyway.
    @SuppressWarnings("restricted")
    static MemorySegment allocate(Arena arena, long bytes) {
        if (bytes <= 0) {
            throw new IllegalArgumentException("bytes " + bytes + " must be positive");
        }
        long length = pages(bytes);
        long address;
        int error;
        try (Arena call = Arena.ofConfined()) {
            MemorySegment state = call.allocate(CALL_STATE);
            address = (long) MMAP.invokeExact(state, 0L, length, PROT_READ_WRITE, MAP_PRIVATE_ANONYMOUS, -1, 0L);
            error = (int) ERRNO.get(state, 0L);
        } catch (Throwable t) {
            throw new IllegalStateException("mmap(2) could not be called", t);
        }
        if (address == MAP_FAILED) {
            throw new OflConnectionException("cannot map " + length + " bytes for the connection's registered memory: "
                    + Errno.describe(error));
        }
        MAPPED_BYTES.addAndGet(length);
        MAPPINGS.incrementAndGet();
        try {
            return MemorySegment.ofAddress(address).reinterpret(bytes, arena, unused -> unmap(address, length));
        } catch (RuntimeException e) {
            // The arena was already closed (or is not this thread's): nothing will unmap it but us.
            unmap(address, length);
            throw e;
        }
    }

    private static void unmap(long address, long length) {
        int rc;
        try {
            rc = (int) MUNMAP.invokeExact(address, length);
        } catch (Throwable t) {
            throw new IllegalStateException("munmap(2) could not be called", t);
        }
        if (rc != 0) {
            // Only a bad address or length fails, which would be a bug here; the count stays as a witness.
            throw new IllegalStateException("munmap(2) of " + length + " bytes at 0x" + Long.toHexString(address)
                    + " failed");
        }
        MAPPED_BYTES.addAndGet(-length);
        MAPPINGS.decrementAndGet();
    }

    /** Bytes mapped by this class and not yet unmapped, in this process. */
    static long mappedBytes() {
        return MAPPED_BYTES.get();
    }

    /** Mappings made by this class and not yet unmapped, in this process. */
    static long mappings() {
        return MAPPINGS.get();
    }
}
