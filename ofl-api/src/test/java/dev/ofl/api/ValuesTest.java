package dev.ofl.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ofl.api.wire.TransportKind;
import dev.ofl.api.wire.WireStatus;
import java.net.InetSocketAddress;
import org.junit.jupiter.api.Test;

/** Status values, codes, the completion holder and backend lookup without any backend present. */
class ValuesTest {
    @Test
    void statusValuesAreStable() {
        assertEquals(0, OflStatus.OK);
        assertEquals(1, OflStatus.REFUSED);
        assertEquals(2, OflStatus.HANDLER_FAILED);
        assertEquals(3, OflStatus.TIMED_OUT);
        assertEquals(-1, OflStatus.IN_FLIGHT_FULL);
        assertEquals("TIMED_OUT", OflStatus.name(3));
        assertEquals("IN_FLIGHT_FULL", OflStatus.name(-1));
        assertEquals("UNKNOWN(9)", OflStatus.name(9));
    }

    @Test
    void wireStatusMapsToAwaitStatus() {
        assertEquals(OflStatus.OK, WireStatus.toOflStatus(WireStatus.OK));
        assertEquals(OflStatus.REFUSED, WireStatus.toOflStatus(WireStatus.REFUSED));
        assertEquals(OflStatus.HANDLER_FAILED, WireStatus.toOflStatus(WireStatus.HANDLER_FAILED));
        assertEquals(OflStatus.BUSY, WireStatus.toOflStatus(WireStatus.BUSY));
        assertEquals("BUSY", OflStatus.name(OflStatus.BUSY));
        assertThrows(IllegalArgumentException.class, () -> WireStatus.toOflStatus(4));
    }

    @Test
    void refusalCodesRoundTripTheirWireValues() {
        for (int wire = 0; wire <= 11; wire++) {
            assertEquals(wire, RefusalCode.fromWire(wire).wire());
        }
        assertEquals(RefusalCode.UNSUPPORTED_EXTENSION, RefusalCode.fromWire(9));
        assertEquals(RefusalCode.AUTHENTICATION_REQUIRED, RefusalCode.fromWire(10));
        assertEquals(RefusalCode.AUTHENTICATION_FAILED, RefusalCode.fromWire(11));
        assertNull(RefusalCode.fromWire(12));
        assertNull(RefusalCode.fromWire(-1));
        assertEquals("tcp", TransportKind.name(TransportKind.TCP));
        assertEquals("rdma", TransportKind.name(TransportKind.RDMA));
        assertEquals("unknown(0)", TransportKind.name(0));
    }

    @Test
    void completionStartsEmptyAndHoldsWhatIsSet() {
        Completion completion = new Completion();
        assertEquals(-1, completion.ticket());
        assertEquals(-1, completion.status());
        completion.set(7, OflStatus.REFUSED, -2, 0, null);
        assertEquals(7, completion.ticket());
        assertEquals(OflStatus.REFUSED, completion.status());
        assertEquals(-2, completion.handlerStatus());
        assertNull(completion.failureReason());
        assertTrue(completion.toString().contains("REFUSED"), completion::toString);
        completion.set(8, OflStatus.HANDLER_FAILED, 0, 0, "java.lang.IllegalStateException: no table");
        assertEquals("java.lang.IllegalStateException: no table", completion.failureReason());
        assertTrue(completion.toString().contains("failureReason=java.lang.IllegalStateException: no table"),
                completion::toString);
        completion.set(9, OflStatus.OK, 0, 4, null);
        assertNull(completion.failureReason(), "each fill replaces the reason");
    }

    @Test
    void anUnknownBackendIsNamedWithTheFix() {
        assertTrue(Ofl.unavailabilityCause("nope").isPresent());
        ClientConfig config = ClientConfig.builder().backend("nope").server(new InetSocketAddress("127.0.0.1", 1))
                .serviceName("svc").build();
        OflException e = assertThrows(OflException.class, () -> Ofl.connect(config));
        assertTrue(e.getMessage().contains("'nope'") && e.getMessage().contains("ofl-tcp"), e::getMessage);
    }
}
