package dev.ofl.api.spi;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ofl.api.Limits;
import dev.ofl.api.Region;
import dev.ofl.api.ResponseRanges;
import dev.ofl.api.internal.ApiAccess;
import dev.ofl.api.wire.MessageHeader;
import dev.ofl.api.wire.MessageType;
import dev.ofl.api.wire.RangeDescriptor;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The submit checks (nothing fits that the limits refuse) and the REQUEST encoding, field by field. */
class RequestEncoderTest {
    private static final Limits LIMITS = new Limits(100, 1000, 3, 4);

    private final Arena arena = Arena.ofConfined();
    private final Object owner = new Object();
    private final List<Region> regions = new ArrayList<>();

    @AfterEach
    void closeArena() {
        arena.close();
    }

    private Region register(long bytes) {
        Region region = ApiAccess.members().newRegion(owner, regions.size(), arena.allocate(bytes));
        regions.add(region);
        return region;
    }

    private void check(int payloadLength, ResponseRanges ranges) {
        RequestEncoder.check(owner, regions, LIMITS, payloadLength, ranges);
    }

    @Test
    void payloadLengthMustLieWithinTheNegotiatedMaximum() {
        ResponseRanges none = new ResponseRanges();
        assertDoesNotThrow(() -> check(0, none));
        assertDoesNotThrow(() -> check(100, none));
        IllegalArgumentException over = assertThrows(IllegalArgumentException.class, () -> check(101, none));
        assertEquals("payload length 101 is outside 0..100 (the negotiated maxRequestBytes)", over.getMessage());
        assertThrows(IllegalArgumentException.class, () -> check(-1, none));
    }

    @Test
    void rangeCountMustNotExceedTheNegotiatedMaximum() {
        Region region = register(64);
        ResponseRanges three = new ResponseRanges().add(region, 0, 1).add(region, 1, 1).add(region, 2, 1);
        assertDoesNotThrow(() -> check(0, three));
        three.add(region, 3, 1);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> check(0, three));
        assertEquals("4 ranges exceed the negotiated maxRanges 3", e.getMessage());
    }

    @Test
    void totalRangeLengthMustNotExceedTheNegotiatedResponseMaximum() {
        Region region = register(2000);
        assertDoesNotThrow(() -> check(0, new ResponseRanges().add(region, 0, 1000)));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> check(0, new ResponseRanges().add(region, 0, 600).add(region, 600, 401)));
        assertEquals("ranges of 1001 bytes exceed the negotiated maxResponseBytes 1000", e.getMessage());
    }

    @Test
    void rangesMustLieInRegionsOfThisClient() {
        Region mine = register(64);
        Region foreign = ApiAccess.members().newRegion(new Object(), 0, arena.allocate(64));
        Region unknownId = ApiAccess.members().newRegion(owner, 1, arena.allocate(64));
        Region impostor = ApiAccess.members().newRegion(owner, 0, arena.allocate(64));
        for (Region bad : List.of(foreign, unknownId, impostor)) {
            ResponseRanges ranges = new ResponseRanges().add(mine, 0, 8).add(bad, 0, 8);
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> check(0, ranges));
            assertTrue(e.getMessage().startsWith("range 1 lies in "), e.getMessage());
            assertTrue(e.getMessage().endsWith("which is not registered with this client"), e.getMessage());
        }
        Region last = register(64);
        assertDoesNotThrow(() -> check(0, new ResponseRanges().add(mine, 0, 8).add(last, 0, 8)));
    }

    @Test
    void encodeWritesTheHeaderZeroPadsThePayloadAndNamesEachRange() {
        Region first = register(64);
        Region second = register(64);
        MemorySegment slot = arena.allocate(MessageHeader.requestLength(100, 3));
        slot.fill((byte) 0x77);
        byte[] payload = {1, 2, 3, 4, 5};
        MemorySegment.copy(payload, 0, slot, ValueLayout.JAVA_BYTE, MessageHeader.LENGTH, payload.length);
        ResponseRanges ranges = new ResponseRanges().add(first, 8, 16).add(second, 0, 64);
        RequestEncoder.RangeAddressing addressing = new RequestEncoder.RangeAddressing() {
            @Override
            public long rangeAddress(Region region, long offset) {
                return 0x1000L * (region.id() + 1) + offset;
            }

            @Override
            public int rangeKey(Region region) {
                return 0x40 + region.id();
            }
        };

        long length = new RequestEncoder().encode(slot, 9, 42, 77, payload.length, ranges, addressing);

        assertEquals(MessageHeader.LENGTH + 8 + 2 * RangeDescriptor.LENGTH, length);
        MessageHeader header = new MessageHeader().wrap(slot, 0);
        assertEquals(MessageHeader.MAGIC, header.magic());
        assertEquals(MessageType.REQUEST, header.type());
        assertEquals(9, header.sequence());
        assertEquals(42, header.op());
        assertEquals(77, header.generation());
        assertEquals(5, header.payloadLength());
        assertEquals(2, header.rangeCount());
        for (int i = 0; i < payload.length; i++) {
            assertEquals(payload[i], slot.get(ValueLayout.JAVA_BYTE, MessageHeader.LENGTH + i), "payload byte " + i);
        }
        for (int pad = payload.length; pad < 8; pad++) {
            assertEquals(0, slot.get(ValueLayout.JAVA_BYTE, MessageHeader.LENGTH + pad), "padding byte " + pad);
        }
        long at = MessageHeader.rangesOffset(payload.length);
        assertEquals(0x1008, RangeDescriptor.address(slot, at));
        assertEquals(16, RangeDescriptor.length(slot, at));
        assertEquals(0x40, RangeDescriptor.key(slot, at));
        at += RangeDescriptor.LENGTH;
        assertEquals(0x2000, RangeDescriptor.address(slot, at));
        assertEquals(64, RangeDescriptor.length(slot, at));
        assertEquals(0x41, RangeDescriptor.key(slot, at));
        assertEquals((byte) 0x77, slot.get(ValueLayout.JAVA_BYTE, length), "nothing is written past the message");
    }
}
