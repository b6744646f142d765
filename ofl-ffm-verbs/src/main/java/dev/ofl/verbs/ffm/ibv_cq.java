package dev.ofl.verbs.ffm;

import java.lang.foreign.GroupLayout;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SegmentAllocator;

import static java.lang.foreign.MemoryLayout.PathElement.groupElement;

/**
 * {@code struct ibv_cq} from {@code <infiniband/verbs.h>} (rdma-core 44): 128 bytes on x86-64,
 * 136 on aarch64, aligned to 8. A completion queue; {@code context} selects the {@code poll_cq} and
 * {@code req_notify_cq} pointers.
 *
 * <pre>{@code
 * struct ibv_cq {
 *     struct ibv_context * context;           // 0
 *     struct ibv_comp_channel * channel;      // 8
 *     void * cq_context;                      // 16
 *     uint32_t handle;                        // 24
 *     int cqe;                                // 28
 *     pthread_mutex_t mutex;                  // 32, 40 bytes (aarch64: 48)
 *     pthread_cond_t cond;                    // 72, 48 bytes (aarch64: 80)
 *     uint32_t comp_events_completed;         // 120 (aarch64: 128)
 *     uint32_t async_events_completed;        // 124 (aarch64: 132)
 * };
 * }</pre>
 *
 * <p>The layout is that of {@link NativeArch#current()}, chosen when this class loads: glibc's
 * {@code pthread_mutex_t} is 40 bytes on x86-64 and 48 on aarch64, so the members after it move.
 * {@link #layout(NativeArch)} builds it for either architecture. On any other architecture this
 * class fails to initialise with a cause naming it; {@code RdmaAvailability} reports that as the
 * unavailability cause before any struct class is used.
 *
 * <p>Shaped as jextract generates it: {@link #$LAYOUT()} with named members and explicit
 * padding, {@code *_OFFSET} constants taken from that layout, and static accessors that read or
 * write one member of a struct segment. Native structs use native byte order; members declared
 * {@code __be} use the big-endian layouts of {@link VerbsTypes}. Accessors do not allocate,
 * except those returning a slice, and rely on the segment's bounds checks. They hold no state and
 * are thread-safe; the memory they touch is not. Pinned by {@code VerbsLayoutTest} against a C
 * program compiled with the system header.
 */
public final class ibv_cq {

    private static final GroupLayout $LAYOUT = layout(NativeArch.current());

    private static final long MUTEX_BYTES = $LAYOUT.select(groupElement("mutex")).byteSize();

    /**
     * Builds the layout of {@code struct ibv_cq} on an architecture; {@link #$LAYOUT()} is the
     * one for this JVM's.
     *
     * @param arch the architecture, whose {@code pthread_mutex_t} size is the one input that varies
     * @return the layout
     */
    public static GroupLayout layout(NativeArch arch) {
        return MemoryLayout.structLayout(
            VerbsTypes.C_POINTER.withName("context"),
            VerbsTypes.C_POINTER.withName("channel"),
            VerbsTypes.C_POINTER.withName("cq_context"),
            VerbsTypes.C_UINT32.withName("handle"),
            VerbsTypes.C_INT.withName("cqe"),
            arch.pthreadMutexLayout().withName("mutex"),
            MemoryLayout.sequenceLayout(6, VerbsTypes.C_UINT64).withName("cond"),
            VerbsTypes.C_UINT32.withName("comp_events_completed"),
            VerbsTypes.C_UINT32.withName("async_events_completed")
        ).withName("ibv_cq");
    }

    /** Byte offset of {@code context} (0). */
    public static final long CONTEXT_OFFSET = $LAYOUT.byteOffset(groupElement("context"));

    /** Byte offset of {@code channel} (8). */
    public static final long CHANNEL_OFFSET = $LAYOUT.byteOffset(groupElement("channel"));

    /** Byte offset of {@code cq_context} (16). */
    public static final long CQ_CONTEXT_OFFSET = $LAYOUT.byteOffset(groupElement("cq_context"));

    /** Byte offset of {@code handle} (24). */
    public static final long HANDLE_OFFSET = $LAYOUT.byteOffset(groupElement("handle"));

    /** Byte offset of {@code cqe} (28). */
    public static final long CQE_OFFSET = $LAYOUT.byteOffset(groupElement("cqe"));

    /** Byte offset of {@code mutex} (32). */
    public static final long MUTEX_OFFSET = $LAYOUT.byteOffset(groupElement("mutex"));

    /** Byte offset of {@code cond} (72 on x86-64, 80 on aarch64). */
    public static final long COND_OFFSET = $LAYOUT.byteOffset(groupElement("cond"));

    /** Byte offset of {@code comp_events_completed} (120 on x86-64, 128 on aarch64). */
    public static final long COMP_EVENTS_COMPLETED_OFFSET = $LAYOUT.byteOffset(groupElement("comp_events_completed"));

    /** Byte offset of {@code async_events_completed} (124 on x86-64, 132 on aarch64). */
    public static final long ASYNC_EVENTS_COMPLETED_OFFSET = $LAYOUT.byteOffset(groupElement("async_events_completed"));

    private ibv_cq() {
    }

    /**
     * Returns the layout of {@code struct ibv_cq}.
     *
     * @return the layout, 128 bytes on x86-64, 136 on aarch64
     */
    public static GroupLayout $LAYOUT() {
        return $LAYOUT;
    }

    /**
     * Returns the size of {@code struct ibv_cq}.
     *
     * @return 128 on x86-64, 136 on aarch64
     */
    public static long sizeof() {
        return $LAYOUT.byteSize();
    }

