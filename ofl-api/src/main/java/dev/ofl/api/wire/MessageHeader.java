package dev.ofl.api.wire;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/**
 * Flyweight over the 64-byte little-endian header that starts every data-path message. Wrap it
 * around a buffer once and reuse it; it allocates nothing.
 *
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  |                        magic "OFL1"                           |  0
 *  +---------------+---------------+-------------------------------+
 *  |    version    |     type      |             flags             |  4
 *  +---------------+---------------+-------------------------------+
 *  |                           sequence                            |  8
 *  |                                                               |
 *  +---------------------------------------------------------------+
 *  |                          generation                           | 16
 *  |                                                               |
 *  +---------------------------------------------------------------+
 *  |                              op                               | 24
 *  +---------------------------------------------------------------+
 *  |                        payload length                         | 28
 *  +-------------------------------+-------------------------------+
 *  |          range count          |           reserved            | 32
 *  +-------------------------------+-------------------------------+
 *  |                            status                             | 36
 *  +---------------------------------------------------------------+
 *  |                        handler status                         | 40
 *  +---------------------------------------------------------------+
 *  |                           reserved                            | 44
 *  +---------------------------------------------------------------+
 *  |                        response offset                        | 48
 *  |                                                               |
 *  +---------------------------------------------------------------+
 *  |                        response length                        | 56
 *  |                                                               |
 *  +---------------------------------------------------------------+
 * </pre>
 *
 * <p>A REQUEST is followed by its payload, zero padding to a multiple of 8, and
 * {@code range count} {@link RangeDescriptor}s; see {@link #requestLength(int, int)}.
 */
public final class MessageHeader {
    /** Header size in bytes. */
    public static final int LENGTH = 64;
    /** {@code "OFL1"} read as a little-endian 32-bit integer. */
    public static final int MAGIC = 0x314C464F;
    /** The protocol version this code speaks. */
    public static final int VERSION = 1;

    static final ValueLayout.OfByte U8 = ValueLayout.JAVA_BYTE;
    static final ValueLayout.OfShort U16_LE = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    static final ValueLayout.OfInt U32_LE = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    static final ValueLayout.OfLong U64_LE = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    /** Offset of {@code magic} (u32). */
    public static final int MAGIC_OFFSET = 0;
    /** Offset of {@code version} (u8). */
    public static final int VERSION_OFFSET = MAGIC_OFFSET + 4;
    /** Offset of {@code type} (u8). */
    public static final int TYPE_OFFSET = VERSION_OFFSET + 1;
    /** Offset of {@code flags} (u16; zero but for {@link PayloadRead#FLAG} in an RDMA REQUEST). */
    public static final int FLAGS_OFFSET = TYPE_OFFSET + 1;
    /** Offset of {@code sequence} (u64). */
    public static final int SEQUENCE_OFFSET = FLAGS_OFFSET + 2;
    /** Offset of {@code generation} (u64). */
    public static final int GENERATION_OFFSET = SEQUENCE_OFFSET + 8;
    /** Offset of {@code op} (u32). */
    public static final int OP_OFFSET = GENERATION_OFFSET + 8;
    /** Offset of {@code payload length} (u32). */
    public static final int PAYLOAD_LENGTH_OFFSET = OP_OFFSET + 4;
    /** Offset of {@code range count} (u16). */
    public static final int RANGE_COUNT_OFFSET = PAYLOAD_LENGTH_OFFSET + 4;
    /** Offset of the first reserved field (u16, zero). */
    public static final int RESERVED0_OFFSET = RANGE_COUNT_OFFSET + 2;
    /** Offset of {@code status} (i32). */
    public static final int STATUS_OFFSET = RESERVED0_OFFSET + 2;
    /** Offset of {@code handler status} (i32). */
    public static final int HANDLER_STATUS_OFFSET = STATUS_OFFSET + 4;
    /** Offset of the second reserved field (u32, zero). */
    public static final int RESERVED1_OFFSET = HANDLER_STATUS_OFFSET + 4;
    /** Offset of {@code response offset} (u64). */
    public static final int RESPONSE_OFFSET_OFFSET = RESERVED1_OFFSET + 4;
    /** Offset of {@code response length} (u64). */
    public static final int RESPONSE_LENGTH_OFFSET = RESPONSE_OFFSET_OFFSET + 8;

