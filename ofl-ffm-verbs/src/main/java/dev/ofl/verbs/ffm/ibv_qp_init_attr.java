package dev.ofl.verbs.ffm;

import java.lang.foreign.GroupLayout;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SegmentAllocator;

import static java.lang.foreign.MemoryLayout.PathElement.groupElement;

/**
 * {@code struct ibv_qp_init_attr} from {@code <infiniband/verbs.h>} (rdma-core 44, x86-64 and aarch64 alike):
 * 64 bytes, aligned to 8. Queue pair creation attributes for {@code ibv_create_qp}; {@code cap} is
 * updated with the actual capacities.
 *
 * <pre>{@code
 * struct ibv_qp_init_attr {
 *     void * qp_context;                      // 0
 *     struct ibv_cq * send_cq;                // 8
 *     struct ibv_cq * recv_cq;                // 16
 *     struct ibv_srq * srq;                   // 24
 *     struct ibv_qp_cap cap;                  // 32, 20 bytes
 *     enum ibv_qp_type qp_type;               // 52
 *     int sq_sig_all;                         // 56
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
public final class ibv_qp_init_attr {

    private static final GroupLayout $LAYOUT = MemoryLayout.structLayout(
        VerbsTypes.C_POINTER.withName("qp_context"),
        VerbsTypes.C_POINTER.withName("send_cq"),
        VerbsTypes.C_POINTER.withName("recv_cq"),
        VerbsTypes.C_POINTER.withName("srq"),
        ibv_qp_cap.$LAYOUT().withName("cap"),
        VerbsTypes.C_INT.withName("qp_type"),
        VerbsTypes.C_INT.withName("sq_sig_all"),
        MemoryLayout.paddingLayout(4)
    ).withName("ibv_qp_init_attr");

    /** Byte offset of {@code qp_context} (0). */
    public static final long QP_CONTEXT_OFFSET = $LAYOUT.byteOffset(groupElement("qp_context"));

    /** Byte offset of {@code send_cq} (8). */
    public static final long SEND_CQ_OFFSET = $LAYOUT.byteOffset(groupElement("send_cq"));

    /** Byte offset of {@code recv_cq} (16). */
    public static final long RECV_CQ_OFFSET = $LAYOUT.byteOffset(groupElement("recv_cq"));

    /** Byte offset of {@code srq} (24). */
    public static final long SRQ_OFFSET = $LAYOUT.byteOffset(groupElement("srq"));

    /** Byte offset of {@code cap} (32). */
    public static final long CAP_OFFSET = $LAYOUT.byteOffset(groupElement("cap"));

    /** Byte offset of {@code qp_type} (52). */
    public static final long QP_TYPE_OFFSET = $LAYOUT.byteOffset(groupElement("qp_type"));

    /** Byte offset of {@code sq_sig_all} (56). */
    public static final long SQ_SIG_ALL_OFFSET = $LAYOUT.byteOffset(groupElement("sq_sig_all"));

    private ibv_qp_init_attr() {
    }

    /**
     * Returns the layout of {@code struct ibv_qp_init_attr}.
     *
     * @return the layout, 64 bytes
     */
    public static GroupLayout $LAYOUT() {
        return $LAYOUT;
    }

    /**
     * Returns the size of {@code struct ibv_qp_init_attr}.
     *
     * @return 64
     */
    public static long sizeof() {
        return $LAYOUT.byteSize();
    }

    /**
     * Allocates one zeroed {@code ibv_qp_init_attr}.
     *
     * @param allocator the allocator that owns the memory
     * @return a segment of {@link #sizeof()} bytes
     */
    public static MemorySegment allocate(SegmentAllocator allocator) {
        return allocator.allocate($LAYOUT);
    }

    /**
     * Allocates a zeroed array of {@code ibv_qp_init_attr}.
     *
     * @param count the number of elements
     * @param allocator the allocator that owns the memory
     * @return a segment of {@code count * sizeof()} bytes
     */
    public static MemorySegment allocateArray(long count, SegmentAllocator allocator) {
        return allocator.allocate($LAYOUT, count);
    }

    /**
     * Returns element {@code index} of an array of {@code ibv_qp_init_attr}.
     *
     * @param array the array segment
     * @param index the element index
     * @return a slice of {@link #sizeof()} bytes
     */
    public static MemorySegment asSlice(MemorySegment array, long index) {
        return array.asSlice(index * $LAYOUT.byteSize(), $LAYOUT);
    }

    /**
     * Gives a pointer returned by native code the size of one {@code ibv_qp_init_attr}; the caller states
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
     * Reads {@code qp_context}.
     *
     * @param struct the struct segment
     * @return the value
     */
    public static MemorySegment qp_context(MemorySegment struct) {
        return struct.get(VerbsTypes.C_POINTER, QP_CONTEXT_OFFSET);
    }

    /**
     * Writes {@code qp_context}.
     *
     * @param struct the struct segment
     * @param fieldValue the value
     */
    public static void qp_context(MemorySegment struct, MemorySegment fieldValue) {
        struct.set(VerbsTypes.C_POINTER, QP_CONTEXT_OFFSET, fieldValue);
    }

    /**
     * Reads {@code send_cq}.
     *
     * @param struct the struct segment
     * @return the value
     */
    public static MemorySegment send_cq(MemorySegment struct) {
        return struct.get(VerbsTypes.C_POINTER, SEND_CQ_OFFSET);
    }

    /**
     * Writes {@code send_cq}.
     *
     * @param struct the struct segment
     * @param fieldValue the value
     */
    public static void send_cq(MemorySegment struct, MemorySegment fieldValue) {
        struct.set(VerbsTypes.C_POINTER, SEND_CQ_OFFSET, fieldValue);
    }

    /**
     * Reads {@code recv_cq}.
     *
     * @param struct the struct segment
     * @return the value
     */
    public static MemorySegment recv_cq(MemorySegment struct) {
        return struct.get(VerbsTypes.C_POINTER, RECV_CQ_OFFSET);
    }

    /**
     * Writes {@code recv_cq}.
     *
     * @param struct the struct segment
     * @param fieldValue the value
     */
    public static void recv_cq(MemorySegment struct, MemorySegment fieldValue) {
        struct.set(VerbsTypes.C_POINTER, RECV_CQ_OFFSET, fieldValue);
    }

    /**
     * Reads {@code srq}.
     *
     * @param struct the struct segment
     * @return the value
     */
    public static MemorySegment srq(MemorySegment struct) {
        return struct.get(VerbsTypes.C_POINTER, SRQ_OFFSET);
    }

    /**
     * Writes {@code srq}.
     *
     * @param struct the struct segment
     * @param fieldValue the value
     */
    public static void srq(MemorySegment struct, MemorySegment fieldValue) {
        struct.set(VerbsTypes.C_POINTER, SRQ_OFFSET, fieldValue);
    }

    /**
     * Returns {@code cap} as a slice of the struct segment.
     *
     * @param struct the struct segment
     * @return a 20-byte slice
     */
    public static MemorySegment cap(MemorySegment struct) {
        return struct.asSlice(CAP_OFFSET, 20);
    }

    /**
     * Copies 20 bytes into {@code cap}.
     *
     * @param struct the struct segment
     * @param fieldValue the bytes to copy
     */
    public static void cap(MemorySegment struct, MemorySegment fieldValue) {
        MemorySegment.copy(fieldValue, 0L, struct, CAP_OFFSET, 20);
    }

    /**
     * Reads {@code qp_type}.
     *
     * @param struct the struct segment
     * @return the value
     */
    public static int qp_type(MemorySegment struct) {
        return struct.get(VerbsTypes.C_INT, QP_TYPE_OFFSET);
    }

    /**
     * Writes {@code qp_type}.
     *
     * @param struct the struct segment
     * @param fieldValue the value
     */
    public static void qp_type(MemorySegment struct, int fieldValue) {
        struct.set(VerbsTypes.C_INT, QP_TYPE_OFFSET, fieldValue);
    }

    /**
     * Reads {@code sq_sig_all}.
     *
     * @param struct the struct segment
     * @return the value
     */
    public static int sq_sig_all(MemorySegment struct) {
        return struct.get(VerbsTypes.C_INT, SQ_SIG_ALL_OFFSET);
    }

    /**
     * Writes {@code sq_sig_all}.
     *
     * @param struct the struct segment
     * @param fieldValue the value
     */
    public static void sq_sig_all(MemorySegment struct, int fieldValue) {
        struct.set(VerbsTypes.C_INT, SQ_SIG_ALL_OFFSET, fieldValue);
    }
}
