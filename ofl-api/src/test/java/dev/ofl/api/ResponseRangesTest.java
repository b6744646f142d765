package dev.ofl.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Range bounds, the 16-range cap, and reuse through {@link ResponseRanges#clear()}. */
class ResponseRangesTest {
    private Arena arena;
    private Region region;
    private Region other;

    @BeforeEach
    void allocate() {
        arena = Arena.ofConfined();
        region = new Region(this, 0, arena.allocate(1000));
        other = new Region(this, 1, arena.allocate(10));
    }

    @AfterEach
    void free() {
        arena.close();
    }

    @Test
    void rangesInsideTheRegionAreKeptInOrder() {
        ResponseRanges ranges = new ResponseRanges().add(region, 0, 1).add(other, 0, 10).add(region, 999, 1)
                .add(region, 0, 1000);
        assertEquals(4, ranges.count());
        assertEquals(1012, ranges.totalLength());
        assertSame(other, ranges.region(1));
        assertEquals(999, ranges.offset(2));
        assertEquals(1000, ranges.length(3));
    }

    @Test
    void rangesOutsideTheRegionAreRefused() {
        ResponseRanges ranges = new ResponseRanges();
        assertThrows(IllegalArgumentException.class, () -> ranges.add(region, -1, 10), "negative offset");
        assertThrows(IllegalArgumentException.class, () -> ranges.add(region, 0, 0), "empty range");
        assertThrows(IllegalArgumentException.class, () -> ranges.add(region, 0, -5), "negative length");
        assertThrows(IllegalArgumentException.class, () -> ranges.add(region, 0, 1001), "longer than the region");
        assertThrows(IllegalArgumentException.class, () -> ranges.add(region, 1000, 1), "starting at the end");
        assertThrows(IllegalArgumentException.class, () -> ranges.add(region, 999, 2), "crossing the end");
        assertThrows(IllegalArgumentException.class, () -> ranges.add(region, 1, Long.MAX_VALUE), "overflowing end");
        assertThrows(IllegalArgumentException.class, () -> ranges.add(region, Long.MAX_VALUE, 1), "huge offset");
        assertThrows(NullPointerException.class, () -> ranges.add(null, 0, 1));
        assertEquals(0, ranges.count(), "refused ranges are not added");
        assertEquals(0, ranges.totalLength());
    }

    @Test
    void atMostSixteenRanges() {
        ResponseRanges ranges = new ResponseRanges();
        for (int i = 0; i < Limits.MAX_RANGES; i++) {
            ranges.add(region, i * 10L, 10);
        }
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> ranges.add(region, 900, 1));
        assertEquals(16, ranges.count());
        assertEquals(160, ranges.totalLength());
        assertEquals("a request takes at most 16 ranges", e.getMessage());
    }

    @Test
    void clearEmptiesForReuse() {
        ResponseRanges ranges = new ResponseRanges();
        for (int i = 0; i < Limits.MAX_RANGES; i++) {
            ranges.add(region, i, 1);
        }
        assertSame(ranges, ranges.clear());
        assertEquals(0, ranges.count());
        assertEquals(0, ranges.totalLength());
        assertThrows(IndexOutOfBoundsException.class, () -> ranges.region(0));
        ranges.add(other, 2, 3);
        assertEquals(1, ranges.count());
        assertEquals(3, ranges.totalLength());
        assertSame(other, ranges.region(0));
    }

    @Test
    void indexesAreChecked() {
        ResponseRanges ranges = new ResponseRanges().add(region, 0, 5);
        assertThrows(IndexOutOfBoundsException.class, () -> ranges.region(1));
        assertThrows(IndexOutOfBoundsException.class, () -> ranges.offset(-1));
        assertThrows(IndexOutOfBoundsException.class, () -> ranges.length(1));
    }

    @Test
    void ofCoversTheWholeRegion() {
        ResponseRanges ranges = ResponseRanges.of(region);
        assertEquals(1, ranges.count());
        assertEquals(0, ranges.offset(0));
        assertEquals(1000, ranges.length(0));
        MemorySegment empty = arena.allocate(0);
        assertThrows(IllegalArgumentException.class, () -> ResponseRanges.of(new Region(this, 2, empty)));
    }
}
