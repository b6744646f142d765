package dev.ofl.conformance;

import static dev.ofl.conformance.ResponseChecks.payloadAddressesOverCalls;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ofl.api.Completion;
import dev.ofl.api.Limits;
import dev.ofl.api.OflClient;
import dev.ofl.api.OflConnectionException;
import dev.ofl.api.OflServer;
import dev.ofl.api.OflStatus;
import dev.ofl.api.ResponseRanges;
import java.lang.foreign.MemorySegment;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** Reconnect: a client broken by a timeout reconnects, keeping its payload slots and regions, and works. */
abstract class ReconnectBehaviour extends ConformanceBehaviour {
    ReconnectBehaviour(TransportUnderTest transport) {
        super(transport);
    }

    /** {@code reconnect()} after a timeout keeps every payload slot's address and the regions, and works. */
    @Test
    void reconnectKeepsPayloadAddressesAndWorks() {
        Blocker blocker = new Blocker();
        OflServer server = fixture.serve(b -> { }, (request, response) -> {
            if (request.op() == TestOp.BLOCK.code()) {
                blocker.block();
                return 0;
            }
            response.write(request.payload());
            return 0;
        });
        OflClient client = fixture.connect(server, b -> b.limits(new Limits(4096, 1 << 20, Limits.MAX_RANGES, 4)));
        MemorySegment memory = fixture.allocate(4096);
        ResponseRanges ranges = ResponseRanges.of(client.registerRegion(memory));
        Set<Long> before = payloadAddressesOverCalls(client, memory, ranges, 8, "before reconnect");
        assertEquals(1, before.size(), "one payload area for every request: " + before);

        long ticket = client.submit(TestOp.BLOCK.code(), 0, 0, ranges);
        blocker.awaitEntered();
        Completion completion = new Completion();
        assertEquals(OflStatus.TIMED_OUT,
                client.await(ticket, client.clock().nanoTime() + TimeUnit.MILLISECONDS.toNanos(20), completion));
        assertTrue(client.isBroken());
        assertThrows(OflConnectionException.class, () -> client.submit(TestOp.ECHO.code(), 0, 0, ranges));
        blocker.release();

        client.reconnect();
        assertFalse(client.isBroken(), "broken after reconnect()");
        Set<Long> after = payloadAddressesOverCalls(client, memory, ranges, 8, "after reconnect");
        assertEquals(before, after, "payload slot addresses must survive reconnect()");

        client.reconnect();
        assertFalse(client.isBroken(), "broken after reconnecting a healthy connection");
        Set<Long> again = payloadAddressesOverCalls(client, memory, ranges, 8, "after a second reconnect");
        assertEquals(before, again, "payload slot addresses must survive a second reconnect()");
    }
}