    /**
     * Allocates one zeroed {@code ibv_cq}.
     *
     * @param allocator the allocator that owns the memory
     * @return a segment of {@link #sizeof()} bytes
     */
    public static MemorySegment allocate(SegmentAllocator allocator) {
        return allocator.allocate($LAYOUT);
    }

    /**
     * Allocates a zeroed array of {@code ibv_cq}.
     *
     * @param count the number of elements
     * @param allocator the allocator that owns the memory
     * @return a segment of {@code count * sizeof()} bytes
     */
    public static MemorySegment allocateArray(long count, SegmentAllocator allocator) {
        return allocator.allocate($LAYOUT, count);
    }

    /**
     * Returns element {@code index} of an array of {@code ibv_cq}.
     *
     * @param array the array segment
     * @param index the element index
     * @return a slice of {@link #sizeof()} bytes
     */
    public static MemorySegment asSlice(MemorySegment array, long index) {
        return array.asSlice(index * $LAYOUT.byteSize(), $LAYOUT);
    }

    /**
     * Gives a pointer returned by native code the size of one {@code ibv_cq}; the caller states
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
     * Reads {@code channel}.
     *
     * @param struct the struct segment
     * @return the value
     */
    public static MemorySegment channel(MemorySegment struct) {
        return struct.get(VerbsTypes.C_POINTER, CHANNEL_OFFSET);
    }

    /**
     * Writes {@code channel}.
     *
     * @param struct the struct segment
     * @param fieldValue the value
     */
    public static void channel(MemorySegment struct, MemorySegment fieldValue) {
        struct.set(VerbsTypes.C_POINTER, CHANNEL_OFFSET, fieldValue);
    }

    /**
     * Reads {@code cq_context}.
     *
     * @param struct the struct segment
     * @return the value
     */
    public static MemorySegment cq_context(MemorySegment struct) {
        return struct.get(VerbsTypes.C_POINTER, CQ_CONTEXT_OFFSET);
    }

    /**
     * Writes {@code cq_context}.
     *
     * @param struct the struct segment
     * @param fieldValue the value
     */
    public static void cq_context(MemorySegment struct, MemorySegment fieldValue) {
        struct.set(VerbsTypes.C_POINTER, CQ_CONTEXT_OFFSET, fieldValue);
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
     * Reads {@code cqe}.
     *
     * @param struct the struct segment
     * @return the value
     */
    public static int cqe(MemorySegment struct) {
        return struct.get(VerbsTypes.C_INT, CQE_OFFSET);
    }

    /**
     * Writes {@code cqe}.
     *
     * @param struct the struct segment
     * @param fieldValue the value
     */
    public static void cqe(MemorySegment struct, int fieldValue) {
        struct.set(VerbsTypes.C_INT, CQE_OFFSET, fieldValue);
    }

    /**
     * Returns {@code mutex} as a slice of the struct segment.
     *
     * @param struct the struct segment
     * @return a slice of {@link NativeArch#pthreadMutexBytes()} bytes (40 on x86-64, 48 on aarch64)
     */
    public static MemorySegment mutex(MemorySegment struct) {
        return struct.asSlice(MUTEX_OFFSET, MUTEX_BYTES);
    }

    /**
     * Copies {@link NativeArch#pthreadMutexBytes()} bytes (40 on x86-64, 48 on aarch64) into
     * {@code mutex}.
     *
     * @param struct the struct segment
     * @param fieldValue the bytes to copy
     */
    public static void mutex(MemorySegment struct, MemorySegment fieldValue) {
        MemorySegment.copy(fieldValue, 0L, struct, MUTEX_OFFSET, MUTEX_BYTES);
    }

    /**
     * Returns {@code cond} as a slice of the struct segment.
     *
     * @param struct the struct segment
     * @return a 48-byte slice
     */
    public static MemorySegment cond(MemorySegment struct) {
        return struct.asSlice(COND_OFFSET, 48);
    }

    /**
     * Copies 48 bytes into {@code cond}.
     *
     * @param struct the struct segment
     * @param fieldValue the bytes to copy
     */
    public static void cond(MemorySegment struct, MemorySegment fieldValue) {
        MemorySegment.copy(fieldValue, 0L, struct, COND_OFFSET, 48);
    }

    /**
     * Reads {@code comp_events_completed}.
     *
     * @param struct the struct segment
     * @return the value
     */
    public static int comp_events_completed(MemorySegment struct) {
        return struct.get(VerbsTypes.C_UINT32, COMP_EVENTS_COMPLETED_OFFSET);
    }

    /**
     * Writes {@code comp_events_completed}.
     *
     * @param struct the struct segment
     * @param fieldValue the value
     */
    public static void comp_events_completed(MemorySegment struct, int fieldValue) {
        struct.set(VerbsTypes.C_UINT32, COMP_EVENTS_COMPLETED_OFFSET, fieldValue);
    }

    /**
     * Reads {@code async_events_completed}.
     *
     * @param struct the struct segment
     * @return the value
     */
    public static int async_events_completed(MemorySegment struct) {
        return struct.get(VerbsTypes.C_UINT32, ASYNC_EVENTS_COMPLETED_OFFSET);
    }

    /**
     * Writes {@code async_events_completed}.
     *
     * @param struct the struct segment
     * @param fieldValue the value
     */
    public static void async_events_completed(MemorySegment struct, int fieldValue) {
        struct.set(VerbsTypes.C_UINT32, ASYNC_EVENTS_COMPLETED_OFFSET, fieldValue);
    }
}
