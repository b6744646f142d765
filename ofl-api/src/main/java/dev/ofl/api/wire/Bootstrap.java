package dev.ofl.api.wire;

import dev.ofl.api.Limits;
import dev.ofl.api.RefusalCode;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Objects;

/**
 * The bootstrap messages exchanged over TCP before the data path: the client's HELLO and the
 * server's WELCOME. Both share one frame and one body layout; a WELCOME's {@code status} says
 * whether the server accepted.
 *
 * <pre>
 * Frame (16 bytes, little-endian), then the body:
 *   0 magic "OFLB" u32 | 4 version u16 | 6 type u8 | 7 flags u8 | 8 body length u32 | 12 reserved u32
 *
 * Body (64 fixed bytes, then variable parts):
 *   0 status u16          | 2 transport u8      | 3 service name length u8
 *   4 max request bytes u32                     | 8 max response bytes u32
 *  12 max ranges u16      | 14 max in flight u16
 *  16 qpn u32             | 20 psn u32
 *  24 gid [16]
 *  40 mtu u32             | 44 ring key u32
 *  48 ring address u64
 *  56 text length u16     | 58 extensions length u16 | 60 reserved u32
 *  64 service name (UTF-8), text (UTF-8), extensions (TLV: type u16, length u16, value)
 * </pre>
 *
 * <p>The peer-authentication frames ({@link #AUTH_CHALLENGE}, {@link #AUTH_PROOF}) share the
 * frame and carry a {@value #AUTH_BODY_LENGTH}-byte body; {@link PskExchange} defines them.
 *
 * <p>Not on the hot path: it allocates freely. Decoding checks every field and throws
 * {@link ProtocolException} naming the first one that fails.
 */
public final class Bootstrap {
    /** {@code "OFLB"} read as a little-endian 32-bit integer. */
    public static final int MAGIC = 0x424C464F;
    /** Frame type of the client's first message. */
    public static final int HELLO = 1;
    /** Frame type of the server's answer. */
    public static final int WELCOME = 2;
    /** Frame type of the server's authentication challenge ({@link PskExchange}). */
    public static final int AUTH_CHALLENGE = 3;
    /** Frame type of the client's authentication proof ({@link PskExchange}). */
    public static final int AUTH_PROOF = 4;
    /** Body length of an {@link #AUTH_CHALLENGE} or {@link #AUTH_PROOF} frame: one nonce or one MAC. */
    public static final int AUTH_BODY_LENGTH = 32;
    /** Frame header size in bytes. */
    public static final int FRAME_LENGTH = 16;
    /** Fixed body size in bytes. */
    public static final int BODY_FIXED_LENGTH = 64;
    /** Longest reason text in a WELCOME, in bytes. */
    public static final int MAX_TEXT_BYTES = 512;
    /** Longest extension area, in bytes. */
    public static final int MAX_EXTENSIONS_BYTES = 1024;
    /** Longest body a receiver accepts. */
    public static final int MAX_BODY_LENGTH = BODY_FIXED_LENGTH + 64 + MAX_TEXT_BYTES + MAX_EXTENSIONS_BYTES;
    /** Extension types with this bit set must be understood by the receiver or the peer is refused. */
    public static final int EXTENSION_CRITICAL = 0x8000;

    /** Offset of the frame's {@code magic}. */
    public static final int FRAME_MAGIC_OFFSET = 0;
    /** Offset of the frame's {@code version}. */
    public static final int FRAME_VERSION_OFFSET = FRAME_MAGIC_OFFSET + 4;
    /** Offset of the frame's {@code type}. */
    public static final int FRAME_TYPE_OFFSET = FRAME_VERSION_OFFSET + 2;
    /** Offset of the frame's {@code flags}. */
    public static final int FRAME_FLAGS_OFFSET = FRAME_TYPE_OFFSET + 1;
    /** Offset of the frame's {@code body length}. */
    public static final int FRAME_BODY_LENGTH_OFFSET = FRAME_FLAGS_OFFSET + 1;
    /** Offset of the frame's reserved field. */
    public static final int FRAME_RESERVED_OFFSET = FRAME_BODY_LENGTH_OFFSET + 4;

