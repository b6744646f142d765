package dev.ofl.verbs.ffm;

import java.lang.foreign.GroupLayout;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SegmentAllocator;

import static java.lang.foreign.MemoryLayout.PathElement.groupElement;

/**
 * {@code union ibv_gid} from {@code <infiniband/verbs.h>} (rdma-core 44, x86-64 and aarch64 alike):
 * 16 bytes, aligned to 8. A GID: 16 raw bytes in network order, or two big-endian 64-bit halves.
 *
 * <pre>{@code
 * union ibv_gid {
 *     char raw[16];                           // 0, 16 bytes
 *     struct {                                // 0, 16 bytes
 *         __be64 subnet_prefix;               // 0
 *         __be64 interface_id;                // 8
 *     } global;
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
public final class ibv_gid {

    private static final GroupLayout $LAYOUT = MemoryLayout.unionLayout(
        MemoryLayout.sequenceLayout(16, VerbsTypes.C_CHAR).withName("raw"),
        MemoryLayout.structLayout(
            VerbsTypes.BE_UINT64.withName("subnet_prefix"),
            VerbsTypes.BE_UINT64.withName("interface_id")
        ).withName("global")
    ).withName("ibv_gid");

    /** Byte offset of {@code raw} (0). */
    public static final long RAW_OFFSET = $LAYOUT.byteOffset(groupElement("raw"));

    /** Byte offset of {@code global} (0). */
    public static final long GLOBAL_OFFSET = $LAYOUT.byteOffset(groupElement("global"));

    /** Byte offset of {@code global.subnet_prefix} (0). */
    public static final long GLOBAL_SUBNET_PREFIX_OFFSET = $LAYOUT.byteOffset(groupElement("global"), groupElement("subnet_prefix"));

    /** Byte offset of {@code global.interface_id} (8). */
    public static final long GLOBAL_INTERFACE_ID_OFFSET = $LAYOUT.byteOffset(groupElement("global"), groupElement("interface_id"));

    private ibv_gid() {
    }

    /**
     * Returns the layout of {@code union ibv_gid}.
     *
     * @return the layout, 16 bytes
     */
    public static GroupLayout $LAYOUT() {
        return $LAYOUT;
    }

    /**
     * Returns the size of {@code union ibv_gid}.
     *
     * @return 16
     */
    public static long sizeof() {
        return $LAYOUT.byteSize();
    }

    /**
     * Allocates one zeroed {@code ibv_gid}.
     *
     * @param allocator the allocator that owns the memory
     * @return a segment of {@link #sizeof()} bytes
     */
    public static MemorySegment allocate(SegmentAllocator allocator) {
        return allocator.allocate($LAYOUT);
    }

    /**
     * Allocates a zeroed array of {@code ibv_gid}.
     *
     * @param count the number of elements
     * @param allocator the allocator that owns the memory
     * @return a segment of {@code count * sizeof()} bytes
     */
    public static MemorySegment allocateArray(long count, SegmentAllocator allocator) {
        return allocator.allocate($LAYOUT, count);
    }

    /**
     * Returns element {@code index} of an array of {@code ibv_gid}.
     *
     * @param array the array segment
     * @param index the element index
     * @return a slice of {@link #sizeof()} bytes
     */
    public static MemorySegment asSlice(MemorySegment array, long index) {
        return array.asSlice(index * $LAYOUT.byteSize(), $LAYOUT);
    }

    /**
     * Gives a pointer returned by native code the size of one {@code ibv_gid}; the caller states
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
     * Returns {@code raw} as a slice of the struct segment.
     *
     * @param struct the struct segment
     * @return a 16-byte slice
     */
    public static MemorySegment raw(MemorySegment struct) {
        return struct.asSlice(RAW_OFFSET, 16);
    }

    /**
     * Copies 16 bytes into {@code raw}.
     *
     * @param struct the struct segment
     * @param fieldValue the bytes to copy
     */
    public static void raw(MemorySegment struct, MemorySegment fieldValue) {
        MemorySegment.copy(fieldValue, 0L, struct, RAW_OFFSET, 16);
    }

    /**
     * Returns {@code global} as a slice of the struct segment.
     *
     * @param struct the struct segment
     * @return a 16-byte slice
     */
    public static MemorySegment global(MemorySegment struct) {
        return struct.asSlice(GLOBAL_OFFSET, 16);
    }

    /**
     * Copies 16 bytes into {@code global}.
     *
     * @param struct the struct segment
     * @param fieldValue the bytes to copy
     */
    public static void global(MemorySegment struct, MemorySegment fieldValue) {
        MemorySegment.copy(fieldValue, 0L, struct, GLOBAL_OFFSET, 16);
    }

    /**
     * Reads {@code global.subnet_prefix} (stored big-endian).
     *
     * @param struct the struct segment
     * @return the value
     */
    public static long global_subnet_prefix(MemorySegment struct) {
        return struct.get(VerbsTypes.BE_UINT64, GLOBAL_SUBNET_PREFIX_OFFSET);
    }

    /**
     * Writes {@code global.subnet_prefix} (stored big-endian).
     *
     * @param struct the struct segment
     * @param fieldValue the value
     */
    public static void global_subnet_prefix(MemorySegment struct, long fieldValue) {
        struct.set(VerbsTypes.BE_UINT64, GLOBAL_SUBNET_PREFIX_OFFSET, fieldValue);
    }

    /**
     * Reads {@code global.interface_id} (stored big-endian).
     *
     * @param struct the struct segment
     * @return the value
     */
    public static long global_interface_id(MemorySegment struct) {
        return struct.get(VerbsTypes.BE_UINT64, GLOBAL_INTERFACE_ID_OFFSET);
    }

    /**
     * Writes {@code global.interface_id} (stored big-endian).
     *
     * @param struct the struct segment
     * @param fieldValue the value
     */
    public static void global_interface_id(MemorySegment struct, long fieldValue) {
        struct.set(VerbsTypes.BE_UINT64, GLOBAL_INTERFACE_ID_OFFSET, fieldValue);
    }
}
