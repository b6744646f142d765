package dev.ofl.verbs.ffm;

import java.lang.foreign.GroupLayout;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SegmentAllocator;

import static java.lang.foreign.MemoryLayout.PathElement.groupElement;

/**
 * {@code struct ibv_async_event} from {@code <infiniband/verbs.h>} (rdma-core 44, x86-64 and aarch64 alike):
 * 16 bytes, aligned to 8. One asynchronous event of a device context, filled by
 * {@code ibv_get_async_event} and handed back to {@code ibv_ack_async_event}.
 *
 * <pre>{@code
 * struct ibv_async_event {
 *     union {
 *         struct ibv_cq *cq;                  // 0
 *         struct ibv_qp *qp;                  // 0
 *         struct ibv_srq *srq;                // 0
 *         struct ibv_wq *wq;                  // 0
 *         int port_num;                       // 0
 *     } element;                              // 0, 8 bytes
 *     enum ibv_event_type event_type;         // 8
 * };                                          // 4 bytes of tail padding
 * }</pre>
 *
 * <p>Shaped as jextract generates it: {@link #$LAYOUT()} with named members and explicit
 * padding, {@code *_OFFSET} constants taken from that layout, and static accessors that read one
 * member of a struct segment. Accessors do not allocate and rely on the segment's bounds checks.
 * They hold no state and are thread-safe; the memory they touch is not. Pinned by
 * {@code VerbsLayoutTest} against a C program compiled with the system header.
 */
public final class ibv_async_event {

    private static final GroupLayout $LAYOUT = MemoryLayout.structLayout(
        MemoryLayout.unionLayout(
            VerbsTypes.C_POINTER.withName("cq"),
            VerbsTypes.C_POINTER.withName("qp"),
            VerbsTypes.C_POINTER.withName("srq"),
            VerbsTypes.C_POINTER.withName("wq"),
            VerbsTypes.C_INT.withName("port_num")
        ).withName("element"),
        VerbsTypes.C_INT.withName("event_type"),
        MemoryLayout.paddingLayout(4)
    ).withName("ibv_async_event");

    /** Byte offset of {@code element} (0): a pointer to the object concerned, or the port number. */
    public static final long ELEMENT_OFFSET = $LAYOUT.byteOffset(groupElement("element"));

    /** Byte offset of {@code element.port_num} (0). */
    public static final long ELEMENT_PORT_NUM_OFFSET = $LAYOUT.byteOffset(groupElement("element"),
            groupElement("port_num"));

    /** Byte offset of {@code event_type} (8). */
    public static final long EVENT_TYPE_OFFSET = $LAYOUT.byteOffset(groupElement("event_type"));

    private ibv_async_event() {
    }

    /**
     * Returns the layout of {@code struct ibv_async_event}.
     *
     * @return the layout, 16 bytes
     */
    public static GroupLayout $LAYOUT() {
        return $LAYOUT;
    }

    /**
     * Returns the size of {@code struct ibv_async_event}.
     *
     * @return 16
     */
    public static long sizeof() {
        return $LAYOUT.byteSize();
    }

    /**
     * Allocates one zeroed {@code ibv_async_event}.
     *
     * @param allocator the allocator that owns the memory
     * @return a segment of {@link #sizeof()} bytes
     */
    public static MemorySegment allocate(SegmentAllocator allocator) {
        return allocator.allocate($LAYOUT);
    }

    /**
     * Reads {@code element} as an address: the CQ, QP, SRQ or WQ of the event, by its type.
     *
     * @param struct the struct segment
     * @return the address, 0 for a port or device event
     */
    public static long element(MemorySegment struct) {
        return struct.get(VerbsTypes.C_POINTER, ELEMENT_OFFSET).address();
    }

    /**
     * Reads {@code element.port_num}: the port of a port event.
     *
     * @param struct the struct segment
     * @return the port number, from 1
     */
    public static int element_port_num(MemorySegment struct) {
        return struct.get(VerbsTypes.C_INT, ELEMENT_PORT_NUM_OFFSET);
    }

    /**
     * Reads {@code event_type}.
     *
     * @param struct the struct segment
     * @return an {@link ibv_event_type} value
     */
    public static int event_type(MemorySegment struct) {
        return struct.get(VerbsTypes.C_INT, EVENT_TYPE_OFFSET);
    }
}
