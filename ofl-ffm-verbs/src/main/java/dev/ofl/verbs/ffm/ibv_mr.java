package dev.ofl.verbs.ffm;

import java.lang.foreign.GroupLayout;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SegmentAllocator;

import static java.lang.foreign.MemoryLayout.PathElement.groupElement;

/**
 * {@code struct ibv_mr} from {@code <infiniband/verbs.h>} (rdma-core 44, x86-64 and aarch64 alike):
 * 48 bytes, aligned to 8. A registered memory region; {@code lkey} goes into local scatter/gather
 * entries, {@code rkey} to the peer.
 *
 * <pre>{@code
 * struct ibv_mr {
 *     struct ibv_context * context;           // 0
 *     struct ibv_pd * pd;                     // 8
 *     void * addr;                            // 16
 *     size_t length;                          // 24
 *     uint32_t handle;                        // 32
 *     uint32_t lkey;                          // 36
 *     uint32_t rkey;                          // 40
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
public final class ibv_mr {

    private static final GroupLayout $LAYOUT = MemoryLayout.structLayout(
        VerbsTypes.C_POINTER.withName("context"),
        VerbsTypes.C_POINTER.withName("pd"),
        VerbsTypes.C_POINTER.withName("addr"),
        VerbsTypes.C_SIZE_T.withName("length"),
        VerbsTypes.C_UINT32.withName("handle"),
        VerbsTypes.C_UINT32.withName("lkey"),
        VerbsTypes.C_UINT32.withName("rkey"),
        MemoryLayout.paddingLayout(4)
    ).withName("ibv_mr");

    /** Byte offset of {@code context} (0). */
    public static final long CONTEXT_OFFSET = $LAYOUT.byteOffset(groupElement("context"));

    /** Byte offset of {@code pd} (8). */
    public static final long PD_OFFSET = $LAYOUT.byteOffset(groupElement("pd"));

    /** Byte offset of {@code addr} (16). */
    public static final long ADDR_OFFSET = $LAYOUT.byteOffset(groupElement("addr"));

    /** Byte offset of {@code length} (24). */
    public static final long LENGTH_OFFSET = $LAYOUT.byteOffset(groupElement("length"));

    /** Byte offset of {@code handle} (32). */
    public static final long HANDLE_OFFSET = $LAYOUT.byteOffset(groupElement("handle"));

    /** Byte offset of {@code lkey} (36). */
    public static final long LKEY_OFFSET = $LAYOUT.byteOffset(groupElement("lkey"));

    /** Byte offset of {@code rkey} (40). */
    public static final long RKEY_OFFSET = $LAYOUT.byteOffset(groupElement("rkey"));

    private ibv_mr() {
    }

    /**
     * Returns the layout of {@code struct ibv_mr}.
     *
     * @return the layout, 48 bytes
     */
    public static GroupLayout $LAYOUT() {
        return $LAYOUT;
    }

    /**
     * Returns the size of {@code struct ibv_mr}.
     *
     * @return 48
     */
    public static long sizeof() {
        return $LAYOUT.byteSize();
    }

    /**
     * Allocates one zeroed {@code ibv_mr}.
     *
     * @param allocator the allocator that owns the memory
     * @return a segment of {@link #sizeof()} bytes
     */
    public static MemorySegment allocate(SegmentAllocator allocator) {
        return allocator.allocate($LAYOUT);
    }

    /**
     * Allocates a zeroed array of {@code ibv_mr}.
     *
     * @param count the number of elements
     * @param allocator the allocator that owns the memory
     * @return a segment of {@code count * sizeof()} bytes
     */
    public static MemorySegment allocateArray(long count, SegmentAllocator allocator) {
        return allocator.allocate($LAYOUT, count);
    }

    /**
     * Returns element {@code index} of an array of {@code ibv_mr}.
     *
     * @param array the array segment
     * @param index the element index
     * @return a slice of {@link #sizeof()} bytes
     */
    public static MemorySegment asSlice(MemorySegment array, long index) {
        return array.asSlice(index * $LAYOUT.byteSize(), $LAYOUT);
    }

    /**
     * Gives a pointer returned by native code the size of one {@code ibv_mr}; the caller states
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
     * Reads {@code context}.
     *
     * @param struct the struct segment
     * @return the value
     */
    public static MemorySegment context(MemorySegment struct) {
        return struct.get(VerbsTypes.C_POINTER, CONTEXT_OFFSET);
    }

    /**
     * Writes {@code context}.
     *
     * @param struct the struct segment
     * @param fieldValue the value
     */
    public static void context(MemorySegment struct, MemorySegment fieldValue) {
        struct.set(VerbsTypes.C_POINTER, CONTEXT_OFFSET, fieldValue);
    }

    /**
     * Reads {@code pd}.
     *
     * @param struct the struct segment
     * @return the value
     */
    public static MemorySegment pd(MemorySegment struct) {
        return struct.get(VerbsTypes.C_POINTER, PD_OFFSET);
    }

    /**
     * Writes {@code pd}.
     *
     * @param struct the struct segment
     * @param fieldValue the value
     */
    public static void pd(MemorySegment struct, MemorySegment fieldValue) {
        struct.set(VerbsTypes.C_POINTER, PD_OFFSET, fieldValue);
    }

    /**
     * Reads {@code addr}.
     *
     * @param struct the struct segment
     * @return the value
     */
    public static MemorySegment addr(MemorySegment struct) {
        return struct.get(VerbsTypes.C_POINTER, ADDR_OFFSET);
    }

    /**
     * Writes {@code addr}.
     *
     * @param struct the struct segment
     * @param fieldValue the value
     */
    public static void addr(MemorySegment struct, MemorySegment fieldValue) {
        struct.set(VerbsTypes.C_POINTER, ADDR_OFFSET, fieldValue);
    }

    /**
     * Reads {@code length}.
     *
     * @param struct the struct segment
     * @return the value
     */
    public static long length(MemorySegment struct) {
        return struct.get(VerbsTypes.C_SIZE_T, LENGTH_OFFSET);
    }

    /**
     * Writes {@code length}.
     *
     * @param struct the struct segment
     * @param fieldValue the value
     */
    public static void length(MemorySegment struct, long fieldValue) {
        struct.set(VerbsTypes.C_SIZE_T, LENGTH_OFFSET, fieldValue);
    }

    /**
     * Reads {@code handle}.
     *
     * @param struct the struct segment
     * @return the value
     */
    public static int handle(MemorySegment struct) {
        return struct.get(VerbsTypes.C_UINT32, HANDLE_OFFSET);
    }

    /**
     * Writes {@code handle}.
     *
     * @param struct the struct segment
     * @param fieldValue the value
     */
    public static void handle(MemorySegment struct, int fieldValue) {
        struct.set(VerbsTypes.C_UINT32, HANDLE_OFFSET, fieldValue);
    }

    /**
     * Reads {@code lkey}.
     *
     * @param struct the struct segment
     * @return the value
     */
    public static int lkey(MemorySegment struct) {
        return struct.get(VerbsTypes.C_UINT32, LKEY_OFFSET);
    }

    /**
     * Writes {@code lkey}.
     *
     * @param struct the struct segment
     * @param fieldValue the value
     */
    public static void lkey(MemorySegment struct, int fieldValue) {
        struct.set(VerbsTypes.C_UINT32, LKEY_OFFSET, fieldValue);
    }

    /**
     * Reads {@code rkey}.
     *
     * @param struct the struct segment
     * @return the value
     */
    public static int rkey(MemorySegment struct) {
        return struct.get(VerbsTypes.C_UINT32, RKEY_OFFSET);
    }

    /**
     * Writes {@code rkey}.
     *
     * @param struct the struct segment
     * @param fieldValue the value
     */
    public static void rkey(MemorySegment struct, int fieldValue) {
        struct.set(VerbsTypes.C_UINT32, RKEY_OFFSET, fieldValue);
    }
}
