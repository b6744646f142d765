package dev.ofl.api.wire;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ofl.api.Limits;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/** Every rule of {@link MessageChecks}, each refusal naming its field (docs/PROTOCOL.md 9.3 and 9.4). */
class MessageChecksTest {
    private static final Limits LIMITS = new Limits(1024, 4096, 4, 4);
    private static final ValueLayout.OfShort U16 = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfInt U32 = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    private static MessageHeader request(Consumer<MessageHeader> change) {
        MessageHeader header = new MessageHeader().wrap(MemorySegment.ofArray(new byte[MessageHeader.LENGTH]), 0);
        header.reset(MessageType.REQUEST, 5).op(9).generation(-3).payloadLength(100).rangeCount(2);
        change.accept(header);
        return header;
    }

    private static MessageHeader server(int type, Consumer<MessageHeader> change) {
        MessageHeader header = new MessageHeader().wrap(MemorySegment.ofArray(new byte[MessageHeader.LENGTH]), 0);
        header.reset(type, 5);
        change.accept(header);
        return header;
    }

    private static void assertRequestRefused(String field, Consumer<MessageHeader> change) {
        ProtocolException e = assertThrows(ProtocolException.class,
                () -> MessageChecks.checkRequest(request(change), LIMITS, 5));
        assertEquals(field, e.field(), e::getMessage);
    }

    private static void assertServerRefused(String field, int type, long received, long capacity,
            Consumer<MessageHeader> change) {
        ProtocolException e = assertThrows(ProtocolException.class,
                () -> MessageChecks.checkServerMessage(server(type, change), 5, received, capacity));
        assertEquals(field, e.field(), e::getMessage);
    }

    /** Rules shared by every message: magic, version, flags, both reserved fields. */
    private static void commonRules(java.util.function.BiConsumer<String, Consumer<MessageHeader>> refused) {
        refused.accept("magic", h -> h.buffer().set(U32, MessageHeader.MAGIC_OFFSET, 0x324C464F));
        refused.accept("version", h -> h.buffer().set(ValueLayout.JAVA_BYTE, MessageHeader.VERSION_OFFSET, (byte) 2));
        refused.accept("version", h -> h.buffer().set(ValueLayout.JAVA_BYTE, MessageHeader.VERSION_OFFSET, (byte) 0));
        refused.accept("flags", h -> h.buffer().set(U16, MessageHeader.FLAGS_OFFSET, (short) 0x8000));
        refused.accept("reserved (offset 34)", h -> h.buffer().set(U16, MessageHeader.RESERVED0_OFFSET, (short) 1));
        refused.accept("reserved (offset 44)", h -> h.buffer().set(U32, MessageHeader.RESERVED1_OFFSET, 1));
    }

    @Test
    void busyIsAValidResponseWithoutDataOnEitherTransport() throws ProtocolException {
        MessageChecks.checkServerMessage(server(MessageType.RESPONSE, h -> h.status(WireStatus.BUSY)), 5, 0, 100);
        MessageChecks.checkRdmaResponse(server(MessageType.RESPONSE, h -> h.status(WireStatus.BUSY)), 5, 100);
    }

    @Test
    void aFailureReasonIsAcceptedOnlyWhenNegotiatedAndWithinItsBounds() throws ProtocolException {
        int max = FailureReason.MAX_BYTES;
        Consumer<MessageHeader> failedWith40 = h -> h.status(WireStatus.HANDLER_FAILED).responseLength(40);
        // TCP: the reason is every byte received for the request.
        MessageChecks.checkServerMessage(server(MessageType.RESPONSE, failedWith40), 5, 40, 100, max);
        MessageChecks.checkServerMessage(server(MessageType.RESPONSE, h -> h.status(WireStatus.HANDLER_FAILED)), 5,
                40, 100, max);
        ProtocolException notNegotiated = assertThrows(ProtocolException.class, () -> MessageChecks
                .checkServerMessage(server(MessageType.RESPONSE, failedWith40), 5, 40, 100));
        assertEquals("response length", notNegotiated.field());
        assertTrue(notNegotiated.getMessage().contains("no failure reason was negotiated"), notNegotiated::getMessage);
        for (long received : new long[] {39, 41, 0}) {
            ProtocolException e = assertThrows(ProtocolException.class, () -> MessageChecks
                    .checkServerMessage(server(MessageType.RESPONSE, failedWith40), 5, received, 100, max));
            assertEquals("response length", e.field(), e::getMessage);
        }
        Consumer<MessageHeader> tooLong = h -> h.status(WireStatus.HANDLER_FAILED).responseLength(max + 1);
        assertThrows(ProtocolException.class, () -> MessageChecks.checkServerMessage(
                server(MessageType.RESPONSE, tooLong), 5, max + 1, 4096, max), "longer than the most a reason has");
        // RDMA: bounded by the reason's maximum and the ranges.
        MessageChecks.checkRdmaResponse(server(MessageType.RESPONSE, failedWith40), 5, 40, max);
        assertThrows(ProtocolException.class, () -> MessageChecks.checkRdmaResponse(
                server(MessageType.RESPONSE, failedWith40), 5, 39, max), "past the ranges");
        assertThrows(ProtocolException.class, () -> MessageChecks.checkRdmaResponse(
                server(MessageType.RESPONSE, tooLong), 5, 4096, max), "longer than the most a reason has");
        assertThrows(ProtocolException.class, () -> MessageChecks.checkRdmaResponse(
                server(MessageType.RESPONSE, failedWith40), 5, 100), "not negotiated");
        assertThrows(ProtocolException.class, () -> MessageChecks.checkRdmaResponse(server(MessageType.RESPONSE,
                h -> h.status(WireStatus.REFUSED).handlerStatus(3).responseLength(40)), 5, 100, max),
                "a refusal carries no reason");
    }