    static {
        if (RESPONSE_LENGTH_OFFSET + 8 != LENGTH) {
            throw new AssertionError("header fields do not add up to " + LENGTH + " bytes");
        }
    }

    private MemorySegment buffer;
    private long base;

    /** Creates an unwrapped flyweight. */
    public MessageHeader() {
    }

    /**
     * Points the flyweight at a header.
     *
     * @param buffer the memory holding the header
     * @param offset where the header starts in {@code buffer}
     * @return this flyweight
     */
    public MessageHeader wrap(MemorySegment buffer, long offset) {
        this.buffer = buffer;
        this.base = offset;
        return this;
    }

    /**
     * The wrapped buffer.
     *
     * @return the buffer
     */
    public MemorySegment buffer() {
        return buffer;
    }

    /**
     * Where the header starts in the wrapped buffer.
     *
     * @return the offset
     */
    public long offset() {
        return base;
    }

    /**
     * Bytes of a REQUEST message: header, payload padded to 8, and range descriptors.
     *
     * @param payloadLength payload bytes
     * @param rangeCount range descriptors
     * @return the message length in bytes
     */
    public static long requestLength(int payloadLength, int rangeCount) {
        return rangesOffset(payloadLength) + (long) rangeCount * RangeDescriptor.LENGTH;
    }

    /**
     * Where a REQUEST's range descriptors start, from the start of its header.
     *
     * @param payloadLength payload bytes
     * @return the offset of the first range descriptor
     */
    public static long rangesOffset(int payloadLength) {
        return LENGTH + ((Integer.toUnsignedLong(payloadLength) + 7) & ~7L);
    }

    /**
     * Writes the fixed fields of a version-1 header and zeroes the rest.
     *
     * @param type a {@link MessageType} value
     * @param sequence the request's sequence number
     * @return this flyweight
     */
    public MessageHeader reset(int type, long sequence) {
        // Eight stores rather than a slice and fill: this runs per message and must not allocate.
        for (int at = 0; at < LENGTH; at += 8) {
            buffer.set(U64_LE, base + at, 0L);
        }
        buffer.set(U32_LE, base + MAGIC_OFFSET, MAGIC);
        buffer.set(U8, base + VERSION_OFFSET, (byte) VERSION);
        buffer.set(U8, base + TYPE_OFFSET, (byte) type);
        buffer.set(U64_LE, base + SEQUENCE_OFFSET, sequence);
        return this;
    }

    /**
     * Reads {@code magic}.
     *
     * @return the raw value
     */
    public int magic() {
        return buffer.get(U32_LE, base + MAGIC_OFFSET);
    }

    /**
     * Reads {@code version}.
     *
     * @return the version, unsigned
     */
    public int version() {
        return Byte.toUnsignedInt(buffer.get(U8, base + VERSION_OFFSET));
    }

    /**
     * Reads {@code type}.
     *
     * @return a {@link MessageType} value, unchecked
     */
    public int type() {
        return Byte.toUnsignedInt(buffer.get(U8, base + TYPE_OFFSET));
    }

    /**
     * Reads {@code flags}.
     *
     * @return the flags, unsigned
     */
    public int flags() {
        return Short.toUnsignedInt(buffer.get(U16_LE, base + FLAGS_OFFSET));
    }

    /**
     * Writes {@code flags}.
     *
     * @param flags the value, unsigned 16 bits
     * @return this flyweight
     */
    public MessageHeader flags(int flags) {
        buffer.set(U16_LE, base + FLAGS_OFFSET, (short) flags);
        return this;
    }

    /**
     * Reads {@code sequence}.
     *
     * @return the sequence number
     */
    public long sequence() {
        return buffer.get(U64_LE, base + SEQUENCE_OFFSET);
    }

