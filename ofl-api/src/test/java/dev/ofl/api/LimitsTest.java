package dev.ofl.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** The protocol's hard caps and the comparison of proposed limits with a server's maxima. */
class LimitsTest {
    private static void assertRefused(String field, Runnable construct) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, construct::run);
        assertTrue(e.getMessage().startsWith(field + " = "), e::getMessage);
    }

    @Test
    void capsAreInclusive() {
        Limits most = new Limits(64 << 20, 1 << 30, 16, 1024);
        assertEquals(new Limits(Limits.MAX_REQUEST_BYTES, Limits.MAX_RESPONSE_BYTES, Limits.MAX_RANGES,
                Limits.MAX_IN_FLIGHT), most);
        Limits least = new Limits(0, 0, 1, 1);
        assertEquals(0, least.maxRequestBytes());
    }

    @Test
    void eachValueOutsideItsCapIsRefusedByName() {
        assertRefused("maxRequestBytes", () -> new Limits(-1, 0, 1, 1));
        assertRefused("maxRequestBytes", () -> new Limits((64 << 20) + 1, 0, 1, 1));
        assertRefused("maxResponseBytes", () -> new Limits(0, -1, 1, 1));
        assertRefused("maxResponseBytes", () -> new Limits(0, (1 << 30) + 1, 1, 1));
        assertRefused("maxRanges", () -> new Limits(0, 0, 0, 1));
        assertRefused("maxRanges", () -> new Limits(0, 0, 17, 1));
        assertRefused("maxInFlight", () -> new Limits(0, 0, 1, 0));
        assertRefused("maxInFlight", () -> new Limits(0, 0, 1, 1025));
    }

    @Test
    void defaultsAreAsDocumented() {
        assertEquals(new Limits(256 << 10, 16 << 20, 16, 8), Limits.CLIENT_DEFAULTS);
        assertEquals(new Limits(1 << 20, 32 << 20, 16, 64), Limits.SERVER_DEFAULTS);
        assertNull(Limits.CLIENT_DEFAULTS.exceeds(Limits.SERVER_DEFAULTS));
    }

    @Test
    void exceedsNamesTheFirstFieldInProtocolOrder() {
        Limits maxima = new Limits(1000, 2000, 8, 4);
        assertNull(maxima.exceeds(maxima), "equal limits fit");
        assertNull(new Limits(0, 0, 1, 1).exceeds(maxima));
        assertEquals("maxRequestBytes 1001 exceeds the server's 1000", new Limits(1001, 2001, 9, 5).exceeds(maxima));
        assertEquals("maxResponseBytes 2001 exceeds the server's 2000", new Limits(1000, 2001, 9, 5).exceeds(maxima));
        assertEquals("maxRanges 9 exceeds the server's 8", new Limits(1000, 2000, 9, 5).exceeds(maxima));
        assertEquals("maxInFlight 5 exceeds the server's 4", new Limits(1000, 2000, 8, 5).exceeds(maxima));
    }
}
