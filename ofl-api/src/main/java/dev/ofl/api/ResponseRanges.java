package dev.ofl.api;

import java.util.Objects;

/**
 * Up to {@value Limits#MAX_RANGES} destination ranges, each inside a registered {@link Region}, across
 * which one response is laid in order. Reusable: {@link #clear()} and refill it for every request,
 * so that the hot path allocates nothing.
 *
 * <p>Each range is checked to lie inside its region when added; {@link OflClient#submit} further
 * checks that every region belongs to the submitting client and that the total fits the negotiated
 * response capacity, before anything is sent. Not thread-safe.
 */
public final class ResponseRanges {
    private final Region[] regions = new Region[Limits.MAX_RANGES];
    private final long[] offsets = new long[Limits.MAX_RANGES];
    private final long[] lengths = new long[Limits.MAX_RANGES];
    private int count;
    private long totalLength;

    /** Creates an empty list. */
    public ResponseRanges() {
    }

    /**
     * Creates a list holding one range that covers a whole region.
     *
     * @param region the destination
     * @return a new list with one range
     */
    public static ResponseRanges of(Region region) {
        return new ResponseRanges().add(region, 0, region.byteSize());
    }

    /**
     * Empties the list.
     *
     * @return this list
     */
    public ResponseRanges clear() {
        for (int i = 0; i < count; i++) {
            regions[i] = null;
        }
        count = 0;
        totalLength = 0;
        return this;
    }

    /**
     * Appends a range.
     *
     * @param region the registered region the range lies in
     * @param offset the range's first byte, from the region's start
     * @param length the range's length in bytes, at least one
     * @return this list
     * @throws IllegalArgumentException if the range does not lie inside the region, or the list
     *     already holds {@value Limits#MAX_RANGES} ranges
     */
    public ResponseRanges add(Region region, long offset, long length) {
        Objects.requireNonNull(region, "region");
        if (count == Limits.MAX_RANGES) {
            throw new IllegalArgumentException("a request takes at most " + Limits.MAX_RANGES + " ranges");
        }
        if (offset < 0 || length <= 0 || offset > region.byteSize() - length) {
            throw new IllegalArgumentException("range [offset " + offset + ", length " + length
                    + "] does not lie inside " + region);
        }
        regions[count] = region;
        offsets[count] = offset;
        lengths[count] = length;
        count++;
        totalLength += length;
        return this;
    }

    /**
     * How many ranges the list holds.
     *
     * @return the count, {@code 0..}{@value Limits#MAX_RANGES}
     */
    public int count() {
        return count;
    }

    /**
     * The sum of the ranges' lengths: the most response bytes the request can receive.
     *
     * @return total bytes
     */
    public long totalLength() {
        return totalLength;
    }

    /**
     * The region of one range.
     *
     * @param index the range's position, {@code 0..count()-1}
     * @return its region
     */
    public Region region(int index) {
        Objects.checkIndex(index, count);
        return regions[index];
    }

    /**
     * The offset of one range within its region.
     *
     * @param index the range's position, {@code 0..count()-1}
     * @return the offset in bytes
     */
    public long offset(int index) {
        Objects.checkIndex(index, count);
        return offsets[index];
    }

    /**
     * The length of one range.
     *
     * @param index the range's position, {@code 0..count()-1}
     * @return the length in bytes
     */
    public long length(int index) {
        Objects.checkIndex(index, count);
        return lengths[index];
    }
}