    /** Offset of the body's {@code status}. */
    public static final int STATUS_OFFSET = 0;
    /** Offset of the body's {@code transport}. */
    public static final int TRANSPORT_OFFSET = STATUS_OFFSET + 2;
    /** Offset of the body's {@code service name length}. */
    public static final int SERVICE_NAME_LENGTH_OFFSET = TRANSPORT_OFFSET + 1;
    /** Offset of the body's {@code max request bytes}. */
    public static final int MAX_REQUEST_OFFSET = SERVICE_NAME_LENGTH_OFFSET + 1;
    /** Offset of the body's {@code max response bytes}. */
    public static final int MAX_RESPONSE_OFFSET = MAX_REQUEST_OFFSET + 4;
    /** Offset of the body's {@code max ranges}. */
    public static final int MAX_RANGES_OFFSET = MAX_RESPONSE_OFFSET + 4;
    /** Offset of the body's {@code max in flight}. */
    public static final int MAX_IN_FLIGHT_OFFSET = MAX_RANGES_OFFSET + 2;
    /** Offset of the body's {@code qpn}. */
    public static final int QPN_OFFSET = MAX_IN_FLIGHT_OFFSET + 2;
    /** Offset of the body's {@code psn}. */
    public static final int PSN_OFFSET = QPN_OFFSET + 4;
    /** Offset of the body's {@code gid}. */
    public static final int GID_OFFSET = PSN_OFFSET + 4;
    /** Offset of the body's {@code mtu}. */
    public static final int MTU_OFFSET = GID_OFFSET + 16;
    /** Offset of the body's {@code ring key}. */
    public static final int RING_KEY_OFFSET = MTU_OFFSET + 4;
    /** Offset of the body's {@code ring address}. */
    public static final int RING_ADDRESS_OFFSET = RING_KEY_OFFSET + 4;
    /** Offset of the body's {@code text length}. */
    public static final int TEXT_LENGTH_OFFSET = RING_ADDRESS_OFFSET + 8;
    /** Offset of the body's {@code extensions length}. */
    public static final int EXTENSIONS_LENGTH_OFFSET = TEXT_LENGTH_OFFSET + 2;
    /** Offset of the body's reserved field. */
    public static final int BODY_RESERVED_OFFSET = EXTENSIONS_LENGTH_OFFSET + 2;

    static {
        if (BODY_RESERVED_OFFSET + 4 != BODY_FIXED_LENGTH || FRAME_RESERVED_OFFSET + 4 != FRAME_LENGTH) {
            throw new AssertionError("bootstrap layout does not add up");
        }
    }

    private Bootstrap() {
    }

    /**
     * One side's bootstrap parameters: a HELLO's or a WELCOME's body.
     *
     * @param status {@link RefusalCode#ACCEPTED} in a HELLO and an accepting WELCOME
     * @param transport a {@link TransportKind} value
     * @param serviceName the service name
     * @param limits proposed (HELLO) or accepted (WELCOME) limits; in a refusing WELCOME the
     *     server's maxima
     * @param qpn RDMA queue-pair number, zero for TCP
     * @param psn RDMA initial packet sequence number (24 bits), zero for TCP
     * @param gid RDMA GID (16 bytes), zeros for TCP
     * @param mtu RDMA active path MTU in bytes, zero for TCP
     * @param ringAddress RDMA address of the client's completion ring, zero otherwise
     * @param ringKey RDMA rkey of the client's completion ring, zero otherwise
     * @param text the reason of a refusal, empty otherwise
     * @param extensions TLV extension bytes, empty in version 1
     */
    public record Endpoint(RefusalCode status, int transport, String serviceName, Limits limits, int qpn, int psn,
            byte[] gid, int mtu, long ringAddress, int ringKey, String text, byte[] extensions) {
        /** Checks sizes. */
        public Endpoint {
            Objects.requireNonNull(status, "status");
            Objects.requireNonNull(serviceName, "serviceName");
            Objects.requireNonNull(limits, "limits");
            gid = gid == null ? new byte[16] : gid.clone();
            if (gid.length != 16) {
                throw new IllegalArgumentException("a GID has 16 bytes, not " + gid.length);
            }
            text = text == null ? "" : text;
            extensions = extensions == null ? new byte[0] : extensions.clone();
        }

        /**
         * A TCP endpoint with no RDMA parameters.
         *
         * @param status the status
         * @param serviceName the service name
         * @param limits the limits
         * @param text a reason, or empty
         * @return the endpoint
         */
        public static Endpoint tcp(RefusalCode status, String serviceName, Limits limits, String text) {
            return new Endpoint(status, TransportKind.TCP, serviceName, limits, 0, 0, null, 0, 0, 0, text, null);
        }

        /**
         * The GID.
         *
         * @return a copy of the 16 GID bytes
         */
        @Override
        public byte[] gid() {
            return gid.clone();
        }

        /**
         * The extension area.
         *
         * @return a copy of the TLV bytes
         */
        @Override
        public byte[] extensions() {
            return extensions.clone();
        }

        @Override
        public boolean equals(Object other) {
            return other instanceof Endpoint e && status == e.status && transport == e.transport
                    && serviceName.equals(e.serviceName) && limits.equals(e.limits) && qpn == e.qpn
                    && psn == e.psn && Arrays.equals(gid, e.gid) && mtu == e.mtu && ringAddress == e.ringAddress
                    && ringKey == e.ringKey && text.equals(e.text) && Arrays.equals(extensions, e.extensions);
        }

        @Override
        public int hashCode() {
            return Objects.hash(status, transport, serviceName, limits, qpn, psn, Arrays.hashCode(gid), mtu,
                    ringAddress, ringKey, text, Arrays.hashCode(extensions));
        }

        @Override
        public String toString() {
            return "Endpoint[status=" + status + ", transport=" + TransportKind.name(transport) + ", service='"
                    + PeerText.escape(serviceName) + "', " + limits + ", qpn=" + qpn + ", mtu=" + mtu
                    + (text.isEmpty() ? "" : ", text='" + PeerText.escape(text) + "'") + "]";
        }
    }