    @Test
    void validRequestReturnsItsLength() throws ProtocolException {
        assertEquals(64 + 104 + 32, MessageChecks.checkRequest(request(h -> { }), LIMITS, 5));
        assertEquals(64 + 1024 + 64, MessageChecks.checkRequest(request(h -> h.payloadLength(1024).rangeCount(4)),
                LIMITS, 5), "payload and range count at their limits");
        assertEquals(64, MessageChecks.checkRequest(request(h -> h.payloadLength(0).rangeCount(0)), LIMITS, 5));
    }

    @Test
    void everyRequestRuleNamesItsField() {
        commonRules(MessageChecksTest::assertRequestRefused);
        assertRequestRefused("type", h -> h.buffer().set(ValueLayout.JAVA_BYTE, MessageHeader.TYPE_OFFSET,
                (byte) MessageType.DATA));
        assertRequestRefused("type", h -> h.buffer().set(ValueLayout.JAVA_BYTE, MessageHeader.TYPE_OFFSET, (byte) 0));
        assertRequestRefused("sequence", h -> h.buffer().set(ValueLayout.JAVA_LONG_UNALIGNED.withOrder(
                ByteOrder.LITTLE_ENDIAN), MessageHeader.SEQUENCE_OFFSET, 6L));
        assertRequestRefused("payload length", h -> h.payloadLength(1025));
        assertRequestRefused("payload length", h -> h.payloadLength(-1));
        assertRequestRefused("range count", h -> h.rangeCount(5));
        assertRequestRefused("range count", h -> h.rangeCount(0xFFFF));
        assertRequestRefused("status", h -> h.status(1));
        assertRequestRefused("handler status", h -> h.handlerStatus(-1));
        assertRequestRefused("response offset", h -> h.responseOffset(1));
        assertRequestRefused("response length", h -> h.responseLength(Long.MIN_VALUE));
    }

    @Test
    void refusalCarriesTheValue() {
        ProtocolException e = assertThrows(ProtocolException.class,
                () -> MessageChecks.checkRequest(request(h -> h.payloadLength(-1)), LIMITS, 5));
        assertEquals(0xFFFF_FFFFL, e.value());
        assertEquals("payload length = 4294967295: exceeds the negotiated maxRequestBytes 1024", e.getMessage());
    }

    private static long checkRanges(long... lengths) throws ProtocolException {
        int payload = 13;
        MemorySegment message = MemorySegment.ofArray(new byte[8 + (int) MessageHeader.requestLength(payload,
                lengths.length)]);
        MessageHeader header = new MessageHeader().wrap(message, 8).reset(MessageType.REQUEST, 0)
                .payloadLength(payload).rangeCount(lengths.length);
        long at = 8 + MessageHeader.rangesOffset(payload);
        for (long length : lengths) {
            RangeDescriptor.write(message, at, 0, (int) length, 0);
            at += RangeDescriptor.LENGTH;
        }
        return MessageChecks.checkRanges(message, 8, header, LIMITS);
    }

    private static void assertRangesRefused(String field, long... lengths) {
        ProtocolException e = assertThrows(ProtocolException.class, () -> checkRanges(lengths));
        assertEquals(field, e.field(), e::getMessage);
    }

