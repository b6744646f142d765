package dev.ofl.verbs.ffm;

import java.lang.foreign.GroupLayout;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SegmentAllocator;

import static java.lang.foreign.MemoryLayout.PathElement.groupElement;

/**
 * {@code struct ibv_device_attr} from {@code <infiniband/verbs.h>} (rdma-core 44, x86-64 and aarch64 alike):
 * 232 bytes, aligned to 8. Device attributes filled by {@code ibv_query_device}.
 *
 * <pre>{@code
 * struct ibv_device_attr {
 *     char fw_ver[64];                        // 0, 64 bytes
 *     __be64 node_guid;                       // 64
 *     __be64 sys_image_guid;                  // 72
 *     uint64_t max_mr_size;                   // 80
 *     uint64_t page_size_cap;                 // 88
 *     uint32_t vendor_id;                     // 96
 *     uint32_t vendor_part_id;                // 100
 *     uint32_t hw_ver;                        // 104
 *     int max_qp;                             // 108
 *     int max_qp_wr;                          // 112
 *     unsigned int device_cap_flags;          // 116
 *     int max_sge;                            // 120
 *     int max_sge_rd;                         // 124
 *     int max_cq;                             // 128
 *     int max_cqe;                            // 132
 *     int max_mr;                             // 136
 *     int max_pd;                             // 140
 *     int max_qp_rd_atom;                     // 144
 *     int max_ee_rd_atom;                     // 148
 *     int max_res_rd_atom;                    // 152
 *     int max_qp_init_rd_atom;                // 156
 *     int max_ee_init_rd_atom;                // 160
 *     enum ibv_atomic_cap atomic_cap;         // 164
 *     int max_ee;                             // 168
 *     int max_rdd;                            // 172
 *     int max_mw;                             // 176
 *     int max_raw_ipv6_qp;                    // 180
 *     int max_raw_ethy_qp;                    // 184
 *     int max_mcast_grp;                      // 188
 *     int max_mcast_qp_attach;                // 192
 *     int max_total_mcast_qp_attach;          // 196
 *     int max_ah;                             // 200
 *     int max_fmr;                            // 204
 *     int max_map_per_fmr;                    // 208
 *     int max_srq;                            // 212
 *     int max_srq_wr;                         // 216
 *     int max_srq_sge;                        // 220
 *     uint16_t max_pkeys;                     // 224
 *     uint8_t local_ca_ack_delay;             // 226
 *     uint8_t phys_port_cnt;                  // 227
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
public final class ibv_device_attr {

    private static final GroupLayout $LAYOUT = MemoryLayout.structLayout(
        MemoryLayout.sequenceLayout(64, VerbsTypes.C_CHAR).withName("fw_ver"),
        VerbsTypes.BE_UINT64.withName("node_guid"),
        VerbsTypes.BE_UINT64.withName("sys_image_guid"),
        VerbsTypes.C_UINT64.withName("max_mr_size"),
        VerbsTypes.C_UINT64.withName("page_size_cap"),
        VerbsTypes.C_UINT32.withName("vendor_id"),
        VerbsTypes.C_UINT32.withName("vendor_part_id"),
        VerbsTypes.C_UINT32.withName("hw_ver"),
        VerbsTypes.C_INT.withName("max_qp"),
        VerbsTypes.C_INT.withName("max_qp_wr"),
        VerbsTypes.C_UINT32.withName("device_cap_flags"),
        VerbsTypes.C_INT.withName("max_sge"),
        VerbsTypes.C_INT.withName("max_sge_rd"),
        VerbsTypes.C_INT.withName("max_cq"),
        VerbsTypes.C_INT.withName("max_cqe"),
        VerbsTypes.C_INT.withName("max_mr"),
        VerbsTypes.C_INT.withName("max_pd"),
        VerbsTypes.C_INT.withName("max_qp_rd_atom"),
        VerbsTypes.C_INT.withName("max_ee_rd_atom"),
        VerbsTypes.C_INT.withName("max_res_rd_atom"),
        VerbsTypes.C_INT.withName("max_qp_init_rd_atom"),
        VerbsTypes.C_INT.withName("max_ee_init_rd_atom"),
        VerbsTypes.C_INT.withName("atomic_cap"),
        VerbsTypes.C_INT.withName("max_ee"),
        VerbsTypes.C_INT.withName("max_rdd"),
        VerbsTypes.C_INT.withName("max_mw"),
        VerbsTypes.C_INT.withName("max_raw_ipv6_qp"),
        VerbsTypes.C_INT.withName("max_raw_ethy_qp"),
        VerbsTypes.C_INT.withName("max_mcast_grp"),
        VerbsTypes.C_INT.withName("max_mcast_qp_attach"),
        VerbsTypes.C_INT.withName("max_total_mcast_qp_attach"),
        VerbsTypes.C_INT.withName("max_ah"),
        VerbsTypes.C_INT.withName("max_fmr"),
        VerbsTypes.C_INT.withName("max_map_per_fmr"),
        VerbsTypes.C_INT.withName("max_srq"),
        VerbsTypes.C_INT.withName("max_srq_wr"),
        VerbsTypes.C_INT.withName("max_srq_sge"),
        VerbsTypes.C_UINT16.withName("max_pkeys"),
        VerbsTypes.C_UINT8.withName("local_ca_ack_delay"),
        VerbsTypes.C_UINT8.withName("phys_port_cnt"),
        MemoryLayout.paddingLayout(4)
    ).withName("ibv_device_attr");

    /** Byte offset of {@code fw_ver} (0). */
    public static final long FW_VER_OFFSET = $LAYOUT.byteOffset(groupElement("fw_ver"));

    /** Byte offset of {@code node_guid} (64). */
    public static final long NODE_GUID_OFFSET = $LAYOUT.byteOffset(groupElement("node_guid"));

    /** Byte offset of {@code sys_image_guid} (72). */
    public static final long SYS_IMAGE_GUID_OFFSET = $LAYOUT.byteOffset(groupElement("sys_image_guid"));

    /** Byte offset of {@code max_mr_size} (80). */
    public static final long MAX_MR_SIZE_OFFSET = $LAYOUT.byteOffset(groupElement("max_mr_size"));

    /** Byte offset of {@code page_size_cap} (88). */
    public static final long PAGE_SIZE_CAP_OFFSET = $LAYOUT.byteOffset(groupElement("page_size_cap"));

    /** Byte offset of {@code vendor_id} (96). */
    public static final long VENDOR_ID_OFFSET = $LAYOUT.byteOffset(groupElement("vendor_id"));

    /** Byte offset of {@code vendor_part_id} (100). */
    public static final long VENDOR_PART_ID_OFFSET = $LAYOUT.byteOffset(groupElement("vendor_part_id"));

    /** Byte offset of {@code hw_ver} (104). */
    public static final long HW_VER_OFFSET = $LAYOUT.byteOffset(groupElement("hw_ver"));

    /** Byte offset of {@code max_qp} (108). */
    public static final long MAX_QP_OFFSET = $LAYOUT.byteOffset(groupElement("max_qp"));

    /** Byte offset of {@code max_qp_wr} (112). */
    public static final long MAX_QP_WR_OFFSET = $LAYOUT.byteOffset(groupElement("max_qp_wr"));

    /** Byte offset of {@code device_cap_flags} (116). */
    public static final long DEVICE_CAP_FLAGS_OFFSET = $LAYOUT.byteOffset(groupElement("device_cap_flags"));

    /** Byte offset of {@code max_sge} (120). */
    public static final long MAX_SGE_OFFSET = $LAYOUT.byteOffset(groupElement("max_sge"));

    /** Byte offset of {@code max_sge_rd} (124). */
    public static final long MAX_SGE_RD_OFFSET = $LAYOUT.byteOffset(groupElement("max_sge_rd"));

    /** Byte offset of {@code max_cq} (128). */
    public static final long MAX_CQ_OFFSET = $LAYOUT.byteOffset(groupElement("max_cq"));

    /** Byte offset of {@code max_cqe} (132). */
    public static final long MAX_CQE_OFFSET = $LAYOUT.byteOffset(groupElement("max_cqe"));

    /** Byte offset of {@code max_mr} (136). */
    public static final long MAX_MR_OFFSET = $LAYOUT.byteOffset(groupElement("max_mr"));

    /** Byte offset of {@code max_pd} (140). */
    public static final long MAX_PD_OFFSET = $LAYOUT.byteOffset(groupElement("max_pd"));

    /** Byte offset of {@code max_qp_rd_atom} (144). */
    public static final long MAX_QP_RD_ATOM_OFFSET = $LAYOUT.byteOffset(groupElement("max_qp_rd_atom"));

    /** Byte offset of {@code max_ee_rd_atom} (148). */
    public static final long MAX_EE_RD_ATOM_OFFSET = $LAYOUT.byteOffset(groupElement("max_ee_rd_atom"));

    /** Byte offset of {@code max_res_rd_atom} (152). */
    public static final long MAX_RES_RD_ATOM_OFFSET = $LAYOUT.byteOffset(groupElement("max_res_rd_atom"));

    /** Byte offset of {@code max_qp_init_rd_atom} (156). */
    public static final long MAX_QP_INIT_RD_ATOM_OFFSET = $LAYOUT.byteOffset(groupElement("max_qp_init_rd_atom"));

    /** Byte offset of {@code max_ee_init_rd_atom} (160). */
    public static final long MAX_EE_INIT_RD_ATOM_OFFSET = $LAYOUT.byteOffset(groupElement("max_ee_init_rd_atom"));

    /** Byte offset of {@code atomic_cap} (164). */
    public static final long ATOMIC_CAP_OFFSET = $LAYOUT.byteOffset(groupElement("atomic_cap"));

    /** Byte offset of {@code max_ee} (168). */
    public static final long MAX_EE_OFFSET = $LAYOUT.byteOffset(groupElement("max_ee"));

    /** Byte offset of {@code max_rdd} (172). */
    public static final long MAX_RDD_OFFSET = $LAYOUT.byteOffset(groupElement("max_rdd"));

    /** Byte offset of {@code max_mw} (176). */
    public static final long MAX_MW_OFFSET = $LAYOUT.byteOffset(groupElement("max_mw"));

    /** Byte offset of {@code max_raw_ipv6_qp} (180). */
    public static final long MAX_RAW_IPV6_QP_OFFSET = $LAYOUT.byteOffset(groupElement("max_raw_ipv6_qp"));

    /** Byte offset of {@code max_raw_ethy_qp} (184). */
    public static final long MAX_RAW_ETHY_QP_OFFSET = $LAYOUT.byteOffset(groupElement("max_raw_ethy_qp"));

    /** Byte offset of {@code max_mcast_grp} (188). */
    public static final long MAX_MCAST_GRP_OFFSET = $LAYOUT.byteOffset(groupElement("max_mcast_grp"));

    /** Byte offset of {@code max_mcast_qp_attach} (192). */
    public static final long MAX_MCAST_QP_ATTACH_OFFSET = $LAYOUT.byteOffset(groupElement("max_mcast_qp_attach"));

    /** Byte offset of {@code max_total_mcast_qp_attach} (196). */
    public static final long MAX_TOTAL_MCAST_QP_ATTACH_OFFSET = $LAYOUT.byteOffset(groupElement("max_total_mcast_qp_attach"));

    /** Byte offset of {@code max_ah} (200). */
    public static final long MAX_AH_OFFSET = $LAYOUT.byteOffset(groupElement("max_ah"));

    /** Byte offset of {@code max_fmr} (204). */
    public static final long MAX_FMR_OFFSET = $LAYOUT.byteOffset(groupElement("max_fmr"));

    /** Byte offset of {@code max_map_per_fmr} (208). */
    public static final long MAX_MAP_PER_FMR_OFFSET = $LAYOUT.byteOffset(groupElement("max_map_per_fmr"));

    /** Byte offset of {@code max_srq} (212). */
    public static final long MAX_SRQ_OFFSET = $LAYOUT.byteOffset(groupElement("max_srq"));

    /** Byte offset of {@code max_srq_wr} (216). */
    public static final long MAX_SRQ_WR_OFFSET = $LAYOUT.byteOffset(groupElement("max_srq_wr"));

    /** Byte offset of {@code max_srq_sge} (220). */
    public static final long MAX_SRQ_SGE_OFFSET = $LAYOUT.byteOffset(groupElement("max_srq_sge"));

    /** Byte offset of {@code max_pkeys} (224). */
    public static final long MAX_PKEYS_OFFSET = $LAYOUT.byteOffset(groupElement("max_pkeys"));

    /** Byte offset of {@code local_ca_ack_delay} (226). */
    public static final long LOCAL_CA_ACK_DELAY_OFFSET = $LAYOUT.byteOffset(groupElement("local_ca_ack_delay"));

    /** Byte offset of {@code phys_port_cnt} (227). */
    public static final long PHYS_PORT_CNT_OFFSET = $LAYOUT.byteOffset(groupElement("phys_port_cnt"));

    private ibv_device_attr() {
    }

    /**
     * Returns the layout of {@code struct ibv_device_attr}.
     *
     * @return the layout, 232 bytes
     */
    public static GroupLayout $LAYOUT() {
        return $LAYOUT;
    }

    /**
     * Returns the size of {@code struct ibv_device_attr}.
     *
     * @return 232
     */
    public static long sizeof() {
        return $LAYOUT.byteSize();
    }

    /**
     * Allocates one zeroed {@code ibv_device_attr}.
     *
     * @param allocator the allocator that owns the memory
     * @return a segment of {@link #sizeof()} bytes
     */
    public static MemorySegment allocate(SegmentAllocator allocator) {
        return allocator.allocate($LAYOUT);
    }

    /**
     * Allocates a zeroed array of {@code ibv_device_attr}.
     *
     * @param count the number of elements
     * @param allocator the allocator that owns the memory
     * @return a segment of {@code count * sizeof()} bytes
     */
    public static MemorySegment allocateArray(long count, SegmentAllocator allocator) {
        return allocator.allocate($LAYOUT, count);
    }

    /**
     * Returns element {@code index} of an array of {@code ibv_device_attr}.
     *
     * @param array the array segment
     * @param index the element index
     * @return a slice of {@link #sizeof()} bytes
     */
    public static MemorySegment asSlice(MemorySegment array, long index) {
        return array.asSlice(index * $LAYOUT.byteSize(), $LAYOUT);
    }

    /**
     * Gives a pointer returned by native code the size of one {@code ibv_device_attr}; the caller states
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
     * Returns {@code fw_ver} as a slice of the struct segment.
     *
     * @param struct the struct segment
     * @return a 64-byte slice
     */
    public static MemorySegment fw_ver(MemorySegment struct) {
        return struct.asSlice(FW_VER_OFFSET, 64);
    }

    /**
     * Copies 64 bytes into {@code fw_ver}.
     *
     * @param struct the struct segment
     * @param fieldValue the bytes to copy
     */
    public static void fw_ver(MemorySegment struct, MemorySegment fieldValue) {
        MemorySegment.copy(fieldValue, 0L, struct, FW_VER_OFFSET, 64);
    }

    /**
     * Reads {@code node_guid} (stored big-endian).
     *
     * @param struct the struct segment
     * @return the value
     */
    public static long node_guid(MemorySegment struct) {
        return struct.get(VerbsTypes.BE_UINT64, NODE_GUID_OFFSET);
    }

    /**
     * Writes {@code node_guid} (stored big-endian).
     *
     * @param struct the struct segment
     * @param fieldValue the value
     */
    public static void node_guid(MemorySegment struct, long fieldValue) {
        struct.set(VerbsTypes.BE_UINT64, NODE_GUID_OFFSET, fieldValue);
    }

    /**
     * Reads {@code sys_image_guid} (stored big-endian).
     *
     * @param struct the struct segment
     * @return the value
     */
    public static long sys_image_guid(MemorySegment struct) {
        return struct.get(VerbsTypes.BE_UINT64, SYS_IMAGE_GUID_OFFSET);
    }

    /**
     * Writes {@code sys_image_guid} (stored big-endian).
     *
     * @param struct the struct segment
     * @param fieldValue the value
     */
    public static void sys_image_guid(MemorySegment struct, long fieldValue) {
        struct.set(VerbsTypes.BE_UINT64, SYS_IMAGE_GUID_OFFSET, fieldValue);
    }

    /**
     * Reads {@code max_mr_size}.
     *
     * @param struct the struct segment
     * @return the value
     */
    public static long max_mr_size(MemorySegment struct) {
        return struct.get(VerbsTypes.C_UINT64, MAX_MR_SIZE_OFFSET);
    }

    /**
     * Writes {@code max_mr_size}.
     *
     * @param struct the struct segment
     * @param fieldValue the value
     */
    public static void max_mr_size(MemorySegment struct, long fieldValue) {
        struct.set(VerbsTypes.C_UINT64, MAX_MR_SIZE_OFFSET, fieldValue);
    }

    /**
     * Reads {@code page_size_cap}.
     *
     * @param struct the struct segment
     * @return the value
     */
    public static long page_size_cap(MemorySegment struct) {
        return struct.get(VerbsTypes.C_UINT64, PAGE_SIZE_CAP_OFFSET);
    }

    /**
     * Writes {@code page_size_cap}.
     *
     * @param struct the struct segment
     * @param fieldValue the value
     */
    public static void page_size_cap(MemorySegment struct, long fieldValue) {
        struct.set(VerbsTypes.C_UINT64, PAGE_SIZE_CAP_OFFSET, fieldValue);
    }

    /**
     * Reads {@code vendor_id}.
     *
     * @param struct the struct segment
     * @return the value
     */
    public static int vendor_id(MemorySegment struct) {
        return struct.get(VerbsTypes.C_UINT32, VENDOR_ID_OFFSET);
    }

    /**
     * Writes {@code vendor_id}.
     *
     * @param struct the struct segment
     * @param fieldValue the value
     */
    public static void vendor_id(MemorySegment struct, int fieldValue) {
        struct.set(VerbsTypes.C_UINT32, VENDOR_ID_OFFSET, fieldValue);
    }

    /**
     * Reads {@code vendor_part_id}.
     *
     * @param struct the struct segment
     * @return the value
     */
    public static int vendor_part_id(MemorySegment struct) {
        return struct.get(VerbsTypes.C_UINT32, VENDOR_PART_ID_OFFSET);
    }

    /**
     * Writes {@code vendor_part_id}.
     *
     * @param struct the struct segment
     * @param fieldValue the value
     */
    public static void vendor_part_id(MemorySegment struct, int fieldValue) {
        struct.set(VerbsTypes.C_UINT32, VENDOR_PART_ID_OFFSET, fieldValue);
    }

    /**
     * Reads {@code hw_ver}.
     *
     * @param struct the struct segment
     * @return the value
     */
    public static int hw_ver(MemorySegment struct) {
        return struct.get(VerbsTypes.C_UINT32, HW_VER_OFFSET);
    }

    /**
     * Writes {@code hw_ver}.
     *
     * @param struct the struct segment
     * @param fieldValue the value
     */
    public static void hw_ver(MemorySegment struct, int fieldValue) {
        struct.set(VerbsTypes.C_UINT32, HW_VER_OFFSET, fieldValue);
    }

    /**
     * Reads {@code max_qp}.
     *
     * @param struct the struct segment
     * @return the value
     */
    public static int max_qp(MemorySegment struct) {
        return struct.get(VerbsTypes.C_INT, MAX_QP_OFFSET);
    }

    /**
     * Writes {@code max_qp}.
     *
     * @param struct the struct segment
     * @param fieldValue the value
     */
    public static void max_qp(MemorySegment struct, int fieldValue) {
        struct.set(VerbsTypes.C_INT, MAX_QP_OFFSET, fieldValue);
    }

    /**
     * Reads {@code max_qp_wr}.
     *
     * @param struct the struct segment
     * @return the value
     */
    public static int max_qp_wr(MemorySegment struct) {
        return struct.get(VerbsTypes.C_INT, MAX_QP_WR_OFFSET);
    }

    /**
     * Writes {@code max_qp_wr}.
     *
     * @param struct the struct segment
     * @param fieldValue the value
     */
    public static void max_qp_wr(MemorySegment struct, int fieldValue) {
        struct.set(VerbsTypes.C_INT, MAX_QP_WR_OFFSET, fieldValue);
    }

    /**
     * Reads {@code device_cap_flags}.
     *
     * @param struct the struct segment
     * @return the value
     */
    public static int device_cap_flags(MemorySegment struct) {
        return struct.get(VerbsTypes.C_UINT32, DEVICE_CAP_FLAGS_OFFSET);
    }

    /**
     * Writes {@code device_cap_flags}.
     *
     * @param struct the struct segment
     * @param fieldValue the value
     */
    public static void device_cap_flags(MemorySegment struct, int fieldValue) {
        struct.set(VerbsTypes.C_UINT32, DEVICE_CAP_FLAGS_OFFSET, fieldValue);
    }

    /**
     * Reads {@code max_sge}.
     *
     * @param struct the struct segment
     * @return the value
     */
    public static int max_sge(MemorySegment struct) {
        return struct.get(VerbsTypes.C_INT, MAX_SGE_OFFSET);
    }

    /**
     * Writes {@code max_sge}.
     *
     * @param struct the struct segment
     * @param fieldValue the value
     */
    public static void max_sge(MemorySegment struct, int fieldValue) {
        struct.set(VerbsTypes.C_INT, MAX_SGE_OFFSET, fieldValue);
    }

    /**
     * Reads {@code max_sge_rd}.
     *
     * @param struct the struct segment
     * @return the value
     */
    public static int max_sge_rd(MemorySegment struct) {
        return struct.get(VerbsTypes.C_INT, MAX_SGE_RD_OFFSET);
    }

    /**
     * Writes {@code max_sge_rd}.
     *
     * @param struct the struct segment
     * @param fieldValue the value
     */
    public static void max_sge_rd(MemorySegment struct, int fieldValue) {
        struct.set(VerbsTypes.C_INT, MAX_SGE_RD_OFFSET, fieldValue);
    }

    /**
     * Reads {@code max_cq}.
     *
     * @param struct the struct segment
     * @return the value
     */
    public static int max_cq(MemorySegment struct) {
        return struct.get(VerbsTypes.C_INT, MAX_CQ_OFFSET);
    }

    /**
     * Writes {@code max_cq}.
     *
     * @param struct the struct segment
     * @param fieldValue the value
     */
    public static void max_cq(MemorySegment struct, int fieldValue) {
        struct.set(VerbsTypes.C_INT, MAX_CQ_OFFSET, fieldValue);
    }

    /**
     * Reads {@code max_cqe}.
     *
     * @param struct the struct segment
     * @return the value
     */
    public static int max_cqe(MemorySegment struct) {
        return struct.get(VerbsTypes.C_INT, MAX_CQE_OFFSET);
    }

    /**
     * Writes {@code max_cqe}.
     *
     * @param struct the struct segment
     * @param fieldValue the value
     */
    public static void max_cqe(MemorySegment struct, int fieldValue) {
        struct.set(VerbsTypes.C_INT, MAX_CQE_OFFSET, fieldValue);
    }

    /**
     * Reads {@code max_mr}.
     *
     * @param struct the struct segment
     * @return the value
     */
    public static int max_mr(MemorySegment struct) {
        return struct.get(VerbsTypes.C_INT, MAX_MR_OFFSET);
    }

    /**
     * Writes {@code max_mr}.
     *
     * @param struct the struct segment
     * @param fieldValue the value
     */
    public static void max_mr(MemorySegment struct, int fieldValue) {
        struct.set(VerbsTypes.C_INT, MAX_MR_OFFSET, fieldValue);
    }

    /**
     * Reads {@code max_pd}.
     *
     * @param struct the struct segment
     * @return the value
     */
    public static int max_pd(MemorySegment struct) {
        return struct.get(VerbsTypes.C_INT, MAX_PD_OFFSET);
    }

    /**
     * Writes {@code max_pd}.
     *
     * @param struct the struct segment
     * @param fieldValue the value
     */
    public static void max_pd(MemorySegment struct, int fieldValue) {
        struct.set(VerbsTypes.C_INT, MAX_PD_OFFSET, fieldValue);
    }

    /**
     * Reads {@code max_qp_rd_atom}.
     *
     * @param struct the struct segment
     * @return the value
     */
    public static int max_qp_rd_atom(MemorySegment struct) {
        return struct.get(VerbsTypes.C_INT, MAX_QP_RD_ATOM_OFFSET);
    }

    /**
     * Writes {@code max_qp_rd_atom}.
     *
     * @param struct the struct segment
     * @param fieldValue the value
     */
    public static void max_qp_rd_atom(MemorySegment struct, int fieldValue) {
        struct.set(VerbsTypes.C_INT, MAX_QP_RD_ATOM_OFFSET, fieldValue);
    }

    /**
     * Reads {@code max_ee_rd_atom}.
     *
     * @param struct the struct segment
     * @return the value
     */
    public static int max_ee_rd_atom(MemorySegment struct) {
        return struct.get(VerbsTypes.C_INT, MAX_EE_RD_ATOM_OFFSET);
    }

    /**
     * Writes {@code max_ee_rd_atom}.
     *
     * @param struct the struct segment
     * @param fieldValue the value
     */
    public static void max_ee_rd_atom(MemorySegment struct, int fieldValue) {
        struct.set(VerbsTypes.C_INT, MAX_EE_RD_ATOM_OFFSET, fieldValue);
    }

    /**
     * Reads {@code max_res_rd_atom}.
     *
     * @param struct the struct segment
     * @return the value
     */
    public static int max_res_rd_atom(MemorySegment struct) {
        return struct.get(VerbsTypes.C_INT, MAX_RES_RD_ATOM_OFFSET);
    }

    /**
     * Writes {@code max_res_rd_atom}.
     *
     * @param struct the struct segment
     * @param fieldValue the value
     */
    public static void max_res_rd_atom(MemorySegment struct, int fieldValue) {
        struct.set(VerbsTypes.C_INT, MAX_RES_RD_ATOM_OFFSET, fieldValue);
    }

    /**
     * Reads {@code max_qp_init_rd_atom}.
     *
     * @param struct the struct segment
     * @return the value
     */
    public static int max_qp_init_rd_atom(MemorySegment struct) {
        return struct.get(VerbsTypes.C_INT, MAX_QP_INIT_RD_ATOM_OFFSET);
    }

    /**
     * Writes {@code max_qp_init_rd_atom}.
     *
     * @param struct the struct segment
     * @param fieldValue the value
     */
    public static void max_qp_init_rd_atom(MemorySegment struct, int fieldValue) {
        struct.set(VerbsTypes.C_INT, MAX_QP_INIT_RD_ATOM_OFFSET, fieldValue);
    }

    /**
     * Reads {@code max_ee_init_rd_atom}.
     *
     * @param struct the struct segment
     * @return the value
     */
    public static int max_ee_init_rd_atom(MemorySegment struct) {
        return struct.get(VerbsTypes.C_INT, MAX_EE_INIT_RD_ATOM_OFFSET);
    }

    /**
     * Writes {@code max_ee_init_rd_atom}.
     *
     * @param struct the struct segment
     * @param fieldValue the value
     */
    public static void max_ee_init_rd_atom(MemorySegment struct, int fieldValue) {
        struct.set(VerbsTypes.C_INT, MAX_EE_INIT_RD_ATOM_OFFSET, fieldValue);
    }

    /**
     * Reads {@code atomic_cap}.
     *
     * @param struct the struct segment
     * @return the value
     */
    public static int atomic_cap(MemorySegment struct) {
        return struct.get(VerbsTypes.C_INT, ATOMIC_CAP_OFFSET);
    }

    /**
     * Writes {@code atomic_cap}.
     *
     * @param struct the struct segment
     * @param fieldValue the value
     */
    public static void atomic_cap(MemorySegment struct, int fieldValue) {
        struct.set(VerbsTypes.C_INT, ATOMIC_CAP_OFFSET, fieldValue);
    }

    /**
     * Reads {@code max_ee}.
     *
     * @param struct the struct segment
     * @return the value
     */
    public static int max_ee(MemorySegment struct) {
        return struct.get(VerbsTypes.C_INT, MAX_EE_OFFSET);
    }

    /**
     * Writes {@code max_ee}.
     *
     * @param struct the struct segment
     * @param fieldValue the value
     */
    public static void max_ee(MemorySegment struct, int fieldValue) {
        struct.set(VerbsTypes.C_INT, MAX_EE_OFFSET, fieldValue);
    }

    /**
     * Reads {@code max_rdd}.
     *
     * @param struct the struct segment
     * @return the value
     */
    public static int max_rdd(MemorySegment struct) {
        return struct.get(VerbsTypes.C_INT, MAX_RDD_OFFSET);
    }

    /**
     * Writes {@code max_rdd}.
     *
     * @param struct the struct segment
     * @param fieldValue the value
     */
    public static void max_rdd(MemorySegment struct, int fieldValue) {
        struct.set(VerbsTypes.C_INT, MAX_RDD_OFFSET, fieldValue);
    }

    /**
     * Reads {@code max_mw}.
     *
     * @param struct the struct segment
     * @return the value
     */
    public static int max_mw(MemorySegment struct) {
        return struct.get(VerbsTypes.C_INT, MAX_MW_OFFSET);
    }

    /**
     * Writes {@code max_mw}.
     *
     * @param struct the struct segment
     * @param fieldValue the value
     */
    public static void max_mw(MemorySegment struct, int fieldValue) {
        struct.set(VerbsTypes.C_INT, MAX_MW_OFFSET, fieldValue);
    }

    /**
     * Reads {@code max_raw_ipv6_qp}.
     *
     * @param struct the struct segment
     * @return the value
     */
    public static int max_raw_ipv6_qp(MemorySegment struct) {
        return struct.get(VerbsTypes.C_INT, MAX_RAW_IPV6_QP_OFFSET);
    }

    /**
     * Writes {@code max_raw_ipv6_qp}.
     *
     * @param struct the struct segment
     * @param fieldValue the value
     */
    public static void max_raw_ipv6_qp(MemorySegment struct, int fieldValue) {
        struct.set(VerbsTypes.C_INT, MAX_RAW_IPV6_QP_OFFSET, fieldValue);
    }

    /**
     * Reads {@code max_raw_ethy_qp}.
     *
     * @param struct the struct segment
     * @return the value
     */
    public static int max_raw_ethy_qp(MemorySegment struct) {
        return struct.get(VerbsTypes.C_INT, MAX_RAW_ETHY_QP_OFFSET);
    }

    /**
     * Writes {@code max_raw_ethy_qp}.
     *
     * @param struct the struct segment
     * @param fieldValue the value
     */
    public static void max_raw_ethy_qp(MemorySegment struct, int fieldValue) {
        struct.set(VerbsTypes.C_INT, MAX_RAW_ETHY_QP_OFFSET, fieldValue);
    }

    /**
     * Reads {@code max_mcast_grp}.
     *
     * @param struct the struct segment
     * @return the value
     */
    public static int max_mcast_grp(MemorySegment struct) {
        return struct.get(VerbsTypes.C_INT, MAX_MCAST_GRP_OFFSET);
    }

    /**
     * Writes {@code max_mcast_grp}.
     *
     * @param struct the struct segment
     * @param fieldValue the value
     */
    public static void max_mcast_grp(MemorySegment struct, int fieldValue) {
        struct.set(VerbsTypes.C_INT, MAX_MCAST_GRP_OFFSET, fieldValue);
    }

    /**
     * Reads {@code max_mcast_qp_attach}.
     *
     * @param struct the struct segment
     * @return the value
     */
    public static int max_mcast_qp_attach(MemorySegment struct) {
        return struct.get(VerbsTypes.C_INT, MAX_MCAST_QP_ATTACH_OFFSET);
    }

    /**
     * Writes {@code max_mcast_qp_attach}.
     *
     * @param struct the struct segment
     * @param fieldValue the value
     */
    public static void max_mcast_qp_attach(MemorySegment struct, int fieldValue) {
        struct.set(VerbsTypes.C_INT, MAX_MCAST_QP_ATTACH_OFFSET, fieldValue);
    }

    /**
     * Reads {@code max_total_mcast_qp_attach}.
     *
     * @param struct the struct segment
     * @return the value
     */
    public static int max_total_mcast_qp_attach(MemorySegment struct) {
        return struct.get(VerbsTypes.C_INT, MAX_TOTAL_MCAST_QP_ATTACH_OFFSET);
    }

    /**
     * Writes {@code max_total_mcast_qp_attach}.
     *
     * @param struct the struct segment
     * @param fieldValue the value
     */
    public static void max_total_mcast_qp_attach(MemorySegment struct, int fieldValue) {
        struct.set(VerbsTypes.C_INT, MAX_TOTAL_MCAST_QP_ATTACH_OFFSET, fieldValue);
    }

    /**
     * Reads {@code max_ah}.
     *
     * @param struct the struct segment
     * @return the value
     */
    public static int max_ah(MemorySegment struct) {
        return struct.get(VerbsTypes.C_INT, MAX_AH_OFFSET);
    }

    /**
     * Writes {@code max_ah}.
     *
     * @param struct the struct segment
     * @param fieldValue the value
     */
    public static void max_ah(MemorySegment struct, int fieldValue) {
        struct.set(VerbsTypes.C_INT, MAX_AH_OFFSET, fieldValue);
    }

    /**
     * Reads {@code max_fmr}.
     *
     * @param struct the struct segment
     * @return the value
     */
    public static int max_fmr(MemorySegment struct) {
        return struct.get(VerbsTypes.C_INT, MAX_FMR_OFFSET);
    }

    /**
     * Writes {@code max_fmr}.
     *
     * @param struct the struct segment
     * @param fieldValue the value
     */
    public static void max_fmr(MemorySegment struct, int fieldValue) {
        struct.set(VerbsTypes.C_INT, MAX_FMR_OFFSET, fieldValue);
    }

    /**
     * Reads {@code max_map_per_fmr}.
     *
     * @param struct the struct segment
     * @return the value
     */
    public static int max_map_per_fmr(MemorySegment struct) {
        return struct.get(VerbsTypes.C_INT, MAX_MAP_PER_FMR_OFFSET);
    }

    /**
     * Writes {@code max_map_per_fmr}.
     *
     * @param struct the struct segment
     * @param fieldValue the value
     */
    public static void max_map_per_fmr(MemorySegment struct, int fieldValue) {
        struct.set(VerbsTypes.C_INT, MAX_MAP_PER_FMR_OFFSET, fieldValue);
    }

    /**
     * Reads {@code max_srq}.
     *
     * @param struct the struct segment
     * @return the value
     */
    public static int max_srq(MemorySegment struct) {
        return struct.get(VerbsTypes.C_INT, MAX_SRQ_OFFSET);
    }

    /**
     * Writes {@code max_srq}.
     *
     * @param struct the struct segment
     * @param fieldValue the value
     */
    public static void max_srq(MemorySegment struct, int fieldValue) {
        struct.set(VerbsTypes.C_INT, MAX_SRQ_OFFSET, fieldValue);
    }

    /**
     * Reads {@code max_srq_wr}.
     *
     * @param struct the struct segment
     * @return the value
     */
    public static int max_srq_wr(MemorySegment struct) {
        return struct.get(VerbsTypes.C_INT, MAX_SRQ_WR_OFFSET);
    }

    /**
     * Writes {@code max_srq_wr}.
     *
     * @param struct the struct segment
     * @param fieldValue the value
     */
    public static void max_srq_wr(MemorySegment struct, int fieldValue) {
        struct.set(VerbsTypes.C_INT, MAX_SRQ_WR_OFFSET, fieldValue);
    }

    /**
     * Reads {@code max_srq_sge}.
     *
     * @param struct the struct segment
     * @return the value
     */
    public static int max_srq_sge(MemorySegment struct) {
        return struct.get(VerbsTypes.C_INT, MAX_SRQ_SGE_OFFSET);
    }

    /**
     * Writes {@code max_srq_sge}.
     *
     * @param struct the struct segment
     * @param fieldValue the value
     */
    public static void max_srq_sge(MemorySegment struct, int fieldValue) {
        struct.set(VerbsTypes.C_INT, MAX_SRQ_SGE_OFFSET, fieldValue);
    }

    /**
     * Reads {@code max_pkeys}.
     *
     * @param struct the struct segment
     * @return the value
     */
    public static short max_pkeys(MemorySegment struct) {
        return struct.get(VerbsTypes.C_UINT16, MAX_PKEYS_OFFSET);
    }

    /**
     * Writes {@code max_pkeys}.
     *
     * @param struct the struct segment
     * @param fieldValue the value
     */
    public static void max_pkeys(MemorySegment struct, short fieldValue) {
        struct.set(VerbsTypes.C_UINT16, MAX_PKEYS_OFFSET, fieldValue);
    }

    /**
     * Reads {@code local_ca_ack_delay}.
     *
     * @param struct the struct segment
     * @return the value
     */
    public static byte local_ca_ack_delay(MemorySegment struct) {
        return struct.get(VerbsTypes.C_UINT8, LOCAL_CA_ACK_DELAY_OFFSET);
    }

    /**
     * Writes {@code local_ca_ack_delay}.
     *
     * @param struct the struct segment
     * @param fieldValue the value
     */
    public static void local_ca_ack_delay(MemorySegment struct, byte fieldValue) {
        struct.set(VerbsTypes.C_UINT8, LOCAL_CA_ACK_DELAY_OFFSET, fieldValue);
    }

    /**
     * Reads {@code phys_port_cnt}.
     *
     * @param struct the struct segment
     * @return the value
     */
    public static byte phys_port_cnt(MemorySegment struct) {
        return struct.get(VerbsTypes.C_UINT8, PHYS_PORT_CNT_OFFSET);
    }

    /**
     * Writes {@code phys_port_cnt}.
     *
     * @param struct the struct segment
     * @param fieldValue the value
     */
    public static void phys_port_cnt(MemorySegment struct, byte fieldValue) {
        struct.set(VerbsTypes.C_UINT8, PHYS_PORT_CNT_OFFSET, fieldValue);
    }
}