    /**
     * Encodes a whole message, frame and body.
     *
     * @param type {@link #HELLO} or {@link #WELCOME}
     * @param endpoint the body
     * @return the bytes to send
     * @throws IllegalArgumentException if a variable part is too long
     */
    public static byte[] encode(int type, Endpoint endpoint) {
        byte[] name = endpoint.serviceName().getBytes(StandardCharsets.UTF_8);
        byte[] text = PeerText.cutUtf8(endpoint.text().getBytes(StandardCharsets.UTF_8), MAX_TEXT_BYTES);
        byte[] extensions = endpoint.extensions();
        if (name.length == 0 || name.length > 64 || extensions.length > MAX_EXTENSIONS_BYTES) {
            throw new IllegalArgumentException("service name or extensions too long");
        }
        int bodyLength = BODY_FIXED_LENGTH + name.length + text.length + extensions.length;
        MemorySegment out = MemorySegment.ofArray(new byte[FRAME_LENGTH + bodyLength]);
        out.set(MessageHeader.U32_LE, FRAME_MAGIC_OFFSET, MAGIC);
        out.set(MessageHeader.U16_LE, FRAME_VERSION_OFFSET, (short) MessageHeader.VERSION);
        out.set(MessageHeader.U8, FRAME_TYPE_OFFSET, (byte) type);
        out.set(MessageHeader.U32_LE, FRAME_BODY_LENGTH_OFFSET, bodyLength);
        MemorySegment body = out.asSlice(FRAME_LENGTH);
        Limits limits = endpoint.limits();
        body.set(MessageHeader.U16_LE, STATUS_OFFSET, (short) endpoint.status().wire());
        body.set(MessageHeader.U8, TRANSPORT_OFFSET, (byte) endpoint.transport());
        body.set(MessageHeader.U8, SERVICE_NAME_LENGTH_OFFSET, (byte) name.length);
        body.set(MessageHeader.U32_LE, MAX_REQUEST_OFFSET, limits.maxRequestBytes());
        body.set(MessageHeader.U32_LE, MAX_RESPONSE_OFFSET, limits.maxResponseBytes());
        body.set(MessageHeader.U16_LE, MAX_RANGES_OFFSET, (short) limits.maxRanges());
        body.set(MessageHeader.U16_LE, MAX_IN_FLIGHT_OFFSET, (short) limits.maxInFlight());
        body.set(MessageHeader.U32_LE, QPN_OFFSET, endpoint.qpn());
        body.set(MessageHeader.U32_LE, PSN_OFFSET, endpoint.psn());
        MemorySegment.copy(MemorySegment.ofArray(endpoint.gid()), 0, body, GID_OFFSET, 16);
        body.set(MessageHeader.U32_LE, MTU_OFFSET, endpoint.mtu());
        body.set(MessageHeader.U32_LE, RING_KEY_OFFSET, endpoint.ringKey());
        body.set(MessageHeader.U64_LE, RING_ADDRESS_OFFSET, endpoint.ringAddress());
        body.set(MessageHeader.U16_LE, TEXT_LENGTH_OFFSET, (short) text.length);
        body.set(MessageHeader.U16_LE, EXTENSIONS_LENGTH_OFFSET, (short) extensions.length);
        long at = BODY_FIXED_LENGTH;
        MemorySegment.copy(MemorySegment.ofArray(name), 0, body, at, name.length);
        at += name.length;
        MemorySegment.copy(MemorySegment.ofArray(text), 0, body, at, text.length);
        at += text.length;
        MemorySegment.copy(MemorySegment.ofArray(extensions), 0, body, at, extensions.length);
        return (byte[]) out.heapBase().orElseThrow();
    }

