package dev.ofl.api.spi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Places per source address and in total: taken only below both limits, given back exactly. */
@Timeout(120)
class SourceCountsTest {
    private static final InetAddress A = new InetSocketAddress("10.0.0.1", 0).getAddress();
    private static final InetAddress B = new InetSocketAddress("10.0.0.2", 0).getAddress();
    private static final InetAddress C = new InetSocketAddress("10.0.0.3", 0).getAddress();

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

    @Test
    void releasingOneOfSeveralPlacesKeepsTheRest() {
        SourceCounts counts = new SourceCounts();
        counts.tryAcquire(A, 3, 3);
        counts.tryAcquire(A, 3, 3);
        counts.release(A);
        assertEquals(1, counts.count(A));
        assertEquals(1, counts.total());
        counts.release(A);
        assertEquals(0, counts.count(A));
        assertThrows(IllegalStateException.class, () -> counts.release(A), "both places were given back");
    }

    @Test
    void aForcedPlaceExceedsTheLimitsUntilAnotherIsGivenBack() {
        SourceCounts counts = new SourceCounts();
        counts.tryAcquire(A, 1, 1);
        counts.forceAcquire(B);
        assertEquals(2, counts.total(), "the newcomer's place is taken ahead of the leaving one's");
        assertEquals(SourceCounts.ALL_FULL, counts.tryAcquire(C, 1, 1));
        counts.release(A);
        assertEquals(1, counts.total());
        assertEquals(1, counts.count(B));
    }

    @Test
    void anIpv6SourceIsItsSlash64() throws Exception {
        SourceCounts counts = new SourceCounts();
        InetAddress one = InetAddress.getByName("2001:db8:0:1::1");
        InetAddress other = InetAddress.getByName("2001:db8:0:1:ffff:ffff:ffff:fffe");
        InetAddress nextPrefix = InetAddress.getByName("2001:db8:0:2::1");
        assertEquals(SourceCounts.TAKEN, counts.tryAcquire(one, 2, 10));
        assertEquals(SourceCounts.TAKEN, counts.tryAcquire(other, 2, 10));
        assertEquals(SourceCounts.SOURCE_FULL, counts.tryAcquire(InetAddress.getByName("2001:db8:0:1::77"), 2, 10),
                "every address of one /64 counts under one source");
        assertEquals(SourceCounts.TAKEN, counts.tryAcquire(nextPrefix, 2, 10), "another /64 is another source");
        assertEquals(2, counts.count(InetAddress.getByName("2001:db8:0:1:1:2:3:4")));
        counts.release(other);
        counts.release(one);
        assertEquals(0, counts.count(one), "released under its /64 whichever address of it is named");
        assertEquals("2001:db8:0:1::/64", SourceCounts.describe(one));
        assertEquals("2001:db8::/64", SourceCounts.describe(InetAddress.getByName("2001:db8::5")));
        assertEquals("::/64", SourceCounts.describe(InetAddress.getByName("::1")));
        assertEquals("fe80::/64", SourceCounts.describe(InetAddress.getByName("fe80::1%1")));
        assertEquals("10.0.0.1", SourceCounts.describe(A), "an IPv4 source is its address");
    }
}
