package dev.ofl.api.wire;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/** Golden bytes of the 64-byte data-path header (docs/PROTOCOL.md 4.1 and 11.2 to 11.3). */
class MessageHeaderTest {
    /** The REQUEST header of PROTOCOL.md 11.2: sequence 2, generation 42, op 1, 64-byte payload, 1 range. */
    private static final String REQUEST = """
            4f 46 4c 31 01 01 00 00  02 00 00 00 00 00 00 00
            2a 00 00 00 00 00 00 00  01 00 00 00 40 00 00 00
            01 00 00 00 00 00 00 00  00 00 00 00 00 00 00 00
            00 00 00 00 00 00 00 00  00 00 00 00 00 00 00 00
            """;
    /** The DATA header of PROTOCOL.md 11.2. */
    private static final String DATA = """
            4f 46 4c 31 01 02 00 00  02 00 00 00 00 00 00 00
            00 00 00 00 00 00 00 00  00 00 00 00 40 00 00 00
            00 00 00 00 00 00 00 00  00 00 00 00 00 00 00 00
            00 00 00 00 00 00 00 00  00 00 00 00 00 00 00 00
            """;
    /** The RESPONSE header of PROTOCOL.md 11.2. */
    private static final String RESPONSE = """
            4f 46 4c 31 01 03 00 00  02 00 00 00 00 00 00 00
            00 00 00 00 00 00 00 00  00 00 00 00 00 00 00 00
            00 00 00 00 00 00 00 00  00 00 00 00 00 00 00 00
            00 00 00 00 00 00 00 00  40 00 00 00 00 00 00 00
            """;
    /** The refusal of PROTOCOL.md 11.3: sequence 3, status REFUSED, handler status -2. */
    private static final String REFUSAL = """
            4f 46 4c 31 01 03 00 00  03 00 00 00 00 00 00 00
            00 00 00 00 00 00 00 00  00 00 00 00 00 00 00 00
            00 00 00 00 01 00 00 00  fe ff ff ff 00 00 00 00
            00 00 00 00 00 00 00 00  00 00 00 00 00 00 00 00
            """;
    /** The failure of PROTOCOL.md 11.3: sequence 4, HANDLER_FAILED with a 41-byte reason. */
    private static final String FAILURE_WITH_REASON = """
            4f 46 4c 31 01 03 00 00  04 00 00 00 00 00 00 00
            00 00 00 00 00 00 00 00  00 00 00 00 00 00 00 00
            00 00 00 00 02 00 00 00  00 00 00 00 00 00 00 00
            00 00 00 00 00 00 00 00  29 00 00 00 00 00 00 00
            """;
    /** The reason's DATA of PROTOCOL.md 11.3, header and the 41 bytes. */
    private static final String REASON_DATA = """
            4f 46 4c 31 01 02 00 00  04 00 00 00 00 00 00 00
            00 00 00 00 00 00 00 00  00 00 00 00 29 00 00 00
            00 00 00 00 00 00 00 00  00 00 00 00 00 00 00 00
            00 00 00 00 00 00 00 00  00 00 00 00 00 00 00 00
            6a 61 76 61 2e 6c 61 6e  67 2e 49 6c 6c 65 67 61
            6c 53 74 61 74 65 45 78  63 65 70 74 69 6f 6e 3a
            20 6e 6f 20 72 6f 77 20  37
            """;
    /** Every field distinct, so that each offset and byte order is pinned. */
    private static final String DISTINCT = """
            4f 46 4c 31 01 03 00 00  08 07 06 05 04 03 02 01
            18 17 16 15 14 13 12 11  24 23 22 21 34 33 32 31
            42 41 00 00 54 53 52 51  64 63 62 61 00 00 00 00
            78 77 76 75 74 73 72 71  88 87 86 85 84 83 82 81
            """;

    private static byte[] encode(java.util.function.Consumer<MessageHeader> fill) {
        byte[] bytes = new byte[MessageHeader.LENGTH];
        Arrays.fill(bytes, (byte) 0xEE);
        fill.accept(new MessageHeader().wrap(MemorySegment.ofArray(bytes), 0));
        return bytes;
    }