    /**
     * A checked frame header.
     *
     * @param version the sender's protocol version
     * @param type the frame type, for example {@link #HELLO} or {@link #WELCOME}
     * @param bodyLength body bytes that follow
     */
    public record Frame(int version, int type, int bodyLength) {
    }

    /**
     * Encodes a frame of our version with the given type and body, for the frames whose body is
     * not a HELLO/WELCOME body ({@link #AUTH_CHALLENGE}, {@link #AUTH_PROOF}).
     *
     * @param type the frame type
     * @param body the body
     * @return frame and body
     */
    public static byte[] encodeFrame(int type, byte[] body) {
        MemorySegment out = MemorySegment.ofArray(new byte[FRAME_LENGTH + body.length]);
        out.set(MessageHeader.U32_LE, FRAME_MAGIC_OFFSET, MAGIC);
        out.set(MessageHeader.U16_LE, FRAME_VERSION_OFFSET, (short) MessageHeader.VERSION);
        out.set(MessageHeader.U8, FRAME_TYPE_OFFSET, (byte) type);
        out.set(MessageHeader.U32_LE, FRAME_BODY_LENGTH_OFFSET, body.length);
        MemorySegment.copy(MemorySegment.ofArray(body), 0, out, FRAME_LENGTH, body.length);
        return (byte[]) out.heapBase().orElseThrow();
    }

    /**
     * Reads and checks a frame header. The version is checked right after the magic, and a
     * version other than ours is returned, not refused, without checking the other fields, whose
     * rules belong to that version: so that the receiver can answer a future version with
     * {@link RefusalCode#VERSION_MISMATCH} however long its body is. The body of such a frame is
     * not to be read; its {@link Frame#bodyLength()} is what the frame says, capped at
     * {@link Integer#MAX_VALUE}.
     *
     * @param frame the first {@value #FRAME_LENGTH} bytes
     * @param expectedType the frame type expected here
     * @return the frame
     * @throws ProtocolException naming the field that fails its check
     */
    public static Frame decodeFrame(byte[] frame, int expectedType) throws ProtocolException {
        return decodeFrame(frame, expectedType, expectedType);
    }

