package dev.ofl.verbs.ffm;

import java.lang.foreign.GroupLayout;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SegmentAllocator;

import static java.lang.foreign.MemoryLayout.PathElement.groupElement;

/**
 * {@code struct ibv_qp_attr} from {@code <infiniband/verbs.h>} (rdma-core 44, x86-64 and aarch64 alike):
 * 144 bytes, aligned to 8. Queue pair attributes for {@code ibv_modify_qp} and {@code
 * ibv_query_qp}; the attribute mask says which fields count.
 *
 * <pre>{@code
 * struct ibv_qp_attr {
 *     enum ibv_qp_state qp_state;             // 0
 *     enum ibv_qp_state cur_qp_state;         // 4
 *     enum ibv_mtu path_mtu;                  // 8
 *     enum ibv_mig_state path_mig_state;      // 12
 *     uint32_t qkey;                          // 16
 *     uint32_t rq_psn;                        // 20
 *     uint32_t sq_psn;                        // 24
 *     uint32_t dest_qp_num;                   // 28
 *     unsigned int qp_access_flags;           // 32
 *     struct ibv_qp_cap cap;                  // 36, 20 bytes
 *     struct ibv_ah_attr ah_attr;             // 56, 32 bytes
 *     struct ibv_ah_attr alt_ah_attr;         // 88, 32 bytes
 *     uint16_t pkey_index;                    // 120
 *     uint16_t alt_pkey_index;                // 122
 *     uint8_t en_sqd_async_notify;            // 124
 *     uint8_t sq_draining;                    // 125
 *     uint8_t max_rd_atomic;                  // 126
 *     uint8_t max_dest_rd_atomic;             // 127
 *     uint8_t min_rnr_timer;                  // 128
 *     uint8_t port_num;                       // 129
 *     uint8_t timeout;                        // 130
 *     uint8_t retry_cnt;                      // 131
 *     uint8_t rnr_retry;                      // 132
 *     uint8_t alt_port_num;                   // 133
 *     uint8_t alt_timeout;                    // 134
 *     uint32_t rate_limit;                    // 136
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
public final class ibv_qp_attr {

    private static final GroupLayout $LAYOUT = MemoryLayout.structLayout(
        VerbsTypes.C_INT.withName("qp_state"),
        VerbsTypes.C_INT.withName("cur_qp_state"),
        VerbsTypes.C_INT.withName("path_mtu"),
        VerbsTypes.C_INT.withName("path_mig_state"),
        VerbsTypes.C_UINT32.withName("qkey"),
        VerbsTypes.C_UINT32.withName("rq_psn"),
        VerbsTypes.C_UINT32.withName("sq_psn"),
        VerbsTypes.C_UINT32.withName("dest_qp_num"),
        VerbsTypes.C_UINT32.withName("qp_access_flags"),
        ibv_qp_cap.$LAYOUT().withName("cap"),
        ibv_ah_attr.$LAYOUT().withName("ah_attr"),
        ibv_ah_attr.$LAYOUT().withName("alt_ah_attr"),
        VerbsTypes.C_UINT16.withName("pkey_index"),
        VerbsTypes.C_UINT16.withName("alt_pkey_index"),
        VerbsTypes.C_UINT8.withName("en_sqd_async_notify"),
        VerbsTypes.C_UINT8.withName("sq_draining"),
        VerbsTypes.C_UINT8.withName("max_rd_atomic"),
        VerbsTypes.C_UINT8.withName("max_dest_rd_atomic"),
        VerbsTypes.C_UINT8.withName("min_rnr_timer"),
        VerbsTypes.C_UINT8.withName("port_num"),
        VerbsTypes.C_UINT8.withName("timeout"),
        VerbsTypes.C_UINT8.withName("retry_cnt"),
        VerbsTypes.C_UINT8.withName("rnr_retry"),
        VerbsTypes.C_UINT8.withName("alt_port_num"),
        VerbsTypes.C_UINT8.withName("alt_timeout"),
        MemoryLayout.paddingLayout(1),
        VerbsTypes.C_UINT32.withName("rate_limit"),
        MemoryLayout.paddingLayout(4)
    ).withName("ibv_qp_attr");

    /** Byte offset of {@code qp_state} (0). */
    public static final long QP_STATE_OFFSET = $LAYOUT.byteOffset(groupElement("qp_state"));

    /** Byte offset of {@code cur_qp_state} (4). */
    public static final long CUR_QP_STATE_OFFSET = $LAYOUT.byteOffset(groupElement("cur_qp_state"));

    /** Byte offset of {@code path_mtu} (8). */
    public static final long PATH_MTU_OFFSET = $LAYOUT.byteOffset(groupElement("path_mtu"));

    /** Byte offset of {@code path_mig_state} (12). */
    public static final long PATH_MIG_STATE_OFFSET = $LAYOUT.byteOffset(groupElement("path_mig_state"));

    /** Byte offset of {@code qkey} (16). */
    public static final long QKEY_OFFSET = $LAYOUT.byteOffset(groupElement("qkey"));

    /** Byte offset of {@code rq_psn} (20). */
    public static final long RQ_PSN_OFFSET = $LAYOUT.byteOffset(groupElement("rq_psn"));

    /** Byte offset of {@code sq_psn} (24). */
    public static final long SQ_PSN_OFFSET = $LAYOUT.byteOffset(groupElement("sq_psn"));

    /** Byte offset of {@code dest_qp_num} (28). */
    public static final long DEST_QP_NUM_OFFSET = $LAYOUT.byteOffset(groupElement("dest_qp_num"));

    /** Byte offset of {@code qp_access_flags} (32). */
    public static final long QP_ACCESS_FLAGS_OFFSET = $LAYOUT.byteOffset(groupElement("qp_access_flags"));

    /** Byte offset of {@code cap} (36). */
    public static final long CAP_OFFSET = $LAYOUT.byteOffset(groupElement("cap"));

    /** Byte offset of {@code ah_attr} (56). */
    public static final long AH_ATTR_OFFSET = $LAYOUT.byteOffset(groupElement("ah_attr"));

    /** Byte offset of {@code alt_ah_attr} (88). */
    public static final long ALT_AH_ATTR_OFFSET = $LAYOUT.byteOffset(groupElement("alt_ah_attr"));

    /** Byte offset of {@code pkey_index} (120). */
    public static final long PKEY_INDEX_OFFSET = $LAYOUT.byteOffset(groupElement("pkey_index"));

    /** Byte offset of {@code alt_pkey_index} (122). */
    public static final long ALT_PKEY_INDEX_OFFSET = $LAYOUT.byteOffset(groupElement("alt_pkey_index"));

    /** Byte offset of {@code en_sqd_async_notify} (124). */
    public static final long EN_SQD_ASYNC_NOTIFY_OFFSET = $LAYOUT.byteOffset(groupElement("en_sqd_async_notify"));

    /** Byte offset of {@code sq_draining} (125). */
    public static final long SQ_DRAINING_OFFSET = $LAYOUT.byteOffset(groupElement("sq_draining"));

    /** Byte offset of {@code max_rd_atomic} (126). */
    public static final long MAX_RD_ATOMIC_OFFSET = $LAYOUT.byteOffset(groupElement("max_rd_atomic"));

    /** Byte offset of {@code max_dest_rd_atomic} (127). */
    public static final long MAX_DEST_RD_ATOMIC_OFFSET = $LAYOUT.byteOffset(groupElement("max_dest_rd_atomic"));

    /** Byte offset of {@code min_rnr_timer} (128). */
    public static final long MIN_RNR_TIMER_OFFSET = $LAYOUT.byteOffset(groupElement("min_rnr_timer"));

    /** Byte offset of {@code port_num} (129). */
    public static final long PORT_NUM_OFFSET = $LAYOUT.byteOffset(groupElement("port_num"));

    /** Byte offset of {@code timeout} (130). */
    public static final long TIMEOUT_OFFSET = $LAYOUT.byteOffset(groupElement("timeout"));

    /** Byte offset of {@code retry_cnt} (131). */
    public static final long RETRY_CNT_OFFSET = $LAYOUT.byteOffset(groupElement("retry_cnt"));

    /** Byte offset of {@code rnr_retry} (132). */
    public static final long RNR_RETRY_OFFSET = $LAYOUT.byteOffset(groupElement("rnr_retry"));

    /** Byte offset of {@code alt_port_num} (133). */
    public static final long ALT_PORT_NUM_OFFSET = $LAYOUT.byteOffset(groupElement("alt_port_num"));

    /** Byte offset of {@code alt_timeout} (134). */
    public static final long ALT_TIMEOUT_OFFSET = $LAYOUT.byteOffset(groupElement("alt_timeout"));

    /** Byte offset of {@code rate_limit} (136). */
    public static final long RATE_LIMIT_OFFSET = $LAYOUT.byteOffset(groupElement("rate_limit"));

    private ibv_qp_attr() {
    }

    /**
     * Returns the layout of {@code struct ibv_qp_attr}.
     *
     * @return the layout, 144 bytes
     */
    public static GroupLayout $LAYOUT() {
        return $LAYOUT;
    }

    /**
     * Returns the size of {@code struct ibv_qp_attr}.
     *
     * @return 144
     */
    public static long sizeof() {
        return $LAYOUT.byteSize();
    }

    /**
     * Allocates one zeroed {@code ibv_qp_attr}.
     *
     * @param allocator the allocator that owns the memory
     * @return a segment of {@link #sizeof()} bytes
     */
    public static MemorySegment allocate(SegmentAllocator allocator) {
        return allocator.allocate($LAYOUT);
    }

    /**
     * Allocates a zeroed array of {@code ibv_qp_attr}.
     *
     * @param count the number of elements
     * @param allocator the allocator that owns the memory
     * @return a segment of {@code count * sizeof()} bytes
     */
    public static MemorySegment allocateArray(long count, SegmentAllocator allocator) {
        return allocator.allocate($LAYOUT, count);
    }

    /**
     * Returns element {@code index} of an array of {@code ibv_qp_attr}.
     *
     * @param array the array segment
     * @param index the element index
     * @return a slice of {@link #sizeof()} bytes
     */
    public static MemorySegment asSlice(MemorySegment array, long index) {
        return array.asSlice(index * $LAYOUT.byteSize(), $LAYOUT);
    }

    /**
     * Gives a pointer returned by native code the size of one {@code ibv_qp_attr}; the caller states
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
     * Reads {@code qp_state}.
     *
     * @param struct the struct segment
     * @return the value
     */
    public static int qp_state(MemorySegment struct) {
        return struct.get(VerbsTypes.C_INT, QP_STATE_OFFSET);
    }

    /**
     * Writes {@code qp_state}.
     *
     * @param struct the struct segment
     * @param fieldValue the value
     */
    public static void qp_state(MemorySegment struct, int fieldValue) {
        struct.set(VerbsTypes.C_INT, QP_STATE_OFFSET, fieldValue);
    }

    /**
     * Reads {@code cur_qp_state}.
     *
     * @param struct the struct segment
     * @return the value
     */
    public static int cur_qp_state(MemorySegment struct) {
        return struct.get(VerbsTypes.C_INT, CUR_QP_STATE_OFFSET);
    }

    /**
     * Writes {@code cur_qp_state}.
     *
     * @param struct the struct segment
     * @param fieldValue the value
     */
    public static void cur_qp_state(MemorySegment struct, int fieldValue) {
        struct.set(VerbsTypes.C_INT, CUR_QP_STATE_OFFSET, fieldValue);
    }

    /**
     * Reads {@code path_mtu}.
     *
     * @param struct the struct segment
     * @return the value
     */
    public static int path_mtu(MemorySegment struct) {
        return struct.get(VerbsTypes.C_INT, PATH_MTU_OFFSET);
    }

    /**
     * Writes {@code path_mtu}.
     *
     * @param struct the struct segment
     * @param fieldValue the value
     */
    public static void path_mtu(MemorySegment struct, int fieldValue) {
        struct.set(VerbsTypes.C_INT, PATH_MTU_OFFSET, fieldValue);
    }

    /**
     * Reads {@code path_mig_state}.
     *
     * @param struct the struct segment
     * @return the value
     */
    public static int path_mig_state(MemorySegment struct) {
        return struct.get(VerbsTypes.C_INT, PATH_MIG_STATE_OFFSET);
    }

    /**
     * Writes {@code path_mig_state}.
     *
     * @param struct the struct segment
     * @param fieldValue the value
     */
    public static void path_mig_state(MemorySegment struct, int fieldValue) {
        struct.set(VerbsTypes.C_INT, PATH_MIG_STATE_OFFSET, fieldValue);
    }

    /**
     * Reads {@code qkey}.
     *
     * @param struct the struct segment
     * @return the value
     */
    public static int qkey(MemorySegment struct) {
        return struct.get(VerbsTypes.C_UINT32, QKEY_OFFSET);
    }

    /**
     * Writes {@code qkey}.
     *
     * @param struct the struct segment
     * @param fieldValue the value
     */
    public static void qkey(MemorySegment struct, int fieldValue) {
        struct.set(VerbsTypes.C_UINT32, QKEY_OFFSET, fieldValue);
    }

    /**
     * Reads {@code rq_psn}.
     *
     * @param struct the struct segment
     * @return the value
     */
    public static int rq_psn(MemorySegment struct) {
        return struct.get(VerbsTypes.C_UINT32, RQ_PSN_OFFSET);
    }

    /**
     * Writes {@code rq_psn}.
     *
     * @param struct the struct segment
     * @param fieldValue the value
     */
    public static void rq_psn(MemorySegment struct, int fieldValue) {
        struct.set(VerbsTypes.C_UINT32, RQ_PSN_OFFSET, fieldValue);
    }

    /**
     * Reads {@code sq_psn}.
     *
     * @param struct the struct segment
     * @return the value
     */
    public static int sq_psn(MemorySegment struct) {
        return struct.get(VerbsTypes.C_UINT32, SQ_PSN_OFFSET);
    }

    /**
     * Writes {@code sq_psn}.
     *
     * @param struct the struct segment
     * @param fieldValue the value
     */
    public static void sq_psn(MemorySegment struct, int fieldValue) {
        struct.set(VerbsTypes.C_UINT32, SQ_PSN_OFFSET, fieldValue);
    }

    /**
     * Reads {@code dest_qp_num}.
     *
     * @param struct the struct segment
     * @return the value
     */
    public static int dest_qp_num(MemorySegment struct) {
        return struct.get(VerbsTypes.C_UINT32, DEST_QP_NUM_OFFSET);
    }

    /**
     * Writes {@code dest_qp_num}.
     *
     * @param struct the struct segment
     * @param fieldValue the value
     */
    public static void dest_qp_num(MemorySegment struct, int fieldValue) {
        struct.set(VerbsTypes.C_UINT32, DEST_QP_NUM_OFFSET, fieldValue);
    }

    /**
     * Reads {@code qp_access_flags}.
     *
     * @param struct the struct segment
     * @return the value
     */
    public static int qp_access_flags(MemorySegment struct) {
        return struct.get(VerbsTypes.C_UINT32, QP_ACCESS_FLAGS_OFFSET);
    }

    /**
     * Writes {@code qp_access_flags}.
     *
     * @param struct the struct segment
     * @param fieldValue the value
     */
    public static void qp_access_flags(MemorySegment struct, int fieldValue) {
        struct.set(VerbsTypes.C_UINT32, QP_ACCESS_FLAGS_OFFSET, fieldValue);
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
     * Returns {@code ah_attr} as a slice of the struct segment.
     *
     * @param struct the struct segment
     * @return a 32-byte slice
     */
    public static MemorySegment ah_attr(MemorySegment struct) {
        return struct.asSlice(AH_ATTR_OFFSET, 32);
    }

    /**
     * Copies 32 bytes into {@code ah_attr}.
     *
     * @param struct the struct segment
     * @param fieldValue the bytes to copy
     */
    public static void ah_attr(MemorySegment struct, MemorySegment fieldValue) {
        MemorySegment.copy(fieldValue, 0L, struct, AH_ATTR_OFFSET, 32);
    }

    /**
     * Returns {@code alt_ah_attr} as a slice of the struct segment.
     *
     * @param struct the struct segment
     * @return a 32-byte slice
     */
    public static MemorySegment alt_ah_attr(MemorySegment struct) {
        return struct.asSlice(ALT_AH_ATTR_OFFSET, 32);
    }

    /**
     * Copies 32 bytes into {@code alt_ah_attr}.
     *
     * @param struct the struct segment
     * @param fieldValue the bytes to copy
     */
    public static void alt_ah_attr(MemorySegment struct, MemorySegment fieldValue) {
        MemorySegment.copy(fieldValue, 0L, struct, ALT_AH_ATTR_OFFSET, 32);
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
     * Reads {@code alt_pkey_index}.
     *
     * @param struct the struct segment
     * @return the value
     */
    public static short alt_pkey_index(MemorySegment struct) {
        return struct.get(VerbsTypes.C_UINT16, ALT_PKEY_INDEX_OFFSET);
    }

    /**
     * Writes {@code alt_pkey_index}.
     *
     * @param struct the struct segment
     * @param fieldValue the value
     */
    public static void alt_pkey_index(MemorySegment struct, short fieldValue) {
        struct.set(VerbsTypes.C_UINT16, ALT_PKEY_INDEX_OFFSET, fieldValue);
    }

    /**
     * Reads {@code en_sqd_async_notify}.
     *
     * @param struct the struct segment
     * @return the value
     */
    public static byte en_sqd_async_notify(MemorySegment struct) {
        return struct.get(VerbsTypes.C_UINT8, EN_SQD_ASYNC_NOTIFY_OFFSET);
    }

    /**
     * Writes {@code en_sqd_async_notify}.
     *
     * @param struct the struct segment
     * @param fieldValue the value
     */
    public static void en_sqd_async_notify(MemorySegment struct, byte fieldValue) {
        struct.set(VerbsTypes.C_UINT8, EN_SQD_ASYNC_NOTIFY_OFFSET, fieldValue);
    }

    /**
     * Reads {@code sq_draining}.
     *
     * @param struct the struct segment
     * @return the value
     */
    public static byte sq_draining(MemorySegment struct) {
        return struct.get(VerbsTypes.C_UINT8, SQ_DRAINING_OFFSET);
    }

    /**
     * Writes {@code sq_draining}.
     *
     * @param struct the struct segment
     * @param fieldValue the value
     */
    public static void sq_draining(MemorySegment struct, byte fieldValue) {
        struct.set(VerbsTypes.C_UINT8, SQ_DRAINING_OFFSET, fieldValue);
    }

    /**
     * Reads {@code max_rd_atomic}.
     *
     * @param struct the struct segment
     * @return the value
     */
    public static byte max_rd_atomic(MemorySegment struct) {
        return struct.get(VerbsTypes.C_UINT8, MAX_RD_ATOMIC_OFFSET);
    }

    /**
     * Writes {@code max_rd_atomic}.
     *
     * @param struct the struct segment
     * @param fieldValue the value
     */
    public static void max_rd_atomic(MemorySegment struct, byte fieldValue) {
        struct.set(VerbsTypes.C_UINT8, MAX_RD_ATOMIC_OFFSET, fieldValue);
    }

    /**
     * Reads {@code max_dest_rd_atomic}.
     *
     * @param struct the struct segment
     * @return the value
     */
    public static byte max_dest_rd_atomic(MemorySegment struct) {
        return struct.get(VerbsTypes.C_UINT8, MAX_DEST_RD_ATOMIC_OFFSET);
    }

    /**
     * Writes {@code max_dest_rd_atomic}.
     *
     * @param struct the struct segment
     * @param fieldValue the value
     */
    public static void max_dest_rd_atomic(MemorySegment struct, byte fieldValue) {
        struct.set(VerbsTypes.C_UINT8, MAX_DEST_RD_ATOMIC_OFFSET, fieldValue);
    }

    /**
     * Reads {@code min_rnr_timer}.
     *
     * @param struct the struct segment
     * @return the value
     */
    public static byte min_rnr_timer(MemorySegment struct) {
        return struct.get(VerbsTypes.C_UINT8, MIN_RNR_TIMER_OFFSET);
    }

    /**
     * Writes {@code min_rnr_timer}.
     *
     * @param struct the struct segment
     * @param fieldValue the value
     */
    public static void min_rnr_timer(MemorySegment struct, byte fieldValue) {
        struct.set(VerbsTypes.C_UINT8, MIN_RNR_TIMER_OFFSET, fieldValue);
    }

    /**
     * Reads {@code port_num}.
     *
     * @param struct the struct segment
     * @return the value
     */
    public static byte port_num(MemorySegment struct) {
        return struct.get(VerbsTypes.C_UINT8, PORT_NUM_OFFSET);
    }

    /**
     * Writes {@code port_num}.
     *
     * @param struct the struct segment
     * @param fieldValue the value
     */
    public static void port_num(MemorySegment struct, byte fieldValue) {
        struct.set(VerbsTypes.C_UINT8, PORT_NUM_OFFSET, fieldValue);
    }

    /**
     * Reads {@code timeout}.
     *
     * @param struct the struct segment
     * @return the value
     */
    public static byte timeout(MemorySegment struct) {
        return struct.get(VerbsTypes.C_UINT8, TIMEOUT_OFFSET);
    }

    /**
     * Writes {@code timeout}.
     *
     * @param struct the struct segment
     * @param fieldValue the value
     */
    public static void timeout(MemorySegment struct, byte fieldValue) {
        struct.set(VerbsTypes.C_UINT8, TIMEOUT_OFFSET, fieldValue);
    }

    /**
     * Reads {@code retry_cnt}.
     *
     * @param struct the struct segment
     * @return the value
     */
    public static byte retry_cnt(MemorySegment struct) {
        return struct.get(VerbsTypes.C_UINT8, RETRY_CNT_OFFSET);
    }

    /**
     * Writes {@code retry_cnt}.
     *
     * @param struct the struct segment
     * @param fieldValue the value
     */
    public static void retry_cnt(MemorySegment struct, byte fieldValue) {
        struct.set(VerbsTypes.C_UINT8, RETRY_CNT_OFFSET, fieldValue);
    }

    /**
     * Reads {@code rnr_retry}.
     *
     * @param struct the struct segment
     * @return the value
     */
    public static byte rnr_retry(MemorySegment struct) {
        return struct.get(VerbsTypes.C_UINT8, RNR_RETRY_OFFSET);
    }

    /**
     * Writes {@code rnr_retry}.
     *
     * @param struct the struct segment
     * @param fieldValue the value
     */
    public static void rnr_retry(MemorySegment struct, byte fieldValue) {
        struct.set(VerbsTypes.C_UINT8, RNR_RETRY_OFFSET, fieldValue);
    }

    /**
     * Reads {@code alt_port_num}.
     *
     * @param struct the struct segment
     * @return the value
     */
    public static byte alt_port_num(MemorySegment struct) {
        return struct.get(VerbsTypes.C_UINT8, ALT_PORT_NUM_OFFSET);
    }

    /**
     * Writes {@code alt_port_num}.
     *
     * @param struct the struct segment
     * @param fieldValue the value
     */
    public static void alt_port_num(MemorySegment struct, byte fieldValue) {
        struct.set(VerbsTypes.C_UINT8, ALT_PORT_NUM_OFFSET, fieldValue);
    }

    /**
     * Reads {@code alt_timeout}.
     *
     * @param struct the struct segment
     * @return the value
     */
    public static byte alt_timeout(MemorySegment struct) {
        return struct.get(VerbsTypes.C_UINT8, ALT_TIMEOUT_OFFSET);
    }

    /**
     * Writes {@code alt_timeout}.
     *
     * @param struct the struct segment
     * @param fieldValue the value
     */
    public static void alt_timeout(MemorySegment struct, byte fieldValue) {
        struct.set(VerbsTypes.C_UINT8, ALT_TIMEOUT_OFFSET, fieldValue);
    }

    /**
     * Reads {@code rate_limit}.
     *
     * @param struct the struct segment
     * @return the value
     */
    public static int rate_limit(MemorySegment struct) {
        return struct.get(VerbsTypes.C_UINT32, RATE_LIMIT_OFFSET);
    }

    /**
     * Writes {@code rate_limit}.
     *
     * @param struct the struct segment
     * @param fieldValue the value
     */
    public static void rate_limit(MemorySegment struct, int fieldValue) {
        struct.set(VerbsTypes.C_UINT32, RATE_LIMIT_OFFSET, fieldValue);
    }
}