    private static void assertGolden(String golden, byte[] actual) {
        assertArrayEquals(Hex.bytes(golden), actual, () -> "encoded:" + Hex.dump(actual));
    }

    private static MessageHeader decode(String golden) {
        return new MessageHeader().wrap(MemorySegment.ofArray(Hex.bytes(golden)), 0);
    }

    @Test
    void requestEncodesToTheGoldenBytes() {
        assertGolden(REQUEST, encode(h -> h.reset(MessageType.REQUEST, 2).generation(42).op(1).payloadLength(64)
                .rangeCount(1)));
    }

    @Test
    void requestDecodesFromTheGoldenBytes() {
        MessageHeader h = decode(REQUEST);
        assertEquals(MessageHeader.MAGIC, h.magic());
        assertEquals(1, h.version());
        assertEquals(MessageType.REQUEST, h.type());
        assertEquals(0, h.flags());
        assertEquals(2, h.sequence());
        assertEquals(42, h.generation());
        assertEquals(1, h.op());
        assertEquals(64, h.payloadLength());
        assertEquals(1, h.rangeCount());
        assertEquals(0, h.reserved0());
        assertEquals(0, h.status());
        assertEquals(0, h.handlerStatus());
        assertEquals(0, h.reserved1());
        assertEquals(0, h.responseOffset());
        assertEquals(0, h.responseLength());
    }

    @Test
    void dataAndResponseEncodeToTheGoldenBytes() {
        assertGolden(DATA, encode(h -> h.reset(MessageType.DATA, 2).payloadLength(64).responseOffset(0)));
        assertGolden(RESPONSE, encode(h -> h.reset(MessageType.RESPONSE, 2).status(WireStatus.OK).responseLength(64)));
        assertGolden(REFUSAL, encode(h -> h.reset(MessageType.RESPONSE, 3).status(WireStatus.REFUSED).handlerStatus(-2)));
        MessageHeader refusal = decode(REFUSAL);
        assertEquals(WireStatus.REFUSED, refusal.status());
        assertEquals(-2, refusal.handlerStatus());
        assertEquals(3, refusal.sequence());
        assertEquals(64, decode(RESPONSE).responseLength());
        assertEquals(MessageType.DATA, decode(DATA).type());
    }

    @Test
    void everyFieldHasItsOwnOffsetAndLittleEndianOrder() {
        assertGolden(DISTINCT, encode(h -> h.reset(MessageType.RESPONSE, 0x0102030405060708L)
                .generation(0x1112131415161718L).op(0x21222324).payloadLength(0x31323334).rangeCount(0x4142)
                .status(0x51525354).handlerStatus(0x61626364).responseOffset(0x7172737475767778L)
                .responseLength(0x8182838485868788L)));
        MessageHeader h = decode(DISTINCT);
        assertEquals(0x0102030405060708L, h.sequence());
        assertEquals(0x1112131415161718L, h.generation());
        assertEquals(0x21222324, h.op());
        assertEquals(0x31323334L, h.payloadLength());
        assertEquals(0x4142, h.rangeCount());
        assertEquals(0x51525354, h.status());
        assertEquals(0x61626364, h.handlerStatus());
        assertEquals(0x7172737475767778L, h.responseOffset());
        assertEquals(0x8182838485868788L, h.responseLength());
    }

    @Test
    void offsetsMatchTheFieldTable() {
        int[] offsets = {MessageHeader.MAGIC_OFFSET, MessageHeader.VERSION_OFFSET, MessageHeader.TYPE_OFFSET,
            MessageHeader.FLAGS_OFFSET, MessageHeader.SEQUENCE_OFFSET, MessageHeader.GENERATION_OFFSET,
            MessageHeader.OP_OFFSET, MessageHeader.PAYLOAD_LENGTH_OFFSET, MessageHeader.RANGE_COUNT_OFFSET,
            MessageHeader.RESERVED0_OFFSET, MessageHeader.STATUS_OFFSET, MessageHeader.HANDLER_STATUS_OFFSET,
            MessageHeader.RESERVED1_OFFSET, MessageHeader.RESPONSE_OFFSET_OFFSET, MessageHeader.RESPONSE_LENGTH_OFFSET};
        assertArrayEquals(new int[] {0, 4, 5, 6, 8, 16, 24, 28, 32, 34, 36, 40, 44, 48, 56}, offsets);
        assertEquals(64, MessageHeader.LENGTH);
        assertEquals(0x314C464F, MessageHeader.MAGIC);
        assertArrayEquals(new byte[] {'O', 'F', 'L', '1'}, Arrays.copyOf(Hex.bytes(REQUEST), 4));
    }