    /**
     * Reads and checks a frame header that may be of either of two types, as
     * {@link #decodeFrame(byte[], int)} does for one. The body length is checked against the
     * type's rule: {@value #BODY_FIXED_LENGTH}..{@link #MAX_BODY_LENGTH} for a HELLO or WELCOME,
     * exactly {@value #AUTH_BODY_LENGTH} for the authentication frames.
     *
     * @param frame the first {@value #FRAME_LENGTH} bytes
     * @param expectedType a frame type expected here
     * @param otherType the other frame type expected here (may equal {@code expectedType})
     * @return the frame
     * @throws ProtocolException naming the field that fails its check
     */
    public static Frame decodeFrame(byte[] frame, int expectedType, int otherType) throws ProtocolException {
        if (frame.length < FRAME_LENGTH) {
            throw new ProtocolException("frame length", frame.length, "a frame header has " + FRAME_LENGTH + " bytes");
        }
        MemorySegment in = MemorySegment.ofArray(frame);
        int magic = in.get(MessageHeader.U32_LE, FRAME_MAGIC_OFFSET);
        if (magic != MAGIC) {
            throw new ProtocolException("bootstrap magic", Integer.toUnsignedLong(magic),
                    "expected 0x" + Integer.toHexString(MAGIC) + " (\"OFLB\"); is the peer an ofl endpoint?");
        }
        int version = Short.toUnsignedInt(in.get(MessageHeader.U16_LE, FRAME_VERSION_OFFSET));
        int type = Byte.toUnsignedInt(in.get(MessageHeader.U8, FRAME_TYPE_OFFSET));
        long bodyLength = Integer.toUnsignedLong(in.get(MessageHeader.U32_LE, FRAME_BODY_LENGTH_OFFSET));
        if (version != MessageHeader.VERSION) {
            return new Frame(version, type, (int) Math.min(bodyLength, Integer.MAX_VALUE));
        }
        if (type != expectedType && type != otherType) {
            throw new ProtocolException("bootstrap type", type, "expected " + expectedType
                    + (otherType == expectedType ? "" : " or " + otherType));
        }
        int flags = Byte.toUnsignedInt(in.get(MessageHeader.U8, FRAME_FLAGS_OFFSET));
        if (flags != 0) {
            throw new ProtocolException("bootstrap flags", flags, "must be zero");
        }
        if (type == AUTH_CHALLENGE || type == AUTH_PROOF) {
            if (bodyLength != AUTH_BODY_LENGTH) {
                throw new ProtocolException("bootstrap body length", bodyLength,
                        "must be " + AUTH_BODY_LENGTH + " for frame type " + type);
            }
        } else if (bodyLength < BODY_FIXED_LENGTH || bodyLength > MAX_BODY_LENGTH) {
            throw new ProtocolException("bootstrap body length", bodyLength,
                    "must be " + BODY_FIXED_LENGTH + ".." + MAX_BODY_LENGTH);
        }
        int reserved = in.get(MessageHeader.U32_LE, FRAME_RESERVED_OFFSET);
        if (reserved != 0) {
            throw new ProtocolException("bootstrap frame reserved", reserved, "must be zero");
        }
        return new Frame(version, type, (int) bodyLength);
    }

    /**
     * Reads and checks a body.
     *
     * @param body exactly the frame's body length of bytes
     * @return the endpoint
     * @throws ProtocolException naming the first field that fails its check
     */
    public static Endpoint decodeBody(byte[] body) throws ProtocolException {
        if (body.length < BODY_FIXED_LENGTH) {
            throw new ProtocolException("bootstrap body length", body.length, "at least " + BODY_FIXED_LENGTH);
        }
        MemorySegment in = MemorySegment.ofArray(body);
        int statusWire = Short.toUnsignedInt(in.get(MessageHeader.U16_LE, STATUS_OFFSET));
        RefusalCode status = RefusalCode.fromWire(statusWire);
        if (status == null) {
            throw new ProtocolException("status", statusWire, "not a known refusal code");
        }
        int transport = Byte.toUnsignedInt(in.get(MessageHeader.U8, TRANSPORT_OFFSET));
        if (transport != TransportKind.TCP && transport != TransportKind.RDMA && transport != TransportKind.IN_PROCESS) {
            throw new ProtocolException("transport", transport, "must be 1 (tcp), 2 (rdma) or 127 (in-process)");
        }
        int nameLength = Byte.toUnsignedInt(in.get(MessageHeader.U8, SERVICE_NAME_LENGTH_OFFSET));
        if (nameLength < 1 || nameLength > 64) {
            throw new ProtocolException("service name length", nameLength, "must be 1..64");
        }
        long maxRequest = Integer.toUnsignedLong(in.get(MessageHeader.U32_LE, MAX_REQUEST_OFFSET));
        long maxResponse = Integer.toUnsignedLong(in.get(MessageHeader.U32_LE, MAX_RESPONSE_OFFSET));
        int maxRanges = Short.toUnsignedInt(in.get(MessageHeader.U16_LE, MAX_RANGES_OFFSET));
        int maxInFlight = Short.toUnsignedInt(in.get(MessageHeader.U16_LE, MAX_IN_FLIGHT_OFFSET));
        checkRange("max request bytes", maxRequest, 0, Limits.MAX_REQUEST_BYTES);
        checkRange("max response bytes", maxResponse, 0, Limits.MAX_RESPONSE_BYTES);
        checkRange("max ranges", maxRanges, 1, Limits.MAX_RANGES);
        checkRange("max in flight", maxInFlight, 1, Limits.MAX_IN_FLIGHT);
        Limits limits = new Limits((int) maxRequest, (int) maxResponse, maxRanges, maxInFlight);
        int qpn = in.get(MessageHeader.U32_LE, QPN_OFFSET);
        int psn = in.get(MessageHeader.U32_LE, PSN_OFFSET);
        byte[] gid = in.asSlice(GID_OFFSET, 16).toArray(MessageHeader.U8);
        int mtu = in.get(MessageHeader.U32_LE, MTU_OFFSET);
        int ringKey = in.get(MessageHeader.U32_LE, RING_KEY_OFFSET);
        long ringAddress = in.get(MessageHeader.U64_LE, RING_ADDRESS_OFFSET);
        int textLength = Short.toUnsignedInt(in.get(MessageHeader.U16_LE, TEXT_LENGTH_OFFSET));
        int extensionsLength = Short.toUnsignedInt(in.get(MessageHeader.U16_LE, EXTENSIONS_LENGTH_OFFSET));
        checkRange("text length", textLength, 0, MAX_TEXT_BYTES);
        checkRange("extensions length", extensionsLength, 0, MAX_EXTENSIONS_BYTES);
        int reserved = in.get(MessageHeader.U32_LE, BODY_RESERVED_OFFSET);
        if (reserved != 0) {
            throw new ProtocolException("body reserved", reserved, "must be zero");
        }
        long expected = (long) BODY_FIXED_LENGTH + nameLength + textLength + extensionsLength;
        if (expected != body.length) {
            throw new ProtocolException("bootstrap body length", body.length,
                    "the variable parts add up to " + expected);
        }
        int at = BODY_FIXED_LENGTH;
        String name = utf8("service name", body, at, nameLength);
        at += nameLength;
        String text = utf8("text", body, at, textLength);
        at += textLength;
        byte[] extensions = Arrays.copyOfRange(body, at, at + extensionsLength);
        checkExtensions(extensions);
        return new Endpoint(status, transport, name, limits, qpn, psn, gid, mtu, ringAddress, ringKey, text,
                extensions);
    }

