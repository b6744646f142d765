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

    /**
     * The response stream's first words of iterations 0 and 1 and a tail byte, as the C peer
     * ({@code tcp_peer.c}) computes them too: the two peers' servers must do the same work.
     * {@link CPeerStreamTest} runs the C peer against the Java one both ways.
     */
    @Test
    void theResponseStreamIsTheOneTheCPeerWrites() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment s = arena.allocate(49);
            ValueLayout.OfLong le = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(java.nio.ByteOrder.LITTLE_ENDIAN);
            StreamPattern.fill(s, 0, 0, StreamPattern.RESPONSE, 0, 49);
            assertEquals(0x14b51acf4aa2dd52L, s.get(le, 0));
            assertEquals(0x2bca7b6ec71749bbL, s.get(le, 40));
            assertEquals((byte) (0x2bca7b6ec71749bbL + 0x9E3779B97F4A7C15L), s.get(ValueLayout.JAVA_BYTE, 48));
            StreamPattern.fill(s, 0, 1, StreamPattern.RESPONSE, 0, 49);
            assertEquals(0xd73d99db09706e12L, s.get(le, 0));
            assertEquals(0xee52fa7a85e4da7bL, s.get(le, 40));
        }
    }

    /** Calls longer than one inner run of words (8 MiB) carry the stream on across it. */
    @Test
    void aStreamLongerThanOneRunOfWordsIsTheStreamWrittenInShorterPieces() {
        try (Arena arena = Arena.ofConfined()) {
            long run = StreamPattern.RUN_WORDS * (long) StreamPattern.WORD_BYTES;
            long length = run + 21;
            MemorySegment whole = arena.allocate(length);
            MemorySegment pieces = arena.allocate(length);
            StreamPattern.fill(whole, 0, 9, StreamPattern.RESPONSE, 0, length);
            StreamPattern.fill(pieces, 0, 9, StreamPattern.RESPONSE, 0, run / 2);
            StreamPattern.fill(pieces, run / 2, 9, StreamPattern.RESPONSE, run / 2, length - run / 2);
            assertEquals(-1, whole.mismatch(pieces));
            assertEquals(0, StreamPattern.countMismatches(whole, 0, 9, StreamPattern.RESPONSE, 0, length));
            whole.set(ValueLayout.JAVA_BYTE, run + 3, (byte) ~whole.get(ValueLayout.JAVA_BYTE, run + 3));
            assertEquals(1, StreamPattern.countMismatches(whole, 0, 9, StreamPattern.RESPONSE, 0, length));
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
