package dev.ofl.example;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * A table of fixed-size rows in a file, mapped into memory: what the server answers lookups from,
 * and the client's local copy for its fallback. Rows are {@value #ROW_BYTES} bytes, as in the
 * Engram tables ofl was built for.
 *
 * @param rows the mapped file, read-only
 */
public record EngramTable(MemorySegment rows) {
    /** Bytes per row. */
    public static final int ROW_BYTES = 256;

    /**
     * Writes a table of {@code count} rows whose bytes follow from their row number, so that any
     * reader can check a row it got.
     *
     * @param file the file to (re)write
     * @param count how many rows
     * @throws IOException if the file cannot be written
     */
    public static void write(Path file, int count) throws IOException {
        try (FileChannel out = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                StandardOpenOption.TRUNCATE_EXISTING)) {
            ByteBuffer row = ByteBuffer.allocate(ROW_BYTES);
            for (int r = 0; r < count; r++) {
                row.clear();
                for (int j = 0; j < ROW_BYTES; j++) {
                    row.put(expectedByte(r, j));
                }
                row.flip();
                while (row.hasRemaining()) {
                    out.write(row);
                }
            }
        }
    }

    /**
     * Maps a table file read-only.
     *
     * @param file a file written by {@link #write} (any whole number of rows)
     * @param arena owns the mapping; the table is usable while it is alive
     * @return the table
     * @throws IOException if the file cannot be mapped or is not a whole number of rows
     */
    public static EngramTable map(Path file, Arena arena) throws IOException {
        try (FileChannel in = FileChannel.open(file, StandardOpenOption.READ)) {
            long size = in.size();
            if (size == 0 || size % ROW_BYTES != 0) {
                throw new IOException(file + " holds " + size + " bytes, not a whole number of " + ROW_BYTES
                        + "-byte rows");
            }
            return new EngramTable(in.map(FileChannel.MapMode.READ_ONLY, 0, size, arena));
        }
    }

    /**
     * The number of rows.
     *
     * @return rows in the table
     */
    public int count() {
        return (int) (rows.byteSize() / ROW_BYTES);
    }

    /**
     * Copies one row into {@code target}: the server's answer and the client's fallback alike.
     *
     * @param row the row number, in range
     * @param target where to write
     * @param offset the byte offset in {@code target}
     */
    public void copyRow(int row, MemorySegment target, long offset) {
        MemorySegment.copy(rows, (long) row * ROW_BYTES, target, offset, ROW_BYTES);
    }

    /**
     * Whether {@code segment} holds exactly row {@code row} at {@code offset}.
     *
     * @param row the row number
     * @param segment what to check
     * @param offset where the row starts in {@code segment}
     * @return {@code true} if every byte matches
     */
    public boolean holds(int row, MemorySegment segment, long offset) {
        return MemorySegment.mismatch(rows, (long) row * ROW_BYTES, (long) (row + 1) * ROW_BYTES, segment, offset,
                offset + ROW_BYTES) < 0;
    }

    static byte expectedByte(int row, int column) {
        return (byte) (row * 31 + column * 7 + (row >>> 8));
    }

    /** The little-endian row number layout of a lookup's payload. */
    static final ValueLayout.OfInt ROW_ID = ValueLayout.JAVA_INT_UNALIGNED.withOrder(java.nio.ByteOrder.LITTLE_ENDIAN);
}
