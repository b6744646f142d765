package dev.ofl.verbs.ffm;

import java.lang.foreign.GroupLayout;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SegmentAllocator;

import static java.lang.foreign.MemoryLayout.PathElement.groupElement;

/**
 * {@code struct ibv_ah_attr} from {@code <infiniband/verbs.h>} (rdma-core 44, x86-64 and aarch64 alike):
 * 32 bytes, aligned to 8. An address vector.
 *
 * <pre>{@code
 * struct ibv_ah_attr {
 *     struct ibv_global_route grh;            // 0, 24 bytes
 *     uint16_t dlid;                          // 24
 *     uint8_t sl;                             // 26
 *     uint8_t src_path_bits;                  // 27
 *     uint8_t static_rate;                    // 28
 *     uint8_t is_global;                      // 29
 *     uint8_t port_num;                       // 30
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
public final class ibv_ah_attr {

    private static final GroupLayout $LAYOUT = MemoryLayout.structLayout(
        ibv_global_route.$LAYOUT().withName("grh"),
        VerbsTypes.C_UINT16.withName("dlid"),
        VerbsTypes.C_UINT8.withName("sl"),
        VerbsTypes.C_UINT8.withName("src_path_bits"),
        VerbsTypes.C_UINT8.withName("static_rate"),
        VerbsTypes.C_UINT8.withName("is_global"),
        VerbsTypes.C_UINT8.withName("port_num"),
        MemoryLayout.paddingLayout(1)
    ).withName("ibv_ah_attr");

    /** Byte offset of {@code grh} (0). */
    public static final long GRH_OFFSET = $LAYOUT.byteOffset(groupElement("grh"));

    /** Byte offset of {@code dlid} (24). */
    public static final long DLID_OFFSET = $LAYOUT.byteOffset(groupElement("dlid"));

    /** Byte offset of {@code sl} (26). */
    public static final long SL_OFFSET = $LAYOUT.byteOffset(groupElement("sl"));

    /** Byte offset of {@code src_path_bits} (27). */
    public static final long SRC_PATH_BITS_OFFSET = $LAYOUT.byteOffset(groupElement("src_path_bits"));

    /** Byte offset of {@code static_rate} (28). */
    public static final long STATIC_RATE_OFFSET = $LAYOUT.byteOffset(groupElement("static_rate"));

    /** Byte offset of {@code is_global} (29). */
    public static final long IS_GLOBAL_OFFSET = $LAYOUT.byteOffset(groupElement("is_global"));

    /** Byte offset of {@code port_num} (30). */
    public static final long PORT_NUM_OFFSET = $LAYOUT.byteOffset(groupElement("port_num"));

    private ibv_ah_attr() {
    }

    /**
     * Returns the layout of {@code struct ibv_ah_attr}.
     *
     * @return the layout, 32 bytes
     */
    public static GroupLayout $LAYOUT() {
        return $LAYOUT;
    }

    /**
     * Returns the size of {@code struct ibv_ah_attr}.
     *
     * @return 32
     */
    public static long sizeof() {
        return $LAYOUT.byteSize();
    }

    /**
     * Allocates one zeroed {@code ibv_ah_attr}.
     *
     * @param allocator the allocator that owns the memory
     * @return a segment of {@link #sizeof()} bytes
     */
    public static MemorySegment allocate(SegmentAllocator allocator) {
        return allocator.allocate($LAYOUT);
    }

    /**
     * Allocates a zeroed array of {@code ibv_ah_attr}.
     *
     * @param count the number of elements
     * @param allocator the allocator that owns the memory
     * @return a segment of {@code count * sizeof()} bytes
     */
    public static MemorySegment allocateArray(long count, SegmentAllocator allocator) {
        return allocator.allocate($LAYOUT, count);
    }

    /**
     * Returns element {@code index} of an array of {@code ibv_ah_attr}.
     *
     * @param array the array segment
     * @param index the element index
     * @return a slice of {@link #sizeof()} bytes
     */
    public static MemorySegment asSlice(MemorySegment array, long index) {
        return array.asSlice(index * $LAYOUT.byteSize(), $LAYOUT);
    }

    /**
     * Gives a pointer returned by native code the size of one {@code ibv_ah_attr}; the caller states
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
     * Returns {@code grh} as a slice of the struct segment.
     *
     * @param struct the struct segment
     * @return a 24-byte slice
     */
    public static MemorySegment grh(MemorySegment struct) {
        return struct.asSlice(GRH_OFFSET, 24);
    }

    /**
     * Copies 24 bytes into {@code grh}.
     *
     * @param struct the struct segment
     * @param fieldValue the bytes to copy
     */
    public static void grh(MemorySegment struct, MemorySegment fieldValue) {
        MemorySegment.copy(fieldValue, 0L, struct, GRH_OFFSET, 24);
    }

    /**
     * Reads {@code dlid}.
     *
     * @param struct the struct segment
     * @return the value
     */
    public static short dlid(MemorySegment struct) {
        return struct.get(VerbsTypes.C_UINT16, DLID_OFFSET);
    }

    /**
     * Writes {@code dlid}.
     *
     * @param struct the struct segment
     * @param fieldValue the value
     */
    public static void dlid(MemorySegment struct, short fieldValue) {
        struct.set(VerbsTypes.C_UINT16, DLID_OFFSET, fieldValue);
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
     * Reads {@code src_path_bits}.
     *
     * @param struct the struct segment
     * @return the value
     */
    public static byte src_path_bits(MemorySegment struct) {
        return struct.get(VerbsTypes.C_UINT8, SRC_PATH_BITS_OFFSET);
    }

    /**
     * Writes {@code src_path_bits}.
     *
     * @param struct the struct segment
     * @param fieldValue the value
     */
    public static void src_path_bits(MemorySegment struct, byte fieldValue) {
        struct.set(VerbsTypes.C_UINT8, SRC_PATH_BITS_OFFSET, fieldValue);
    }

    /**
     * Reads {@code static_rate}.
     *
     * @param struct the struct segment
     * @return the value
     */
    public static byte static_rate(MemorySegment struct) {
        return struct.get(VerbsTypes.C_UINT8, STATIC_RATE_OFFSET);
    }

    /**
     * Writes {@code static_rate}.
     *
     * @param struct the struct segment
     * @param fieldValue the value
     */
    public static void static_rate(MemorySegment struct, byte fieldValue) {
        struct.set(VerbsTypes.C_UINT8, STATIC_RATE_OFFSET, fieldValue);
    }

    /**
     * Reads {@code is_global}.
     *
     * @param struct the struct segment
     * @return the value
     */
    public static byte is_global(MemorySegment struct) {
        return struct.get(VerbsTypes.C_UINT8, IS_GLOBAL_OFFSET);
    }

    /**
     * Writes {@code is_global}.
     *
     * @param struct the struct segment
     * @param fieldValue the value
     */
    public static void is_global(MemorySegment struct, byte fieldValue) {
        struct.set(VerbsTypes.C_UINT8, IS_GLOBAL_OFFSET, fieldValue);
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
}
