package dev.ofl.api.wire;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ofl.api.Limits;
import dev.ofl.api.RefusalCode;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/** Golden bytes, round trips and every decode failure of the bootstrap messages (docs/PROTOCOL.md 3 and 11.1). */
class BootstrapTest {
    private static final ValueLayout.OfShort U16 = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfInt U32 = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final int BODY = Bootstrap.FRAME_LENGTH;

    /** PROTOCOL.md 11.1: HELLO for "lookup" with the client defaults. */
    private static final String HELLO = """
            4f 46 4c 42 01 00 01 00  46 00 00 00 00 00 00 00
            00 00 01 06 00 00 04 00  00 00 00 01 10 00 08 00
            00 00 00 00 00 00 00 00  00 00 00 00 00 00 00 00
            00 00 00 00 00 00 00 00  00 00 00 00 00 00 00 00
            00 00 00 00 00 00 00 00  00 00 00 00 00 00 00 00
            6c 6f 6f 6b 75 70
            """;
    /** PROTOCOL.md 11.1: the refusing WELCOME of a server whose maxInFlight maximum is 4. */
    private static final String REFUSING_WELCOME = """
            4f 46 4c 42 01 00 02 00  6a 00 00 00 00 00 00 00
            03 00 01 06 00 00 10 00  00 00 00 04 10 00 04 00
            00 00 00 00 00 00 00 00  00 00 00 00 00 00 00 00
            00 00 00 00 00 00 00 00  00 00 00 00 00 00 00 00
            00 00 00 00 00 00 00 00  24 00 00 00 00 00 00 00
            6c 6f 6f 6b 75 70 6d 61  78 49 6e 46 6c 69 67 68
            74 20 38 20 65 78 63 65  65 64 73 20 74 68 65 20
            73 65 72 76 65 72 27 73  20 34
            """;

    private static Bootstrap.Endpoint helloEndpoint() {
        return Bootstrap.Endpoint.tcp(RefusalCode.ACCEPTED, "lookup", Limits.CLIENT_DEFAULTS, "");
    }

    private static byte[] body(byte[] message) {
        return Arrays.copyOfRange(message, BODY, message.length);
    }

    private static Bootstrap.Endpoint roundTrip(int type, Bootstrap.Endpoint endpoint) throws ProtocolException {
        byte[] message = Bootstrap.encode(type, endpoint);
        Bootstrap.Frame frame = Bootstrap.decodeFrame(Arrays.copyOf(message, BODY), type);
        assertEquals(new Bootstrap.Frame(1, type, message.length - BODY), frame);
        return Bootstrap.decodeBody(body(message));
    }

    private static void assertFrameRefused(String field, byte[] frame, int expectedType) {
        ProtocolException e = assertThrows(ProtocolException.class, () -> Bootstrap.decodeFrame(frame, expectedType));
        assertEquals(field, e.field(), e::getMessage);
    }

    private static void assertBodyRefused(String field, byte[] body) {
        ProtocolException e = assertThrows(ProtocolException.class, () -> Bootstrap.decodeBody(body));
        assertEquals(field, e.field(), e::getMessage);
    }

    /** The golden HELLO's body with one u16 or u32 patched. */
    private static byte[] helloBodyWith(int offset, int value, boolean u32) {
        byte[] body = body(Hex.bytes(HELLO));
        if (u32) {
            MemorySegment.ofArray(body).set(U32, offset, value);
        } else {
            MemorySegment.ofArray(body).set(U16, offset, (short) value);
        }
        return body;
    }

    private static byte[] helloBodyWithByte(int offset, int value) {
        byte[] body = body(Hex.bytes(HELLO));
        body[offset] = (byte) value;
        return body;
    }

    @Test
    void helloEncodesToTheGoldenBytes() {
        byte[] hello = Bootstrap.encode(Bootstrap.HELLO, helloEndpoint());
        assertArrayEquals(Hex.bytes(HELLO), hello, () -> Hex.dump(hello));
        byte[] welcome = Bootstrap.encode(Bootstrap.WELCOME, helloEndpoint());
        byte[] expected = Hex.bytes(HELLO);
        expected[Bootstrap.FRAME_TYPE_OFFSET] = Bootstrap.WELCOME;
        assertArrayEquals(expected, welcome, "an accepting WELCOME differs from the HELLO only in its type");
    }

