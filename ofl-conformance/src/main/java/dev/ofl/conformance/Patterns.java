package dev.ofl.conformance;

import java.util.Random;

/** The byte patterns test payloads and responses are made of; each is reproducible from its seed. */
final class Patterns {
    /** Bytes per row in the row behaviours. */
    static final int ROW_BYTES = 256;

    private Patterns() {
    }

    static byte[] randomBytes(int length, long seed) {
        byte[] bytes = new byte[length];
        new Random(seed).nextBytes(bytes);
        return bytes;
    }

    /** A row: its index in the first four bytes, then a pattern of row, column and seed. */
    static void fillRow(byte[] row, int index, int seed) {
        row[0] = (byte) index;
        row[1] = (byte) (index >>> 8);
        row[2] = (byte) (index >>> 16);
        row[3] = (byte) (index >>> 24);
        for (int c = 4; c < row.length; c++) {
            row[c] = (byte) (index * 131 + c * 7 + seed * 29);
        }
    }

    /** Stream byte {@code k} of a response; never the sentinel, so every write shows. */
    static byte streamByte(long k, int seed) {
        byte b = (byte) (k * 13 + (k >>> 8) + seed * 41 + 1);
        return b == Fixture.SENTINEL ? 0x5A : b;
    }

    /** {@code length} stream bytes from {@code from} on. */
    static byte[] streamBytes(long from, int length, int seed) {
        byte[] bytes = new byte[length];
        for (int k = 0; k < length; k++) {
            bytes[k] = streamByte(from + k, seed);
        }
        return bytes;
    }
}
