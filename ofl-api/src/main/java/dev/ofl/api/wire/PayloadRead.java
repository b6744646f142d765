package dev.ofl.api.wire;

import java.lang.foreign.MemorySegment;

/**
 * The wire format of large request payloads fetched by RDMA READ (docs/PROTOCOL.md 3.7 and 7.3).
 *
 * <p>A server must post a receive per in-flight request before its WELCOME, each big enough for
 * the largest REQUEST; with payloads sent inline that commits {@code max in flight × max request
 * bytes} to a client that may never send one. With this extension the receives hold small
 * requests only, and the server reads a larger payload from the client's send slot into memory it
 * borrows for that one request.
 *
 * <pre>
 * HELLO    ext 0x0002, empty           the client's send slots may be read remotely
 * WELCOME  ext 0x0002 = inline u32     payloads of at most this many bytes are sent inline
 * REQUEST  flags 0x0001                the 16 bytes after the header describe the payload
 *          (address u64, length u32, key u32, as a range descriptor); the ranges follow at 80
 * </pre>
 *
 * <p>Stateless.
 */
public final class PayloadRead {
    /** Extension type of the HELLO's offer and the WELCOME's answer: optional, bit 0x8000 clear. */
    public static final int EXTENSION_TYPE = 0x0002;
    /** Length of the WELCOME's record value: the inline limit, u32. */
    public static final int ANSWER_LENGTH = 4;
    /** The REQUEST header flag: the payload is not in the message but described after the header. */
    public static final int FLAG = 0x0001;
    /** Offset of the payload descriptor in a REQUEST with {@link #FLAG}. */
    public static final int DESCRIPTOR_OFFSET = MessageHeader.LENGTH;
    /** Offset of the range descriptors in a REQUEST with {@link #FLAG}. */
    public static final int RANGES_OFFSET = DESCRIPTOR_OFFSET + RangeDescriptor.LENGTH;
    /** The WELCOME carries no answer: every payload goes inline. */
    public static final long NOT_NEGOTIATED = -1;

    static {
        if (RANGES_OFFSET != 80 || Bootstrap.EXTENSION_CRITICAL != 0x8000) {
            throw new AssertionError("payload read layout does not add up");
        }
    }

    private PayloadRead() {
    }

    /**
     * The HELLO's offer.
     *
     * @return the record, type and an empty value
     */
    public static byte[] offer() {
        return PskExchange.record(EXTENSION_TYPE, new byte[0]);
    }

    /**
     * Whether a HELLO offers it. The offer's value is empty; a value is ignored, left for a later
     * version to give a meaning.
     *
     * @param extensions the HELLO's checked extension area
     * @return {@code true} if a record of the type is there
     * @throws ProtocolException if the record appears twice
     */
    public static boolean offered(byte[] extensions) throws ProtocolException {
        return Bootstrap.findExtension(extensions, EXTENSION_TYPE, "payload read offer") >= 0;
    }

    /**
     * The WELCOME's answer.
     *
     * @param inlineBytes the largest payload a REQUEST carries inline
     * @return the record
     */
    public static byte[] answer(int inlineBytes) {
        if (inlineBytes < 0) {
            throw new IllegalArgumentException("inline limit " + inlineBytes + " is negative");
        }
        MemorySegment value = MemorySegment.ofArray(new byte[ANSWER_LENGTH]);
        value.set(MessageHeader.U32_LE, 0, inlineBytes);
        return PskExchange.record(EXTENSION_TYPE, (byte[]) value.heapBase().orElseThrow());
    }

    /**
     * The inline limit a WELCOME answered with.
     *
     * @param extensions the WELCOME's checked extension area
     * @return the largest payload sent inline, or {@link #NOT_NEGOTIATED} if there is no answer
     * @throws ProtocolException if the record appears twice, or its value is not a u32
     */
    public static long inlineBytes(byte[] extensions) throws ProtocolException {
        int at = Bootstrap.findExtension(extensions, EXTENSION_TYPE, "payload read answer");
        if (at < 0) {
            return NOT_NEGOTIATED;
        }
        MemorySegment in = MemorySegment.ofArray(extensions);
        int length = Short.toUnsignedInt(in.get(MessageHeader.U16_LE, at + 2));
        if (length != ANSWER_LENGTH) {
            throw new ProtocolException("payload read answer length", length, "must be " + ANSWER_LENGTH);
        }
        return Integer.toUnsignedLong(in.get(MessageHeader.U32_LE, at + PskExchange.RECORD_HEADER_BYTES));
    }

    /**
     * The byte length of a REQUEST with {@link #FLAG}: header, payload descriptor, ranges.
     *
     * @param rangeCount the request's range count
     * @return {@code 80 + 16 × rangeCount}
     */
    public static long announcementLength(int rangeCount) {
        return RANGES_OFFSET + (long) RangeDescriptor.LENGTH * rangeCount;
    }
}