    @Test
    void helloDecodesFromTheGoldenBytes() throws ProtocolException {
        byte[] hello = Hex.bytes(HELLO);
        assertEquals(new Bootstrap.Frame(1, Bootstrap.HELLO, 70), Bootstrap.decodeFrame(hello, Bootstrap.HELLO));
        assertEquals(helloEndpoint(), Bootstrap.decodeBody(body(hello)));
    }

    @Test
    void refusingWelcomeMatchesTheGoldenBytes() throws ProtocolException {
        Bootstrap.Endpoint refusal = Bootstrap.Endpoint.tcp(RefusalCode.LIMITS_EXCEEDED, "lookup",
                new Limits(1 << 20, 64 << 20, 16, 4), "maxInFlight 8 exceeds the server's 4");
        byte[] welcome = Bootstrap.encode(Bootstrap.WELCOME, refusal);
        assertArrayEquals(Hex.bytes(REFUSING_WELCOME), welcome, () -> Hex.dump(welcome));
        assertEquals(refusal, Bootstrap.decodeBody(body(Hex.bytes(REFUSING_WELCOME))));
    }

    @Test
    void rdmaEndpointWithTextAndExtensionsRoundTrips() throws ProtocolException {
        byte[] gid = new byte[16];
        for (int i = 0; i < 16; i++) {
            gid[i] = (byte) (0xF0 + i);
        }
        byte[] extensions = Hex.bytes("01 00 03 00 aa bb cc  02 00 00 00");
        Bootstrap.Endpoint endpoint = new Bootstrap.Endpoint(RefusalCode.ACCEPTED, TransportKind.RDMA, "dienst-ü",
                new Limits(Limits.MAX_REQUEST_BYTES, Limits.MAX_RESPONSE_BYTES, Limits.MAX_RANGES, Limits.MAX_IN_FLIGHT),
                0x00ABCDEF, 0x00123456, gid, 4096, 0x00007F00DEADBEEFL, 0x0BADF00D, "grüße", extensions);
        assertEquals(endpoint, roundTrip(Bootstrap.WELCOME, endpoint));
        Bootstrap.Endpoint minimal = Bootstrap.Endpoint.tcp(RefusalCode.SERVER_BUSY, "x".repeat(64),
                new Limits(0, 0, 1, 1), "t".repeat(Bootstrap.MAX_TEXT_BYTES));
        assertEquals(minimal, roundTrip(Bootstrap.WELCOME, minimal));
        for (RefusalCode code : RefusalCode.values()) {
            assertEquals(code, roundTrip(Bootstrap.HELLO, Bootstrap.Endpoint.tcp(code, "s", Limits.CLIENT_DEFAULTS, ""))
                    .status());
        }
    }

    @Test
    void bodyOffsetsMatchTheFieldTable() {
        assertArrayEquals(new int[] {0, 2, 3, 4, 8, 12, 14, 16, 20, 24, 40, 44, 48, 56, 58, 60},
                new int[] {Bootstrap.STATUS_OFFSET, Bootstrap.TRANSPORT_OFFSET, Bootstrap.SERVICE_NAME_LENGTH_OFFSET,
                    Bootstrap.MAX_REQUEST_OFFSET, Bootstrap.MAX_RESPONSE_OFFSET, Bootstrap.MAX_RANGES_OFFSET,
                    Bootstrap.MAX_IN_FLIGHT_OFFSET, Bootstrap.QPN_OFFSET, Bootstrap.PSN_OFFSET, Bootstrap.GID_OFFSET,
                    Bootstrap.MTU_OFFSET, Bootstrap.RING_KEY_OFFSET, Bootstrap.RING_ADDRESS_OFFSET,
                    Bootstrap.TEXT_LENGTH_OFFSET, Bootstrap.EXTENSIONS_LENGTH_OFFSET, Bootstrap.BODY_RESERVED_OFFSET});
        assertArrayEquals(new int[] {0, 4, 6, 7, 8, 12}, new int[] {Bootstrap.FRAME_MAGIC_OFFSET,
            Bootstrap.FRAME_VERSION_OFFSET, Bootstrap.FRAME_TYPE_OFFSET, Bootstrap.FRAME_FLAGS_OFFSET,
            Bootstrap.FRAME_BODY_LENGTH_OFFSET, Bootstrap.FRAME_RESERVED_OFFSET});
        assertEquals(1664, Bootstrap.MAX_BODY_LENGTH);
    }

