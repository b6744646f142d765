package dev.ofl.verbs.ffm;

import java.lang.foreign.GroupLayout;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SegmentAllocator;

import static java.lang.foreign.MemoryLayout.PathElement.groupElement;

/**
 * {@code struct ibv_sge} from {@code <infiniband/verbs.h>} (rdma-core 44, x86-64 and aarch64 alike):
 * 16 bytes, aligned to 8. A scatter/gather entry: a registered address range and its local key.
 *
 * <pre>{@code
 * struct ibv_sge {
 *     uint64_t addr;                          // 0
 *     uint32_t length;                        // 8
 *     uint32_t lkey;                          // 12
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
public final class ibv_sge {

    private static final GroupLayout $LAYOUT = MemoryLayout.structLayout(
        VerbsTypes.C_UINT64.withName("addr"),
        VerbsTypes.C_UINT32.withName("length"),
        VerbsTypes.C_UINT32.withName("lkey")
    ).withName("ibv_sge");

    /** Byte offset of {@code addr} (0). */
    public static final long ADDR_OFFSET = $LAYOUT.byteOffset(groupElement("addr"));

    /** Byte offset of {@code length} (8). */
    public static final long LENGTH_OFFSET = $LAYOUT.byteOffset(groupElement("length"));

    /** Byte offset of {@code lkey} (12). */
    public static final long LKEY_OFFSET = $LAYOUT.byteOffset(groupElement("lkey"));

    private ibv_sge() {
    }

    /**
     * Returns the layout of {@code struct ibv_sge}.
     *
     * @return the layout, 16 bytes
     */
    public static GroupLayout $LAYOUT() {
        return $LAYOUT;
    }

    /**
     * Returns the size of {@code struct ibv_sge}.
     *
     * @return 16
     */
    public static long sizeof() {
        return $LAYOUT.byteSize();
    }

    /**
     * Allocates one zeroed {@code ibv_sge}.
     *
     * @param allocator the allocator that owns the memory
     * @return a segment of {@link #sizeof()} bytes
     */
    public static MemorySegment allocate(SegmentAllocator allocator) {
        return allocator.allocate($LAYOUT);
    }

    /**
     * Allocates a zeroed array of {@code ibv_sge}.
     *
     * @param count the number of elements
     * @param allocator the allocator that owns the memory
     * @return a segment of {@code count * sizeof()} bytes
     */
    public static MemorySegment allocateArray(long count, SegmentAllocator allocator) {
        return allocator.allocate($LAYOUT, count);
    }

    /**
     * Returns element {@code index} of an array of {@code ibv_sge}.
     *
     * @param array the array segment
     * @param index the element index
     * @return a slice of {@link #sizeof()} bytes
     */
    public static MemorySegment asSlice(MemorySegment array, long index) {
        return array.asSlice(index * $LAYOUT.byteSize(), $LAYOUT);
    }

    /**
     * Gives a pointer returned by native code the size of one {@code ibv_sge}; the caller states
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
     * Reads {@code addr}.
     *
     * @param struct the struct segment
     * @return the value
     */
    public static long addr(MemorySegment struct) {
        return struct.get(VerbsTypes.C_UINT64, ADDR_OFFSET);
    }

    /**
     * Writes {@code addr}.
     *
     * @param struct the struct segment
     * @param fieldValue the value
     */
    public static void addr(MemorySegment struct, long fieldValue) {
        struct.set(VerbsTypes.C_UINT64, ADDR_OFFSET, fieldValue);
    }

    /**
     * Reads {@code length}.
     *
     * @param struct the struct segment
     * @return the value
     */
    public static int length(MemorySegment struct) {
        return struct.get(VerbsTypes.C_UINT32, LENGTH_OFFSET);
    }

    /**
     * Writes {@code length}.
     *
     * @param struct the struct segment
     * @param fieldValue the value
     */
    public static void length(MemorySegment struct, int fieldValue) {
        struct.set(VerbsTypes.C_UINT32, LENGTH_OFFSET, fieldValue);
    }

    /**
     * Reads {@code lkey}.
     *
     * @param struct the struct segment
     * @return the value
     */
    public static int lkey(MemorySegment struct) {
        return struct.get(VerbsTypes.C_UINT32, LKEY_OFFSET);
    }

    /**
     * Writes {@code lkey}.
     *
     * @param struct the struct segment
     * @param fieldValue the value
     */
    public static void lkey(MemorySegment struct, int fieldValue) {
        struct.set(VerbsTypes.C_UINT32, LKEY_OFFSET, fieldValue);
    }
}
