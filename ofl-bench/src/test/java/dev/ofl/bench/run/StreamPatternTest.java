package dev.ofl.bench.run;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import org.junit.jupiter.api.Test;

class StreamPatternTest {
    @Test
    void oneCorruptedByteAnywhereIsCounted() {
        try (Arena arena = Arena.ofConfined()) {
            long length = 184_416 + 5; // not a multiple of 8: the tail bytes are checked too
            MemorySegment s = arena.allocate(length);
            StreamPattern.fill(s, 0, 42, StreamPattern.REQUEST, 0, length);
            assertEquals(0, StreamPattern.countMismatches(s, 0, 42, StreamPattern.REQUEST, 0, length));
            for (long at : new long[] {0, 7, 8, 100_003, length - 1}) {
                byte old = s.get(ValueLayout.JAVA_BYTE, at);
                s.set(ValueLayout.JAVA_BYTE, at, (byte) (old ^ 0x10));
                assertEquals(1, StreamPattern.countMismatches(s, 0, 42, StreamPattern.REQUEST, 0, length),
                        "byte " + at);
                s.set(ValueLayout.JAVA_BYTE, at, old);
            }
        }
    }

    @Test
    void anotherIterationOrStreamDiffersInEveryWord() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment s = arena.allocate(24);
            StreamPattern.fill(s, 0, 7, StreamPattern.RESPONSE, 0, 24);
            assertEquals(0, StreamPattern.countMismatches(s, 0, 7, StreamPattern.RESPONSE, 0, 24));
            assertNotEquals(0, StreamPattern.countMismatches(s, 0, 8, StreamPattern.RESPONSE, 0, 24));
            assertNotEquals(0, StreamPattern.countMismatches(s, 0, 7, StreamPattern.REQUEST, 0, 24));
        }
    }

    @Test
    void piecesWrittenApartMatchTheWholeStream() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment whole = arena.allocate(1000);
            MemorySegment pieces = arena.allocate(1000);
            StreamPattern.fill(whole, 0, 3, StreamPattern.RESPONSE, 0, 1000);
            StreamPattern.fill(pieces, 0, 3, StreamPattern.RESPONSE, 0, 512);
            StreamPattern.fill(pieces, 512, 3, StreamPattern.RESPONSE, 512, 488);
            assertEquals(-1, whole.mismatch(pieces));
            assertEquals(0, StreamPattern.countMismatches(pieces, 24, 3, StreamPattern.RESPONSE, 24, 976));
        }
    }

    @Test
    void refusesUnalignedStreamOffsets() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment s = arena.allocate(16);
            assertThrows(IllegalArgumentException.class, () -> StreamPattern.fill(s, 0, 1, 1, 3, 8));
        }
    }
}
