package dev.ofl.verbs.ffm;

import java.lang.foreign.GroupLayout;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SegmentAllocator;

import static java.lang.foreign.MemoryLayout.PathElement.groupElement;

/**
 * {@code struct ibv_pd} from {@code <infiniband/verbs.h>} (rdma-core 44, x86-64 and aarch64 alike):
 * 16 bytes, aligned to 8. A protection domain.
 *
 * <pre>{@code
 * struct ibv_pd {
 *     struct ibv_context * context;           // 0
 *     uint32_t handle;                        // 8
 * };
 * }</pre>
 *
 * <p>Shaped as jextract generates it: {@link #$LAYOUT()} with named members and explicit
 * padding, {@code *_OFFSET} constants taken from that layout, and static accessors that read or
 * write one member of a struct segment. Native structs use native byte order; members declared
 * {@code __be} use the big-endian layouts of {@link VerbsTypes}. Accessors do not allocate,
 * except those returning a slice, and rely on the segment's bounds checks. They hold no state and
 * are thread-safe; the memory they touch is not. Pinned by {@code VerbsLayoutTest} against a C
 * program compiled with the system header.
 */
public final class ibv_pd {

    private static final GroupLayout $LAYOUT = MemoryLayout.structLayout(
        VerbsTypes.C_POINTER.withName("context"),
        VerbsTypes.C_UINT32.withName("handle"),
        MemoryLayout.paddingLayout(4)
    ).withName("ibv_pd");

    /** Byte offset of {@code context} (0). */
    public static final long CONTEXT_OFFSET = $LAYOUT.byteOffset(groupElement("context"));

    /** Byte offset of {@code handle} (8). */
    public static final long HANDLE_OFFSET = $LAYOUT.byteOffset(groupElement("handle"));

    private ibv_pd() {
    }

    /**
     * Returns the layout of {@code struct ibv_pd}.
     *
     * @return the layout, 16 bytes
     */
    public static GroupLayout $LAYOUT() {
        return $LAYOUT;
    }

    /**
     * Returns the size of {@code struct ibv_pd}.
     *
     * @return 16
     */
    public static long sizeof() {
        return $LAYOUT.byteSize();
    }

    /**
     * Allocates one zeroed {@code ibv_pd}.
     *
     * @param allocator the allocator that owns the memory
     * @return a segment of {@link #sizeof()} bytes
     */
    public static MemorySegment allocate(SegmentAllocator allocator) {
        return allocator.allocate($LAYOUT);
    }

    /**
     * Allocates a zeroed array of {@code ibv_pd}.
     *
     * @param count the number of elements
     * @param allocator the allocator that owns the memory
     * @return a segment of {@code count * sizeof()} bytes
     */
    public static MemorySegment allocateArray(long count, SegmentAllocator allocator) {
        return allocator.allocate($LAYOUT, count);
    }

    /**
     * Returns element {@code index} of an array of {@code ibv_pd}.
     *
     * @param array the array segment
     * @param index the element index
     * @return a slice of {@link #sizeof()} bytes
     */
    public static MemorySegment asSlice(MemorySegment array, long index) {
        return array.asSlice(index * $LAYOUT.byteSize(), $LAYOUT);
    }

    /**
     * Gives a pointer returned by native code the size of one {@code ibv_pd}; the caller states
     * that the pointer is valid for that long (a restricted operation).
     *
     * @param address a zero-length segment returned by a downcall
     * @return the same address with {@link #sizeof()} bytes
     */
    @SuppressWarnings("restricted")
    public static MemorySegment reinterpret(MemorySegment address) {
        return address.reinterpret($LAYOUT.byteSize());
    }

    /**
     * Reads {@code context}.
     *
     * @param struct the struct segment
     * @return the value
     */
    public static MemorySegment context(MemorySegment struct) {
        return struct.get(VerbsTypes.C_POINTER, CONTEXT_OFFSET);
    }

    /**
     * Writes {@code context}.
     *
     * @param struct the struct segment
     * @param fieldValue the value
     */
    public static void context(MemorySegment struct, MemorySegment fieldValue) {
        struct.set(VerbsTypes.C_POINTER, CONTEXT_OFFSET, fieldValue);
    }

    /**
     * Reads {@code handle}.
     *
     * @param struct the struct segment
     * @return the value
     */
    public static int handle(MemorySegment struct) {
        return struct.get(VerbsTypes.C_UINT32, HANDLE_OFFSET);
    }

    /**
     * Writes {@code handle}.
     *
     * @param struct the struct segment
     * @param fieldValue the value
     */
    public static void handle(MemorySegment struct, int fieldValue) {
        struct.set(VerbsTypes.C_UINT32, HANDLE_OFFSET, fieldValue);
    }
}
