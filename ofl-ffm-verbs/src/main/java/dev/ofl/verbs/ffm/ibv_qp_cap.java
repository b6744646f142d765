package dev.ofl.verbs.ffm;

import java.lang.foreign.GroupLayout;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SegmentAllocator;

import static java.lang.foreign.MemoryLayout.PathElement.groupElement;

/**
 * {@code struct ibv_qp_cap} from {@code <infiniband/verbs.h>} (rdma-core 44, x86-64 and aarch64 alike):
 * 20 bytes, aligned to 4. Queue pair capacities (requested at creation, actual afterwards).
 *
 * <pre>{@code
 * struct ibv_qp_cap {
 *     uint32_t max_send_wr;                   // 0
 *     uint32_t max_recv_wr;                   // 4
 *     uint32_t max_send_sge;                  // 8
 *     uint32_t max_recv_sge;                  // 12
 *     uint32_t max_inline_data;               // 16
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
public final class ibv_qp_cap {

    private static final GroupLayout $LAYOUT = MemoryLayout.structLayout(
        VerbsTypes.C_UINT32.withName("max_send_wr"),
        VerbsTypes.C_UINT32.withName("max_recv_wr"),
        VerbsTypes.C_UINT32.withName("max_send_sge"),
        VerbsTypes.C_UINT32.withName("max_recv_sge"),
        VerbsTypes.C_UINT32.withName("max_inline_data")
    ).withName("ibv_qp_cap");

    /** Byte offset of {@code max_send_wr} (0). */
    public static final long MAX_SEND_WR_OFFSET = $LAYOUT.byteOffset(groupElement("max_send_wr"));

    /** Byte offset of {@code max_recv_wr} (4). */
    public static final long MAX_RECV_WR_OFFSET = $LAYOUT.byteOffset(groupElement("max_recv_wr"));

    /** Byte offset of {@code max_send_sge} (8). */
    public static final long MAX_SEND_SGE_OFFSET = $LAYOUT.byteOffset(groupElement("max_send_sge"));

    /** Byte offset of {@code max_recv_sge} (12). */
    public static final long MAX_RECV_SGE_OFFSET = $LAYOUT.byteOffset(groupElement("max_recv_sge"));

    /** Byte offset of {@code max_inline_data} (16). */
    public static final long MAX_INLINE_DATA_OFFSET = $LAYOUT.byteOffset(groupElement("max_inline_data"));

    private ibv_qp_cap() {
    }

    /**
     * Returns the layout of {@code struct ibv_qp_cap}.
     *
     * @return the layout, 20 bytes
     */
    public static GroupLayout $LAYOUT() {
        return $LAYOUT;
    }

    /**
     * Returns the size of {@code struct ibv_qp_cap}.
     *
     * @return 20
     */
    public static long sizeof() {
        return $LAYOUT.byteSize();
    }

    /**
     * Allocates one zeroed {@code ibv_qp_cap}.
     *
     * @param allocator the allocator that owns the memory
     * @return a segment of {@link #sizeof()} bytes
     */
    public static MemorySegment allocate(SegmentAllocator allocator) {
        return allocator.allocate($LAYOUT);
    }

    /**
     * Allocates a zeroed array of {@code ibv_qp_cap}.
     *
     * @param count the number of elements
     * @param allocator the allocator that owns the memory
     * @return a segment of {@code count * sizeof()} bytes
     */
    public static MemorySegment allocateArray(long count, SegmentAllocator allocator) {
        return allocator.allocate($LAYOUT, count);
    }

    /**
     * Returns element {@code index} of an array of {@code ibv_qp_cap}.
     *
     * @param array the array segment
     * @param index the element index
     * @return a slice of {@link #sizeof()} bytes
     */
    public static MemorySegment asSlice(MemorySegment array, long index) {
        return array.asSlice(index * $LAYOUT.byteSize(), $LAYOUT);
    }

    /**
     * Gives a pointer returned by native code the size of one {@code ibv_qp_cap}; the caller states
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
     * Reads {@code max_send_wr}.
     *
     * @param struct the struct segment
     * @return the value
     */
    public static int max_send_wr(MemorySegment struct) {
        return struct.get(VerbsTypes.C_UINT32, MAX_SEND_WR_OFFSET);
    }

    /**
     * Writes {@code max_send_wr}.
     *
     * @param struct the struct segment
     * @param fieldValue the value
     */
    public static void max_send_wr(MemorySegment struct, int fieldValue) {
        struct.set(VerbsTypes.C_UINT32, MAX_SEND_WR_OFFSET, fieldValue);
    }

    /**
     * Reads {@code max_recv_wr}.
     *
     * @param struct the struct segment
     * @return the value
     */
    public static int max_recv_wr(MemorySegment struct) {
        return struct.get(VerbsTypes.C_UINT32, MAX_RECV_WR_OFFSET);
    }

    /**
     * Writes {@code max_recv_wr}.
     *
     * @param struct the struct segment
     * @param fieldValue the value
     */
    public static void max_recv_wr(MemorySegment struct, int fieldValue) {
        struct.set(VerbsTypes.C_UINT32, MAX_RECV_WR_OFFSET, fieldValue);
    }

    /**
     * Reads {@code max_send_sge}.
     *
     * @param struct the struct segment
     * @return the value
     */
    public static int max_send_sge(MemorySegment struct) {
        return struct.get(VerbsTypes.C_UINT32, MAX_SEND_SGE_OFFSET);
    }

    /**
     * Writes {@code max_send_sge}.
     *
     * @param struct the struct segment
     * @param fieldValue the value
     */
    public static void max_send_sge(MemorySegment struct, int fieldValue) {
        struct.set(VerbsTypes.C_UINT32, MAX_SEND_SGE_OFFSET, fieldValue);
    }

    /**
     * Reads {@code max_recv_sge}.
     *
     * @param struct the struct segment
     * @return the value
     */
    public static int max_recv_sge(MemorySegment struct) {
        return struct.get(VerbsTypes.C_UINT32, MAX_RECV_SGE_OFFSET);
    }

    /**
     * Writes {@code max_recv_sge}.
     *
     * @param struct the struct segment
     * @param fieldValue the value
     */
    public static void max_recv_sge(MemorySegment struct, int fieldValue) {
        struct.set(VerbsTypes.C_UINT32, MAX_RECV_SGE_OFFSET, fieldValue);
    }

    /**
     * Reads {@code max_inline_data}.
     *
     * @param struct the struct segment
     * @return the value
     */
    public static int max_inline_data(MemorySegment struct) {
        return struct.get(VerbsTypes.C_UINT32, MAX_INLINE_DATA_OFFSET);
    }

    /**
     * Writes {@code max_inline_data}.
     *
     * @param struct the struct segment
     * @param fieldValue the value
     */
    public static void max_inline_data(MemorySegment struct, int fieldValue) {
        struct.set(VerbsTypes.C_UINT32, MAX_INLINE_DATA_OFFSET, fieldValue);
    }
}