    @Test
    void aForeignVersionIsReturnedNotRefused() throws ProtocolException {
        byte[] frame = Arrays.copyOf(Hex.bytes(HELLO), BODY);
        MemorySegment.ofArray(frame).set(U16, Bootstrap.FRAME_VERSION_OFFSET, (short) 0xFFFF);
        assertEquals(0xFFFF, Bootstrap.decodeFrame(frame, Bootstrap.HELLO).version());
    }

    @Test
    void theVersionIsCheckedBeforeTheRulesOfVersionOne() throws ProtocolException {
        // PROTOCOL.md 9.1 and 12: a later version may have a longer body, other types and flags.
        byte[] frame = Arrays.copyOf(Hex.bytes(HELLO), BODY);
        MemorySegment.ofArray(frame).set(U16, Bootstrap.FRAME_VERSION_OFFSET, (short) 2);
        MemorySegment.ofArray(frame).set(U32, Bootstrap.FRAME_BODY_LENGTH_OFFSET, 100_000);
        frame[Bootstrap.FRAME_TYPE_OFFSET] = 9;
        frame[Bootstrap.FRAME_FLAGS_OFFSET] = 1;
        frame[Bootstrap.FRAME_RESERVED_OFFSET] = 1;
        assertEquals(new Bootstrap.Frame(2, 9, 100_000), Bootstrap.decodeFrame(frame, Bootstrap.HELLO));
        MemorySegment.ofArray(frame).set(U32, Bootstrap.FRAME_BODY_LENGTH_OFFSET, -1);
        assertEquals(Integer.MAX_VALUE, Bootstrap.decodeFrame(frame, Bootstrap.HELLO).bodyLength());
        frame[3] = 'X';
        assertFrameRefused("bootstrap magic", frame, Bootstrap.HELLO);
    }

    @Test
    void eachFrameFailureNamesItsField() {
        byte[] good = Arrays.copyOf(Hex.bytes(HELLO), BODY);
        assertFrameRefused("frame length", Arrays.copyOf(good, 15), Bootstrap.HELLO);

        byte[] magic = good.clone();
        magic[3] = 'X';
        assertFrameRefused("bootstrap magic", magic, Bootstrap.HELLO);

        assertFrameRefused("bootstrap type", good, Bootstrap.WELCOME);

        byte[] flags = good.clone();
        flags[Bootstrap.FRAME_FLAGS_OFFSET] = 1;
        assertFrameRefused("bootstrap flags", flags, Bootstrap.HELLO);

        for (long length : new long[] {0, 63, 1665, 0xFFFF_FFFFL}) {
            byte[] bodyLength = good.clone();
            MemorySegment.ofArray(bodyLength).set(U32, Bootstrap.FRAME_BODY_LENGTH_OFFSET, (int) length);
            assertFrameRefused("bootstrap body length", bodyLength, Bootstrap.HELLO);
        }
        for (int length : new int[] {64, 1664}) {
            byte[] bodyLength = good.clone();
            MemorySegment.ofArray(bodyLength).set(U32, Bootstrap.FRAME_BODY_LENGTH_OFFSET, length);
            assertTrue(assertDoesNotThrowFrame(bodyLength).bodyLength() == length);
        }

        byte[] reserved = good.clone();
        reserved[Bootstrap.FRAME_RESERVED_OFFSET + 3] = 1;
        assertFrameRefused("bootstrap frame reserved", reserved, Bootstrap.HELLO);
    }