    /**
     * Returns the first critical extension type in an extension area. A receiver calls it after
     * taking out the records it understands (version 1 defines one: {@link PskExchange}).
     *
     * @param extensions a checked extension area
     * @return the type, or -1 if no extension is critical
     */
    public static int firstCriticalExtension(byte[] extensions) {
        MemorySegment in = MemorySegment.ofArray(extensions);
        for (int at = 0; at < extensions.length; ) {
            int type = Short.toUnsignedInt(in.get(MessageHeader.U16_LE, at));
            int length = Short.toUnsignedInt(in.get(MessageHeader.U16_LE, at + 2));
            if ((type & EXTENSION_CRITICAL) != 0) {
                return type;
            }
            at += 4 + length;
        }
        return -1;
    }

    /**
     * Finds the one record of a type in a checked extension area.
     *
     * @param extensions an area already checked by {@link #decodeBody}
     * @param type the record type
     * @param field what the record is, for the violation's field name
     * @return the record's offset in the area, or -1 if there is none
     * @throws ProtocolException if the type appears more than once
     */
    public static int findExtension(byte[] extensions, int type, String field) throws ProtocolException {
        MemorySegment in = MemorySegment.ofArray(extensions);
        int found = -1;
        for (int at = 0; at < extensions.length; ) {
            if (Short.toUnsignedInt(in.get(MessageHeader.U16_LE, at)) == type) {
                if (found >= 0) {
                    throw new ProtocolException(field + " count", 2, "must appear at most once");
                }
                found = at;
            }
            at += 4 + Short.toUnsignedInt(in.get(MessageHeader.U16_LE, at + 2));
        }
        return found;
    }

    private static void checkExtensions(byte[] extensions) throws ProtocolException {
        MemorySegment in = MemorySegment.ofArray(extensions);
        int at = 0;
        while (at < extensions.length) {
            if (extensions.length - at < 4) {
                throw new ProtocolException("extension header", extensions.length - at, "needs 4 bytes");
            }
            int length = Short.toUnsignedInt(in.get(MessageHeader.U16_LE, at + 2));
            if (length > extensions.length - at - 4) {
                throw new ProtocolException("extension length", length, "runs past the extension area");
            }
            at += 4 + length;
        }
    }

    private static void checkRange(String field, long value, long min, long max) throws ProtocolException {
        if (value < min || value > max) {
            throw new ProtocolException(field, value, "must be " + min + ".." + max);
        }
    }

    private static String utf8(String field, byte[] bytes, int offset, int length) throws ProtocolException {
        try {
            return StandardCharsets.UTF_8.newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(bytes, offset, length))
                    .toString();
        } catch (CharacterCodingException e) {
            throw new ProtocolException(field, length, "is not valid UTF-8");
        }
    }
}
