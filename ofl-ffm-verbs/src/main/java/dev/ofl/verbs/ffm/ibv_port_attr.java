package dev.ofl.verbs.ffm;

import java.lang.foreign.GroupLayout;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SegmentAllocator;

import static java.lang.foreign.MemoryLayout.PathElement.groupElement;

/**
 * {@code struct ibv_port_attr} from {@code <infiniband/verbs.h>} (rdma-core 44, x86-64 and aarch64 alike):
 * 52 bytes, aligned to 4. Port attributes. The exported {@code ibv_query_port@@IBVERBS_1.1} writes
 * only the first {@link #EXPORTED_QUERY_PORT_BYTES} bytes (its {@code struct
 * _compat_ibv_port_attr}); {@code port_cap_flags2} is only filled through the {@code
 * verbs_context} path. Allocate {@link #sizeof()} zeroed bytes.
 *
 * <pre>{@code
 * struct ibv_port_attr {
 *     enum ibv_port_state state;              // 0
 *     enum ibv_mtu max_mtu;                   // 4
 *     enum ibv_mtu active_mtu;                // 8
 *     int gid_tbl_len;                        // 12
 *     uint32_t port_cap_flags;                // 16
 *     uint32_t max_msg_sz;                    // 20
 *     uint32_t bad_pkey_cntr;                 // 24
 *     uint32_t qkey_viol_cntr;                // 28
 *     uint16_t pkey_tbl_len;                  // 32
 *     uint16_t lid;                           // 34
 *     uint16_t sm_lid;                        // 36
 *     uint8_t lmc;                            // 38
 *     uint8_t max_vl_num;                     // 39
 *     uint8_t sm_sl;                          // 40
 *     uint8_t subnet_timeout;                 // 41
 *     uint8_t init_type_reply;                // 42
 *     uint8_t active_width;                   // 43
 *     uint8_t active_speed;                   // 44
 *     uint8_t phys_state;                     // 45
 *     uint8_t link_layer;                     // 46
 *     uint8_t flags;                          // 47
 *     uint16_t port_cap_flags2;               // 48
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
public final class ibv_port_attr {

    /**
     * Bytes the exported {@code ibv_query_port@@IBVERBS_1.1} writes: its third parameter is a
     * {@code struct _compat_ibv_port_attr}, everything up to and including {@code flags}.
     */
    public static final long EXPORTED_QUERY_PORT_BYTES = 48;

    private static final GroupLayout $LAYOUT = MemoryLayout.structLayout(
        VerbsTypes.C_INT.withName("state"),
        VerbsTypes.C_INT.withName("max_mtu"),
        VerbsTypes.C_INT.withName("active_mtu"),
        VerbsTypes.C_INT.withName("gid_tbl_len"),
        VerbsTypes.C_UINT32.withName("port_cap_flags"),
        VerbsTypes.C_UINT32.withName("max_msg_sz"),
        VerbsTypes.C_UINT32.withName("bad_pkey_cntr"),
        VerbsTypes.C_UINT32.withName("qkey_viol_cntr"),
        VerbsTypes.C_UINT16.withName("pkey_tbl_len"),
        VerbsTypes.C_UINT16.withName("lid"),
        VerbsTypes.C_UINT16.withName("sm_lid"),
        VerbsTypes.C_UINT8.withName("lmc"),
        VerbsTypes.C_UINT8.withName("max_vl_num"),
        VerbsTypes.C_UINT8.withName("sm_sl"),
        VerbsTypes.C_UINT8.withName("subnet_timeout"),
        VerbsTypes.C_UINT8.withName("init_type_reply"),
        VerbsTypes.C_UINT8.withName("active_width"),
        VerbsTypes.C_UINT8.withName("active_speed"),
        VerbsTypes.C_UINT8.withName("phys_state"),
        VerbsTypes.C_UINT8.withName("link_layer"),
        VerbsTypes.C_UINT8.withName("flags"),
        VerbsTypes.C_UINT16.withName("port_cap_flags2"),
        MemoryLayout.paddingLayout(2)
    ).withName("ibv_port_attr");

    /** Byte offset of {@code state} (0). */
    public static final long STATE_OFFSET = $LAYOUT.byteOffset(groupElement("state"));

    /** Byte offset of {@code max_mtu} (4). */
    public static final long MAX_MTU_OFFSET = $LAYOUT.byteOffset(groupElement("max_mtu"));

    /** Byte offset of {@code active_mtu} (8). */
    public static final long ACTIVE_MTU_OFFSET = $LAYOUT.byteOffset(groupElement("active_mtu"));

    /** Byte offset of {@code gid_tbl_len} (12). */
    public static final long GID_TBL_LEN_OFFSET = $LAYOUT.byteOffset(groupElement("gid_tbl_len"));

    /** Byte offset of {@code port_cap_flags} (16). */
    public static final long PORT_CAP_FLAGS_OFFSET = $LAYOUT.byteOffset(groupElement("port_cap_flags"));

    /** Byte offset of {@code max_msg_sz} (20). */
    public static final long MAX_MSG_SZ_OFFSET = $LAYOUT.byteOffset(groupElement("max_msg_sz"));

    /** Byte offset of {@code bad_pkey_cntr} (24). */
    public static final long BAD_PKEY_CNTR_OFFSET = $LAYOUT.byteOffset(groupElement("bad_pkey_cntr"));

    /** Byte offset of {@code qkey_viol_cntr} (28). */
    public static final long QKEY_VIOL_CNTR_OFFSET = $LAYOUT.byteOffset(groupElement("qkey_viol_cntr"));

    /** Byte offset of {@code pkey_tbl_len} (32). */
    public static final long PKEY_TBL_LEN_OFFSET = $LAYOUT.byteOffset(groupElement("pkey_tbl_len"));

    /** Byte offset of {@code lid} (34). */
    public static final long LID_OFFSET = $LAYOUT.byteOffset(groupElement("lid"));

    /** Byte offset of {@code sm_lid} (36). */
    public static final long SM_LID_OFFSET = $LAYOUT.byteOffset(groupElement("sm_lid"));

    /** Byte offset of {@code lmc} (38). */
    public static final long LMC_OFFSET = $LAYOUT.byteOffset(groupElement("lmc"));

    /** Byte offset of {@code max_vl_num} (39). */
    public static final long MAX_VL_NUM_OFFSET = $LAYOUT.byteOffset(groupElement("max_vl_num"));

    /** Byte offset of {@code sm_sl} (40). */
    public static final long SM_SL_OFFSET = $LAYOUT.byteOffset(groupElement("sm_sl"));

    /** Byte offset of {@code subnet_timeout} (41). */
    public static final long SUBNET_TIMEOUT_OFFSET = $LAYOUT.byteOffset(groupElement("subnet_timeout"));

    /** Byte offset of {@code init_type_reply} (42). */
    public static final long INIT_TYPE_REPLY_OFFSET = $LAYOUT.byteOffset(groupElement("init_type_reply"));

    /** Byte offset of {@code active_width} (43). */
    public static final long ACTIVE_WIDTH_OFFSET = $LAYOUT.byteOffset(groupElement("active_width"));

    /** Byte offset of {@code active_speed} (44). */
    public static final long ACTIVE_SPEED_OFFSET = $LAYOUT.byteOffset(groupElement("active_speed"));

    /** Byte offset of {@code phys_state} (45). */
    public static final long PHYS_STATE_OFFSET = $LAYOUT.byteOffset(groupElement("phys_state"));

    /** Byte offset of {@code link_layer} (46). */
    public static final long LINK_LAYER_OFFSET = $LAYOUT.byteOffset(groupElement("link_layer"));

    /** Byte offset of {@code flags} (47). */
    public static final long FLAGS_OFFSET = $LAYOUT.byteOffset(groupElement("flags"));

    /** Byte offset of {@code port_cap_flags2} (48). */
    public static final long PORT_CAP_FLAGS2_OFFSET = $LAYOUT.byteOffset(groupElement("port_cap_flags2"));

    private ibv_port_attr() {
    }

    /**
     * Returns the layout of {@code struct ibv_port_attr}.
     *
     * @return the layout, 52 bytes
     */
    public static GroupLayout $LAYOUT() {
        return $LAYOUT;
    }

    /**
     * Returns the size of {@code struct ibv_port_attr}.
     *
     * @return 52
     */
    public static long sizeof() {
        return $LAYOUT.byteSize();
    }

    /**
     * Allocates one zeroed {@code ibv_port_attr}.
     *
     * @param allocator the allocator that owns the memory
     * @return a segment of {@link #sizeof()} bytes
     */
    public static MemorySegment allocate(SegmentAllocator allocator) {
        return allocator.allocate($LAYOUT);
    }

    /**
     * Allocates a zeroed array of {@code ibv_port_attr}.
     *
     * @param count the number of elements
     * @param allocator the allocator that owns the memory
     * @return a segment of {@code count * sizeof()} bytes
     */
    public static MemorySegment allocateArray(long count, SegmentAllocator allocator) {
        return allocator.allocate($LAYOUT, count);
    }

    /**
     * Returns element {@code index} of an array of {@code ibv_port_attr}.
     *
     * @param array the array segment
     * @param index the element index
     * @return a slice of {@link #sizeof()} bytes
     */
    public static MemorySegment asSlice(MemorySegment array, long index) {
        return array.asSlice(index * $LAYOUT.byteSize(), $LAYOUT);
    }

    /**
     * Gives a pointer returned by native code the size of one {@code ibv_port_attr}; the caller states
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
     * Reads {@code max_mtu}.
     *
     * @param struct the struct segment
     * @return the value
     */
    public static int max_mtu(MemorySegment struct) {
        return struct.get(VerbsTypes.C_INT, MAX_MTU_OFFSET);
    }

    /**
     * Writes {@code max_mtu}.
     *
     * @param struct the struct segment
     * @param fieldValue the value
     */
    public static void max_mtu(MemorySegment struct, int fieldValue) {
        struct.set(VerbsTypes.C_INT, MAX_MTU_OFFSET, fieldValue);
    }

    /**
     * Reads {@code active_mtu}.
     *
     * @param struct the struct segment
     * @return the value
     */
    public static int active_mtu(MemorySegment struct) {
        return struct.get(VerbsTypes.C_INT, ACTIVE_MTU_OFFSET);
    }

    /**
     * Writes {@code active_mtu}.
     *
     * @param struct the struct segment
     * @param fieldValue the value
     */
    public static void active_mtu(MemorySegment struct, int fieldValue) {
        struct.set(VerbsTypes.C_INT, ACTIVE_MTU_OFFSET, fieldValue);
    }

    /**
     * Reads {@code gid_tbl_len}.
     *
     * @param struct the struct segment
     * @return the value
     */
    public static int gid_tbl_len(MemorySegment struct) {
        return struct.get(VerbsTypes.C_INT, GID_TBL_LEN_OFFSET);
    }

    /**
     * Writes {@code gid_tbl_len}.
     *
     * @param struct the struct segment
     * @param fieldValue the value
     */
    public static void gid_tbl_len(MemorySegment struct, int fieldValue) {
        struct.set(VerbsTypes.C_INT, GID_TBL_LEN_OFFSET, fieldValue);
    }

    /**
     * Reads {@code port_cap_flags}.
     *
     * @param struct the struct segment
     * @return the value
     */
    public static int port_cap_flags(MemorySegment struct) {
        return struct.get(VerbsTypes.C_UINT32, PORT_CAP_FLAGS_OFFSET);
    }

    /**
     * Writes {@code port_cap_flags}.
     *
     * @param struct the struct segment
     * @param fieldValue the value
     */
    public static void port_cap_flags(MemorySegment struct, int fieldValue) {
        struct.set(VerbsTypes.C_UINT32, PORT_CAP_FLAGS_OFFSET, fieldValue);
    }

    /**
     * Reads {@code max_msg_sz}.
     *
     * @param struct the struct segment
     * @return the value
     */
    public static int max_msg_sz(MemorySegment struct) {
        return struct.get(VerbsTypes.C_UINT32, MAX_MSG_SZ_OFFSET);
    }

    /**
     * Writes {@code max_msg_sz}.
     *
     * @param struct the struct segment
     * @param fieldValue the value
     */
    public static void max_msg_sz(MemorySegment struct, int fieldValue) {
        struct.set(VerbsTypes.C_UINT32, MAX_MSG_SZ_OFFSET, fieldValue);
    }

    /**
     * Reads {@code bad_pkey_cntr}.
     *
     * @param struct the struct segment
     * @return the value
     */
    public static int bad_pkey_cntr(MemorySegment struct) {
        return struct.get(VerbsTypes.C_UINT32, BAD_PKEY_CNTR_OFFSET);
    }

    /**
     * Writes {@code bad_pkey_cntr}.
     *
     * @param struct the struct segment
     * @param fieldValue the value
     */
    public static void bad_pkey_cntr(MemorySegment struct, int fieldValue) {
        struct.set(VerbsTypes.C_UINT32, BAD_PKEY_CNTR_OFFSET, fieldValue);
    }

    /**
     * Reads {@code qkey_viol_cntr}.
     *
     * @param struct the struct segment
     * @return the value
     */
    public static int qkey_viol_cntr(MemorySegment struct) {
        return struct.get(VerbsTypes.C_UINT32, QKEY_VIOL_CNTR_OFFSET);
    }

    /**
     * Writes {@code qkey_viol_cntr}.
     *
     * @param struct the struct segment
     * @param fieldValue the value
     */
    public static void qkey_viol_cntr(MemorySegment struct, int fieldValue) {
        struct.set(VerbsTypes.C_UINT32, QKEY_VIOL_CNTR_OFFSET, fieldValue);
    }

    /**
     * Reads {@code pkey_tbl_len}.
     *
     * @param struct the struct segment
     * @return the value
     */
    public static short pkey_tbl_len(MemorySegment struct) {
        return struct.get(VerbsTypes.C_UINT16, PKEY_TBL_LEN_OFFSET);
    }

    /**
     * Writes {@code pkey_tbl_len}.
     *
     * @param struct the struct segment
     * @param fieldValue the value
     */
    public static void pkey_tbl_len(MemorySegment struct, short fieldValue) {
        struct.set(VerbsTypes.C_UINT16, PKEY_TBL_LEN_OFFSET, fieldValue);
    }

    /**
     * Reads {@code lid}.
     *
     * @param struct the struct segment
     * @return the value
     */
    public static short lid(MemorySegment struct) {
        return struct.get(VerbsTypes.C_UINT16, LID_OFFSET);
    }

    /**
     * Writes {@code lid}.
     *
     * @param struct the struct segment
     * @param fieldValue the value
     */
    public static void lid(MemorySegment struct, short fieldValue) {
        struct.set(VerbsTypes.C_UINT16, LID_OFFSET, fieldValue);
    }

    /**
     * Reads {@code sm_lid}.
     *
     * @param struct the struct segment
     * @return the value
     */
    public static short sm_lid(MemorySegment struct) {
        return struct.get(VerbsTypes.C_UINT16, SM_LID_OFFSET);
    }

    /**
     * Writes {@code sm_lid}.
     *
     * @param struct the struct segment
     * @param fieldValue the value
     */
    public static void sm_lid(MemorySegment struct, short fieldValue) {
        struct.set(VerbsTypes.C_UINT16, SM_LID_OFFSET, fieldValue);
    }

    /**
     * Reads {@code lmc}.
     *
     * @param struct the struct segment
     * @return the value
     */
    public static byte lmc(MemorySegment struct) {
        return struct.get(VerbsTypes.C_UINT8, LMC_OFFSET);
    }

    /**
     * Writes {@code lmc}.
     *
     * @param struct the struct segment
     * @param fieldValue the value
     */
    public static void lmc(MemorySegment struct, byte fieldValue) {
        struct.set(VerbsTypes.C_UINT8, LMC_OFFSET, fieldValue);
    }

    /**
     * Reads {@code max_vl_num}.
     *
     * @param struct the struct segment
     * @return the value
     */
    public static byte max_vl_num(MemorySegment struct) {
        return struct.get(VerbsTypes.C_UINT8, MAX_VL_NUM_OFFSET);
    }

    /**
     * Writes {@code max_vl_num}.
     *
     * @param struct the struct segment
     * @param fieldValue the value
     */
    public static void max_vl_num(MemorySegment struct, byte fieldValue) {
        struct.set(VerbsTypes.C_UINT8, MAX_VL_NUM_OFFSET, fieldValue);
    }

    /**
     * Reads {@code sm_sl}.
     *
     * @param struct the struct segment
     * @return the value
     */
    public static byte sm_sl(MemorySegment struct) {
        return struct.get(VerbsTypes.C_UINT8, SM_SL_OFFSET);
    }

    /**
     * Writes {@code sm_sl}.
     *
     * @param struct the struct segment
     * @param fieldValue the value
     */
    public static void sm_sl(MemorySegment struct, byte fieldValue) {
        struct.set(VerbsTypes.C_UINT8, SM_SL_OFFSET, fieldValue);
    }

    /**
     * Reads {@code subnet_timeout}.
     *
     * @param struct the struct segment
     * @return the value
     */
    public static byte subnet_timeout(MemorySegment struct) {
        return struct.get(VerbsTypes.C_UINT8, SUBNET_TIMEOUT_OFFSET);
    }

    /**
     * Writes {@code subnet_timeout}.
     *
     * @param struct the struct segment
     * @param fieldValue the value
     */
    public static void subnet_timeout(MemorySegment struct, byte fieldValue) {
        struct.set(VerbsTypes.C_UINT8, SUBNET_TIMEOUT_OFFSET, fieldValue);
    }

    /**
     * Reads {@code init_type_reply}.
     *
     * @param struct the struct segment
     * @return the value
     */
    public static byte init_type_reply(MemorySegment struct) {
        return struct.get(VerbsTypes.C_UINT8, INIT_TYPE_REPLY_OFFSET);
    }

    /**
     * Writes {@code init_type_reply}.
     *
     * @param struct the struct segment
     * @param fieldValue the value
     */
    public static void init_type_reply(MemorySegment struct, byte fieldValue) {
        struct.set(VerbsTypes.C_UINT8, INIT_TYPE_REPLY_OFFSET, fieldValue);
    }

    /**
     * Reads {@code active_width}.
     *
     * @param struct the struct segment
     * @return the value
     */
    public static byte active_width(MemorySegment struct) {
        return struct.get(VerbsTypes.C_UINT8, ACTIVE_WIDTH_OFFSET);
    }

    /**
     * Writes {@code active_width}.
     *
     * @param struct the struct segment
     * @param fieldValue the value
     */
    public static void active_width(MemorySegment struct, byte fieldValue) {
        struct.set(VerbsTypes.C_UINT8, ACTIVE_WIDTH_OFFSET, fieldValue);
    }

    /**
     * Reads {@code active_speed}.
     *
     * @param struct the struct segment
     * @return the value
     */
    public static byte active_speed(MemorySegment struct) {
        return struct.get(VerbsTypes.C_UINT8, ACTIVE_SPEED_OFFSET);
    }

    /**
     * Writes {@code active_speed}.
     *
     * @param struct the struct segment
     * @param fieldValue the value
     */
    public static void active_speed(MemorySegment struct, byte fieldValue) {
        struct.set(VerbsTypes.C_UINT8, ACTIVE_SPEED_OFFSET, fieldValue);
    }

    /**
     * Reads {@code phys_state}.
     *
     * @param struct the struct segment
     * @return the value
     */
    public static byte phys_state(MemorySegment struct) {
        return struct.get(VerbsTypes.C_UINT8, PHYS_STATE_OFFSET);
    }

    /**
     * Writes {@code phys_state}.
     *
     * @param struct the struct segment
     * @param fieldValue the value
     */
    public static void phys_state(MemorySegment struct, byte fieldValue) {
        struct.set(VerbsTypes.C_UINT8, PHYS_STATE_OFFSET, fieldValue);
    }

    /**
     * Reads {@code link_layer}.
     *
     * @param struct the struct segment
     * @return the value
     */
    public static byte link_layer(MemorySegment struct) {
        return struct.get(VerbsTypes.C_UINT8, LINK_LAYER_OFFSET);
    }

    /**
     * Writes {@code link_layer}.
     *
     * @param struct the struct segment
     * @param fieldValue the value
     */
    public static void link_layer(MemorySegment struct, byte fieldValue) {
        struct.set(VerbsTypes.C_UINT8, LINK_LAYER_OFFSET, fieldValue);
    }

    /**
     * Reads {@code flags}.
     *
     * @param struct the struct segment
     * @return the value
     */
    public static byte flags(MemorySegment struct) {
        return struct.get(VerbsTypes.C_UINT8, FLAGS_OFFSET);
    }

    /**
     * Writes {@code flags}.
     *
     * @param struct the struct segment
     * @param fieldValue the value
     */
    public static void flags(MemorySegment struct, byte fieldValue) {
        struct.set(VerbsTypes.C_UINT8, FLAGS_OFFSET, fieldValue);
    }

    /**
     * Reads {@code port_cap_flags2}.
     *
     * @param struct the struct segment
     * @return the value
     */
    public static short port_cap_flags2(MemorySegment struct) {
        return struct.get(VerbsTypes.C_UINT16, PORT_CAP_FLAGS2_OFFSET);
    }

    /**
     * Writes {@code port_cap_flags2}.
     *
     * @param struct the struct segment
     * @param fieldValue the value
     */
    public static void port_cap_flags2(MemorySegment struct, short fieldValue) {
        struct.set(VerbsTypes.C_UINT16, PORT_CAP_FLAGS2_OFFSET, fieldValue);
    }
}
