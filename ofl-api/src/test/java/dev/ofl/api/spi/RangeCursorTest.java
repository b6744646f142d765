package dev.ofl.api.spi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.ofl.api.Limits;
import org.junit.jupiter.api.Test;

class RangeCursorTest {
    @Test
    void chunksStopAtRangeBoundariesAndAdvanceAcrossThem() {
        RangeCursor cursor = new RangeCursor();
        cursor.add(1000, 10, 7);
        cursor.add(5000, 4, 8);
        assertEquals(10, cursor.chunk(100));
        assertEquals(3, cursor.chunk(3));
        assertEquals(1000, cursor.position());
        assertEquals(7, cursor.key());
        cursor.advance(6);
        assertEquals(1006, cursor.position());
        assertEquals(4, cursor.chunk(100));
        cursor.advance(4);
        assertEquals(5000, cursor.position());
        assertEquals(8, cursor.key());
        assertEquals(10, cursor.consumed());
        cursor.advance(4);
        assertEquals(0, cursor.chunk(1), "every range is full");
        assertEquals(14, cursor.consumed());
        assertEquals(2, cursor.count());
    }

    @Test
    void advancingPastARangeEndIsRefused() {
        RangeCursor cursor = new RangeCursor();
        cursor.add(0, 4, 0);
        assertThrows(IllegalArgumentException.class, () -> cursor.advance(5));
        assertThrows(IllegalArgumentException.class, () -> cursor.advance(-1));
        cursor.advance(4);
        assertThrows(IllegalArgumentException.class, () -> cursor.advance(1));
    }

    @Test
    void rewindClearAndCopyStartOver() {
        RangeCursor cursor = new RangeCursor();
        cursor.add(100, 8, 1);
        cursor.add(200, 8, 2);
        cursor.advance(8);
        cursor.advance(3);
        RangeCursor copy = new RangeCursor();
        copy.copyFrom(cursor);
        assertEquals(0, copy.consumed());
        assertEquals(100, copy.position());
        assertEquals(2, copy.count());
        cursor.rewind();
        assertEquals(100, cursor.position());
        assertEquals(0, cursor.consumed());
        cursor.clear();
        assertEquals(0, cursor.count());
        assertEquals(0, cursor.chunk(10));
    }

    @Test
    void holdsAtMostTheProtocolsRanges() {
        RangeCursor cursor = new RangeCursor();
        for (int i = 0; i < Limits.MAX_RANGES; i++) {
            cursor.add(i, 1, i);
        }
        assertThrows(IllegalStateException.class, () -> cursor.add(0, 1, 0));
    }
}
