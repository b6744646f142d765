package dev.ofl.api.wire;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ofl.api.Limits;
import dev.ofl.api.RefusalCode;
import org.junit.jupiter.api.Test;

/** The server's decision on a HELLO, in the order of docs/PROTOCOL.md 3.4. */
class HelloCheckTest {
    private static final Limits MAXIMA = new Limits(1 << 20, 64 << 20, 16, 4);

    private static Bootstrap.Endpoint hello(int transport, String service, Limits limits, byte[] extensions) {
        return new Bootstrap.Endpoint(RefusalCode.ACCEPTED, transport, service, limits, 0, 0, null, 0, 0, 0, "",
                extensions);
    }

    @Test
    void versionIsCheckedFirst() {
        assertTrue(HelloCheck.version(1).accepted());
        HelloCheck refused = HelloCheck.version(2);
        assertEquals(RefusalCode.VERSION_MISMATCH, refused.code());
        assertTrue(refused.reason().contains("2"), refused::reason);
    }

    @Test
    void bodyChecksComeInOrder() {
        byte[] critical = Hex.bytes("00 80 00 00");
        Limits tooMany = new Limits(1024, 1024, 16, 8);
        assertEquals(RefusalCode.UNSUPPORTED_EXTENSION,
                HelloCheck.body(hello(TransportKind.RDMA, "other", tooMany, critical), TransportKind.TCP, "svc", MAXIMA).code());
        assertEquals(RefusalCode.TRANSPORT_MISMATCH,
                HelloCheck.body(hello(TransportKind.RDMA, "other", tooMany, null), TransportKind.TCP, "svc", MAXIMA).code());
        assertEquals(RefusalCode.SERVICE_MISMATCH,
                HelloCheck.body(hello(TransportKind.TCP, "other", tooMany, null), TransportKind.TCP, "svc", MAXIMA).code());
        HelloCheck limits = HelloCheck.body(hello(TransportKind.TCP, "svc", tooMany, null), TransportKind.TCP, "svc", MAXIMA);
        assertEquals(RefusalCode.LIMITS_EXCEEDED, limits.code());
        assertEquals("maxInFlight 8 exceeds the server's 4", limits.reason());
        HelloCheck accepted = HelloCheck.body(hello(TransportKind.TCP, "svc", MAXIMA, Hex.bytes("01 00 00 00")),
                TransportKind.TCP, "svc", MAXIMA);
        assertTrue(accepted.accepted(), accepted::reason);
        assertEquals("", accepted.reason());
    }
}
