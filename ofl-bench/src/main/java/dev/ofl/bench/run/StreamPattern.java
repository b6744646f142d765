package dev.ofl.bench.run;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/**
 * Byte patterns of any length for the separate-process benchmark: the request stream and the
 * response stream of each iteration differ in every word, so a stale byte, a byte of the other
 * direction, or a byte never written is a mismatch. The pattern is a function of the byte's offset
 * in its stream, so a stream may be written and checked in pieces whose starts are multiples of
 * {@value #WORD_BYTES}. Little-endian words, the same on every host.
 *
 * <p>Stateless and allocation-free; thread-safe.
 */
public final class StreamPattern {
    /** Stream number of request payloads. */
    public static final long REQUEST = 1;
    /** Stream number of response bytes. */
    public static final long RESPONSE = 2;
    /** Pieces of a stream must start at multiples of this. */
    public static final int WORD_BYTES = 8;

    private static final ValueLayout.OfLong WORD_LE =
            ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final long WORD_STEP = 0x9E3779B97F4A7C15L;
    /**
     * Words per inner loop: an int-counted loop, which the JIT compiles to code at memory speed;
     * a long-counted one filled 12 MiB responses in the server at less than half the C peer's
     * speed (1.1 ms against 0.5 ms), which the compare tool charged to ofl's transport.
     */
    static final int RUN_WORDS = 1 << 20;

    private StreamPattern() {
    }

    /** The first word of a stream: a SplitMix64 finaliser of the iteration and stream number. */
    static long seed(long iteration, long stream) {
        long z = iteration * 0xBF58476D1CE4E5B9L + stream * 0x94D049BB133111EBL + 0x632BE59BD9B4E019L;
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }

    /**
     * Writes {@code length} bytes of a stream, from stream offset {@code from}.
     *
     * @param target where to write
     * @param at the byte offset in {@code target}
     * @param iteration the request's iteration
     * @param stream {@link #REQUEST} or {@link #RESPONSE}
     * @param from the offset in the stream of the first byte, a multiple of {@value #WORD_BYTES}
     * @param length bytes to write
     * @throws IllegalArgumentException if {@code from} is not a multiple of {@value #WORD_BYTES}
     */
    public static void fill(MemorySegment target, long at, long iteration, long stream, long from, long length) {
        requireAligned(from);
        long word = seed(iteration, stream) + (from / WORD_BYTES) * WORD_STEP;
        long offset = at;
        for (long left = length / WORD_BYTES; left > 0; ) {
            int words = (int) Math.min(left, RUN_WORDS);
            for (int i = 0; i < words; i++) {
                target.set(WORD_LE, offset + i * (long) WORD_BYTES, word + i * WORD_STEP);
            }
            offset += words * (long) WORD_BYTES;
            word += words * WORD_STEP;
            left -= words;
        }
        for (int b = 0; b < length % WORD_BYTES; b++) {
            target.set(ValueLayout.JAVA_BYTE, offset + b, (byte) (word >>> (b * Byte.SIZE)));
        }
    }

    /**
     * Counts the bytes of a piece of a stream that differ from the pattern.
     *
     * @param source the bytes as received
     * @param at the byte offset in {@code source}
     * @param iteration the request's iteration
     * @param stream {@link #REQUEST} or {@link #RESPONSE}
     * @param from the offset in the stream of the first byte, a multiple of {@value #WORD_BYTES}
     * @param length bytes to check
     * @return mismatched bytes, zero when every byte is right
     * @throws IllegalArgumentException if {@code from} is not a multiple of {@value #WORD_BYTES}
     */
    public static long countMismatches(MemorySegment source, long at, long iteration, long stream, long from,
            long length) {
        requireAligned(from);
        long word = seed(iteration, stream) + (from / WORD_BYTES) * WORD_STEP;
        long offset = at;
        long mismatches = 0;
        for (long left = length / WORD_BYTES; left > 0; ) {
            int words = (int) Math.min(left, RUN_WORDS);
            for (int i = 0; i < words; i++) {
                long difference = source.get(WORD_LE, offset + i * (long) WORD_BYTES) ^ (word + i * WORD_STEP);
                if (difference != 0) {
                    mismatches += differingBytes(difference);
                }
            }
            offset += words * (long) WORD_BYTES;
            word += words * WORD_STEP;
            left -= words;
        }
        for (int b = 0; b < length % WORD_BYTES; b++) {
            if (source.get(ValueLayout.JAVA_BYTE, offset + b) != (byte) (word >>> (b * Byte.SIZE))) {
                mismatches++;
            }
        }
        return mismatches;
    }

    private static void requireAligned(long from) {
        if (from % WORD_BYTES != 0) {
            throw new IllegalArgumentException("stream offset " + from + " is not a multiple of " + WORD_BYTES);
        }
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
