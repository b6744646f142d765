package dev.ofl.verbs.ffm;

import java.lang.foreign.GroupLayout;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SegmentAllocator;

import static java.lang.foreign.MemoryLayout.PathElement.groupElement;

/**
 * {@code struct ibv_qp} from {@code <infiniband/verbs.h>} (rdma-core 44): 160 bytes on x86-64,
 * 168 on aarch64, aligned to 8. A queue pair; {@code context} selects the {@code post_send} and {@code
 * post_recv} pointers. The library updates {@code state} in {@code ibv_modify_qp} and {@code
 * ibv_query_qp}.
 *
 * <pre>{@code
 * struct ibv_qp {
 *     struct ibv_context * context;           // 0
 *     void * qp_context;                      // 8
 *     struct ibv_pd * pd;                     // 16
 *     struct ibv_cq * send_cq;                // 24
 *     struct ibv_cq * recv_cq;                // 32
 *     struct ibv_srq * srq;                   // 40
 *     uint32_t handle;                        // 48
 *     uint32_t qp_num;                        // 52
 *     enum ibv_qp_state state;                // 56
 *     enum ibv_qp_type qp_type;               // 60
 *     pthread_mutex_t mutex;                  // 64, 40 bytes (aarch64: 48)
 *     pthread_cond_t cond;                    // 104, 48 bytes (aarch64: 112)
 *     uint32_t events_completed;              // 152 (aarch64: 160)
 * };
 * }</pre>
 *
 * <p>The layout is that of {@link NativeArch#current()}, chosen when this class loads: glibc's
 * {@code pthread_mutex_t} is 40 bytes on x86-64 and 48 on aarch64, so the members after it move.
 * {@link #layout(NativeArch)} builds it for either architecture. On any other architecture this
 * class fails to initialise with a cause naming it; {@code RdmaAvailability} reports that as the
 * unavailability cause before any struct class is used.
 *
 * <p>Shaped as jextract generates it: {@link #$LAYOUT()} with named members and explicit
 * padding, {@code *_OFFSET} constants taken from that layout, and static accessors that read or
 * write one member of a struct segment. Native structs use native byte order; members declared
 * {@code __be} use the big-endian layouts of {@link VerbsTypes}. Accessors do not allocate,
 * except those returning a slice, and rely on the segment's bounds checks. They hold no state and
 * are thread-safe; the memory they touch is not. Pinned by {@code VerbsLayoutTest} against a C
 * program compiled with the system header.
 */
public final class ibv_qp {

    private static final GroupLayout $LAYOUT = layout(NativeArch.current());

    private static final long MUTEX_BYTES = $LAYOUT.select(groupElement("mutex")).byteSize();

    /**
     * Builds the layout of {@code struct ibv_qp} on an architecture; {@link #$LAYOUT()} is the
     * one for this JVM's.
     *
     * @param arch the architecture, whose {@code pthread_mutex_t} size is the one input that varies
     * @return the layout
     */
    public static GroupLayout layout(NativeArch arch) {
        return MemoryLayout.structLayout(
            VerbsTypes.C_POINTER.withName("context"),
            VerbsTypes.C_POINTER.withName("qp_context"),
            VerbsTypes.C_POINTER.withName("pd"),
            VerbsTypes.C_POINTER.withName("send_cq"),
            VerbsTypes.C_POINTER.withName("recv_cq"),
            VerbsTypes.C_POINTER.withName("srq"),
            VerbsTypes.C_UINT32.withName("handle"),
            VerbsTypes.C_UINT32.withName("qp_num"),
            VerbsTypes.C_INT.withName("state"),
            VerbsTypes.C_INT.withName("qp_type"),
            arch.pthreadMutexLayout().withName("mutex"),
            MemoryLayout.sequenceLayout(6, VerbsTypes.C_UINT64).withName("cond"),
            VerbsTypes.C_UINT32.withName("events_completed"),
            MemoryLayout.paddingLayout(4)
        ).withName("ibv_qp");
    }

    /** Byte offset of {@code context} (0). */
    public static final long CONTEXT_OFFSET = $LAYOUT.byteOffset(groupElement("context"));

    /** Byte offset of {@code qp_context} (8). */
    public static final long QP_CONTEXT_OFFSET = $LAYOUT.byteOffset(groupElement("qp_context"));

    /** Byte offset of {@code pd} (16). */
    public static final long PD_OFFSET = $LAYOUT.byteOffset(groupElement("pd"));

    /** Byte offset of {@code send_cq} (24). */
    public static final long SEND_CQ_OFFSET = $LAYOUT.byteOffset(groupElement("send_cq"));

    /** Byte offset of {@code recv_cq} (32). */
    public static final long RECV_CQ_OFFSET = $LAYOUT.byteOffset(groupElement("recv_cq"));

    /** Byte offset of {@code srq} (40). */
    public static final long SRQ_OFFSET = $LAYOUT.byteOffset(groupElement("srq"));

    /** Byte offset of {@code handle} (48). */
    public static final long HANDLE_OFFSET = $LAYOUT.byteOffset(groupElement("handle"));

    /** Byte offset of {@code qp_num} (52). */
    public static final long QP_NUM_OFFSET = $LAYOUT.byteOffset(groupElement("qp_num"));

    /** Byte offset of {@code state} (56). */
    public static final long STATE_OFFSET = $LAYOUT.byteOffset(groupElement("state"));

    /** Byte offset of {@code qp_type} (60). */
    public static final long QP_TYPE_OFFSET = $LAYOUT.byteOffset(groupElement("qp_type"));

    /** Byte offset of {@code mutex} (64). */
    public static final long MUTEX_OFFSET = $LAYOUT.byteOffset(groupElement("mutex"));

