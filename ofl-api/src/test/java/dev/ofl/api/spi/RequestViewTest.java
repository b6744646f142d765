package dev.ofl.api.spi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.ofl.api.wire.MessageHeader;
import dev.ofl.api.wire.MessageType;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import org.junit.jupiter.api.Test;

/**
 * The request view a handler reads: its payload view is kept while the same slot brings the same
 * length in the same memory (nothing allocated), and cut anew when the memory changed, as when an
 * RDMA server reads a payload into another extent of its staging pool for the same slot.
 */
class RequestViewTest {
    private static MemorySegment message(Arena arena, int payload, byte fill) {
        MemorySegment m = arena.allocate(MessageHeader.requestLength(payload, 0), 8);
        new MessageHeader().wrap(m, 0).reset(MessageType.REQUEST, 5).op(9).generation(77).payloadLength(payload);
        m.asSlice(MessageHeader.LENGTH, payload).fill(fill);
        return m;
    }

    @Test
    void thePayloadFollowsTheMessageAndIsKeptWhileItRepeats() {
        try (Arena arena = Arena.ofConfined()) {
            MessageHeader header = new MessageHeader();
            RequestView view = new RequestView(2);
            MemorySegment first = message(arena, 100, (byte) 1);
            view.set(0, first, header.wrap(first, 0), 640);
            assertEquals(9, view.op());
            assertEquals(77, view.generation());
            assertEquals(5, view.sequence());
            assertEquals(640, view.responseCapacity());
            MemorySegment payload = view.payload();
            assertEquals(100, payload.byteSize());
            assertEquals(1, payload.get(ValueLayout.JAVA_BYTE, 99));
            assertThrows(IllegalArgumentException.class, () -> payload.set(ValueLayout.JAVA_BYTE, 0, (byte) 0));
            // Same slot, length and memory: the same view object.
            view.set(0, first, header.wrap(first, 0), 640);
            assertSame(payload, view.payload());
            // Same slot and length, other memory: the other memory's bytes.
            MemorySegment second = message(arena, 100, (byte) 2);
            view.set(0, second, header.wrap(second, 0), 640);
            assertEquals(2, view.payload().get(ValueLayout.JAVA_BYTE, 0));
            assertEquals(second.address() + MessageHeader.LENGTH, view.payload().address());
        }
    }
}