    @Test
    void rangesAreCheckedOneByOne() throws ProtocolException {
        assertEquals(4096, checkRanges(1, 4094, 1), "ranges summing to exactly maxResponseBytes");
        assertEquals(0, checkRanges());
        assertRangesRefused("range[0].length", 0);
        assertRangesRefused("range[2].length", 1, 2, 0, 3);
        assertRangesRefused("range[1].length", 4000, 97);
        assertRangesRefused("range[0].length", 0xFFFF_FFFFL);
        assertRangesRefused("range[3].length", 1024, 1024, 1024, 1025);
    }

    @Test
    void validServerMessagesReturnTheirType() throws ProtocolException {
        assertEquals(MessageType.DATA, MessageChecks.checkServerMessage(
                server(MessageType.DATA, h -> h.payloadLength(10).responseOffset(90)), 5, 90, 100));
        assertEquals(MessageType.DATA, MessageChecks.checkServerMessage(
                server(MessageType.DATA, h -> h.payloadLength(1)), 5, 0, 1));
        assertEquals(MessageType.RESPONSE, MessageChecks.checkServerMessage(
                server(MessageType.RESPONSE, h -> h.responseLength(100)), 5, 100, 100));
        assertEquals(MessageType.RESPONSE, MessageChecks.checkServerMessage(
                server(MessageType.RESPONSE, h -> h.status(WireStatus.REFUSED).handlerStatus(-2)), 5, 40, 100));
        assertEquals(MessageType.RESPONSE, MessageChecks.checkServerMessage(
                server(MessageType.RESPONSE, h -> h.status(WireStatus.HANDLER_FAILED).handlerStatus(7)), 5, 40, 100),
                "a HANDLER_FAILED's handler status is not checked");
    }

    @Test
    void everyServerMessageRuleNamesItsField() {
        commonRules((field, change) -> assertServerRefused(field, MessageType.RESPONSE, 0, 100, change));
        commonRules((field, change) -> assertServerRefused(field, MessageType.DATA, 0, 100,
                change.andThen(h -> h.payloadLength(10))));
        assertServerRefused("type", MessageType.REQUEST, 0, 100, h -> { });
        assertServerRefused("type", 4, 0, 100, h -> { });
        assertServerRefused("sequence", MessageType.DATA, 0, 100, h -> h.payloadLength(10)
                .buffer().set(ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN),
                        MessageHeader.SEQUENCE_OFFSET, 4L));
        assertServerRefused("range count", MessageType.RESPONSE, 0, 100, h -> h.rangeCount(1));
        assertServerRefused("response offset", MessageType.DATA, 10, 100, h -> h.payloadLength(10).responseOffset(20));
        assertServerRefused("response offset", MessageType.DATA, 10, 100, h -> h.payloadLength(10).responseOffset(0));
        assertServerRefused("payload length", MessageType.DATA, 0, 100, h -> h.payloadLength(0));
        assertServerRefused("payload length", MessageType.DATA, 90, 100, h -> h.payloadLength(11).responseOffset(90));
        assertServerRefused("payload length", MessageType.DATA, 0, 100, h -> h.payloadLength(-1));
        assertServerRefused("payload length", MessageType.DATA, 0, 0, h -> h.payloadLength(1));
        assertServerRefused("payload length", MessageType.RESPONSE, 0, 100, h -> h.payloadLength(1));
        assertServerRefused("response length", MessageType.RESPONSE, 40, 100, h -> h.responseLength(41));
        assertServerRefused("handler status", MessageType.RESPONSE, 0, 100, h -> h.handlerStatus(3));
        assertServerRefused("handler status", MessageType.RESPONSE, 0, 100, h -> h.status(WireStatus.REFUSED));
        assertServerRefused("response length", MessageType.RESPONSE, 0, 100,
                h -> h.status(WireStatus.REFUSED).handlerStatus(1).responseLength(5));
        assertServerRefused("response length", MessageType.RESPONSE, 0, 100,
                h -> h.status(WireStatus.HANDLER_FAILED).responseLength(5));
        assertServerRefused("response length", MessageType.RESPONSE, 0, 100,
                h -> h.status(WireStatus.BUSY).responseLength(5));
        assertServerRefused("handler status", MessageType.RESPONSE, 0, 100,
                h -> h.status(WireStatus.BUSY).handlerStatus(7));
        assertServerRefused("response length", MessageType.RESPONSE, 40, 100, h -> h.status(WireStatus.BUSY));
        assertServerRefused("status", MessageType.RESPONSE, 0, 100, h -> h.status(4));
        assertServerRefused("status", MessageType.RESPONSE, 0, 100, h -> h.status(-1));
    }
}
