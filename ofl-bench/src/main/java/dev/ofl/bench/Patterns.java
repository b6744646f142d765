package dev.ofl.bench;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/**
 * The byte patterns of the ping-pong cases, written by one side and checked byte for byte by the
 * other. Every 8-byte word depends on the iteration, the row and the word's place in the row, so
 * a stale byte from an earlier response, a byte from another row, or a byte never written is a
 * mismatch. Words are little-endian, so the pattern is the same on every host.
 *
 * <p>Stateless and allocation-free; thread-safe.
 */
public final class Patterns {
    /** Bytes per row. */
    public static final int ROW_BYTES = 256;
    /** Bytes of the echo payload. */
    public static final int ECHO_BYTES = 64;

    private static final ValueLayout.OfLong WORD_LE =
            ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final int WORD_BYTES = 8;
    private static final int WORDS_PER_ROW = ROW_BYTES / WORD_BYTES;
    private static final long WORD_STEP = 0x9E3779B97F4A7C15L;
    /** The echo payload uses a row number no row case reaches. */
    private static final long ECHO_ROW = -1;

    private Patterns() {
    }

    /**
     * The first word of a row; the others follow by a fixed odd step. A SplitMix64 finaliser, so
     * neighbouring rows and iterations differ in every byte.
     */
    private static long rowSeed(long iteration, long row) {
        long z = iteration * 0xBF58476D1CE4E5B9L + row * 0x94D049BB133111EBL + 0x632BE59BD9B4E019L;
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }

    /**
     * Writes consecutive rows.
     *
     * @param target where to write
     * @param offset the byte offset in {@code target} of the first row
     * @param firstRow the first row's index in the response
     * @param rows how many rows to write
     * @param iteration the request's iteration
     */
    public static void writeRows(MemorySegment target, long offset, long firstRow, int rows, long iteration) {
        long at = offset;
        for (long row = firstRow; row < firstRow + rows; row++) {
            long word = rowSeed(iteration, row);
            for (int i = 0; i < WORDS_PER_ROW; i++, at += WORD_BYTES, word += WORD_STEP) {
                target.set(WORD_LE, at, word);
            }
        }
    }

    /**
     * Counts the bytes of {@code rows} rows, from offset zero, that differ from the pattern.
     *
     * @param source the response as placed
     * @param rows how many rows to check
     * @param iteration the request's iteration
     * @return mismatched bytes, zero when every byte is right
     */
    public static long countRowMismatches(MemorySegment source, long rows, long iteration) {
        long mismatches = 0;
        long at = 0;
        for (long row = 0; row < rows; row++) {
            long word = rowSeed(iteration, row);
            for (int i = 0; i < WORDS_PER_ROW; i++, at += WORD_BYTES, word += WORD_STEP) {
                long difference = source.get(WORD_LE, at) ^ word;
                if (difference != 0) {
                    mismatches += differingBytes(difference);
                }
            }
        }
        return mismatches;
    }

    /**
     * Writes the echo payload of an iteration.
     *
     * @param target at least {@value #ECHO_BYTES} bytes
     * @param iteration the request's iteration
     */
    public static void writeEcho(MemorySegment target, long iteration) {
        long word = rowSeed(iteration, ECHO_ROW);
        for (int at = 0; at < ECHO_BYTES; at += WORD_BYTES, word += WORD_STEP) {
            target.set(WORD_LE, at, word);
        }
    }

    /**
     * Counts the bytes of an echoed payload that differ from what was sent.
     *
     * @param source the echo as placed, at least {@value #ECHO_BYTES} bytes
     * @param iteration the request's iteration
     * @return mismatched bytes, zero when every byte is right
     */
    public static long countEchoMismatches(MemorySegment source, long iteration) {
        long mismatches = 0;
        long word = rowSeed(iteration, ECHO_ROW);
        for (int at = 0; at < ECHO_BYTES; at += WORD_BYTES, word += WORD_STEP) {
            long difference = source.get(WORD_LE, at) ^ word;
            if (difference != 0) {
                mismatches += differingBytes(difference);
            }
        }
        return mismatches;
    }

    private static int differingBytes(long difference) {
        int count = 0;
        for (int shift = 0; shift < Long.SIZE; shift += Byte.SIZE) {
            if ((difference >>> shift & 0xFF) != 0) {
                count++;
            }
        }
        return count;
    }
}