    private static Bootstrap.Frame assertDoesNotThrowFrame(byte[] frame) {
        try {
            return Bootstrap.decodeFrame(frame, Bootstrap.HELLO);
        } catch (ProtocolException e) {
            throw new AssertionError("a valid frame was refused: " + e.getMessage(), e);
        }
    }

    @Test
    void eachBodyFailureNamesItsField() {
        assertBodyRefused("bootstrap body length", new byte[63]);
        assertBodyRefused("status", helloBodyWith(Bootstrap.STATUS_OFFSET, 12, false));
        assertBodyRefused("status", helloBodyWith(Bootstrap.STATUS_OFFSET, 0xFFFF, false));
        assertBodyRefused("transport", helloBodyWithByte(Bootstrap.TRANSPORT_OFFSET, 0));
        assertBodyRefused("transport", helloBodyWithByte(Bootstrap.TRANSPORT_OFFSET, 3));
        assertBodyRefused("service name length", helloBodyWithByte(Bootstrap.SERVICE_NAME_LENGTH_OFFSET, 0));
        assertBodyRefused("service name length", helloBodyWithByte(Bootstrap.SERVICE_NAME_LENGTH_OFFSET, 65));
        assertBodyRefused("max request bytes", helloBodyWith(Bootstrap.MAX_REQUEST_OFFSET, Limits.MAX_REQUEST_BYTES + 1, true));
        assertBodyRefused("max request bytes", helloBodyWith(Bootstrap.MAX_REQUEST_OFFSET, -1, true));
        assertBodyRefused("max response bytes",
                helloBodyWith(Bootstrap.MAX_RESPONSE_OFFSET, Limits.MAX_RESPONSE_BYTES + 1, true));
        assertBodyRefused("max response bytes", helloBodyWith(Bootstrap.MAX_RESPONSE_OFFSET, -1, true));
        assertBodyRefused("max ranges", helloBodyWith(Bootstrap.MAX_RANGES_OFFSET, 0, false));
        assertBodyRefused("max ranges", helloBodyWith(Bootstrap.MAX_RANGES_OFFSET, 17, false));
        assertBodyRefused("max in flight", helloBodyWith(Bootstrap.MAX_IN_FLIGHT_OFFSET, 0, false));
        assertBodyRefused("max in flight", helloBodyWith(Bootstrap.MAX_IN_FLIGHT_OFFSET, 1025, false));
        assertBodyRefused("text length", helloBodyWith(Bootstrap.TEXT_LENGTH_OFFSET, Bootstrap.MAX_TEXT_BYTES + 1, false));
        assertBodyRefused("extensions length",
                helloBodyWith(Bootstrap.EXTENSIONS_LENGTH_OFFSET, Bootstrap.MAX_EXTENSIONS_BYTES + 1, false));
        assertBodyRefused("body reserved", helloBodyWith(Bootstrap.BODY_RESERVED_OFFSET, 1, true));
        assertBodyRefused("bootstrap body length", Arrays.copyOf(body(Hex.bytes(HELLO)), 71));
        assertBodyRefused("bootstrap body length", Arrays.copyOf(body(Hex.bytes(HELLO)), 69));
    }

    @Test
    void invalidUtf8IsRefusedNamingTheField() {
        byte[] name = body(Hex.bytes(HELLO));
        name[Bootstrap.BODY_FIXED_LENGTH + 2] = (byte) 0xC3;
        assertBodyRefused("service name", name);

        byte[] text = Bootstrap.encode(Bootstrap.WELCOME,
                Bootstrap.Endpoint.tcp(RefusalCode.MALFORMED, "lookup", Limits.CLIENT_DEFAULTS, "abc"));
        text[text.length - 1] = (byte) 0xFF;
        assertBodyRefused("text", body(text));
    }

    @Test
    void extensionsRunningPastTheAreaAreRefused() {
        assertBodyRefused("extension length", body(withExtensions(Hex.bytes("01 00 05 00 aa bb cc dd"))));
        assertBodyRefused("extension length", body(withExtensions(Hex.bytes("01 00 00 00  02 00 01 00"))));
        assertBodyRefused("extension header", body(withExtensions(Hex.bytes("01 00 00 00  02 00"))));
    }

