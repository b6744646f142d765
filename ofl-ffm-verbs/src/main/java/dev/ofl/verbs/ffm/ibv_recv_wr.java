package dev.ofl.verbs.ffm;

import java.lang.foreign.GroupLayout;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SegmentAllocator;

import static java.lang.foreign.MemoryLayout.PathElement.groupElement;

/**
 * {@code struct ibv_recv_wr} from {@code <infiniband/verbs.h>} (rdma-core 44, x86-64 and aarch64 alike):
 * 32 bytes, aligned to 8. A receive work request.
 *
 * <pre>{@code
 * struct ibv_recv_wr {
 *     uint64_t wr_id;                         // 0
 *     struct ibv_recv_wr * next;              // 8
 *     struct ibv_sge * sg_list;               // 16
 *     int num_sge;                            // 24
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
public final class ibv_recv_wr {

    private static final GroupLayout $LAYOUT = MemoryLayout.structLayout(
        VerbsTypes.C_UINT64.withName("wr_id"),
        VerbsTypes.C_POINTER.withName("next"),
        VerbsTypes.C_POINTER.withName("sg_list"),
        VerbsTypes.C_INT.withName("num_sge"),
        MemoryLayout.paddingLayout(4)
    ).withName("ibv_recv_wr");

    /** Byte offset of {@code wr_id} (0). */
    public static final long WR_ID_OFFSET = $LAYOUT.byteOffset(groupElement("wr_id"));

    /** Byte offset of {@code next} (8). */
    public static final long NEXT_OFFSET = $LAYOUT.byteOffset(groupElement("next"));

    /** Byte offset of {@code sg_list} (16). */
    public static final long SG_LIST_OFFSET = $LAYOUT.byteOffset(groupElement("sg_list"));

    /** Byte offset of {@code num_sge} (24). */
    public static final long NUM_SGE_OFFSET = $LAYOUT.byteOffset(groupElement("num_sge"));

    private ibv_recv_wr() {
    }

    /**
     * Returns the layout of {@code struct ibv_recv_wr}.
     *
     * @return the layout, 32 bytes
     */
    public static GroupLayout $LAYOUT() {
        return $LAYOUT;
    }

    /**
     * Returns the size of {@code struct ibv_recv_wr}.
     *
     * @return 32
     */
    public static long sizeof() {
        return $LAYOUT.byteSize();
    }

    /**
     * Allocates one zeroed {@code ibv_recv_wr}.
     *
     * @param allocator the allocator that owns the memory
     * @return a segment of {@link #sizeof()} bytes
     */
    public static MemorySegment allocate(SegmentAllocator allocator) {
        return allocator.allocate($LAYOUT);
    }

    /**
     * Allocates a zeroed array of {@code ibv_recv_wr}.
     *
     * @param count the number of elements
     * @param allocator the allocator that owns the memory
     * @return a segment of {@code count * sizeof()} bytes
     */
    public static MemorySegment allocateArray(long count, SegmentAllocator allocator) {
        return allocator.allocate($LAYOUT, count);
    }

    /**
     * Returns element {@code index} of an array of {@code ibv_recv_wr}.
     *
     * @param array the array segment
     * @param index the element index
     * @return a slice of {@link #sizeof()} bytes
     */
    public static MemorySegment asSlice(MemorySegment array, long index) {
        return array.asSlice(index * $LAYOUT.byteSize(), $LAYOUT);
    }

    /**
     * Gives a pointer returned by native code the size of one {@code ibv_recv_wr}; the caller states
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
     * Reads {@code wr_id}.
     *
     * @param struct the struct segment
     * @return the value
     */
    public static long wr_id(MemorySegment struct) {
        return struct.get(VerbsTypes.C_UINT64, WR_ID_OFFSET);
    }

    /**
     * Writes {@code wr_id}.
     *
     * @param struct the struct segment
     * @param fieldValue the value
     */
    public static void wr_id(MemorySegment struct, long fieldValue) {
        struct.set(VerbsTypes.C_UINT64, WR_ID_OFFSET, fieldValue);
    }

    /**
     * Reads {@code next}.
     *
     * @param struct the struct segment
     * @return the value
     */
    public static MemorySegment next(MemorySegment struct) {
        return struct.get(VerbsTypes.C_POINTER, NEXT_OFFSET);
    }

    /**
     * Writes {@code next}.
     *
     * @param struct the struct segment
     * @param fieldValue the value
     */
    public static void next(MemorySegment struct, MemorySegment fieldValue) {
        struct.set(VerbsTypes.C_POINTER, NEXT_OFFSET, fieldValue);
    }

    /**
     * Reads {@code sg_list}.
     *
     * @param struct the struct segment
     * @return the value
     */
    public static MemorySegment sg_list(MemorySegment struct) {
        return struct.get(VerbsTypes.C_POINTER, SG_LIST_OFFSET);
    }

    /**
     * Writes {@code sg_list}.
     *
     * @param struct the struct segment
     * @param fieldValue the value
     */
    public static void sg_list(MemorySegment struct, MemorySegment fieldValue) {
        struct.set(VerbsTypes.C_POINTER, SG_LIST_OFFSET, fieldValue);
    }

    /**
     * Reads {@code num_sge}.
     *
     * @param struct the struct segment
     * @return the value
     */
    public static int num_sge(MemorySegment struct) {
        return struct.get(VerbsTypes.C_INT, NUM_SGE_OFFSET);
    }

    /**
     * Writes {@code num_sge}.
     *
     * @param struct the struct segment
     * @param fieldValue the value
     */
    public static void num_sge(MemorySegment struct, int fieldValue) {
        struct.set(VerbsTypes.C_INT, NUM_SGE_OFFSET, fieldValue);
    }
}
