package dev.ofl.api.spi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import org.junit.jupiter.api.Test;

/** Places per source address and in total: taken only below both limits, given back exactly. */
class SourceCountsTest {
    private static final InetAddress A = new InetSocketAddress("10.0.0.1", 0).getAddress();
    private static final InetAddress B = new InetSocketAddress("10.0.0.2", 0).getAddress();

    @Test
    void theSourceLimitComesBeforeTheTotal() {
        SourceCounts counts = new SourceCounts();
        assertEquals(SourceCounts.TAKEN, counts.tryAcquire(A, 2, 3));
        assertEquals(SourceCounts.TAKEN, counts.tryAcquire(A, 2, 3));
        assertEquals(SourceCounts.SOURCE_FULL, counts.tryAcquire(A, 2, 3));
        assertEquals(SourceCounts.TAKEN, counts.tryAcquire(B, 2, 3));
        assertEquals(SourceCounts.ALL_FULL, counts.tryAcquire(B, 2, 3));
        assertEquals(SourceCounts.SOURCE_FULL, counts.tryAcquire(A, 2, 3), "both full: the source's limit is named");
        assertEquals(3, counts.total());
        assertEquals(2, counts.count(A));
    }

    @Test
    void releasedPlacesCanBeTakenAgainAndEmptySourcesAreForgotten() {
        SourceCounts counts = new SourceCounts();
        counts.tryAcquire(A, 1, 1);
        counts.release(A);
        assertEquals(0, counts.total());
        assertEquals(0, counts.count(A));
        assertEquals(SourceCounts.TAKEN, counts.tryAcquire(B, 1, 1));
    }

    @Test
    void givingBackAPlaceNeverTakenIsABug() {
        assertThrows(IllegalStateException.class, () -> new SourceCounts().release(A));
    }
}
