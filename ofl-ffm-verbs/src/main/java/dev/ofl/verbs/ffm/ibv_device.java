package dev.ofl.verbs.ffm;

import java.lang.foreign.GroupLayout;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SegmentAllocator;

import static java.lang.foreign.MemoryLayout.PathElement.groupElement;

/**
 * {@code struct ibv_device} from {@code <infiniband/verbs.h>} (rdma-core 44, x86-64 and aarch64 alike):
 * 664 bytes, aligned to 8. A device in the list from {@code ibv_get_device_list}; owned by that
 * list.
 *
 * <pre>{@code
 * struct ibv_device {
 *     struct {                                // 0, 16 bytes
 *         void *(*)() _dummy1;                // 0
 *         void (*)() _dummy2;                 // 8
 *     } _ops;
 *     enum ibv_node_type node_type;           // 16
 *     enum ibv_transport_type transport_type; // 20
 *     char name[64];                          // 24, 64 bytes
 *     char dev_name[64];                      // 88, 64 bytes
 *     char dev_path[256];                     // 152, 256 bytes
 *     char ibdev_path[256];                   // 408, 256 bytes
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
public final class ibv_device {

    private static final GroupLayout $LAYOUT = MemoryLayout.structLayout(
        MemoryLayout.structLayout(
            VerbsTypes.C_POINTER.withName("_dummy1"),
            VerbsTypes.C_POINTER.withName("_dummy2")
        ).withName("_ops"),
        VerbsTypes.C_INT.withName("node_type"),
        VerbsTypes.C_INT.withName("transport_type"),
        MemoryLayout.sequenceLayout(64, VerbsTypes.C_CHAR).withName("name"),
        MemoryLayout.sequenceLayout(64, VerbsTypes.C_CHAR).withName("dev_name"),
        MemoryLayout.sequenceLayout(256, VerbsTypes.C_CHAR).withName("dev_path"),
        MemoryLayout.sequenceLayout(256, VerbsTypes.C_CHAR).withName("ibdev_path")
    ).withName("ibv_device");

    /** Byte offset of {@code _ops} (0). */
    public static final long OPS_OFFSET = $LAYOUT.byteOffset(groupElement("_ops"));

    /** Byte offset of {@code _ops._dummy1} (0). */
    public static final long OPS_DUMMY1_OFFSET = $LAYOUT.byteOffset(groupElement("_ops"), groupElement("_dummy1"));

    /** Byte offset of {@code _ops._dummy2} (8). */
    public static final long OPS_DUMMY2_OFFSET = $LAYOUT.byteOffset(groupElement("_ops"), groupElement("_dummy2"));

    /** Byte offset of {@code node_type} (16). */
    public static final long NODE_TYPE_OFFSET = $LAYOUT.byteOffset(groupElement("node_type"));

    /** Byte offset of {@code transport_type} (20). */
    public static final long TRANSPORT_TYPE_OFFSET = $LAYOUT.byteOffset(groupElement("transport_type"));

    /** Byte offset of {@code name} (24). */
    public static final long NAME_OFFSET = $LAYOUT.byteOffset(groupElement("name"));

    /** Byte offset of {@code dev_name} (88). */
    public static final long DEV_NAME_OFFSET = $LAYOUT.byteOffset(groupElement("dev_name"));

    /** Byte offset of {@code dev_path} (152). */
    public static final long DEV_PATH_OFFSET = $LAYOUT.byteOffset(groupElement("dev_path"));

    /** Byte offset of {@code ibdev_path} (408). */
    public static final long IBDEV_PATH_OFFSET = $LAYOUT.byteOffset(groupElement("ibdev_path"));

    private ibv_device() {
    }

    /**
     * Returns the layout of {@code struct ibv_device}.
     *
     * @return the layout, 664 bytes
     */
    public static GroupLayout $LAYOUT() {
        return $LAYOUT;
    }

    /**
     * Returns the size of {@code struct ibv_device}.
     *
     * @return 664
     */
    public static long sizeof() {
        return $LAYOUT.byteSize();
    }

    /**
     * Allocates one zeroed {@code ibv_device}.
     *
     * @param allocator the allocator that owns the memory
     * @return a segment of {@link #sizeof()} bytes
     */
    public static MemorySegment allocate(SegmentAllocator allocator) {
        return allocator.allocate($LAYOUT);
    }

    /**
     * Allocates a zeroed array of {@code ibv_device}.
     *
     * @param count the number of elements
     * @param allocator the allocator that owns the memory
     * @return a segment of {@code count * sizeof()} bytes
     */
    public static MemorySegment allocateArray(long count, SegmentAllocator allocator) {
        return allocator.allocate($LAYOUT, count);
    }

    /**
     * Returns element {@code index} of an array of {@code ibv_device}.
     *
     * @param array the array segment
     * @param index the element index
     * @return a slice of {@link #sizeof()} bytes
     */
    public static MemorySegment asSlice(MemorySegment array, long index) {
        return array.asSlice(index * $LAYOUT.byteSize(), $LAYOUT);
    }

    /**
     * Gives a pointer returned by native code the size of one {@code ibv_device}; the caller states
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
     * Returns {@code _ops} as a slice of the struct segment.
     *
     * @param struct the struct segment
     * @return a 16-byte slice
     */
    public static MemorySegment _ops(MemorySegment struct) {
        return struct.asSlice(OPS_OFFSET, 16);
    }

    /**
     * Copies 16 bytes into {@code _ops}.
     *
     * @param struct the struct segment
     * @param fieldValue the bytes to copy
     */
    public static void _ops(MemorySegment struct, MemorySegment fieldValue) {
        MemorySegment.copy(fieldValue, 0L, struct, OPS_OFFSET, 16);
    }

    /**
     * Reads {@code _ops._dummy1}.
     *
     * @param struct the struct segment
     * @return the value
     */
    public static MemorySegment _ops__dummy1(MemorySegment struct) {
        return struct.get(VerbsTypes.C_POINTER, OPS_DUMMY1_OFFSET);
    }

    /**
     * Writes {@code _ops._dummy1}.
     *
     * @param struct the struct segment
     * @param fieldValue the value
     */
    public static void _ops__dummy1(MemorySegment struct, MemorySegment fieldValue) {
        struct.set(VerbsTypes.C_POINTER, OPS_DUMMY1_OFFSET, fieldValue);
    }

    /**
     * Reads {@code _ops._dummy2}.
     *
     * @param struct the struct segment
     * @return the value
     */
    public static MemorySegment _ops__dummy2(MemorySegment struct) {
        return struct.get(VerbsTypes.C_POINTER, OPS_DUMMY2_OFFSET);
    }

    /**
     * Writes {@code _ops._dummy2}.
     *
     * @param struct the struct segment
     * @param fieldValue the value
     */
    public static void _ops__dummy2(MemorySegment struct, MemorySegment fieldValue) {
        struct.set(VerbsTypes.C_POINTER, OPS_DUMMY2_OFFSET, fieldValue);
    }

    /**
     * Reads {@code node_type}.
     *
     * @param struct the struct segment
     * @return the value
     */
    public static int node_type(MemorySegment struct) {
        return struct.get(VerbsTypes.C_INT, NODE_TYPE_OFFSET);
    }

    /**
     * Writes {@code node_type}.
     *
     * @param struct the struct segment
     * @param fieldValue the value
     */
    public static void node_type(MemorySegment struct, int fieldValue) {
        struct.set(VerbsTypes.C_INT, NODE_TYPE_OFFSET, fieldValue);
    }

    /**
     * Reads {@code transport_type}.
     *
     * @param struct the struct segment
     * @return the value
     */
    public static int transport_type(MemorySegment struct) {
        return struct.get(VerbsTypes.C_INT, TRANSPORT_TYPE_OFFSET);
    }

    /**
     * Writes {@code transport_type}.
     *
     * @param struct the struct segment
     * @param fieldValue the value
     */
    public static void transport_type(MemorySegment struct, int fieldValue) {
        struct.set(VerbsTypes.C_INT, TRANSPORT_TYPE_OFFSET, fieldValue);
    }

    /**
     * Returns {@code name} as a slice of the struct segment.
     *
     * @param struct the struct segment
     * @return a 64-byte slice
     */
    public static MemorySegment name(MemorySegment struct) {
        return struct.asSlice(NAME_OFFSET, 64);
    }

    /**
     * Copies 64 bytes into {@code name}.
     *
     * @param struct the struct segment
     * @param fieldValue the bytes to copy
     */
    public static void name(MemorySegment struct, MemorySegment fieldValue) {
        MemorySegment.copy(fieldValue, 0L, struct, NAME_OFFSET, 64);
    }

    /**
     * Returns {@code dev_name} as a slice of the struct segment.
     *
     * @param struct the struct segment
     * @return a 64-byte slice
     */
    public static MemorySegment dev_name(MemorySegment struct) {
        return struct.asSlice(DEV_NAME_OFFSET, 64);
    }

    /**
     * Copies 64 bytes into {@code dev_name}.
     *
     * @param struct the struct segment
     * @param fieldValue the bytes to copy
     */
    public static void dev_name(MemorySegment struct, MemorySegment fieldValue) {
        MemorySegment.copy(fieldValue, 0L, struct, DEV_NAME_OFFSET, 64);
    }

    /**
     * Returns {@code dev_path} as a slice of the struct segment.
     *
     * @param struct the struct segment
     * @return a 256-byte slice
     */
    public static MemorySegment dev_path(MemorySegment struct) {
        return struct.asSlice(DEV_PATH_OFFSET, 256);
    }

    /**
     * Copies 256 bytes into {@code dev_path}.
     *
     * @param struct the struct segment
     * @param fieldValue the bytes to copy
     */
    public static void dev_path(MemorySegment struct, MemorySegment fieldValue) {
        MemorySegment.copy(fieldValue, 0L, struct, DEV_PATH_OFFSET, 256);
    }

    /**
     * Returns {@code ibdev_path} as a slice of the struct segment.
     *
     * @param struct the struct segment
     * @return a 256-byte slice
     */
    public static MemorySegment ibdev_path(MemorySegment struct) {
        return struct.asSlice(IBDEV_PATH_OFFSET, 256);
    }

    /**
     * Copies 256 bytes into {@code ibdev_path}.
     *
     * @param struct the struct segment
     * @param fieldValue the bytes to copy
     */
    public static void ibdev_path(MemorySegment struct, MemorySegment fieldValue) {
        MemorySegment.copy(fieldValue, 0L, struct, IBDEV_PATH_OFFSET, 256);
    }
}
