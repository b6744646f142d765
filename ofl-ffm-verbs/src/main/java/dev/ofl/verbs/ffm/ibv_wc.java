package dev.ofl.verbs.ffm;

import java.lang.foreign.GroupLayout;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SegmentAllocator;

import static java.lang.foreign.MemoryLayout.PathElement.groupElement;

/**
 * {@code struct ibv_wc} from {@code <infiniband/verbs.h>} (rdma-core 44, x86-64 and aarch64 alike):
 * 48 bytes, aligned to 8. A work completion written by {@code poll_cq}. {@code imm_data} is valid
 * when {@code wc_flags} has {@code IBV_WC_WITH_IMM}; it is carried in network byte order and the
 * accessor returns the logical value.
 *
 * <pre>{@code
 * struct ibv_wc {
 *     uint64_t wr_id;                         // 0
 *     enum ibv_wc_status status;              // 8
 *     enum ibv_wc_opcode opcode;              // 12
 *     uint32_t vendor_err;                    // 16
 *     uint32_t byte_len;                      // 20
 *     union {                                 // 24, 4 bytes
 *         __be32 imm_data;                    // 24
 *         uint32_t invalidated_rkey;          // 24
 *     };
 *     uint32_t qp_num;                        // 28
 *     uint32_t src_qp;                        // 32
 *     unsigned int wc_flags;                  // 36
 *     uint16_t pkey_index;                    // 40
 *     uint16_t slid;                          // 42
 *     uint8_t sl;                             // 44
 *     uint8_t dlid_path_bits;                 // 45
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
public final class ibv_wc {

    private static final GroupLayout $LAYOUT = MemoryLayout.structLayout(
        VerbsTypes.C_UINT64.withName("wr_id"),
        VerbsTypes.C_INT.withName("status"),
        VerbsTypes.C_INT.withName("opcode"),
        VerbsTypes.C_UINT32.withName("vendor_err"),
        VerbsTypes.C_UINT32.withName("byte_len"),
        MemoryLayout.unionLayout(
            VerbsTypes.BE_UINT32.withName("imm_data"),
            VerbsTypes.C_UINT32.withName("invalidated_rkey")
        ).withName("$anon$0"),
        VerbsTypes.C_UINT32.withName("qp_num"),
        VerbsTypes.C_UINT32.withName("src_qp"),
        VerbsTypes.C_UINT32.withName("wc_flags"),
        VerbsTypes.C_UINT16.withName("pkey_index"),
        VerbsTypes.C_UINT16.withName("slid"),
        VerbsTypes.C_UINT8.withName("sl"),
        VerbsTypes.C_UINT8.withName("dlid_path_bits"),
        MemoryLayout.paddingLayout(2)
    ).withName("ibv_wc");

    /** Byte offset of {@code wr_id} (0). */
    public static final long WR_ID_OFFSET = $LAYOUT.byteOffset(groupElement("wr_id"));

    /** Byte offset of {@code status} (8). */
    public static final long STATUS_OFFSET = $LAYOUT.byteOffset(groupElement("status"));

    /** Byte offset of {@code opcode} (12). */
    public static final long OPCODE_OFFSET = $LAYOUT.byteOffset(groupElement("opcode"));

    /** Byte offset of {@code vendor_err} (16). */
    public static final long VENDOR_ERR_OFFSET = $LAYOUT.byteOffset(groupElement("vendor_err"));

    /** Byte offset of {@code byte_len} (20). */
    public static final long BYTE_LEN_OFFSET = $LAYOUT.byteOffset(groupElement("byte_len"));

    /** Byte offset of {@code imm_data} (24). */
    public static final long IMM_DATA_OFFSET = $LAYOUT.byteOffset(groupElement("$anon$0"), groupElement("imm_data"));

    /** Byte offset of {@code invalidated_rkey} (24). */
    public static final long INVALIDATED_RKEY_OFFSET = $LAYOUT.byteOffset(groupElement("$anon$0"), groupElement("invalidated_rkey"));

    /** Byte offset of {@code qp_num} (28). */
    public static final long QP_NUM_OFFSET = $LAYOUT.byteOffset(groupElement("qp_num"));

    /** Byte offset of {@code src_qp} (32). */
    public static final long SRC_QP_OFFSET = $LAYOUT.byteOffset(groupElement("src_qp"));

    /** Byte offset of {@code wc_flags} (36). */
    public static final long WC_FLAGS_OFFSET = $LAYOUT.byteOffset(groupElement("wc_flags"));

    /** Byte offset of {@code pkey_index} (40). */
    public static final long PKEY_INDEX_OFFSET = $LAYOUT.byteOffset(groupElement("pkey_index"));

    /** Byte offset of {@code slid} (42). */
    public static final long SLID_OFFSET = $LAYOUT.byteOffset(groupElement("slid"));

    /** Byte offset of {@code sl} (44). */
    public static final long SL_OFFSET = $LAYOUT.byteOffset(groupElement("sl"));

    /** Byte offset of {@code dlid_path_bits} (45). */
    public static final long DLID_PATH_BITS_OFFSET = $LAYOUT.byteOffset(groupElement("dlid_path_bits"));

    private ibv_wc() {
    }

    /**
     * Returns the layout of {@code struct ibv_wc}.
     *
     * @return the layout, 48 bytes
     */
    public static GroupLayout $LAYOUT() {
        return $LAYOUT;
    }

    /**
     * Returns the size of {@code struct ibv_wc}.
     *
     * @return 48
     */
    public static long sizeof() {
        return $LAYOUT.byteSize();
    }

    /**
     * Allocates one zeroed {@code ibv_wc}.
     *
     * @param allocator the allocator that owns the memory
     * @return a segment of {@link #sizeof()} bytes
     */
    public static MemorySegment allocate(SegmentAllocator allocator) {
        return allocator.allocate($LAYOUT);
    }

    /**
     * Allocates a zeroed array of {@code ibv_wc}.
     *
     * @param count the number of elements
     * @param allocator the allocator that owns the memory
     * @return a segment of {@code count * sizeof()} bytes
     */
    public static MemorySegment allocateArray(long count, SegmentAllocator allocator) {
        return allocator.allocate($LAYOUT, count);
    }

    /**
     * Returns element {@code index} of an array of {@code ibv_wc}.
     *
     * @param array the array segment
     * @param index the element index
     * @return a slice of {@link #sizeof()} bytes
     */
    public static MemorySegment asSlice(MemorySegment array, long index) {
        return array.asSlice(index * $LAYOUT.byteSize(), $LAYOUT);
    }

    /**
     * Gives a pointer returned by native code the size of one {@code ibv_wc}; the caller states
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
     * Reads {@code status}.
     *
     * @param struct the struct segment
     * @return the value
     */
    public static int status(MemorySegment struct) {
        return struct.get(VerbsTypes.C_INT, STATUS_OFFSET);
    }

    /**
     * Writes {@code status}.
     *
     * @param struct the struct segment
     * @param fieldValue the value
     */
    public static void status(MemorySegment struct, int fieldValue) {
        struct.set(VerbsTypes.C_INT, STATUS_OFFSET, fieldValue);
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
     * Reads {@code vendor_err}.
     *
     * @param struct the struct segment
     * @return the value
     */
    public static int vendor_err(MemorySegment struct) {
        return struct.get(VerbsTypes.C_UINT32, VENDOR_ERR_OFFSET);
    }

    /**
     * Writes {@code vendor_err}.
     *
     * @param struct the struct segment
     * @param fieldValue the value
     */
    public static void vendor_err(MemorySegment struct, int fieldValue) {
        struct.set(VerbsTypes.C_UINT32, VENDOR_ERR_OFFSET, fieldValue);
    }

    /**
     * Reads {@code byte_len}.
     *
     * @param struct the struct segment
     * @return the value
     */
    public static int byte_len(MemorySegment struct) {
        return struct.get(VerbsTypes.C_UINT32, BYTE_LEN_OFFSET);
    }

    /**
     * Writes {@code byte_len}.
     *
     * @param struct the struct segment
     * @param fieldValue the value
     */
    public static void byte_len(MemorySegment struct, int fieldValue) {
        struct.set(VerbsTypes.C_UINT32, BYTE_LEN_OFFSET, fieldValue);
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
     * Reads {@code invalidated_rkey}.
     *
     * @param struct the struct segment
     * @return the value
     */
    public static int invalidated_rkey(MemorySegment struct) {
        return struct.get(VerbsTypes.C_UINT32, INVALIDATED_RKEY_OFFSET);
    }

    /**
     * Writes {@code invalidated_rkey}.
     *
     * @param struct the struct segment
     * @param fieldValue the value
     */
    public static void invalidated_rkey(MemorySegment struct, int fieldValue) {
        struct.set(VerbsTypes.C_UINT32, INVALIDATED_RKEY_OFFSET, fieldValue);
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
     * Reads {@code src_qp}.
     *
     * @param struct the struct segment
     * @return the value
     */
    public static int src_qp(MemorySegment struct) {
        return struct.get(VerbsTypes.C_UINT32, SRC_QP_OFFSET);
    }

    /**
     * Writes {@code src_qp}.
     *
     * @param struct the struct segment
     * @param fieldValue the value
     */
    public static void src_qp(MemorySegment struct, int fieldValue) {
        struct.set(VerbsTypes.C_UINT32, SRC_QP_OFFSET, fieldValue);
    }

    /**
     * Reads {@code wc_flags}.
     *
     * @param struct the struct segment
     * @return the value
     */
    public static int wc_flags(MemorySegment struct) {
        return struct.get(VerbsTypes.C_UINT32, WC_FLAGS_OFFSET);
    }

    /**
     * Writes {@code wc_flags}.
     *
     * @param struct the struct segment
     * @param fieldValue the value
     */
    public static void wc_flags(MemorySegment struct, int fieldValue) {
        struct.set(VerbsTypes.C_UINT32, WC_FLAGS_OFFSET, fieldValue);
    }

    /**
     * Reads {@code pkey_index}.
     *
     * @param struct the struct segment
     * @return the value
     */
    public static short pkey_index(MemorySegment struct) {
        return struct.get(VerbsTypes.C_UINT16, PKEY_INDEX_OFFSET);
    }

    /**
     * Writes {@code pkey_index}.
     *
     * @param struct the struct segment
     * @param fieldValue the value
     */
    public static void pkey_index(MemorySegment struct, short fieldValue) {
        struct.set(VerbsTypes.C_UINT16, PKEY_INDEX_OFFSET, fieldValue);
    }

    /**
     * Reads {@code slid}.
     *
     * @param struct the struct segment
     * @return the value
     */
    public static short slid(MemorySegment struct) {
        return struct.get(VerbsTypes.C_UINT16, SLID_OFFSET);
    }

    /**
     * Writes {@code slid}.
     *
     * @param struct the struct segment
     * @param fieldValue the value
     */
    public static void slid(MemorySegment struct, short fieldValue) {
        struct.set(VerbsTypes.C_UINT16, SLID_OFFSET, fieldValue);
    }

    /**
     * Reads {@code sl}.
     *
     * @param struct the struct segment
     * @return the value
     */
    public static byte sl(MemorySegment struct) {
        return struct.get(VerbsTypes.C_UINT8, SL_OFFSET);
    }

    /**
     * Writes {@code sl}.
     *
     * @param struct the struct segment
     * @param fieldValue the value
     */
    public static void sl(MemorySegment struct, byte fieldValue) {
        struct.set(VerbsTypes.C_UINT8, SL_OFFSET, fieldValue);
    }

    /**
     * Reads {@code dlid_path_bits}.
     *
     * @param struct the struct segment
     * @return the value
     */
    public static byte dlid_path_bits(MemorySegment struct) {
        return struct.get(VerbsTypes.C_UINT8, DLID_PATH_BITS_OFFSET);
    }

    /**
     * Writes {@code dlid_path_bits}.
     *
     * @param struct the struct segment
     * @param fieldValue the value
     */
    public static void dlid_path_bits(MemorySegment struct, byte fieldValue) {
        struct.set(VerbsTypes.C_UINT8, DLID_PATH_BITS_OFFSET, fieldValue);
    }
}