    /**
     * Reads {@code generation}.
     *
     * @return the generation
     */
    public long generation() {
        return buffer.get(U64_LE, base + GENERATION_OFFSET);
    }

    /**
     * Writes {@code generation}.
     *
     * @param generation the value
     * @return this flyweight
     */
    public MessageHeader generation(long generation) {
        buffer.set(U64_LE, base + GENERATION_OFFSET, generation);
        return this;
    }

    /**
     * Reads {@code op}.
     *
     * @return the op
     */
    public int op() {
        return buffer.get(U32_LE, base + OP_OFFSET);
    }

    /**
     * Writes {@code op}.
     *
     * @param op the value
     * @return this flyweight
     */
    public MessageHeader op(int op) {
        buffer.set(U32_LE, base + OP_OFFSET, op);
        return this;
    }

    /**
     * Reads {@code payload length}.
     *
     * @return the length, unsigned
     */
    public long payloadLength() {
        return Integer.toUnsignedLong(buffer.get(U32_LE, base + PAYLOAD_LENGTH_OFFSET));
    }

    /**
     * Writes {@code payload length}.
     *
     * @param length the value
     * @return this flyweight
     */
    public MessageHeader payloadLength(int length) {
        buffer.set(U32_LE, base + PAYLOAD_LENGTH_OFFSET, length);
        return this;
    }

    /**
     * Reads {@code range count}.
     *
     * @return the count, unsigned
     */
    public int rangeCount() {
        return Short.toUnsignedInt(buffer.get(U16_LE, base + RANGE_COUNT_OFFSET));
    }

    /**
     * Writes {@code range count}.
     *
     * @param count the value
     * @return this flyweight
     */
    public MessageHeader rangeCount(int count) {
        buffer.set(U16_LE, base + RANGE_COUNT_OFFSET, (short) count);
        return this;
    }

    /**
     * Reads {@code status}.
     *
     * @return the status
     */
    public int status() {
        return buffer.get(U32_LE, base + STATUS_OFFSET);
    }

    /**
     * Writes {@code status}.
     *
     * @param status a {@link WireStatus} value
     * @return this flyweight
     */
    public MessageHeader status(int status) {
        buffer.set(U32_LE, base + STATUS_OFFSET, status);
        return this;
    }

    /**
     * Reads {@code handler status}.
     *
     * @return the handler's status
     */
    public int handlerStatus() {
        return buffer.get(U32_LE, base + HANDLER_STATUS_OFFSET);
    }

    /**
     * Writes {@code handler status}.
     *
     * @param handlerStatus the value
     * @return this flyweight
     */
    public MessageHeader handlerStatus(int handlerStatus) {
        buffer.set(U32_LE, base + HANDLER_STATUS_OFFSET, handlerStatus);
        return this;
    }

    /**
     * Reads {@code response offset}.
     *
     * @return the offset
     */
    public long responseOffset() {
        return buffer.get(U64_LE, base + RESPONSE_OFFSET_OFFSET);
    }

    /**
     * Writes {@code response offset}.
     *
     * @param offset the value
     * @return this flyweight
     */
    public MessageHeader responseOffset(long offset) {
        buffer.set(U64_LE, base + RESPONSE_OFFSET_OFFSET, offset);
        return this;
    }

    /**
     * Reads {@code response length}.
     *
     * @return the length
     */
    public long responseLength() {
        return buffer.get(U64_LE, base + RESPONSE_LENGTH_OFFSET);
    }

    /**
     * Writes {@code response length}.
     *
     * @param length the value
     * @return this flyweight
     */
    public MessageHeader responseLength(long length) {
        buffer.set(U64_LE, base + RESPONSE_LENGTH_OFFSET, length);
        return this;
    }

    int reserved0() {
        return Short.toUnsignedInt(buffer.get(U16_LE, base + RESERVED0_OFFSET));
    }

    int reserved1() {
        return buffer.get(U32_LE, base + RESERVED1_OFFSET);
    }
}