    @Test
    void unsignedFieldsReadUnsigned() {
        byte[] ones = new byte[MessageHeader.LENGTH];
        Arrays.fill(ones, (byte) 0xFF);
        MessageHeader h = new MessageHeader().wrap(MemorySegment.ofArray(ones), 0);
        assertEquals(255, h.version());
        assertEquals(255, h.type());
        assertEquals(0xFFFF, h.flags());
        assertEquals(0xFFFF_FFFFL, h.payloadLength());
        assertEquals(0xFFFF, h.rangeCount());
        assertEquals(0xFFFF, h.reserved0());
        assertEquals(-1, h.reserved1());
        assertEquals(-1, h.status());
        assertEquals(-1L, h.sequence());
    }

    @Test
    void resetZeroesStaleBytesAndWrapHonoursTheOffset() {
        byte[] buffer = new byte[200];
        Arrays.fill(buffer, (byte) 0x5C);
        MessageHeader h = new MessageHeader().wrap(MemorySegment.ofArray(buffer), 72);
        assertEquals(72, h.offset());
        h.reset(MessageType.REQUEST, 2).generation(42).op(1).payloadLength(64).rangeCount(1);
        assertArrayEquals(Hex.bytes(REQUEST), Arrays.copyOfRange(buffer, 72, 136), () -> Hex.dump(buffer));
        for (int i = 0; i < buffer.length; i++) {
            if (i < 72 || i >= 136) {
                assertEquals((byte) 0x5C, buffer[i], "byte " + i + " outside the header");
            }
        }
        assertEquals(0x5C, MemorySegment.ofArray(buffer).get(ValueLayout.JAVA_BYTE, 71));
    }

    @Test
    void requestLengthPadsThePayloadToEight() {
        assertEquals(144, MessageHeader.requestLength(64, 1));
        assertEquals(64, MessageHeader.requestLength(0, 0));
        assertEquals(72, MessageHeader.requestLength(1, 0));
        assertEquals(72, MessageHeader.requestLength(8, 0));
        assertEquals(80 + 32, MessageHeader.requestLength(9, 2));
        assertEquals(64 + 1024 + 16 * 16, MessageHeader.requestLength(1024, 16));
        assertEquals(64 + 8, MessageHeader.rangesOffset(7));
        assertEquals(64 + 0x1_0000_0000L, MessageHeader.rangesOffset(-1), "payload length is unsigned");
    }

    @Test
    void aFailureWithItsReasonEncodesToTheGoldenBytesAndPassesTheClientsChecks() throws ProtocolException {
        byte[] reason = FailureReason.encode(new IllegalStateException("no row 7"), 4096);
        byte[] data = new byte[MessageHeader.LENGTH + reason.length];
        new MessageHeader().wrap(MemorySegment.ofArray(data), 0).reset(MessageType.DATA, 4)
                .payloadLength(reason.length);
        System.arraycopy(reason, 0, data, MessageHeader.LENGTH, reason.length);
        assertGolden(REASON_DATA, data);
        assertGolden(FAILURE_WITH_REASON, encode(h -> h.reset(MessageType.RESPONSE, 4)
                .status(WireStatus.HANDLER_FAILED).responseLength(reason.length)));
        assertEquals(MessageType.DATA, MessageChecks.checkServerMessage(decode(REASON_DATA.lines().limit(4)
                .collect(java.util.stream.Collectors.joining("\n"))), 4, 0, 4096, FailureReason.MAX_BYTES));
        assertEquals(MessageType.RESPONSE, MessageChecks.checkServerMessage(decode(FAILURE_WITH_REASON), 4, 41, 4096,
                FailureReason.MAX_BYTES));
        assertEquals("java.lang.IllegalStateException: no row 7", FailureReason.decode(reason));
    }
}