    /** A HELLO whose extension area holds raw bytes, bypassing the encoder's checks on extensions. */
    private static byte[] withExtensions(byte[] area) {
        byte[] hello = Hex.bytes(HELLO);
        byte[] message = Arrays.copyOf(hello, hello.length + area.length);
        System.arraycopy(area, 0, message, hello.length, area.length);
        MemorySegment segment = MemorySegment.ofArray(message);
        segment.set(U32, Bootstrap.FRAME_BODY_LENGTH_OFFSET, message.length - BODY);
        segment.set(U16, BODY + Bootstrap.EXTENSIONS_LENGTH_OFFSET, (short) area.length);
        return message;
    }

    @Test
    void criticalExtensionsAreFound() throws ProtocolException {
        assertEquals(-1, Bootstrap.firstCriticalExtension(new byte[0]));
        assertEquals(-1, Bootstrap.firstCriticalExtension(Hex.bytes("01 00 02 00 aa bb  ff 7f 00 00")));
        assertEquals(0x8002, Bootstrap.firstCriticalExtension(Hex.bytes("01 00 02 00 00 80  02 80 00 00  03 80 00 00")));
        byte[] message = withExtensions(Hex.bytes("05 00 01 00 00  01 80 00 00"));
        assertEquals(0x8001, Bootstrap.firstCriticalExtension(Bootstrap.decodeBody(body(message)).extensions()));
    }

    @Test
    void encodeRefusesVariablePartsTooLong() {
        Limits limits = Limits.CLIENT_DEFAULTS;
        assertThrows(IllegalArgumentException.class, () -> Bootstrap.encode(Bootstrap.HELLO,
                Bootstrap.Endpoint.tcp(RefusalCode.ACCEPTED, "", limits, "")));
        assertThrows(IllegalArgumentException.class, () -> Bootstrap.encode(Bootstrap.HELLO,
                Bootstrap.Endpoint.tcp(RefusalCode.ACCEPTED, "n".repeat(65), limits, "")));
        assertThrows(IllegalArgumentException.class, () -> Bootstrap.encode(Bootstrap.HELLO,
                new Bootstrap.Endpoint(RefusalCode.ACCEPTED, TransportKind.TCP, "s", limits, 0, 0, null, 0, 0, 0, "",
                        new byte[Bootstrap.MAX_EXTENSIONS_BYTES + 1])));
        assertThrows(IllegalArgumentException.class, () -> new Bootstrap.Endpoint(RefusalCode.ACCEPTED,
                TransportKind.RDMA, "s", limits, 0, 0, new byte[15], 0, 0, 0, "", null));
    }

    @Test
    void aLongAsciiTextIsCutTo512Bytes() throws ProtocolException {
        Bootstrap.Endpoint decoded = roundTrip(Bootstrap.WELCOME, Bootstrap.Endpoint.tcp(RefusalCode.MALFORMED, "s",
                Limits.CLIENT_DEFAULTS, "r".repeat(600)));
        assertEquals("r".repeat(512), decoded.text());
    }

    /** PROTOCOL.md 3.2: a text longer than 512 bytes is cut on a character boundary, so it still decodes. */
    @Test
    void aLongTextIsCutOnACharacterBoundary() throws ProtocolException {
        String[][] cases = {{"a".repeat(511) + "é", "a".repeat(511)}, {"a".repeat(510) + "€", "a".repeat(510)},
            {"a".repeat(509) + "😀", "a".repeat(509)}, {"a".repeat(510) + "é", "a".repeat(510) + "é"}};
        for (String[] textAndCut : cases) {
            Bootstrap.Endpoint decoded = roundTrip(Bootstrap.WELCOME, Bootstrap.Endpoint.tcp(RefusalCode.MALFORMED, "s",
                    Limits.CLIENT_DEFAULTS, textAndCut[0]));
            assertEquals(textAndCut[1], decoded.text());
        }
    }
}
