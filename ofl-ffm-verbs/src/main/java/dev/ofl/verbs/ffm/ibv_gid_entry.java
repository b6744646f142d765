package dev.ofl.verbs.ffm;

import java.lang.foreign.GroupLayout;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SegmentAllocator;

import static java.lang.foreign.MemoryLayout.PathElement.groupElement;

/**
 * {@code struct ibv_gid_entry} from {@code <infiniband/verbs.h>} (rdma-core 44, x86-64 and aarch64 alike):
 * 32 bytes, aligned to 8. One valid GID table entry, as returned by {@code _ibv_query_gid_ex} and
 * {@code _ibv_query_gid_table}.
 *
 * <pre>{@code
 * struct ibv_gid_entry {
 *     union ibv_gid gid;                      // 0, 16 bytes
 *     uint32_t gid_index;                     // 16
 *     uint32_t port_num;                      // 20
 *     uint32_t gid_type;                      // 24
 *     uint32_t ndev_ifindex;                  // 28
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
public final class ibv_gid_entry {

    private static final GroupLayout $LAYOUT = MemoryLayout.structLayout(
        ibv_gid.$LAYOUT().withName("gid"),
        VerbsTypes.C_UINT32.withName("gid_index"),
        VerbsTypes.C_UINT32.withName("port_num"),
        VerbsTypes.C_UINT32.withName("gid_type"),
        VerbsTypes.C_UINT32.withName("ndev_ifindex")
    ).withName("ibv_gid_entry");

    /** Byte offset of {@code gid} (0). */
    public static final long GID_OFFSET = $LAYOUT.byteOffset(groupElement("gid"));

    /** Byte offset of {@code gid_index} (16). */
    public static final long GID_INDEX_OFFSET = $LAYOUT.byteOffset(groupElement("gid_index"));

    /** Byte offset of {@code port_num} (20). */
    public static final long PORT_NUM_OFFSET = $LAYOUT.byteOffset(groupElement("port_num"));

    /** Byte offset of {@code gid_type} (24). */
    public static final long GID_TYPE_OFFSET = $LAYOUT.byteOffset(groupElement("gid_type"));

    /** Byte offset of {@code ndev_ifindex} (28). */
    public static final long NDEV_IFINDEX_OFFSET = $LAYOUT.byteOffset(groupElement("ndev_ifindex"));

    private ibv_gid_entry() {
    }

    /**
     * Returns the layout of {@code struct ibv_gid_entry}.
     *
     * @return the layout, 32 bytes
     */
    public static GroupLayout $LAYOUT() {
        return $LAYOUT;
    }

    /**
     * Returns the size of {@code struct ibv_gid_entry}.
     *
     * @return 32
     */
    public static long sizeof() {
        return $LAYOUT.byteSize();
    }

    /**
     * Allocates one zeroed {@code ibv_gid_entry}.
     *
     * @param allocator the allocator that owns the memory
     * @return a segment of {@link #sizeof()} bytes
     */
    public static MemorySegment allocate(SegmentAllocator allocator) {
        return allocator.allocate($LAYOUT);
    }

    /**
     * Allocates a zeroed array of {@code ibv_gid_entry}.
     *
     * @param count the number of elements
     * @param allocator the allocator that owns the memory
     * @return a segment of {@code count * sizeof()} bytes
     */
    public static MemorySegment allocateArray(long count, SegmentAllocator allocator) {
        return allocator.allocate($LAYOUT, count);
    }

    /**
     * Returns element {@code index} of an array of {@code ibv_gid_entry}.
     *
     * @param array the array segment
     * @param index the element index
     * @return a slice of {@link #sizeof()} bytes
     */
    public static MemorySegment asSlice(MemorySegment array, long index) {
        return array.asSlice(index * $LAYOUT.byteSize(), $LAYOUT);
    }

    /**
     * Gives a pointer returned by native code the size of one {@code ibv_gid_entry}; the caller states
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
     * Returns {@code gid} as a slice of the struct segment.
     *
     * @param struct the struct segment
     * @return a 16-byte slice
     */
    public static MemorySegment gid(MemorySegment struct) {
        return struct.asSlice(GID_OFFSET, 16);
    }

    /**
     * Copies 16 bytes into {@code gid}.
     *
     * @param struct the struct segment
     * @param fieldValue the bytes to copy
     */
    public static void gid(MemorySegment struct, MemorySegment fieldValue) {
        MemorySegment.copy(fieldValue, 0L, struct, GID_OFFSET, 16);
    }

    /**
     * Reads {@code gid_index}.
     *
     * @param struct the struct segment
     * @return the value
     */
    public static int gid_index(MemorySegment struct) {
        return struct.get(VerbsTypes.C_UINT32, GID_INDEX_OFFSET);
    }

    /**
     * Writes {@code gid_index}.
     *
     * @param struct the struct segment
     * @param fieldValue the value
     */
    public static void gid_index(MemorySegment struct, int fieldValue) {
        struct.set(VerbsTypes.C_UINT32, GID_INDEX_OFFSET, fieldValue);
    }

    /**
     * Reads {@code port_num}.
     *
     * @param struct the struct segment
     * @return the value
     */
    public static int port_num(MemorySegment struct) {
        return struct.get(VerbsTypes.C_UINT32, PORT_NUM_OFFSET);
    }

    /**
     * Writes {@code port_num}.
     *
     * @param struct the struct segment
     * @param fieldValue the value
     */
    public static void port_num(MemorySegment struct, int fieldValue) {
        struct.set(VerbsTypes.C_UINT32, PORT_NUM_OFFSET, fieldValue);
    }

    /**
     * Reads {@code gid_type}.
     *
     * @param struct the struct segment
     * @return the value
     */
    public static int gid_type(MemorySegment struct) {
        return struct.get(VerbsTypes.C_UINT32, GID_TYPE_OFFSET);
    }

    /**
     * Writes {@code gid_type}.
     *
     * @param struct the struct segment
     * @param fieldValue the value
     */
    public static void gid_type(MemorySegment struct, int fieldValue) {
        struct.set(VerbsTypes.C_UINT32, GID_TYPE_OFFSET, fieldValue);
    }

    /**
     * Reads {@code ndev_ifindex}.
     *
     * @param struct the struct segment
     * @return the value
     */
    public static int ndev_ifindex(MemorySegment struct) {
        return struct.get(VerbsTypes.C_UINT32, NDEV_IFINDEX_OFFSET);
    }

    /**
     * Writes {@code ndev_ifindex}.
     *
     * @param struct the struct segment
     * @param fieldValue the value
     */
    public static void ndev_ifindex(MemorySegment struct, int fieldValue) {
        struct.set(VerbsTypes.C_UINT32, NDEV_IFINDEX_OFFSET, fieldValue);
    }
}
