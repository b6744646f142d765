package dev.ofl.api.wire;

import java.lang.foreign.MemorySegment;

/**
 * One 16-byte destination range descriptor of a REQUEST, little-endian.
 *
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  |                            address                            |  0
 *  |                                                               |
 *  +---------------------------------------------------------------+
 *  |                            length                             |  8
 *  +---------------------------------------------------------------+
 *  |                              key                              | 12
 *  +---------------------------------------------------------------+
 * </pre>
 *
 * <p>RDMA: {@code address} is the virtual address in the client's registered memory and {@code key}
 * its rkey. TCP: both are zero; only {@code length} is used.
 */
public final class RangeDescriptor {
    /** Descriptor size in bytes. */
    public static final int LENGTH = 16;
    /** Offset of {@code address} (u64). */
    public static final int ADDRESS_OFFSET = 0;
    /** Offset of {@code length} (u32). */
    public static final int LENGTH_OFFSET = ADDRESS_OFFSET + 8;
    /** Offset of {@code key} (u32). */
    public static final int KEY_OFFSET = LENGTH_OFFSET + 4;

    private RangeDescriptor() {
    }

    /**
     * Writes one descriptor.
     *
     * @param buffer the message buffer
     * @param offset where the descriptor starts
     * @param address the destination address (zero for TCP)
     * @param length the range's length in bytes
     * @param key the remote key (zero for TCP)
     */
    public static void write(MemorySegment buffer, long offset, long address, int length, int key) {
        buffer.set(MessageHeader.U64_LE, offset + ADDRESS_OFFSET, address);
        buffer.set(MessageHeader.U32_LE, offset + LENGTH_OFFSET, length);
        buffer.set(MessageHeader.U32_LE, offset + KEY_OFFSET, key);
    }

    /**
     * Reads a descriptor's address.
     *
     * @param buffer the message buffer
     * @param offset where the descriptor starts
     * @return the address
     */
    public static long address(MemorySegment buffer, long offset) {
        return buffer.get(MessageHeader.U64_LE, offset + ADDRESS_OFFSET);
    }

    /**
     * Reads a descriptor's length.
     *
     * @param buffer the message buffer
     * @param offset where the descriptor starts
     * @return the length, unsigned
     */
    public static long length(MemorySegment buffer, long offset) {
        return Integer.toUnsignedLong(buffer.get(MessageHeader.U32_LE, offset + LENGTH_OFFSET));
    }

    /**
     * Reads a descriptor's key.
     *
     * @param buffer the message buffer
     * @param offset where the descriptor starts
     * @return the key
     */
    public static int key(MemorySegment buffer, long offset) {
        return buffer.get(MessageHeader.U32_LE, offset + KEY_OFFSET);
    }
}
