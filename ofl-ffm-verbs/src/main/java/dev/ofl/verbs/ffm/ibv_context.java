package dev.ofl.verbs.ffm;

import java.lang.foreign.GroupLayout;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SegmentAllocator;

import static java.lang.foreign.MemoryLayout.PathElement.groupElement;

/**
 * {@code struct ibv_context} from {@code <infiniband/verbs.h>} (rdma-core 44): 328 bytes on
 * x86-64, 336 on aarch64, aligned to 8. An open device. The {@code ops} table holds the data-path
 * function pointers that the {@code static inline} verbs ({@code ibv_post_send},
 * {@code ibv_post_recv}, {@code ibv_poll_cq}, {@code ibv_req_notify_cq}) call.
 *
 * <pre>{@code
 * struct ibv_context {
 *     struct ibv_device * device;             // 0
 *     struct {                                // 8, 256 bytes
 *         int (*)() _compat_query_device;     // 8
 *         int (*)() _compat_query_port;       // 16
 *         int (*)() _compat_alloc_pd;         // 24
 *         int (*)() _compat_dealloc_pd;       // 32
 *         int (*)() _compat_reg_mr;           // 40
 *         int (*)() _compat_rereg_mr;         // 48
 *         int (*)() _compat_dereg_mr;         // 56
 *         int (*)() alloc_mw;                 // 64
 *         int (*)() bind_mw;                  // 72
 *         int (*)() dealloc_mw;               // 80
 *         int (*)() _compat_create_cq;        // 88
 *         int (*)() poll_cq;                  // 96
 *         int (*)() req_notify_cq;            // 104
 *         int (*)() _compat_cq_event;         // 112
 *         int (*)() _compat_resize_cq;        // 120
 *         int (*)() _compat_destroy_cq;       // 128
 *         int (*)() _compat_create_srq;       // 136
 *         int (*)() _compat_modify_srq;       // 144
 *         int (*)() _compat_query_srq;        // 152
 *         int (*)() _compat_destroy_srq;      // 160
 *         int (*)() post_srq_recv;            // 168
 *         int (*)() _compat_create_qp;        // 176
 *         int (*)() _compat_query_qp;         // 184
 *         int (*)() _compat_modify_qp;        // 192
 *         int (*)() _compat_destroy_qp;       // 200
 *         int (*)() post_send;                // 208
 *         int (*)() post_recv;                // 216
 *         int (*)() _compat_create_ah;        // 224
 *         int (*)() _compat_destroy_ah;       // 232
 *         int (*)() _compat_attach_mcast;     // 240
 *         int (*)() _compat_detach_mcast;     // 248
 *         int (*)() _compat_async_event;      // 256
 *     } ops;
 *     int cmd_fd;                             // 264
 *     int async_fd;                           // 268
 *     int num_comp_vectors;                   // 272
 *     pthread_mutex_t mutex;                  // 280, 40 bytes (aarch64: 48)
 *     void * abi_compat;                      // 320 (aarch64: 328)
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
public final class ibv_context {

    private static final GroupLayout $LAYOUT = layout(NativeArch.current());

    private static final long MUTEX_BYTES = $LAYOUT.select(groupElement("mutex")).byteSize();

    /**
     * Builds the layout of {@code struct ibv_context} on an architecture; {@link #$LAYOUT()} is the
     * one for this JVM's.
     *
     * @param arch the architecture, whose {@code pthread_mutex_t} size is the one input that varies
     * @return the layout
     */
    public static GroupLayout layout(NativeArch arch) {
        return MemoryLayout.structLayout(
            VerbsTypes.C_POINTER.withName("device"),
            MemoryLayout.structLayout(
                VerbsTypes.C_POINTER.withName("_compat_query_device"),
                VerbsTypes.C_POINTER.withName("_compat_query_port"),
                VerbsTypes.C_POINTER.withName("_compat_alloc_pd"),
                VerbsTypes.C_POINTER.withName("_compat_dealloc_pd"),
                VerbsTypes.C_POINTER.withName("_compat_reg_mr"),
                VerbsTypes.C_POINTER.withName("_compat_rereg_mr"),
                VerbsTypes.C_POINTER.withName("_compat_dereg_mr"),
                VerbsTypes.C_POINTER.withName("alloc_mw"),
                VerbsTypes.C_POINTER.withName("bind_mw"),
                VerbsTypes.C_POINTER.withName("dealloc_mw"),
                VerbsTypes.C_POINTER.withName("_compat_create_cq"),
                VerbsTypes.C_POINTER.withName("poll_cq"),
                VerbsTypes.C_POINTER.withName("req_notify_cq"),
                VerbsTypes.C_POINTER.withName("_compat_cq_event"),
                VerbsTypes.C_POINTER.withName("_compat_resize_cq"),
                VerbsTypes.C_POINTER.withName("_compat_destroy_cq"),
                VerbsTypes.C_POINTER.withName("_compat_create_srq"),
                VerbsTypes.C_POINTER.withName("_compat_modify_srq"),
                VerbsTypes.C_POINTER.withName("_compat_query_srq"),
                VerbsTypes.C_POINTER.withName("_compat_destroy_srq"),
                VerbsTypes.C_POINTER.withName("post_srq_recv"),
                VerbsTypes.C_POINTER.withName("_compat_create_qp"),
                VerbsTypes.C_POINTER.withName("_compat_query_qp"),
                VerbsTypes.C_POINTER.withName("_compat_modify_qp"),
                VerbsTypes.C_POINTER.withName("_compat_destroy_qp"),
                VerbsTypes.C_POINTER.withName("post_send"),
                VerbsTypes.C_POINTER.withName("post_recv"),
                VerbsTypes.C_POINTER.withName("_compat_create_ah"),
                VerbsTypes.C_POINTER.withName("_compat_destroy_ah"),
                VerbsTypes.C_POINTER.withName("_compat_attach_mcast"),
                VerbsTypes.C_POINTER.withName("_compat_detach_mcast"),
                VerbsTypes.C_POINTER.withName("_compat_async_event")
        ).withName("ops"),
        VerbsTypes.C_INT.withName("cmd_fd"),
        VerbsTypes.C_INT.withName("async_fd"),
        VerbsTypes.C_INT.withName("num_comp_vectors"),
        MemoryLayout.paddingLayout(4),
        arch.pthreadMutexLayout().withName("mutex"),
        VerbsTypes.C_POINTER.withName("abi_compat")
        ).withName("ibv_context");
    }

    /** Byte offset of {@code device} (0). */
    public static final long DEVICE_OFFSET = $LAYOUT.byteOffset(groupElement("device"));

    /** Byte offset of {@code ops} (8). */
    public static final long OPS_OFFSET = $LAYOUT.byteOffset(groupElement("ops"));

    /** Byte offset of {@code ops._compat_query_device} (8). */
    public static final long OPS_COMPAT_QUERY_DEVICE_OFFSET = $LAYOUT.byteOffset(groupElement("ops"), groupElement("_compat_query_device"));

    /** Byte offset of {@code ops._compat_query_port} (16). */
    public static final long OPS_COMPAT_QUERY_PORT_OFFSET = $LAYOUT.byteOffset(groupElement("ops"), groupElement("_compat_query_port"));

    /** Byte offset of {@code ops._compat_alloc_pd} (24). */
    public static final long OPS_COMPAT_ALLOC_PD_OFFSET = $LAYOUT.byteOffset(groupElement("ops"), groupElement("_compat_alloc_pd"));

    /** Byte offset of {@code ops._compat_dealloc_pd} (32). */
    public static final long OPS_COMPAT_DEALLOC_PD_OFFSET = $LAYOUT.byteOffset(groupElement("ops"), groupElement("_compat_dealloc_pd"));

    /** Byte offset of {@code ops._compat_reg_mr} (40). */
    public static final long OPS_COMPAT_REG_MR_OFFSET = $LAYOUT.byteOffset(groupElement("ops"), groupElement("_compat_reg_mr"));

    /** Byte offset of {@code ops._compat_rereg_mr} (48). */
    public static final long OPS_COMPAT_REREG_MR_OFFSET = $LAYOUT.byteOffset(groupElement("ops"), groupElement("_compat_rereg_mr"));

    /** Byte offset of {@code ops._compat_dereg_mr} (56). */
    public static final long OPS_COMPAT_DEREG_MR_OFFSET = $LAYOUT.byteOffset(groupElement("ops"), groupElement("_compat_dereg_mr"));

    /** Byte offset of {@code ops.alloc_mw} (64). */
    public static final long OPS_ALLOC_MW_OFFSET = $LAYOUT.byteOffset(groupElement("ops"), groupElement("alloc_mw"));

    /** Byte offset of {@code ops.bind_mw} (72). */
    public static final long OPS_BIND_MW_OFFSET = $LAYOUT.byteOffset(groupElement("ops"), groupElement("bind_mw"));

    /** Byte offset of {@code ops.dealloc_mw} (80). */
    public static final long OPS_DEALLOC_MW_OFFSET = $LAYOUT.byteOffset(groupElement("ops"), groupElement("dealloc_mw"));

    /** Byte offset of {@code ops._compat_create_cq} (88). */
    public static final long OPS_COMPAT_CREATE_CQ_OFFSET = $LAYOUT.byteOffset(groupElement("ops"), groupElement("_compat_create_cq"));

    /** Byte offset of {@code ops.poll_cq} (96). */
    public static final long OPS_POLL_CQ_OFFSET = $LAYOUT.byteOffset(groupElement("ops"), groupElement("poll_cq"));

    /** Byte offset of {@code ops.req_notify_cq} (104). */
    public static final long OPS_REQ_NOTIFY_CQ_OFFSET = $LAYOUT.byteOffset(groupElement("ops"), groupElement("req_notify_cq"));

    /** Byte offset of {@code ops._compat_cq_event} (112). */
    public static final long OPS_COMPAT_CQ_EVENT_OFFSET = $LAYOUT.byteOffset(groupElement("ops"), groupElement("_compat_cq_event"));

    /** Byte offset of {@code ops._compat_resize_cq} (120). */
    public static final long OPS_COMPAT_RESIZE_CQ_OFFSET = $LAYOUT.byteOffset(groupElement("ops"), groupElement("_compat_resize_cq"));

    /** Byte offset of {@code ops._compat_destroy_cq} (128). */
    public static final long OPS_COMPAT_DESTROY_CQ_OFFSET = $LAYOUT.byteOffset(groupElement("ops"), groupElement("_compat_destroy_cq"));

    /** Byte offset of {@code ops._compat_create_srq} (136). */
    public static final long OPS_COMPAT_CREATE_SRQ_OFFSET = $LAYOUT.byteOffset(groupElement("ops"), groupElement("_compat_create_srq"));

    /** Byte offset of {@code ops._compat_modify_srq} (144). */
    public static final long OPS_COMPAT_MODIFY_SRQ_OFFSET = $LAYOUT.byteOffset(groupElement("ops"), groupElement("_compat_modify_srq"));

    /** Byte offset of {@code ops._compat_query_srq} (152). */
    public static final long OPS_COMPAT_QUERY_SRQ_OFFSET = $LAYOUT.byteOffset(groupElement("ops"), groupElement("_compat_query_srq"));

    /** Byte offset of {@code ops._compat_destroy_srq} (160). */
    public static final long OPS_COMPAT_DESTROY_SRQ_OFFSET = $LAYOUT.byteOffset(groupElement("ops"), groupElement("_compat_destroy_srq"));

    /** Byte offset of {@code ops.post_srq_recv} (168). */
    public static final long OPS_POST_SRQ_RECV_OFFSET = $LAYOUT.byteOffset(groupElement("ops"), groupElement("post_srq_recv"));

    /** Byte offset of {@code ops._compat_create_qp} (176). */
    public static final long OPS_COMPAT_CREATE_QP_OFFSET = $LAYOUT.byteOffset(groupElement("ops"), groupElement("_compat_create_qp"));

    /** Byte offset of {@code ops._compat_query_qp} (184). */
    public static final long OPS_COMPAT_QUERY_QP_OFFSET = $LAYOUT.byteOffset(groupElement("ops"), groupElement("_compat_query_qp"));

    /** Byte offset of {@code ops._compat_modify_qp} (192). */
    public static final long OPS_COMPAT_MODIFY_QP_OFFSET = $LAYOUT.byteOffset(groupElement("ops"), groupElement("_compat_modify_qp"));

    /** Byte offset of {@code ops._compat_destroy_qp} (200). */
    public static final long OPS_COMPAT_DESTROY_QP_OFFSET = $LAYOUT.byteOffset(groupElement("ops"), groupElement("_compat_destroy_qp"));

    /** Byte offset of {@code ops.post_send} (208). */
    public static final long OPS_POST_SEND_OFFSET = $LAYOUT.byteOffset(groupElement("ops"), groupElement("post_send"));

    /** Byte offset of {@code ops.post_recv} (216). */
    public static final long OPS_POST_RECV_OFFSET = $LAYOUT.byteOffset(groupElement("ops"), groupElement("post_recv"));

    /** Byte offset of {@code ops._compat_create_ah} (224). */
    public static final long OPS_COMPAT_CREATE_AH_OFFSET = $LAYOUT.byteOffset(groupElement("ops"), groupElement("_compat_create_ah"));

    /** Byte offset of {@code ops._compat_destroy_ah} (232). */
    public static final long OPS_COMPAT_DESTROY_AH_OFFSET = $LAYOUT.byteOffset(groupElement("ops"), groupElement("_compat_destroy_ah"));

    /** Byte offset of {@code ops._compat_attach_mcast} (240). */
    public static final long OPS_COMPAT_ATTACH_MCAST_OFFSET = $LAYOUT.byteOffset(groupElement("ops"), groupElement("_compat_attach_mcast"));

    /** Byte offset of {@code ops._compat_detach_mcast} (248). */
    public static final long OPS_COMPAT_DETACH_MCAST_OFFSET = $LAYOUT.byteOffset(groupElement("ops"), groupElement("_compat_detach_mcast"));

    /** Byte offset of {@code ops._compat_async_event} (256). */
    public static final long OPS_COMPAT_ASYNC_EVENT_OFFSET = $LAYOUT.byteOffset(groupElement("ops"), groupElement("_compat_async_event"));

    /** Byte offset of {@code cmd_fd} (264). */
    public static final long CMD_FD_OFFSET = $LAYOUT.byteOffset(groupElement("cmd_fd"));

    /** Byte offset of {@code async_fd} (268). */
    public static final long ASYNC_FD_OFFSET = $LAYOUT.byteOffset(groupElement("async_fd"));

    /** Byte offset of {@code num_comp_vectors} (272). */
    public static final long NUM_COMP_VECTORS_OFFSET = $LAYOUT.byteOffset(groupElement("num_comp_vectors"));

    /** Byte offset of {@code mutex} (280). */
    public static final long MUTEX_OFFSET = $LAYOUT.byteOffset(groupElement("mutex"));

    /** Byte offset of {@code abi_compat} (320 on x86-64, 328 on aarch64). */
    public static final long ABI_COMPAT_OFFSET = $LAYOUT.byteOffset(groupElement("abi_compat"));

    private ibv_context() {
    }

    /**
     * Returns the layout of {@code struct ibv_context}.
     *
     * @return the layout, 328 bytes on x86-64, 336 on aarch64
     */
    public static GroupLayout $LAYOUT() {
        return $LAYOUT;
    }

    /**
     * Returns the size of {@code struct ibv_context}.
     *
     * @return 328 on x86-64, 336 on aarch64
     */
    public static long sizeof() {
        return $LAYOUT.byteSize();
    }

    /**
     * Allocates one zeroed {@code ibv_context}.
     *
     * @param allocator the allocator that owns the memory
     * @return a segment of {@link #sizeof()} bytes
     */
    public static MemorySegment allocate(SegmentAllocator allocator) {
        return allocator.allocate($LAYOUT);
    }

    /**
     * Allocates a zeroed array of {@code ibv_context}.
     *
     * @param count the number of elements
     * @param allocator the allocator that owns the memory
     * @return a segment of {@code count * sizeof()} bytes
     */
    public static MemorySegment allocateArray(long count, SegmentAllocator allocator) {
        return allocator.allocate($LAYOUT, count);
    }

    /**
     * Returns element {@code index} of an array of {@code ibv_context}.
     *
     * @param array the array segment
     * @param index the element index
     * @return a slice of {@link #sizeof()} bytes
     */
    public static MemorySegment asSlice(MemorySegment array, long index) {
        return array.asSlice(index * $LAYOUT.byteSize(), $LAYOUT);
    }

    /**
     * Gives a pointer returned by native code the size of one {@code ibv_context}; the caller states
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
     * Reads {@code device}.
     *
     * @param struct the struct segment
     * @return the value
     */
    public static MemorySegment device(MemorySegment struct) {
        return struct.get(VerbsTypes.C_POINTER, DEVICE_OFFSET);
    }

    /**
     * Writes {@code device}.
     *
     * @param struct the struct segment
     * @param fieldValue the value
     */
    public static void device(MemorySegment struct, MemorySegment fieldValue) {
        struct.set(VerbsTypes.C_POINTER, DEVICE_OFFSET, fieldValue);
    }

    /**
     * Returns {@code ops} as a slice of the struct segment.
     *
     * @param struct the struct segment
     * @return a 256-byte slice
     */
    public static MemorySegment ops(MemorySegment struct) {
        return struct.asSlice(OPS_OFFSET, 256);
    }

    /**
     * Copies 256 bytes into {@code ops}.
     *
     * @param struct the struct segment
     * @param fieldValue the bytes to copy
     */
    public static void ops(MemorySegment struct, MemorySegment fieldValue) {
        MemorySegment.copy(fieldValue, 0L, struct, OPS_OFFSET, 256);
    }

    /**
     * Reads {@code ops._compat_query_device}.
     *
     * @param struct the struct segment
     * @return the value
     */
    public static MemorySegment ops__compat_query_device(MemorySegment struct) {
        return struct.get(VerbsTypes.C_POINTER, OPS_COMPAT_QUERY_DEVICE_OFFSET);
    }

    /**
     * Writes {@code ops._compat_query_device}.
     *
     * @param struct the struct segment
     * @param fieldValue the value
     */
    public static void ops__compat_query_device(MemorySegment struct, MemorySegment fieldValue) {
        struct.set(VerbsTypes.C_POINTER, OPS_COMPAT_QUERY_DEVICE_OFFSET, fieldValue);
    }

    /**
     * Reads {@code ops._compat_query_port}.
     *
     * @param struct the struct segment
     * @return the value
     */
    public static MemorySegment ops__compat_query_port(MemorySegment struct) {
        return struct.get(VerbsTypes.C_POINTER, OPS_COMPAT_QUERY_PORT_OFFSET);
    }

    /**
     * Writes {@code ops._compat_query_port}.
     *
     * @param struct the struct segment
     * @param fieldValue the value
     */
    public static void ops__compat_query_port(MemorySegment struct, MemorySegment fieldValue) {
        struct.set(VerbsTypes.C_POINTER, OPS_COMPAT_QUERY_PORT_OFFSET, fieldValue);
    }

    /**
     * Reads {@code ops._compat_alloc_pd}.
     *
     * @param struct the struct segment
     * @return the value
     */
    public static MemorySegment ops__compat_alloc_pd(MemorySegment struct) {
        return struct.get(VerbsTypes.C_POINTER, OPS_COMPAT_ALLOC_PD_OFFSET);
    }

    /**
     * Writes {@code ops._compat_alloc_pd}.
     *
     * @param struct the struct segment
     * @param fieldValue the value
     */
    public static void ops__compat_alloc_pd(MemorySegment struct, MemorySegment fieldValue) {
        struct.set(VerbsTypes.C_POINTER, OPS_COMPAT_ALLOC_PD_OFFSET, fieldValue);
    }

    /**
     * Reads {@code ops._compat_dealloc_pd}.
     *
     * @param struct the struct segment
     * @return the value
     */
    public static MemorySegment ops__compat_dealloc_pd(MemorySegment struct) {
        return struct.get(VerbsTypes.C_POINTER, OPS_COMPAT_DEALLOC_PD_OFFSET);
    }

    /**
     * Writes {@code ops._compat_dealloc_pd}.
     *
     * @param struct the struct segment
     * @param fieldValue the value
     */
    public static void ops__compat_dealloc_pd(MemorySegment struct, MemorySegment fieldValue) {
        struct.set(VerbsTypes.C_POINTER, OPS_COMPAT_DEALLOC_PD_OFFSET, fieldValue);
    }

    /**
     * Reads {@code ops._compat_reg_mr}.
     *
     * @param struct the struct segment
     * @return the value
     */
    public static MemorySegment ops__compat_reg_mr(MemorySegment struct) {
        return struct.get(VerbsTypes.C_POINTER, OPS_COMPAT_REG_MR_OFFSET);
    }

    /**
     * Writes {@code ops._compat_reg_mr}.
     *
     * @param struct the struct segment
     * @param fieldValue the value
     */
    public static void ops__compat_reg_mr(MemorySegment struct, MemorySegment fieldValue) {
        struct.set(VerbsTypes.C_POINTER, OPS_COMPAT_REG_MR_OFFSET, fieldValue);
    }

    /**
     * Reads {@code ops._compat_rereg_mr}.
     *
     * @param struct the struct segment
     * @return the value
     */
    public static MemorySegment ops__compat_rereg_mr(MemorySegment struct) {
        return struct.get(VerbsTypes.C_POINTER, OPS_COMPAT_REREG_MR_OFFSET);
    }

    /**
     * Writes {@code ops._compat_rereg_mr}.
     *
     * @param struct the struct segment
     * @param fieldValue the value
     */
    public static void ops__compat_rereg_mr(MemorySegment struct, MemorySegment fieldValue) {
        struct.set(VerbsTypes.C_POINTER, OPS_COMPAT_REREG_MR_OFFSET, fieldValue);
    }

    /**
     * Reads {@code ops._compat_dereg_mr}.
     *
     * @param struct the struct segment
     * @return the value
     */
    public static MemorySegment ops__compat_dereg_mr(MemorySegment struct) {
        return struct.get(VerbsTypes.C_POINTER, OPS_COMPAT_DEREG_MR_OFFSET);
    }

    /**
     * Writes {@code ops._compat_dereg_mr}.
     *
     * @param struct the struct segment
     * @param fieldValue the value
     */
    public static void ops__compat_dereg_mr(MemorySegment struct, MemorySegment fieldValue) {
        struct.set(VerbsTypes.C_POINTER, OPS_COMPAT_DEREG_MR_OFFSET, fieldValue);
    }

    /**
     * Reads {@code ops.alloc_mw}.
     *
     * @param struct the struct segment
     * @return the value
     */
    public static MemorySegment ops_alloc_mw(MemorySegment struct) {
        return struct.get(VerbsTypes.C_POINTER, OPS_ALLOC_MW_OFFSET);
    }

    /**
     * Writes {@code ops.alloc_mw}.
     *
     * @param struct the struct segment
     * @param fieldValue the value
     */
    public static void ops_alloc_mw(MemorySegment struct, MemorySegment fieldValue) {
        struct.set(VerbsTypes.C_POINTER, OPS_ALLOC_MW_OFFSET, fieldValue);
    }

    /**
     * Reads {@code ops.bind_mw}.
     *
     * @param struct the struct segment
     * @return the value
     */
    public static MemorySegment ops_bind_mw(MemorySegment struct) {
        return struct.get(VerbsTypes.C_POINTER, OPS_BIND_MW_OFFSET);
    }

    /**
     * Writes {@code ops.bind_mw}.
     *
     * @param struct the struct segment
     * @param fieldValue the value
     */
    public static void ops_bind_mw(MemorySegment struct, MemorySegment fieldValue) {
        struct.set(VerbsTypes.C_POINTER, OPS_BIND_MW_OFFSET, fieldValue);
    }

    /**
     * Reads {@code ops.dealloc_mw}.
     *
     * @param struct the struct segment
     * @return the value
     */
    public static MemorySegment ops_dealloc_mw(MemorySegment struct) {
        return struct.get(VerbsTypes.C_POINTER, OPS_DEALLOC_MW_OFFSET);
    }

    /**
     * Writes {@code ops.dealloc_mw}.
     *
     * @param struct the struct segment
     * @param fieldValue the value
     */
    public static void ops_dealloc_mw(MemorySegment struct, MemorySegment fieldValue) {
        struct.set(VerbsTypes.C_POINTER, OPS_DEALLOC_MW_OFFSET, fieldValue);
    }

    /**
     * Reads {@code ops._compat_create_cq}.
     *
     * @param struct the struct segment
     * @return the value
     */
    public static MemorySegment ops__compat_create_cq(MemorySegment struct) {
        return struct.get(VerbsTypes.C_POINTER, OPS_COMPAT_CREATE_CQ_OFFSET);
    }

    /**
     * Writes {@code ops._compat_create_cq}.
     *
     * @param struct the struct segment
     * @param fieldValue the value
     */
    public static void ops__compat_create_cq(MemorySegment struct, MemorySegment fieldValue) {
        struct.set(VerbsTypes.C_POINTER, OPS_COMPAT_CREATE_CQ_OFFSET, fieldValue);
    }

    /**
     * Reads {@code ops.poll_cq}.
     *
     * @param struct the struct segment
     * @return the value
     */
    public static MemorySegment ops_poll_cq(MemorySegment struct) {
        return struct.get(VerbsTypes.C_POINTER, OPS_POLL_CQ_OFFSET);
    }

    /**
     * Writes {@code ops.poll_cq}.
     *
     * @param struct the struct segment
     * @param fieldValue the value
     */
    public static void ops_poll_cq(MemorySegment struct, MemorySegment fieldValue) {
        struct.set(VerbsTypes.C_POINTER, OPS_POLL_CQ_OFFSET, fieldValue);
    }

    /**
     * Reads {@code ops.req_notify_cq}.
     *
     * @param struct the struct segment
     * @return the value
     */
    public static MemorySegment ops_req_notify_cq(MemorySegment struct) {
        return struct.get(VerbsTypes.C_POINTER, OPS_REQ_NOTIFY_CQ_OFFSET);
    }

    /**
     * Writes {@code ops.req_notify_cq}.
     *
     * @param struct the struct segment
     * @param fieldValue the value
     */
    public static void ops_req_notify_cq(MemorySegment struct, MemorySegment fieldValue) {
        struct.set(VerbsTypes.C_POINTER, OPS_REQ_NOTIFY_CQ_OFFSET, fieldValue);
    }

    /**
     * Reads {@code ops._compat_cq_event}.
     *
     * @param struct the struct segment
     * @return the value
     */
    public static MemorySegment ops__compat_cq_event(MemorySegment struct) {
        return struct.get(VerbsTypes.C_POINTER, OPS_COMPAT_CQ_EVENT_OFFSET);
    }

    /**
     * Writes {@code ops._compat_cq_event}.
     *
     * @param struct the struct segment
     * @param fieldValue the value
     */
    public static void ops__compat_cq_event(MemorySegment struct, MemorySegment fieldValue) {
        struct.set(VerbsTypes.C_POINTER, OPS_COMPAT_CQ_EVENT_OFFSET, fieldValue);
    }

    /**
     * Reads {@code ops._compat_resize_cq}.
     *
     * @param struct the struct segment
     * @return the value
     */
    public static MemorySegment ops__compat_resize_cq(MemorySegment struct) {
        return struct.get(VerbsTypes.C_POINTER, OPS_COMPAT_RESIZE_CQ_OFFSET);
    }

    /**
     * Writes {@code ops._compat_resize_cq}.
     *
     * @param struct the struct segment
     * @param fieldValue the value
     */
    public static void ops__compat_resize_cq(MemorySegment struct, MemorySegment fieldValue) {
        struct.set(VerbsTypes.C_POINTER, OPS_COMPAT_RESIZE_CQ_OFFSET, fieldValue);
    }

    /**
     * Reads {@code ops._compat_destroy_cq}.
     *
     * @param struct the struct segment
     * @return the value
     */
    public static MemorySegment ops__compat_destroy_cq(MemorySegment struct) {
        return struct.get(VerbsTypes.C_POINTER, OPS_COMPAT_DESTROY_CQ_OFFSET);
    }

    /**
     * Writes {@code ops._compat_destroy_cq}.
     *
     * @param struct the struct segment
     * @param fieldValue the value
     */
    public static void ops__compat_destroy_cq(MemorySegment struct, MemorySegment fieldValue) {
        struct.set(VerbsTypes.C_POINTER, OPS_COMPAT_DESTROY_CQ_OFFSET, fieldValue);
    }

    /**
     * Reads {@code ops._compat_create_srq}.
     *
     * @param struct the struct segment
     * @return the value
     */
    public static MemorySegment ops__compat_create_srq(MemorySegment struct) {
        return struct.get(VerbsTypes.C_POINTER, OPS_COMPAT_CREATE_SRQ_OFFSET);
    }

    /**
     * Writes {@code ops._compat_create_srq}.
     *
     * @param struct the struct segment
     * @param fieldValue the value
     */
    public static void ops__compat_create_srq(MemorySegment struct, MemorySegment fieldValue) {
        struct.set(VerbsTypes.C_POINTER, OPS_COMPAT_CREATE_SRQ_OFFSET, fieldValue);
    }

    /**
     * Reads {@code ops._compat_modify_srq}.
     *
     * @param struct the struct segment
     * @return the value
     */
    public static MemorySegment ops__compat_modify_srq(MemorySegment struct) {
        return struct.get(VerbsTypes.C_POINTER, OPS_COMPAT_MODIFY_SRQ_OFFSET);
    }

    /**
     * Writes {@code ops._compat_modify_srq}.
     *
     * @param struct the struct segment
     * @param fieldValue the value
     */
    public static void ops__compat_modify_srq(MemorySegment struct, MemorySegment fieldValue) {
        struct.set(VerbsTypes.C_POINTER, OPS_COMPAT_MODIFY_SRQ_OFFSET, fieldValue);
    }

    /**
     * Reads {@code ops._compat_query_srq}.
     *
     * @param struct the struct segment
     * @return the value
     */
    public static MemorySegment ops__compat_query_srq(MemorySegment struct) {
        return struct.get(VerbsTypes.C_POINTER, OPS_COMPAT_QUERY_SRQ_OFFSET);
    }

    /**
     * Writes {@code ops._compat_query_srq}.
     *
     * @param struct the struct segment
     * @param fieldValue the value
     */
    public static void ops__compat_query_srq(MemorySegment struct, MemorySegment fieldValue) {
        struct.set(VerbsTypes.C_POINTER, OPS_COMPAT_QUERY_SRQ_OFFSET, fieldValue);
    }

    /**
     * Reads {@code ops._compat_destroy_srq}.
     *
     * @param struct the struct segment
     * @return the value
     */
    public static MemorySegment ops__compat_destroy_srq(MemorySegment struct) {
        return struct.get(VerbsTypes.C_POINTER, OPS_COMPAT_DESTROY_SRQ_OFFSET);
    }

    /**
     * Writes {@code ops._compat_destroy_srq}.
     *
     * @param struct the struct segment
     * @param fieldValue the value
     */
    public static void ops__compat_destroy_srq(MemorySegment struct, MemorySegment fieldValue) {
        struct.set(VerbsTypes.C_POINTER, OPS_COMPAT_DESTROY_SRQ_OFFSET, fieldValue);
    }

    /**
     * Reads {@code ops.post_srq_recv}.
     *
     * @param struct the struct segment
     * @return the value
     */
    public static MemorySegment ops_post_srq_recv(MemorySegment struct) {
        return struct.get(VerbsTypes.C_POINTER, OPS_POST_SRQ_RECV_OFFSET);
    }

    /**
     * Writes {@code ops.post_srq_recv}.
     *
     * @param struct the struct segment
     * @param fieldValue the value
     */
    public static void ops_post_srq_recv(MemorySegment struct, MemorySegment fieldValue) {
        struct.set(VerbsTypes.C_POINTER, OPS_POST_SRQ_RECV_OFFSET, fieldValue);
    }

    /**
     * Reads {@code ops._compat_create_qp}.
     *
     * @param struct the struct segment
     * @return the value
     */
    public static MemorySegment ops__compat_create_qp(MemorySegment struct) {
        return struct.get(VerbsTypes.C_POINTER, OPS_COMPAT_CREATE_QP_OFFSET);
    }

    /**
     * Writes {@code ops._compat_create_qp}.
     *
     * @param struct the struct segment
     * @param fieldValue the value
     */
    public static void ops__compat_create_qp(MemorySegment struct, MemorySegment fieldValue) {
        struct.set(VerbsTypes.C_POINTER, OPS_COMPAT_CREATE_QP_OFFSET, fieldValue);
    }

    /**
     * Reads {@code ops._compat_query_qp}.
     *
     * @param struct the struct segment
     * @return the value
     */
    public static MemorySegment ops__compat_query_qp(MemorySegment struct) {
        return struct.get(VerbsTypes.C_POINTER, OPS_COMPAT_QUERY_QP_OFFSET);
    }

    /**
     * Writes {@code ops._compat_query_qp}.
     *
     * @param struct the struct segment
     * @param fieldValue the value
     */
    public static void ops__compat_query_qp(MemorySegment struct, MemorySegment fieldValue) {
        struct.set(VerbsTypes.C_POINTER, OPS_COMPAT_QUERY_QP_OFFSET, fieldValue);
    }

    /**
     * Reads {@code ops._compat_modify_qp}.
     *
     * @param struct the struct segment
     * @return the value
     */
    public static MemorySegment ops__compat_modify_qp(MemorySegment struct) {
        return struct.get(VerbsTypes.C_POINTER, OPS_COMPAT_MODIFY_QP_OFFSET);
    }

    /**
     * Writes {@code ops._compat_modify_qp}.
     *
     * @param struct the struct segment
     * @param fieldValue the value
     */
    public static void ops__compat_modify_qp(MemorySegment struct, MemorySegment fieldValue) {
        struct.set(VerbsTypes.C_POINTER, OPS_COMPAT_MODIFY_QP_OFFSET, fieldValue);
    }

    /**
     * Reads {@code ops._compat_destroy_qp}.
     *
     * @param struct the struct segment
     * @return the value
     */
    public static MemorySegment ops__compat_destroy_qp(MemorySegment struct) {
        return struct.get(VerbsTypes.C_POINTER, OPS_COMPAT_DESTROY_QP_OFFSET);
    }

    /**
     * Writes {@code ops._compat_destroy_qp}.
     *
     * @param struct the struct segment
     * @param fieldValue the value
     */
    public static void ops__compat_destroy_qp(MemorySegment struct, MemorySegment fieldValue) {
        struct.set(VerbsTypes.C_POINTER, OPS_COMPAT_DESTROY_QP_OFFSET, fieldValue);
    }

    /**
     * Reads {@code ops.post_send}.
     *
     * @param struct the struct segment
     * @return the value
     */
    public static MemorySegment ops_post_send(MemorySegment struct) {
        return struct.get(VerbsTypes.C_POINTER, OPS_POST_SEND_OFFSET);
    }

    /**
     * Writes {@code ops.post_send}.
     *
     * @param struct the struct segment
     * @param fieldValue the value
     */
    public static void ops_post_send(MemorySegment struct, MemorySegment fieldValue) {
        struct.set(VerbsTypes.C_POINTER, OPS_POST_SEND_OFFSET, fieldValue);
    }

    /**
     * Reads {@code ops.post_recv}.
     *
     * @param struct the struct segment
     * @return the value
     */
    public static MemorySegment ops_post_recv(MemorySegment struct) {
        return struct.get(VerbsTypes.C_POINTER, OPS_POST_RECV_OFFSET);
    }

    /**
     * Writes {@code ops.post_recv}.
     *
     * @param struct the struct segment
     * @param fieldValue the value
     */
    public static void ops_post_recv(MemorySegment struct, MemorySegment fieldValue) {
        struct.set(VerbsTypes.C_POINTER, OPS_POST_RECV_OFFSET, fieldValue);
    }

    /**
     * Reads {@code ops._compat_create_ah}.
     *
     * @param struct the struct segment
     * @return the value
     */
    public static MemorySegment ops__compat_create_ah(MemorySegment struct) {
        return struct.get(VerbsTypes.C_POINTER, OPS_COMPAT_CREATE_AH_OFFSET);
    }

    /**
     * Writes {@code ops._compat_create_ah}.
     *
     * @param struct the struct segment
     * @param fieldValue the value
     */
    public static void ops__compat_create_ah(MemorySegment struct, MemorySegment fieldValue) {
        struct.set(VerbsTypes.C_POINTER, OPS_COMPAT_CREATE_AH_OFFSET, fieldValue);
    }

    /**
     * Reads {@code ops._compat_destroy_ah}.
     *
     * @param struct the struct segment
     * @return the value
     */
    public static MemorySegment ops__compat_destroy_ah(MemorySegment struct) {
        return struct.get(VerbsTypes.C_POINTER, OPS_COMPAT_DESTROY_AH_OFFSET);
    }

    /**
     * Writes {@code ops._compat_destroy_ah}.
     *
     * @param struct the struct segment
     * @param fieldValue the value
     */
    public static void ops__compat_destroy_ah(MemorySegment struct, MemorySegment fieldValue) {
        struct.set(VerbsTypes.C_POINTER, OPS_COMPAT_DESTROY_AH_OFFSET, fieldValue);
    }

    /**
     * Reads {@code ops._compat_attach_mcast}.
     *
     * @param struct the struct segment
     * @return the value
     */
    public static MemorySegment ops__compat_attach_mcast(MemorySegment struct) {
        return struct.get(VerbsTypes.C_POINTER, OPS_COMPAT_ATTACH_MCAST_OFFSET);
    }

    /**
     * Writes {@code ops._compat_attach_mcast}.
     *
     * @param struct the struct segment
     * @param fieldValue the value
     */
    public static void ops__compat_attach_mcast(MemorySegment struct, MemorySegment fieldValue) {
        struct.set(VerbsTypes.C_POINTER, OPS_COMPAT_ATTACH_MCAST_OFFSET, fieldValue);
    }

    /**
     * Reads {@code ops._compat_detach_mcast}.
     *
     * @param struct the struct segment
     * @return the value
     */
    public static MemorySegment ops__compat_detach_mcast(MemorySegment struct) {
        return struct.get(VerbsTypes.C_POINTER, OPS_COMPAT_DETACH_MCAST_OFFSET);
    }

    /**
     * Writes {@code ops._compat_detach_mcast}.
     *
     * @param struct the struct segment
     * @param fieldValue the value
     */
    public static void ops__compat_detach_mcast(MemorySegment struct, MemorySegment fieldValue) {
        struct.set(VerbsTypes.C_POINTER, OPS_COMPAT_DETACH_MCAST_OFFSET, fieldValue);
    }

    /**
     * Reads {@code ops._compat_async_event}.
     *
     * @param struct the struct segment
     * @return the value
     */
    public static MemorySegment ops__compat_async_event(MemorySegment struct) {
        return struct.get(VerbsTypes.C_POINTER, OPS_COMPAT_ASYNC_EVENT_OFFSET);
    }

    /**
     * Writes {@code ops._compat_async_event}.
     *
     * @param struct the struct segment
     * @param fieldValue the value
     */
    public static void ops__compat_async_event(MemorySegment struct, MemorySegment fieldValue) {
        struct.set(VerbsTypes.C_POINTER, OPS_COMPAT_ASYNC_EVENT_OFFSET, fieldValue);
    }

    /**
     * Reads {@code cmd_fd}.
     *
     * @param struct the struct segment
     * @return the value
     */
    public static int cmd_fd(MemorySegment struct) {
        return struct.get(VerbsTypes.C_INT, CMD_FD_OFFSET);
    }

    /**
     * Writes {@code cmd_fd}.
     *
     * @param struct the struct segment
     * @param fieldValue the value
     */
    public static void cmd_fd(MemorySegment struct, int fieldValue) {
        struct.set(VerbsTypes.C_INT, CMD_FD_OFFSET, fieldValue);
    }

    /**
     * Reads {@code async_fd}.
     *
     * @param struct the struct segment
     * @return the value
     */
    public static int async_fd(MemorySegment struct) {
        return struct.get(VerbsTypes.C_INT, ASYNC_FD_OFFSET);
    }

    /**
     * Writes {@code async_fd}.
     *
     * @param struct the struct segment
     * @param fieldValue the value
     */
    public static void async_fd(MemorySegment struct, int fieldValue) {
        struct.set(VerbsTypes.C_INT, ASYNC_FD_OFFSET, fieldValue);
    }

    /**
     * Reads {@code num_comp_vectors}.
     *
     * @param struct the struct segment
     * @return the value
     */
    public static int num_comp_vectors(MemorySegment struct) {
        return struct.get(VerbsTypes.C_INT, NUM_COMP_VECTORS_OFFSET);
    }

    /**
     * Writes {@code num_comp_vectors}.
     *
     * @param struct the struct segment
     * @param fieldValue the value
     */
    public static void num_comp_vectors(MemorySegment struct, int fieldValue) {
        struct.set(VerbsTypes.C_INT, NUM_COMP_VECTORS_OFFSET, fieldValue);
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
     * Reads {@code abi_compat}.
     *
     * @param struct the struct segment
     * @return the value
     */
    public static MemorySegment abi_compat(MemorySegment struct) {
        return struct.get(VerbsTypes.C_POINTER, ABI_COMPAT_OFFSET);
    }

    /**
     * Writes {@code abi_compat}.
     *
     * @param struct the struct segment
     * @param fieldValue the value
     */
    public static void abi_compat(MemorySegment struct, MemorySegment fieldValue) {
        struct.set(VerbsTypes.C_POINTER, ABI_COMPAT_OFFSET, fieldValue);
    }
}
