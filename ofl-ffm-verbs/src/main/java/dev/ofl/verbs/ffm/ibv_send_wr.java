package dev.ofl.verbs.ffm;

import java.lang.foreign.GroupLayout;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SegmentAllocator;

import static java.lang.foreign.MemoryLayout.PathElement.groupElement;

/**
 * {@code struct ibv_send_wr} from {@code <infiniband/verbs.h>} (rdma-core 44, x86-64 and aarch64 alike):
 * 128 bytes, aligned to 8. A send work request. {@code imm_data} is carried in network byte order:
 * the accessors take and return the logical value and store it big-endian.
 *
 * <pre>{@code
 * struct ibv_send_wr {
 *     uint64_t wr_id;                         // 0
 *     struct ibv_send_wr * next;              // 8
 *     struct ibv_sge * sg_list;               // 16
 *     int num_sge;                            // 24
 *     enum ibv_wr_opcode opcode;              // 28
 *     unsigned int send_flags;                // 32
 *     union {                                 // 36, 4 bytes
 *         __be32 imm_data;                    // 36
 *         uint32_t invalidate_rkey;           // 36
 *     };
 *     union {                                 // 40, 32 bytes
 *         struct {                            // 40, 16 bytes
 *             uint64_t remote_addr;           // 40
 *             uint32_t rkey;                  // 48
 *         } rdma;
 *         struct {                            // 40, 32 bytes
 *             uint64_t remote_addr;           // 40
 *             uint64_t compare_add;           // 48
 *             uint64_t swap;                  // 56
 *             uint32_t rkey;                  // 64
 *         } atomic;
 *         struct {                            // 40, 16 bytes
 *             struct ibv_ah * ah;             // 40
 *             uint32_t remote_qpn;            // 48
 *             uint32_t remote_qkey;           // 52
 *         } ud;
 *     } wr;
 *     union {                                 // 72, 4 bytes
 *         struct {                            // 72, 4 bytes
 *             uint32_t remote_srqn;           // 72
 *         } xrc;
 *     } qp_type;
 *     union {                                 // 80, 48 bytes
 *         struct {                            // 80, 48 bytes
 *             struct ibv_mw * mw;             // 80
 *             uint32_t rkey;                  // 88
 *             struct {                        // 96, 32 bytes
 *                 struct ibv_mr * mr;         // 96
 *                 uint64_t addr;              // 104
 *                 uint64_t length;            // 112
 *                 unsigned int mw_access_flags;// 120
 *             } bind_info;
 *         } bind_mw;
 *         struct {                            // 80, 16 bytes
 *             void * hdr;                     // 80
 *             uint16_t hdr_sz;                // 88
 *             uint16_t mss;                   // 90
 *         } tso;
 *     };
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
public final class ibv_send_wr {

    private static final GroupLayout $LAYOUT = MemoryLayout.structLayout(
        VerbsTypes.C_UINT64.withName("wr_id"),
        VerbsTypes.C_POINTER.withName("next"),
        VerbsTypes.C_POINTER.withName("sg_list"),
        VerbsTypes.C_INT.withName("num_sge"),
        VerbsTypes.C_INT.withName("opcode"),
        VerbsTypes.C_UINT32.withName("send_flags"),
        MemoryLayout.unionLayout(
            VerbsTypes.BE_UINT32.withName("imm_data"),
            VerbsTypes.C_UINT32.withName("invalidate_rkey")
        ).withName("$anon$0"),
        MemoryLayout.unionLayout(
            MemoryLayout.structLayout(
                VerbsTypes.C_UINT64.withName("remote_addr"),
                VerbsTypes.C_UINT32.withName("rkey"),
                MemoryLayout.paddingLayout(4)
            ).withName("rdma"),
            MemoryLayout.structLayout(
                VerbsTypes.C_UINT64.withName("remote_addr"),
                VerbsTypes.C_UINT64.withName("compare_add"),
                VerbsTypes.C_UINT64.withName("swap"),
                VerbsTypes.C_UINT32.withName("rkey"),
                MemoryLayout.paddingLayout(4)
            ).withName("atomic"),
            MemoryLayout.structLayout(
                VerbsTypes.C_POINTER.withName("ah"),
                VerbsTypes.C_UINT32.withName("remote_qpn"),
                VerbsTypes.C_UINT32.withName("remote_qkey")
            ).withName("ud")
        ).withName("wr"),
        MemoryLayout.unionLayout(
            MemoryLayout.structLayout(
                VerbsTypes.C_UINT32.withName("remote_srqn")
            ).withName("xrc")
        ).withName("qp_type"),
        MemoryLayout.paddingLayout(4),
        MemoryLayout.unionLayout(
            MemoryLayout.structLayout(
                VerbsTypes.C_POINTER.withName("mw"),
                VerbsTypes.C_UINT32.withName("rkey"),
                MemoryLayout.paddingLayout(4),
                MemoryLayout.structLayout(
                    VerbsTypes.C_POINTER.withName("mr"),
                    VerbsTypes.C_UINT64.withName("addr"),
                    VerbsTypes.C_UINT64.withName("length"),
                    VerbsTypes.C_UINT32.withName("mw_access_flags"),
                    MemoryLayout.paddingLayout(4)
                ).withName("bind_info")
            ).withName("bind_mw"),
            MemoryLayout.structLayout(
                VerbsTypes.C_POINTER.withName("hdr"),
                VerbsTypes.C_UINT16.withName("hdr_sz"),
                VerbsTypes.C_UINT16.withName("mss"),
                MemoryLayout.paddingLayout(4)
            ).withName("tso")
        ).withName("$anon$1")
    ).withName("ibv_send_wr");

    /** Byte offset of {@code wr_id} (0). */
    public static final long WR_ID_OFFSET = $LAYOUT.byteOffset(groupElement("wr_id"));

    /** Byte offset of {@code next} (8). */
    public static final long NEXT_OFFSET = $LAYOUT.byteOffset(groupElement("next"));

    /** Byte offset of {@code sg_list} (16). */
    public static final long SG_LIST_OFFSET = $LAYOUT.byteOffset(groupElement("sg_list"));

    /** Byte offset of {@code num_sge} (24). */
    public static final long NUM_SGE_OFFSET = $LAYOUT.byteOffset(groupElement("num_sge"));

    /** Byte offset of {@code opcode} (28). */
    public static final long OPCODE_OFFSET = $LAYOUT.byteOffset(groupElement("opcode"));

    /** Byte offset of {@code send_flags} (32). */
    public static final long SEND_FLAGS_OFFSET = $LAYOUT.byteOffset(groupElement("send_flags"));

    /** Byte offset of {@code imm_data} (36). */
    public static final long IMM_DATA_OFFSET = $LAYOUT.byteOffset(groupElement("$anon$0"), groupElement("imm_data"));

    /** Byte offset of {@code invalidate_rkey} (36). */
    public static final long INVALIDATE_RKEY_OFFSET = $LAYOUT.byteOffset(groupElement("$anon$0"), groupElement("invalidate_rkey"));

    /** Byte offset of {@code wr} (40). */
    public static final long WR_OFFSET = $LAYOUT.byteOffset(groupElement("wr"));

    /** Byte offset of {@code wr.rdma} (40). */
    public static final long WR_RDMA_OFFSET = $LAYOUT.byteOffset(groupElement("wr"), groupElement("rdma"));

    /** Byte offset of {@code wr.rdma.remote_addr} (40). */
    public static final long WR_RDMA_REMOTE_ADDR_OFFSET = $LAYOUT.byteOffset(groupElement("wr"), groupElement("rdma"), groupElement("remote_addr"));

    /** Byte offset of {@code wr.rdma.rkey} (48). */
    public static final long WR_RDMA_RKEY_OFFSET = $LAYOUT.byteOffset(groupElement("wr"), groupElement("rdma"), groupElement("rkey"));

    /** Byte offset of {@code wr.atomic} (40). */
    public static final long WR_ATOMIC_OFFSET = $LAYOUT.byteOffset(groupElement("wr"), groupElement("atomic"));

    /** Byte offset of {@code wr.atomic.remote_addr} (40). */
    public static final long WR_ATOMIC_REMOTE_ADDR_OFFSET = $LAYOUT.byteOffset(groupElement("wr"), groupElement("atomic"), groupElement("remote_addr"));

    /** Byte offset of {@code wr.atomic.compare_add} (48). */
    public static final long WR_ATOMIC_COMPARE_ADD_OFFSET = $LAYOUT.byteOffset(groupElement("wr"), groupElement("atomic"), groupElement("compare_add"));

    /** Byte offset of {@code wr.atomic.swap} (56). */
    public static final long WR_ATOMIC_SWAP_OFFSET = $LAYOUT.byteOffset(groupElement("wr"), groupElement("atomic"), groupElement("swap"));

    /** Byte offset of {@code wr.atomic.rkey} (64). */
    public static final long WR_ATOMIC_RKEY_OFFSET = $LAYOUT.byteOffset(groupElement("wr"), groupElement("atomic"), groupElement("rkey"));

    /** Byte offset of {@code wr.ud} (40). */
    public static final long WR_UD_OFFSET = $LAYOUT.byteOffset(groupElement("wr"), groupElement("ud"));

    /** Byte offset of {@code wr.ud.ah} (40). */
    public static final long WR_UD_AH_OFFSET = $LAYOUT.byteOffset(groupElement("wr"), groupElement("ud"), groupElement("ah"));

    /** Byte offset of {@code wr.ud.remote_qpn} (48). */
    public static final long WR_UD_REMOTE_QPN_OFFSET = $LAYOUT.byteOffset(groupElement("wr"), groupElement("ud"), groupElement("remote_qpn"));

    /** Byte offset of {@code wr.ud.remote_qkey} (52). */
    public static final long WR_UD_REMOTE_QKEY_OFFSET = $LAYOUT.byteOffset(groupElement("wr"), groupElement("ud"), groupElement("remote_qkey"));

    /** Byte offset of {@code qp_type} (72). */
    public static final long QP_TYPE_OFFSET = $LAYOUT.byteOffset(groupElement("qp_type"));

    /** Byte offset of {@code qp_type.xrc} (72). */
    public static final long QP_TYPE_XRC_OFFSET = $LAYOUT.byteOffset(groupElement("qp_type"), groupElement("xrc"));

    /** Byte offset of {@code qp_type.xrc.remote_srqn} (72). */
    public static final long QP_TYPE_XRC_REMOTE_SRQN_OFFSET = $LAYOUT.byteOffset(groupElement("qp_type"), groupElement("xrc"), groupElement("remote_srqn"));

    /** Byte offset of {@code bind_mw} (80). */
    public static final long BIND_MW_OFFSET = $LAYOUT.byteOffset(groupElement("$anon$1"), groupElement("bind_mw"));

    /** Byte offset of {@code bind_mw.mw} (80). */
    public static final long BIND_MW_MW_OFFSET = $LAYOUT.byteOffset(groupElement("$anon$1"), groupElement("bind_mw"), groupElement("mw"));

    /** Byte offset of {@code bind_mw.rkey} (88). */
    public static final long BIND_MW_RKEY_OFFSET = $LAYOUT.byteOffset(groupElement("$anon$1"), groupElement("bind_mw"), groupElement("rkey"));

    /** Byte offset of {@code bind_mw.bind_info} (96). */
    public static final long BIND_MW_BIND_INFO_OFFSET = $LAYOUT.byteOffset(groupElement("$anon$1"), groupElement("bind_mw"), groupElement("bind_info"));

    /** Byte offset of {@code bind_mw.bind_info.mr} (96). */
    public static final long BIND_MW_BIND_INFO_MR_OFFSET = $LAYOUT.byteOffset(groupElement("$anon$1"), groupElement("bind_mw"), groupElement("bind_info"), groupElement("mr"));

    /** Byte offset of {@code bind_mw.bind_info.addr} (104). */
    public static final long BIND_MW_BIND_INFO_ADDR_OFFSET = $LAYOUT.byteOffset(groupElement("$anon$1"), groupElement("bind_mw"), groupElement("bind_info"), groupElement("addr"));

    /** Byte offset of {@code bind_mw.bind_info.length} (112). */
    public static final long BIND_MW_BIND_INFO_LENGTH_OFFSET = $LAYOUT.byteOffset(groupElement("$anon$1"), groupElement("bind_mw"), groupElement("bind_info"), groupElement("length"));

    /** Byte offset of {@code bind_mw.bind_info.mw_access_flags} (120). */
    public static final long BIND_MW_BIND_INFO_MW_ACCESS_FLAGS_OFFSET = $LAYOUT.byteOffset(groupElement("$anon$1"), groupElement("bind_mw"), groupElement("bind_info"), groupElement("mw_access_flags"));

    /** Byte offset of {@code tso} (80). */
    public static final long TSO_OFFSET = $LAYOUT.byteOffset(groupElement("$anon$1"), groupElement("tso"));

    /** Byte offset of {@code tso.hdr} (80). */
    public static final long TSO_HDR_OFFSET = $LAYOUT.byteOffset(groupElement("$anon$1"), groupElement("tso"), groupElement("hdr"));

    /** Byte offset of {@code tso.hdr_sz} (88). */
    public static final long TSO_HDR_SZ_OFFSET = $LAYOUT.byteOffset(groupElement("$anon$1"), groupElement("tso"), groupElement("hdr_sz"));

    /** Byte offset of {@code tso.mss} (90). */
    public static final long TSO_MSS_OFFSET = $LAYOUT.byteOffset(groupElement("$anon$1"), groupElement("tso"), groupElement("mss"));

    private ibv_send_wr() {
    }

    /**
     * Returns the layout of {@code struct ibv_send_wr}.
     *
     * @return the layout, 128 bytes
     */
    public static GroupLayout $LAYOUT() {
        return $LAYOUT;
    }

    /**
     * Returns the size of {@code struct ibv_send_wr}.
     *
     * @return 128
     */
    public static long sizeof() {
        return $LAYOUT.byteSize();
    }

    /**
     * Allocates one zeroed {@code ibv_send_wr}.
     *
     * @param allocator the allocator that owns the memory
     * @return a segment of {@link #sizeof()} bytes
     */
    public static MemorySegment allocate(SegmentAllocator allocator) {
        return allocator.allocate($LAYOUT);
    }

    /**
     * Allocates a zeroed array of {@code ibv_send_wr}.
     *
     * @param count the number of elements
     * @param allocator the allocator that owns the memory
     * @return a segment of {@code count * sizeof()} bytes
     */
    public static MemorySegment allocateArray(long count, SegmentAllocator allocator) {
        return allocator.allocate($LAYOUT, count);
    }

    /**
     * Returns element {@code index} of an array of {@code ibv_send_wr}.
     *
     * @param array the array segment
     * @param index the element index
     * @return a slice of {@link #sizeof()} bytes
     */
    public static MemorySegment asSlice(MemorySegment array, long index) {
        return array.asSlice(index * $LAYOUT.byteSize(), $LAYOUT);
    }

    /**
     * Gives a pointer returned by native code the size of one {@code ibv_send_wr}; the caller states
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

    /**
     * Reads {@code opcode}.
     *
     * @param struct the struct segment
     * @return the value
     */
    public static int opcode(MemorySegment struct) {
        return struct.get(VerbsTypes.C_INT, OPCODE_OFFSET);
    }

    /**
     * Writes {@code opcode}.
     *
     * @param struct the struct segment
     * @param fieldValue the value
     */
    public static void opcode(MemorySegment struct, int fieldValue) {
        struct.set(VerbsTypes.C_INT, OPCODE_OFFSET, fieldValue);
    }

    /**
     * Reads {@code send_flags}.
     *
     * @param struct the struct segment
     * @return the value
     */
    public static int send_flags(MemorySegment struct) {
        return struct.get(VerbsTypes.C_UINT32, SEND_FLAGS_OFFSET);
    }

    /**
     * Writes {@code send_flags}.
     *
     * @param struct the struct segment
     * @param fieldValue the value
     */
    public static void send_flags(MemorySegment struct, int fieldValue) {
        struct.set(VerbsTypes.C_UINT32, SEND_FLAGS_OFFSET, fieldValue);
    }

    /**
     * Reads {@code imm_data} (stored big-endian).
     *
     * @param struct the struct segment
     * @return the value
     */
    public static int imm_data(MemorySegment struct) {
        return struct.get(VerbsTypes.BE_UINT32, IMM_DATA_OFFSET);
    }

    /**
     * Writes {@code imm_data} (stored big-endian).
     *
     * @param struct the struct segment
     * @param fieldValue the value
     */
    public static void imm_data(MemorySegment struct, int fieldValue) {
        struct.set(VerbsTypes.BE_UINT32, IMM_DATA_OFFSET, fieldValue);
    }

    /**
     * Reads {@code invalidate_rkey}.
     *
     * @param struct the struct segment
     * @return the value
     */
    public static int invalidate_rkey(MemorySegment struct) {
        return struct.get(VerbsTypes.C_UINT32, INVALIDATE_RKEY_OFFSET);
    }

    /**
     * Writes {@code invalidate_rkey}.
     *
     * @param struct the struct segment
     * @param fieldValue the value
     */
    public static void invalidate_rkey(MemorySegment struct, int fieldValue) {
        struct.set(VerbsTypes.C_UINT32, INVALIDATE_RKEY_OFFSET, fieldValue);
    }

    /**
     * Returns {@code wr} as a slice of the struct segment.
     *
     * @param struct the struct segment
     * @return a 32-byte slice
     */
    public static MemorySegment wr(MemorySegment struct) {
        return struct.asSlice(WR_OFFSET, 32);
    }

    /**
     * Copies 32 bytes into {@code wr}.
     *
     * @param struct the struct segment
     * @param fieldValue the bytes to copy
     */
    public static void wr(MemorySegment struct, MemorySegment fieldValue) {
        MemorySegment.copy(fieldValue, 0L, struct, WR_OFFSET, 32);
    }

    /**
     * Returns {@code wr.rdma} as a slice of the struct segment.
     *
     * @param struct the struct segment
     * @return a 16-byte slice
     */
    public static MemorySegment wr_rdma(MemorySegment struct) {
        return struct.asSlice(WR_RDMA_OFFSET, 16);
    }

    /**
     * Copies 16 bytes into {@code wr.rdma}.
     *
     * @param struct the struct segment
     * @param fieldValue the bytes to copy
     */
    public static void wr_rdma(MemorySegment struct, MemorySegment fieldValue) {
        MemorySegment.copy(fieldValue, 0L, struct, WR_RDMA_OFFSET, 16);
    }

    /**
     * Reads {@code wr.rdma.remote_addr}.
     *
     * @param struct the struct segment
     * @return the value
     */
    public static long wr_rdma_remote_addr(MemorySegment struct) {
        return struct.get(VerbsTypes.C_UINT64, WR_RDMA_REMOTE_ADDR_OFFSET);
    }

    /**
     * Writes {@code wr.rdma.remote_addr}.
     *
     * @param struct the struct segment
     * @param fieldValue the value
     */
    public static void wr_rdma_remote_addr(MemorySegment struct, long fieldValue) {
        struct.set(VerbsTypes.C_UINT64, WR_RDMA_REMOTE_ADDR_OFFSET, fieldValue);
    }

    /**
     * Reads {@code wr.rdma.rkey}.
     *
     * @param struct the struct segment
     * @return the value
     */
    public static int wr_rdma_rkey(MemorySegment struct) {
        return struct.get(VerbsTypes.C_UINT32, WR_RDMA_RKEY_OFFSET);
    }

    /**
     * Writes {@code wr.rdma.rkey}.
     *
     * @param struct the struct segment
     * @param fieldValue the value
     */
    public static void wr_rdma_rkey(MemorySegment struct, int fieldValue) {
        struct.set(VerbsTypes.C_UINT32, WR_RDMA_RKEY_OFFSET, fieldValue);
    }

    /**
     * Returns {@code wr.atomic} as a slice of the struct segment.
     *
     * @param struct the struct segment
     * @return a 32-byte slice
     */
    public static MemorySegment wr_atomic(MemorySegment struct) {
        return struct.asSlice(WR_ATOMIC_OFFSET, 32);
    }

    /**
     * Copies 32 bytes into {@code wr.atomic}.
     *
     * @param struct the struct segment
     * @param fieldValue the bytes to copy
     */
    public static void wr_atomic(MemorySegment struct, MemorySegment fieldValue) {
        MemorySegment.copy(fieldValue, 0L, struct, WR_ATOMIC_OFFSET, 32);
    }

    /**
     * Reads {@code wr.atomic.remote_addr}.
     *
     * @param struct the struct segment
     * @return the value
     */
    public static long wr_atomic_remote_addr(MemorySegment struct) {
        return struct.get(VerbsTypes.C_UINT64, WR_ATOMIC_REMOTE_ADDR_OFFSET);
    }

    /**
     * Writes {@code wr.atomic.remote_addr}.
     *
     * @param struct the struct segment
     * @param fieldValue the value
     */
    public static void wr_atomic_remote_addr(MemorySegment struct, long fieldValue) {
        struct.set(VerbsTypes.C_UINT64, WR_ATOMIC_REMOTE_ADDR_OFFSET, fieldValue);
    }

    /**
     * Reads {@code wr.atomic.compare_add}.
     *
     * @param struct the struct segment
     * @return the value
     */
    public static long wr_atomic_compare_add(MemorySegment struct) {
        return struct.get(VerbsTypes.C_UINT64, WR_ATOMIC_COMPARE_ADD_OFFSET);
    }

    /**
     * Writes {@code wr.atomic.compare_add}.
     *
     * @param struct the struct segment
     * @param fieldValue the value
     */
    public static void wr_atomic_compare_add(MemorySegment struct, long fieldValue) {
        struct.set(VerbsTypes.C_UINT64, WR_ATOMIC_COMPARE_ADD_OFFSET, fieldValue);
    }

    /**
     * Reads {@code wr.atomic.swap}.
     *
     * @param struct the struct segment
     * @return the value
     */
    public static long wr_atomic_swap(MemorySegment struct) {
        return struct.get(VerbsTypes.C_UINT64, WR_ATOMIC_SWAP_OFFSET);
    }

    /**
     * Writes {@code wr.atomic.swap}.
     *
     * @param struct the struct segment
     * @param fieldValue the value
     */
    public static void wr_atomic_swap(MemorySegment struct, long fieldValue) {
        struct.set(VerbsTypes.C_UINT64, WR_ATOMIC_SWAP_OFFSET, fieldValue);
    }

    /**
     * Reads {@code wr.atomic.rkey}.
     *
     * @param struct the struct segment
     * @return the value
     */
    public static int wr_atomic_rkey(MemorySegment struct) {
        return struct.get(VerbsTypes.C_UINT32, WR_ATOMIC_RKEY_OFFSET);
    }

    /**
     * Writes {@code wr.atomic.rkey}.
     *
     * @param struct the struct segment
     * @param fieldValue the value
     */
    public static void wr_atomic_rkey(MemorySegment struct, int fieldValue) {
        struct.set(VerbsTypes.C_UINT32, WR_ATOMIC_RKEY_OFFSET, fieldValue);
    }

    /**
     * Returns {@code wr.ud} as a slice of the struct segment.
     *
     * @param struct the struct segment
     * @return a 16-byte slice
     */
    public static MemorySegment wr_ud(MemorySegment struct) {
        return struct.asSlice(WR_UD_OFFSET, 16);
    }

    /**
     * Copies 16 bytes into {@code wr.ud}.
     *
     * @param struct the struct segment
     * @param fieldValue the bytes to copy
     */
    public static void wr_ud(MemorySegment struct, MemorySegment fieldValue) {
        MemorySegment.copy(fieldValue, 0L, struct, WR_UD_OFFSET, 16);
    }

    /**
     * Reads {@code wr.ud.ah}.
     *
     * @param struct the struct segment
     * @return the value
     */
    public static MemorySegment wr_ud_ah(MemorySegment struct) {
        return struct.get(VerbsTypes.C_POINTER, WR_UD_AH_OFFSET);
    }

    /**
     * Writes {@code wr.ud.ah}.
     *
     * @param struct the struct segment
     * @param fieldValue the value
     */
    public static void wr_ud_ah(MemorySegment struct, MemorySegment fieldValue) {
        struct.set(VerbsTypes.C_POINTER, WR_UD_AH_OFFSET, fieldValue);
    }

    /**
     * Reads {@code wr.ud.remote_qpn}.
     *
     * @param struct the struct segment
     * @return the value
     */
    public static int wr_ud_remote_qpn(MemorySegment struct) {
        return struct.get(VerbsTypes.C_UINT32, WR_UD_REMOTE_QPN_OFFSET);
    }

    /**
     * Writes {@code wr.ud.remote_qpn}.
     *
     * @param struct the struct segment
     * @param fieldValue the value
     */
    public static void wr_ud_remote_qpn(MemorySegment struct, int fieldValue) {
        struct.set(VerbsTypes.C_UINT32, WR_UD_REMOTE_QPN_OFFSET, fieldValue);
    }

    /**
     * Reads {@code wr.ud.remote_qkey}.
     *
     * @param struct the struct segment
     * @return the value
     */
    public static int wr_ud_remote_qkey(MemorySegment struct) {
        return struct.get(VerbsTypes.C_UINT32, WR_UD_REMOTE_QKEY_OFFSET);
    }

    /**
     * Writes {@code wr.ud.remote_qkey}.
     *
     * @param struct the struct segment
     * @param fieldValue the value
     */
    public static void wr_ud_remote_qkey(MemorySegment struct, int fieldValue) {
        struct.set(VerbsTypes.C_UINT32, WR_UD_REMOTE_QKEY_OFFSET, fieldValue);
    }

    /**
     * Returns {@code qp_type} as a slice of the struct segment.
     *
     * @param struct the struct segment
     * @return a 4-byte slice
     */
    public static MemorySegment qp_type(MemorySegment struct) {
        return struct.asSlice(QP_TYPE_OFFSET, 4);
    }

    /**
     * Copies 4 bytes into {@code qp_type}.
     *
     * @param struct the struct segment
     * @param fieldValue the bytes to copy
     */
    public static void qp_type(MemorySegment struct, MemorySegment fieldValue) {
        MemorySegment.copy(fieldValue, 0L, struct, QP_TYPE_OFFSET, 4);
    }

    /**
     * Returns {@code qp_type.xrc} as a slice of the struct segment.
     *
     * @param struct the struct segment
     * @return a 4-byte slice
     */
    public static MemorySegment qp_type_xrc(MemorySegment struct) {
        return struct.asSlice(QP_TYPE_XRC_OFFSET, 4);
    }

    /**
     * Copies 4 bytes into {@code qp_type.xrc}.
     *
     * @param struct the struct segment
     * @param fieldValue the bytes to copy
     */
    public static void qp_type_xrc(MemorySegment struct, MemorySegment fieldValue) {
        MemorySegment.copy(fieldValue, 0L, struct, QP_TYPE_XRC_OFFSET, 4);
    }

    /**
     * Reads {@code qp_type.xrc.remote_srqn}.
     *
     * @param struct the struct segment
     * @return the value
     */
    public static int qp_type_xrc_remote_srqn(MemorySegment struct) {
        return struct.get(VerbsTypes.C_UINT32, QP_TYPE_XRC_REMOTE_SRQN_OFFSET);
    }

    /**
     * Writes {@code qp_type.xrc.remote_srqn}.
     *
     * @param struct the struct segment
     * @param fieldValue the value
     */
    public static void qp_type_xrc_remote_srqn(MemorySegment struct, int fieldValue) {
        struct.set(VerbsTypes.C_UINT32, QP_TYPE_XRC_REMOTE_SRQN_OFFSET, fieldValue);
    }

    /**
     * Returns {@code bind_mw} as a slice of the struct segment.
     *
     * @param struct the struct segment
     * @return a 48-byte slice
     */
    public static MemorySegment bind_mw(MemorySegment struct) {
        return struct.asSlice(BIND_MW_OFFSET, 48);
    }

    /**
     * Copies 48 bytes into {@code bind_mw}.
     *
     * @param struct the struct segment
     * @param fieldValue the bytes to copy
     */
    public static void bind_mw(MemorySegment struct, MemorySegment fieldValue) {
        MemorySegment.copy(fieldValue, 0L, struct, BIND_MW_OFFSET, 48);
    }

    /**
     * Reads {@code bind_mw.mw}.
     *
     * @param struct the struct segment
     * @return the value
     */
    public static MemorySegment bind_mw_mw(MemorySegment struct) {
        return struct.get(VerbsTypes.C_POINTER, BIND_MW_MW_OFFSET);
    }

    /**
     * Writes {@code bind_mw.mw}.
     *
     * @param struct the struct segment
     * @param fieldValue the value
     */
    public static void bind_mw_mw(MemorySegment struct, MemorySegment fieldValue) {
        struct.set(VerbsTypes.C_POINTER, BIND_MW_MW_OFFSET, fieldValue);
    }

    /**
     * Reads {@code bind_mw.rkey}.
     *
     * @param struct the struct segment
     * @return the value
     */
    public static int bind_mw_rkey(MemorySegment struct) {
        return struct.get(VerbsTypes.C_UINT32, BIND_MW_RKEY_OFFSET);
    }

    /**
     * Writes {@code bind_mw.rkey}.
     *
     * @param struct the struct segment
     * @param fieldValue the value
     */
    public static void bind_mw_rkey(MemorySegment struct, int fieldValue) {
        struct.set(VerbsTypes.C_UINT32, BIND_MW_RKEY_OFFSET, fieldValue);
    }

    /**
     * Returns {@code bind_mw.bind_info} as a slice of the struct segment.
     *
     * @param struct the struct segment
     * @return a 32-byte slice
     */
    public static MemorySegment bind_mw_bind_info(MemorySegment struct) {
        return struct.asSlice(BIND_MW_BIND_INFO_OFFSET, 32);
    }

    /**
     * Copies 32 bytes into {@code bind_mw.bind_info}.
     *
     * @param struct the struct segment
     * @param fieldValue the bytes to copy
     */
    public static void bind_mw_bind_info(MemorySegment struct, MemorySegment fieldValue) {
        MemorySegment.copy(fieldValue, 0L, struct, BIND_MW_BIND_INFO_OFFSET, 32);
    }

    /**
     * Reads {@code bind_mw.bind_info.mr}.
     *
     * @param struct the struct segment
     * @return the value
     */
    public static MemorySegment bind_mw_bind_info_mr(MemorySegment struct) {
        return struct.get(VerbsTypes.C_POINTER, BIND_MW_BIND_INFO_MR_OFFSET);
    }

    /**
     * Writes {@code bind_mw.bind_info.mr}.
     *
     * @param struct the struct segment
     * @param fieldValue the value
     */
    public static void bind_mw_bind_info_mr(MemorySegment struct, MemorySegment fieldValue) {
        struct.set(VerbsTypes.C_POINTER, BIND_MW_BIND_INFO_MR_OFFSET, fieldValue);
    }

    /**
     * Reads {@code bind_mw.bind_info.addr}.
     *
     * @param struct the struct segment
     * @return the value
     */
    public static long bind_mw_bind_info_addr(MemorySegment struct) {
        return struct.get(VerbsTypes.C_UINT64, BIND_MW_BIND_INFO_ADDR_OFFSET);
    }

    /**
     * Writes {@code bind_mw.bind_info.addr}.
     *
     * @param struct the struct segment
     * @param fieldValue the value
     */
    public static void bind_mw_bind_info_addr(MemorySegment struct, long fieldValue) {
        struct.set(VerbsTypes.C_UINT64, BIND_MW_BIND_INFO_ADDR_OFFSET, fieldValue);
    }

    /**
     * Reads {@code bind_mw.bind_info.length}.
     *
     * @param struct the struct segment
     * @return the value
     */
    public static long bind_mw_bind_info_length(MemorySegment struct) {
        return struct.get(VerbsTypes.C_UINT64, BIND_MW_BIND_INFO_LENGTH_OFFSET);
    }

    /**
     * Writes {@code bind_mw.bind_info.length}.
     *
     * @param struct the struct segment
     * @param fieldValue the value
     */
    public static void bind_mw_bind_info_length(MemorySegment struct, long fieldValue) {
        struct.set(VerbsTypes.C_UINT64, BIND_MW_BIND_INFO_LENGTH_OFFSET, fieldValue);
    }

    /**
     * Reads {@code bind_mw.bind_info.mw_access_flags}.
     *
     * @param struct the struct segment
     * @return the value
     */
    public static int bind_mw_bind_info_mw_access_flags(MemorySegment struct) {
        return struct.get(VerbsTypes.C_UINT32, BIND_MW_BIND_INFO_MW_ACCESS_FLAGS_OFFSET);
    }

    /**
     * Writes {@code bind_mw.bind_info.mw_access_flags}.
     *
     * @param struct the struct segment
     * @param fieldValue the value
     */
    public static void bind_mw_bind_info_mw_access_flags(MemorySegment struct, int fieldValue) {
        struct.set(VerbsTypes.C_UINT32, BIND_MW_BIND_INFO_MW_ACCESS_FLAGS_OFFSET, fieldValue);
    }

    /**
     * Returns {@code tso} as a slice of the struct segment.
     *
     * @param struct the struct segment
     * @return a 16-byte slice
     */
    public static MemorySegment tso(MemorySegment struct) {
        return struct.asSlice(TSO_OFFSET, 16);
    }

    /**
     * Copies 16 bytes into {@code tso}.
     *
     * @param struct the struct segment
     * @param fieldValue the bytes to copy
     */
    public static void tso(MemorySegment struct, MemorySegment fieldValue) {
        MemorySegment.copy(fieldValue, 0L, struct, TSO_OFFSET, 16);
    }

    /**
     * Reads {@code tso.hdr}.
     *
     * @param struct the struct segment
     * @return the value
     */
    public static MemorySegment tso_hdr(MemorySegment struct) {
        return struct.get(VerbsTypes.C_POINTER, TSO_HDR_OFFSET);
    }

    /**
     * Writes {@code tso.hdr}.
     *
     * @param struct the struct segment
     * @param fieldValue the value
     */
    public static void tso_hdr(MemorySegment struct, MemorySegment fieldValue) {
        struct.set(VerbsTypes.C_POINTER, TSO_HDR_OFFSET, fieldValue);
    }

    /**
     * Reads {@code tso.hdr_sz}.
     *
     * @param struct the struct segment
     * @return the value
     */
    public static short tso_hdr_sz(MemorySegment struct) {
        return struct.get(VerbsTypes.C_UINT16, TSO_HDR_SZ_OFFSET);
    }

    /**
     * Writes {@code tso.hdr_sz}.
     *
     * @param struct the struct segment
     * @param fieldValue the value
     */
    public static void tso_hdr_sz(MemorySegment struct, short fieldValue) {
        struct.set(VerbsTypes.C_UINT16, TSO_HDR_SZ_OFFSET, fieldValue);
    }

    /**
     * Reads {@code tso.mss}.
     *
     * @param struct the struct segment
     * @return the value
     */
    public static short tso_mss(MemorySegment struct) {
        return struct.get(VerbsTypes.C_UINT16, TSO_MSS_OFFSET);
    }

    /**
     * Writes {@code tso.mss}.
     *
     * @param struct the struct segment
     * @param fieldValue the value
     */
    public static void tso_mss(MemorySegment struct, short fieldValue) {
        struct.set(VerbsTypes.C_UINT16, TSO_MSS_OFFSET, fieldValue);
    }
}