    /** Byte offset of {@code cond} (104 on x86-64, 112 on aarch64). */
    public static final long COND_OFFSET = $LAYOUT.byteOffset(groupElement("cond"));

    /** Byte offset of {@code events_completed} (152 on x86-64, 160 on aarch64). */
    public static final long EVENTS_COMPLETED_OFFSET = $LAYOUT.byteOffset(groupElement("events_completed"));

    private ibv_qp() {
    }

    /**
     * Returns the layout of {@code struct ibv_qp}.
     *
     * @return the layout, 160 bytes on x86-64, 168 on aarch64
     */
    public static GroupLayout $LAYOUT() {
        return $LAYOUT;
    }

    /**
     * Returns the size of {@code struct ibv_qp}.
     *
     * @return 160 on x86-64, 168 on aarch64
     */
    public static long sizeof() {
        return $LAYOUT.byteSize();
    }

    /**
     * Allocates one zeroed {@code ibv_qp}.
     *
     * @param allocator the allocator that owns the memory
     * @return a segment of {@link #sizeof()} bytes
     */
    public static MemorySegment allocate(SegmentAllocator allocator) {
        return allocator.allocate($LAYOUT);
    }

    /**
     * Allocates a zeroed array of {@code ibv_qp}.
     *
     * @param count the number of elements
     * @param allocator the allocator that owns the memory
     * @return a segment of {@code count * sizeof()} bytes
     */
    public static MemorySegment allocateArray(long count, SegmentAllocator allocator) {
        return allocator.allocate($LAYOUT, count);
    }

    /**
     * Returns element {@code index} of an array of {@code ibv_qp}.
     *
     * @param array the array segment
     * @param index the element index
     * @return a slice of {@link #sizeof()} bytes
     */
    public static MemorySegment asSlice(MemorySegment array, long index) {
        return array.asSlice(index * $LAYOUT.byteSize(), $LAYOUT);
    }

    /**
     * Gives a pointer returned by native code the size of one {@code ibv_qp}; the caller states
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
     * Reads {@code pd}.
     *
     * @param struct the struct segment
     * @return the value
     */
    public static MemorySegment pd(MemorySegment struct) {
        return struct.get(VerbsTypes.C_POINTER, PD_OFFSET);
    }

    /**
     * Writes {@code pd}.
     *
     * @param struct the struct segment
     * @param fieldValue the value
     */
    public static void pd(MemorySegment struct, MemorySegment fieldValue) {
        struct.set(VerbsTypes.C_POINTER, PD_OFFSET, fieldValue);
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

    /**
     * Reads {@code qp_num}.
     *
     * @param struct the struct segment
     * @return the value
     */
    public static int qp_num(MemorySegment struct) {
        return struct.get(VerbsTypes.C_UINT32, QP_NUM_OFFSET);
    }

    /**
     * Writes {@code qp_num}.
     *
     * @param struct the struct segment
     * @param fieldValue the value
     */
    public static void qp_num(MemorySegment struct, int fieldValue) {
        struct.set(VerbsTypes.C_UINT32, QP_NUM_OFFSET, fieldValue);
    }

    /**
     * Reads {@code state}.
     *
     * @param struct the struct segment
     * @return the value
     */
    public static int state(MemorySegment struct) {
        return struct.get(VerbsTypes.C_INT, STATE_OFFSET);
    }

    /**
     * Writes {@code state}.
     *
     * @param struct the struct segment
     * @param fieldValue the value
     */
    public static void state(MemorySegment struct, int fieldValue) {
        struct.set(VerbsTypes.C_INT, STATE_OFFSET, fieldValue);
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
     * Returns {@code mutex} as a slice of the struct segment.
     *
     * @param struct the struct segment
     * @return a slice of {@link NativeArch#pthreadMutexBytes()} bytes (40 on x86-64, 48 on aarch64)
     */
    public static MemorySegment mutex(MemorySegment struct) {
        return struct.asSlice(MUTEX_OFFSET, MUTEX_BYTES);
    }

    /**
     * Copies {@link NativeArch#pthreadMutexBytes()} bytes (40 on x86-64, 48 on aarch64) into
     * {@code mutex}.
     *
     * @param struct the struct segment
     * @param fieldValue the bytes to copy
     */
    public static void mutex(MemorySegment struct, MemorySegment fieldValue) {
        MemorySegment.copy(fieldValue, 0L, struct, MUTEX_OFFSET, MUTEX_BYTES);
    }

    /**
     * Returns {@code cond} as a slice of the struct segment.
     *
     * @param struct the struct segment
     * @return a 48-byte slice
     */
    public static MemorySegment cond(MemorySegment struct) {
        return struct.asSlice(COND_OFFSET, 48);
    }

    /**
     * Copies 48 bytes into {@code cond}.
     *
     * @param struct the struct segment
     * @param fieldValue the bytes to copy
     */
    public static void cond(MemorySegment struct, MemorySegment fieldValue) {
        MemorySegment.copy(fieldValue, 0L, struct, COND_OFFSET, 48);
    }

    /**
     * Reads {@code events_completed}.
     *
     * @param struct the struct segment
     * @return the value
     */
    public static int events_completed(MemorySegment struct) {
        return struct.get(VerbsTypes.C_UINT32, EVENTS_COMPLETED_OFFSET);
    }

    /**
     * Writes {@code events_completed}.
     *
     * @param struct the struct segment
     * @param fieldValue the value
     */
    public static void events_completed(MemorySegment struct, int fieldValue) {
        struct.set(VerbsTypes.C_UINT32, EVENTS_COMPLETED_OFFSET, fieldValue);
    }
}
