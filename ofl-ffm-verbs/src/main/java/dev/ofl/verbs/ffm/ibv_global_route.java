package dev.ofl.verbs.ffm;

import java.lang.foreign.GroupLayout;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SegmentAllocator;

import static java.lang.foreign.MemoryLayout.PathElement.groupElement;

/**
 * {@code struct ibv_global_route} from {@code <infiniband/verbs.h>} (rdma-core 44, x86-64 and aarch64 alike):
 * 24 bytes, aligned to 8. The global routing header of an address vector (mandatory on RoCE).
 *
 * <pre>{@code
 * struct ibv_global_route {
 *     union ibv_gid dgid;                     // 0, 16 bytes
 *     uint32_t flow_label;                    // 16
 *     uint8_t sgid_index;                     // 20
 *     uint8_t hop_limit;                      // 21
 *     uint8_t traffic_class;                  // 22
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
public final class ibv_global_route {

    private static final GroupLayout $LAYOUT = MemoryLayout.structLayout(
        ibv_gid.$LAYOUT().withName("dgid"),
        VerbsTypes.C_UINT32.withName("flow_label"),
        VerbsTypes.C_UINT8.withName("sgid_index"),
        VerbsTypes.C_UINT8.withName("hop_limit"),
        VerbsTypes.C_UINT8.withName("traffic_class"),
        MemoryLayout.paddingLayout(1)
    ).withName("ibv_global_route");

    /** Byte offset of {@code dgid} (0). */
    public static final long DGID_OFFSET = $LAYOUT.byteOffset(groupElement("dgid"));

    /** Byte offset of {@code flow_label} (16). */
    public static final long FLOW_LABEL_OFFSET = $LAYOUT.byteOffset(groupElement("flow_label"));

    /** Byte offset of {@code sgid_index} (20). */
    public static final long SGID_INDEX_OFFSET = $LAYOUT.byteOffset(groupElement("sgid_index"));

    /** Byte offset of {@code hop_limit} (21). */
    public static final long HOP_LIMIT_OFFSET = $LAYOUT.byteOffset(groupElement("hop_limit"));

    /** Byte offset of {@code traffic_class} (22). */
    public static final long TRAFFIC_CLASS_OFFSET = $LAYOUT.byteOffset(groupElement("traffic_class"));

    private ibv_global_route() {
    }

    /**
     * Returns the layout of {@code struct ibv_global_route}.
     *
     * @return the layout, 24 bytes
     */
    public static GroupLayout $LAYOUT() {
        return $LAYOUT;
    }

    /**
     * Returns the size of {@code struct ibv_global_route}.
     *
     * @return 24
     */
    public static long sizeof() {
        return $LAYOUT.byteSize();
    }

    /**
     * Allocates one zeroed {@code ibv_global_route}.
     *
     * @param allocator the allocator that owns the memory
     * @return a segment of {@link #sizeof()} bytes
     */
    public static MemorySegment allocate(SegmentAllocator allocator) {
        return allocator.allocate($LAYOUT);
    }

    /**
     * Allocates a zeroed array of {@code ibv_global_route}.
     *
     * @param count the number of elements
     * @param allocator the allocator that owns the memory
     * @return a segment of {@code count * sizeof()} bytes
     */
    public static MemorySegment allocateArray(long count, SegmentAllocator allocator) {
        return allocator.allocate($LAYOUT, count);
    }

    /**
     * Returns element {@code index} of an array of {@code ibv_global_route}.
     *
     * @param array the array segment
     * @param index the element index
     * @return a slice of {@link #sizeof()} bytes
     */
    public static MemorySegment asSlice(MemorySegment array, long index) {
        return array.asSlice(index * $LAYOUT.byteSize(), $LAYOUT);
    }

    /**
     * Gives a pointer returned by native code the size of one {@code ibv_global_route}; the caller states
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
     * Returns {@code dgid} as a slice of the struct segment.
     *
     * @param struct the struct segment
     * @return a 16-byte slice
     */
    public static MemorySegment dgid(MemorySegment struct) {
        return struct.asSlice(DGID_OFFSET, 16);
    }

    /**
     * Copies 16 bytes into {@code dgid}.
     *
     * @param struct the struct segment
     * @param fieldValue the bytes to copy
     */
    public static void dgid(MemorySegment struct, MemorySegment fieldValue) {
        MemorySegment.copy(fieldValue, 0L, struct, DGID_OFFSET, 16);
    }

    /**
     * Reads {@code flow_label}.
     *
     * @param struct the struct segment
     * @return the value
     */
    public static int flow_label(MemorySegment struct) {
        return struct.get(VerbsTypes.C_UINT32, FLOW_LABEL_OFFSET);
    }

    /**
     * Writes {@code flow_label}.
     *
     * @param struct the struct segment
     * @param fieldValue the value
     */
    public static void flow_label(MemorySegment struct, int fieldValue) {
        struct.set(VerbsTypes.C_UINT32, FLOW_LABEL_OFFSET, fieldValue);
    }

    /**
     * Reads {@code sgid_index}.
     *
     * @param struct the struct segment
     * @return the value
     */
    public static byte sgid_index(MemorySegment struct) {
        return struct.get(VerbsTypes.C_UINT8, SGID_INDEX_OFFSET);
    }

    /**
     * Writes {@code sgid_index}.
     *
     * @param struct the struct segment
     * @param fieldValue the value
     */
    public static void sgid_index(MemorySegment struct, byte fieldValue) {
        struct.set(VerbsTypes.C_UINT8, SGID_INDEX_OFFSET, fieldValue);
    }

    /**
     * Reads {@code hop_limit}.
     *
     * @param struct the struct segment
     * @return the value
     */
    public static byte hop_limit(MemorySegment struct) {
        return struct.get(VerbsTypes.C_UINT8, HOP_LIMIT_OFFSET);
    }

    /**
     * Writes {@code hop_limit}.
     *
     * @param struct the struct segment
     * @param fieldValue the value
     */
    public static void hop_limit(MemorySegment struct, byte fieldValue) {
        struct.set(VerbsTypes.C_UINT8, HOP_LIMIT_OFFSET, fieldValue);
    }

    /**
     * Reads {@code traffic_class}.
     *
     * @param struct the struct segment
     * @return the value
     */
    public static byte traffic_class(MemorySegment struct) {
        return struct.get(VerbsTypes.C_UINT8, TRAFFIC_CLASS_OFFSET);
    }

    /**
     * Writes {@code traffic_class}.
     *
     * @param struct the struct segment
     * @param fieldValue the value
     */
    public static void traffic_class(MemorySegment struct, byte fieldValue) {
        struct.set(VerbsTypes.C_UINT8, TRAFFIC_CLASS_OFFSET, fieldValue);
    }
}
