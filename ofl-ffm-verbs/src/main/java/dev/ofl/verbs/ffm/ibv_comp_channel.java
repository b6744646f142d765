package dev.ofl.verbs.ffm;

import java.lang.foreign.GroupLayout;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SegmentAllocator;

import static java.lang.foreign.MemoryLayout.PathElement.groupElement;

/**
 * {@code struct ibv_comp_channel} from {@code <infiniband/verbs.h>} (rdma-core 44, x86-64 and aarch64 alike):
 * 16 bytes, aligned to 8. A completion event channel; {@code fd} becomes readable when a armed CQ
 * gets a completion.
 *
 * <pre>{@code
 * struct ibv_comp_channel {
 *     struct ibv_context * context;           // 0
 *     int fd;                                 // 8
 *     int refcnt;                             // 12
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
public final class ibv_comp_channel {

    private static final GroupLayout $LAYOUT = MemoryLayout.structLayout(
        VerbsTypes.C_POINTER.withName("context"),
        VerbsTypes.C_INT.withName("fd"),
        VerbsTypes.C_INT.withName("refcnt")
    ).withName("ibv_comp_channel");

    /** Byte offset of {@code context} (0). */
    public static final long CONTEXT_OFFSET = $LAYOUT.byteOffset(groupElement("context"));

    /** Byte offset of {@code fd} (8). */
    public static final long FD_OFFSET = $LAYOUT.byteOffset(groupElement("fd"));

    /** Byte offset of {@code refcnt} (12). */
    public static final long REFCNT_OFFSET = $LAYOUT.byteOffset(groupElement("refcnt"));

    private ibv_comp_channel() {
    }

    /**
     * Returns the layout of {@code struct ibv_comp_channel}.
     *
     * @return the layout, 16 bytes
     */
    public static GroupLayout $LAYOUT() {
        return $LAYOUT;
    }

    /**
     * Returns the size of {@code struct ibv_comp_channel}.
     *
     * @return 16
     */
    public static long sizeof() {
        return $LAYOUT.byteSize();
    }

    /**
     * Allocates one zeroed {@code ibv_comp_channel}.
     *
     * @param allocator the allocator that owns the memory
     * @return a segment of {@link #sizeof()} bytes
     */
    public static MemorySegment allocate(SegmentAllocator allocator) {
        return allocator.allocate($LAYOUT);
    }

    /**
     * Allocates a zeroed array of {@code ibv_comp_channel}.
     *
     * @param count the number of elements
     * @param allocator the allocator that owns the memory
     * @return a segment of {@code count * sizeof()} bytes
     */
    public static MemorySegment allocateArray(long count, SegmentAllocator allocator) {
        return allocator.allocate($LAYOUT, count);
    }

    /**
     * Returns element {@code index} of an array of {@code ibv_comp_channel}.
     *
     * @param array the array segment
     * @param index the element index
     * @return a slice of {@link #sizeof()} bytes
     */
    public static MemorySegment asSlice(MemorySegment array, long index) {
        return array.asSlice(index * $LAYOUT.byteSize(), $LAYOUT);
    }

    /**
     * Gives a pointer returned by native code the size of one {@code ibv_comp_channel}; the caller states
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
     * Reads {@code fd}.
     *
     * @param struct the struct segment
     * @return the value
     */
    public static int fd(MemorySegment struct) {
        return struct.get(VerbsTypes.C_INT, FD_OFFSET);
    }

    /**
     * Writes {@code fd}.
     *
     * @param struct the struct segment
     * @param fieldValue the value
     */
    public static void fd(MemorySegment struct, int fieldValue) {
        struct.set(VerbsTypes.C_INT, FD_OFFSET, fieldValue);
    }

    /**
     * Reads {@code refcnt}.
     *
     * @param struct the struct segment
     * @return the value
     */
    public static int refcnt(MemorySegment struct) {
        return struct.get(VerbsTypes.C_INT, REFCNT_OFFSET);
    }

    /**
     * Writes {@code refcnt}.
     *
     * @param struct the struct segment
     * @param fieldValue the value
     */
    public static void refcnt(MemorySegment struct, int fieldValue) {
        struct.set(VerbsTypes.C_INT, REFCNT_OFFSET, fieldValue);
    }
}
