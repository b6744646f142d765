package dev.ofl.api.spi;

import dev.ofl.api.Limits;

/**
 * Walks a response stream across a request's ranges in order: where the next byte goes, and how
 * much of the current range is left. The one place that cuts a stream at range boundaries, used
 * wherever response bytes are placed (the TCP client placing pieces, the RDMA server posting
 * WRITEs). Allocation-free and reusable; not thread-safe.
 *
 * <p>A range is a start, a length and a key. What start and key mean belongs to the user: a
 * region index and offset on a client, a remote address and rkey on an RDMA server.
 */
public final class RangeCursor {
    private final long[] starts = new long[Limits.MAX_RANGES];
    private final long[] lengths = new long[Limits.MAX_RANGES];
    private final int[] keys = new int[Limits.MAX_RANGES];
    private int count;
    private int range;
    private long offset;
    private long consumed;

    /** Creates an empty cursor. */
    public RangeCursor() {
    }

    /** Forgets every range and rewinds. */
    public void clear() {
        count = 0;
        rewind();
    }

    /**
     * Appends a range.
     *
     * @param start where its first byte goes
     * @param length its length, positive
     * @param key what the user needs beside the start to write there
     * @throws IllegalStateException beyond {@link Limits#MAX_RANGES} ranges
     */
    public void add(long start, long length, int key) {
        if (count == starts.length) {
            throw new IllegalStateException("more than " + starts.length + " ranges");
        }
        starts[count] = start;
        lengths[count] = length;
        keys[count] = key;
        count++;
    }

    /**
     * Copies another cursor's ranges, rewound.
     *
     * @param other the cursor to copy
     */
    public void copyFrom(RangeCursor other) {
        count = other.count;
        System.arraycopy(other.starts, 0, starts, 0, count);
        System.arraycopy(other.lengths, 0, lengths, 0, count);
        System.arraycopy(other.keys, 0, keys, 0, count);
        rewind();
    }

    /** Moves back to the first byte of the first range. */
    public void rewind() {
        range = 0;
        offset = 0;
        consumed = 0;
    }

    /**
     * How many bytes can go to the current position without crossing a range boundary.
     *
     * @param wanted how many the caller has
     * @return {@code min(wanted, room left in the current range)}; zero when every range is full
     */
    public long chunk(long wanted) {
        return range == count ? 0 : Math.min(wanted, lengths[range] - offset);
    }

    /**
     * Where the next byte goes: the current range's start plus the offset in it.
     *
     * @return the position, in the ranges' own terms
     */
    public long position() {
        return starts[range] + offset;
    }

    /**
     * The current range's key.
     *
     * @return the key given for it
     */
    public int key() {
        return keys[range];
    }

    /**
     * Moves past bytes placed at the current position.
     *
     * @param bytes at most {@link #chunk} of them
     * @throws IllegalArgumentException if that crosses the current range's end
     */
    public void advance(long bytes) {
        if (bytes < 0 || range == count || bytes > lengths[range] - offset) {
            throw new IllegalArgumentException("advancing " + bytes + " bytes crosses a range boundary");
        }
        offset += bytes;
        consumed += bytes;
        if (offset == lengths[range]) {
            range++;
            offset = 0;
        }
    }

    /**
     * How many bytes were placed since the last rewind.
     *
     * @return the bytes advanced past
     */
    public long consumed() {
        return consumed;
    }

    /**
     * The key of one of the ranges, wherever the cursor is.
     *
     * @param index a range from zero, below {@link #count()}
     * @return the key given with it to {@link #add}
     */
    public int keyAt(int index) {
        return keys[index];
    }

    /**
     * The number of ranges.
     *
     * @return the ranges added since the last clear
     */
    public int count() {
        return count;
    }
}
