package dev.ofl.fuzz;

import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.ofl.api.Limits;
import dev.ofl.api.RefusalCode;
import dev.ofl.api.spi.RangeCursor;
import dev.ofl.api.wire.Bootstrap;
import dev.ofl.api.wire.FailureReason;
import dev.ofl.api.wire.HelloCheck;
import dev.ofl.api.wire.MessageChecks;
import dev.ofl.api.wire.MessageHeader;
import dev.ofl.api.wire.MessageType;
import dev.ofl.api.wire.ProtocolException;
import dev.ofl.api.wire.RangeDescriptor;
import dev.ofl.api.wire.TransportKind;
import java.lang.foreign.MemorySegment;
import java.util.Arrays;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Fuzz targets for everything a peer's bytes reach before a connection is trusted: the data-path
 * header checks, the range list and the cursor that walks it, the bootstrap decoder and the
 * server's HELLO decision.
 *
 * <p>Each target takes raw bytes; the first few choose the negotiated limits and the expected
 * sequence (see {@link Params}), the rest is the message. The property is the same for all:
 * nothing but {@link ProtocolException} escapes a decoder, and a check accepts exactly what
 * {@link SpecOracle}, an independent reading of the tables of {@code docs/PROTOCOL.md} §9, accepts,
 * refusing with the field the table names first.
 *
 * <p>Without {@code JAZZER_FUZZ} each target replays its checked-in corpus in
 * {@code src/test/resources/dev/ofl/fuzz/WireFuzzTestInputs/<target>/} (part of {@code ./ofl test});
 * {@code ./ofl fuzz} fuzzes each target for {@value #FUZZ_DURATION} ({@code JAZZER_FUZZ=1}), keeping what finds new
 * coverage in {@code ofl-fuzz/.cifuzz-corpus/} and any failing input in the inputs directory above.
 *
 * <p>On JDK 25, Jazzer 0.24.0 cannot rewrite the JDK's own classes (class file version 69): it
 * warns and skips its sanitizer hooks into them. The code under test (compiled for release 22) is
 * instrumented for coverage, which is what these targets need.
 */
class WireFuzzTest {
    private static final String SERVICE = "fuzz";
    private static final Limits SERVER_MAXIMA = new Limits(1 << 20, 64 << 20, 16, 64);
    /** How long {@code ./ofl fuzz} fuzzes each target; Jazzer reads it only from the annotation. */
    private static final String FUZZ_DURATION = "5m";

    /** The REQUEST checks (server), the DATA/RESPONSE checks (TCP client) and the RDMA RESPONSE checks. */
    @FuzzTest(maxDuration = FUZZ_DURATION)
    void header(byte[] data) {
        Params p = Params.of(data);
        MemorySegment message = p.message(MessageHeader.LENGTH);
        MessageHeader header = new MessageHeader().wrap(message, 0);
        switch (p.selector % 3) {
            case 0 -> {
                String expected = SpecOracle.request(message, p.limits, p.sequence);
                try {
                    long length = MessageChecks.checkRequest(header, p.limits, p.sequence);
                    assertEquals(null, expected, "accepted a REQUEST the spec refuses");
                    assertEquals(MessageHeader.LENGTH + ((header.payloadLength() + 7) & ~7L)
                            + (long) RangeDescriptor.LENGTH * header.rangeCount(), length);
                } catch (ProtocolException e) {
                    assertEquals(expected, e.field(), "refused a REQUEST on another field than the spec's first");
                }
            }
            case 1 -> {
                long received = p.a;
                long capacity = received + p.b;
                boolean reasons = (p.selector & 0x80) != 0;
                String expected = SpecOracle.serverMessage(message, p.sequence, received, capacity, reasons);
                try {
                    int type = MessageChecks.checkServerMessage(header, p.sequence, received, capacity,
                            reasons ? FailureReason.MAX_BYTES : 0);
                    assertEquals(null, expected, "accepted a DATA/RESPONSE the spec refuses");
                    assertEquals(header.type(), type);
                } catch (ProtocolException e) {
                    assertEquals(expected, e.field(), "refused a DATA/RESPONSE on another field than the spec's first");
                }
            }
            default -> {
                long capacity = p.b;
                boolean reasons = (p.selector & 0x80) != 0;
                String expected = SpecOracle.rdmaResponse(message, p.sequence, capacity, reasons);
                try {
                    MessageChecks.checkRdmaResponse(header, p.sequence, capacity, reasons ? FailureReason.MAX_BYTES : 0);
                    assertEquals(null, expected, "accepted an RDMA RESPONSE the spec refuses");
                } catch (ProtocolException e) {
                    assertEquals(expected, e.field(), "refused an RDMA RESPONSE on another field than the spec's first");
                }
            }
        }
    }

    /**
     * The range descriptors of a REQUEST whose header passed, then the cursor that lays a response
     * across them: no chunk crosses a range's end, and the walk covers exactly the capacity.
     */
    @FuzzTest(maxDuration = FUZZ_DURATION)
    void rangeList(byte[] data) {
        Params p = Params.of(data);
        int payload = p.selector & 0x3f;
        int count = Math.min(p.limits.maxRanges(), (p.selector >>> 6) + (int) (p.sequence & 0x0f));
        long length = MessageHeader.requestLength(payload, count);
        MemorySegment message = MemorySegment.ofArray(new byte[(int) length]);
        MemorySegment.copy(p.rest, 0, message, MessageHeader.rangesOffset(payload),
                Math.min(p.rest.byteSize(), (long) count * RangeDescriptor.LENGTH));
        MessageHeader header = new MessageHeader().wrap(message, 0).reset(MessageType.REQUEST, 0);
        header.payloadLength(payload).rangeCount(count);
        String expected = SpecOracle.ranges(message, payload, count, p.limits);
        long capacity;
        try {
            capacity = MessageChecks.checkRanges(message, 0, header, p.limits);
            assertEquals(null, expected, "accepted ranges the spec refuses");
        } catch (ProtocolException e) {
            assertEquals(expected, e.field(), "refused ranges on another range than the spec's first");
            return;
        }
        long[] starts = new long[count];
        long[] lengths = new long[count];
        RangeCursor cursor = new RangeCursor();
        long sum = 0;
        for (int i = 0; i < count; i++) {
            long at = MessageHeader.rangesOffset(payload) + (long) i * RangeDescriptor.LENGTH;
            // Apart by more than any range's length: a chunk in the wrong range cannot look right.
            starts[i] = (long) i << 33;
            lengths[i] = RangeDescriptor.length(message, at);
            sum += lengths[i];
            cursor.add(starts[i], lengths[i], i);
        }
        assertEquals(sum, capacity);
        long walked = 0;
        int step = 0;
        while (walked < capacity) {
            long seed = p.rest.byteSize() == 0 ? 0 : Byte.toUnsignedLong(p.rest.get(java.lang.foreign.ValueLayout.JAVA_BYTE,
                    step % p.rest.byteSize()));
            long wanted = 1 + (seed << (step % 20));
            step++;
            long chunk = cursor.chunk(Math.min(wanted, capacity - walked));
            int range = cursor.key();
            assertTrue(chunk >= 1, "the cursor offered an empty chunk with bytes left");
            assertTrue(cursor.position() >= starts[range]
                    && cursor.position() + chunk <= starts[range] + lengths[range],
                    "a chunk crosses the end of range " + range);
            cursor.advance(chunk);
            walked += chunk;
            assertEquals(walked, cursor.consumed());
        }
        assertEquals(capacity, walked);
    }

    /**
     * The bootstrap frame and body decoders (both sides run them): only {@link ProtocolException}
     * escapes, and what decodes re-encodes to the very same bytes.
     */
    @FuzzTest(maxDuration = FUZZ_DURATION)
    void bootstrapDecode(byte[] data) {
        try {
            Bootstrap.decodeBody(data);
        } catch (ProtocolException e) {
            assertFalse(e.field().isEmpty());
        }
        int type = data.length > 6 ? data[6] & 0xff : Bootstrap.HELLO;
        Bootstrap.Frame frame;
        try {
            frame = Bootstrap.decodeFrame(data, type);
        } catch (ProtocolException e) {
            assertFalse(e.field().isEmpty());
            return;
        }
        if (frame.version() != MessageHeader.VERSION) {
            // Another version is answered VERSION_MISMATCH before its type or length is judged (9.1).
            assertEquals(data[4] & 0xff | (data[5] & 0xff) << 8, frame.version());
            return;
        }
        if (frame.type() == Bootstrap.AUTH_CHALLENGE || frame.type() == Bootstrap.AUTH_PROOF) {
            assertEquals(Bootstrap.AUTH_BODY_LENGTH, frame.bodyLength());
            return;
        }
        assertTrue(frame.bodyLength() >= Bootstrap.BODY_FIXED_LENGTH
                && frame.bodyLength() <= Bootstrap.MAX_BODY_LENGTH);
        if (data.length < Bootstrap.FRAME_LENGTH + frame.bodyLength()) {
            return;
        }
        byte[] body = Arrays.copyOfRange(data, Bootstrap.FRAME_LENGTH, Bootstrap.FRAME_LENGTH + frame.bodyLength());
        Bootstrap.Endpoint endpoint;
        try {
            endpoint = Bootstrap.decodeBody(body);
        } catch (ProtocolException e) {
            assertFalse(e.field().isEmpty());
            return;
        }
        if (frame.version() == MessageHeader.VERSION) {
            assertArrayEquals(Arrays.copyOf(data, Bootstrap.FRAME_LENGTH + frame.bodyLength()),
                    Bootstrap.encode(frame.type(), endpoint), "a decoded message does not re-encode to its bytes");
        }
    }

    /**
     * The server's decision on a HELLO, as a server of service {@value #SERVICE} on the transport the
     * first byte's low bit picks: the version first, then critical extensions, transport, service,
     * limits, in that order; an acceptance only for a HELLO that fits in every respect.
     */
    @FuzzTest(maxDuration = FUZZ_DURATION)
    void helloDecision(byte[] data) {
        int transport = data.length > 0 && (data[0] & 1) != 0 ? TransportKind.RDMA : TransportKind.TCP;
        byte[] message = data.length > 0 ? Arrays.copyOfRange(data, 1, data.length) : data;
        Bootstrap.Frame frame;
        try {
            frame = Bootstrap.decodeFrame(message, Bootstrap.HELLO);
        } catch (ProtocolException e) {
            return;
        }
        HelloCheck version = HelloCheck.version(frame.version());
        assertEquals(frame.version() == MessageHeader.VERSION, version.accepted());
        if (!version.accepted()) {
            assertEquals(RefusalCode.VERSION_MISMATCH, version.code());
            assertFalse(version.reason().isEmpty());
            return;
        }
        if (message.length < Bootstrap.FRAME_LENGTH + frame.bodyLength()) {
            return;
        }
        Bootstrap.Endpoint hello;
        try {
            hello = Bootstrap.decodeBody(Arrays.copyOfRange(message, Bootstrap.FRAME_LENGTH,
                    Bootstrap.FRAME_LENGTH + frame.bodyLength()));
        } catch (ProtocolException e) {
            return;
        }
        HelloCheck check = HelloCheck.body(hello, transport, SERVICE, SERVER_MAXIMA);
        RefusalCode expected;
        if (Bootstrap.firstCriticalExtension(hello.extensions()) >= 0) {
            expected = RefusalCode.UNSUPPORTED_EXTENSION;
        } else if (hello.transport() != transport) {
            expected = RefusalCode.TRANSPORT_MISMATCH;
        } else if (!hello.serviceName().equals(SERVICE)) {
            expected = RefusalCode.SERVICE_MISMATCH;
        } else if (hello.limits().maxRequestBytes() > SERVER_MAXIMA.maxRequestBytes()
                || hello.limits().maxResponseBytes() > SERVER_MAXIMA.maxResponseBytes()
                || hello.limits().maxRanges() > SERVER_MAXIMA.maxRanges()
                || hello.limits().maxInFlight() > SERVER_MAXIMA.maxInFlight()) {
            expected = RefusalCode.LIMITS_EXCEEDED;
        } else {
            expected = RefusalCode.ACCEPTED;
        }
        assertEquals(expected, check.code(), "decision on " + hello);
        if (!check.accepted()) {
            assertNotEquals("", check.reason(), "a refusal must say why");
        }
    }

    /**
     * How a target's first 8 bytes are read: a selector byte, two numbers {@code a} (u16) and
     * {@code b} (u24), a byte for the ranges and in-flight limits, the expected sequence (u8); the
     * limits are {@code maxRequestBytes = a}, {@code maxResponseBytes = b}. Short inputs read zeros.
     */
    private record Params(int selector, long a, long b, long sequence, Limits limits, MemorySegment rest) {
        static Params of(byte[] data) {
            byte[] head = Arrays.copyOf(data, 8);
            int selector = head[0] & 0xff;
            long a = (head[1] & 0xff) | (head[2] & 0xff) << 8;
            long b = (head[3] & 0xff) | (head[4] & 0xff) << 8 | (head[5] & 0xff) << 16;
            int maxRanges = 1 + (head[6] & 0x0f);
            int maxInFlight = 1 + ((head[6] & 0xf0) >>> 4);
            long sequence = head[7] & 0xff;
            MemorySegment rest = MemorySegment.ofArray(data.length > 8 ? Arrays.copyOfRange(data, 8, data.length)
                    : new byte[0]);
            return new Params(selector, a, b, sequence, new Limits((int) a, (int) b, maxRanges, maxInFlight), rest);
        }

        /** The rest of the input as a message of at least {@code minimum} bytes (zeros appended). */
        MemorySegment message(int minimum) {
            MemorySegment message = MemorySegment.ofArray(new byte[(int) Math.max(minimum, rest.byteSize())]);
            MemorySegment.copy(rest, 0, message, 0, rest.byteSize());
            return message;
        }
    }
}
