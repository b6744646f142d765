package dev.ofl.conformance;

import static dev.ofl.conformance.Fixture.deadline;
import static dev.ofl.conformance.ResponseChecks.assertEchoWorks;
import static dev.ofl.conformance.TestHandlers.echo;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ofl.api.Completion;
import dev.ofl.api.OflClient;
import dev.ofl.api.OflServer;
import dev.ofl.api.OflStatus;
import dev.ofl.api.Region;
import dev.ofl.api.ResponseRanges;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * A region's memory freed by the caller is never written: refused at submit with nothing sent,
 * and, when freed while a request that places its response there is in flight, the connection is
 * broken at await before the response can come. Memory the client allocates lives as long as
 * the client.
 */
abstract class RegionLifetimeBehaviour extends ConformanceBehaviour {
    RegionLifetimeBehaviour(TransportUnderTest transport) {
        super(transport);
    }

    @Test
    void aFreedRegionIsRefusedAtSubmitAndNothingIsSent() {
        OflServer server = fixture.serve(b -> { }, echo());
        OflClient client = fixture.connect(server, b -> { });
        Arena arena = Arena.ofShared();
        Region freed = client.registerRegion(arena.allocate(4096));
        arena.close();
        client.requestPayload().set(ValueLayout.JAVA_BYTE, 0, (byte) 1);
        IllegalStateException refused = assertThrows(IllegalStateException.class,
                () -> client.submit(TestOp.ECHO.code(), 0, 1, ResponseRanges.of(freed)));
        assertTrue(refused.getMessage().contains("Region[id=0") && refused.getMessage().contains("freed")
                && refused.getMessage().contains("allocateRegion"), refused.getMessage());
        assertEquals(0, server.statistics().requests(), "nothing reached the server");
        assertTrue(!client.isBroken(), "refusing a request breaks nothing");
        assertEchoWorks(client, fixture.allocate(4096), null, "after the refused submit");
    }

    @Test
    void aRegionFreedWhileItsRequestIsInFlightBreaksTheConnectionBeforeTheResponse() throws Exception {
        Blocker blocker = new Blocker();
        AtomicLong written = new AtomicLong();
        OflServer server = fixture.serve(b -> { }, (request, response) -> {
            if (request.op() != TestOp.BLOCK.code()) {
                response.write(request.payload());
                return 0;
            }
            blocker.block();
            response.buffer().asSlice(0, response.capacity()).fill((byte) 0x5A);
            response.commit(response.capacity());
            written.addAndGet(response.capacity());
            return 0;
        });
        OflClient client = fixture.connect(server, b -> { });
        Arena arena = Arena.ofShared();
        MemorySegment memory = arena.allocate(4096);
        Region doomed = client.registerRegion(memory);
        long ticket;
        try {
            ticket = client.submit(TestOp.BLOCK.code(), 0, 0, ResponseRanges.of(doomed));
            assertTrue(ticket >= 0);
            blocker.awaitEntered();
            arena.close();
            Completion completion = new Completion();
            IllegalStateException broken = assertThrows(IllegalStateException.class,
                    () -> client.await(ticket, deadline(client), completion));
            assertTrue(broken.getMessage().contains("freed") && broken.getMessage().contains("in flight")
                    && broken.getMessage().contains("reconnect()"), broken.getMessage());
            assertTrue(client.isBroken(), "the connection is broken before await returns");
            assertEquals(1, client.statistics().freedRegions());
        } finally {
            blocker.release();
        }
        // The late response meets a broken connection; the client is whole again after reconnect,
        // and the freed region stays refused.
        client.reconnect();
        assertThrows(IllegalStateException.class, () -> client.submit(TestOp.ECHO.code(), 0, 0,
                ResponseRanges.of(doomed)));
        assertEchoWorks(client, fixture.allocate(4096), null, "after reconnecting");
        Conditions.await(() -> written.get() == 4096, "the blocked handler to finish");
    }

    @Test
    void memoryTheClientAllocatesLivesAsLongAsTheClient() {
        OflServer server = fixture.serve(b -> { }, echo());
        OflClient client = fixture.connect(server, b -> { });
        Region owned = client.allocateRegion(8192);
        assertEquals(8192, owned.byteSize());
        assertEquals(0, owned.segment().address() % 4096, "page-aligned");
        owned.segment().fill((byte) 0x11);
        client.requestPayload().setString(0, "owned");
        Completion completion = new Completion();
        assertEquals(OflStatus.OK, client.call(TestOp.ECHO.code(), 0, 6, new ResponseRanges().add(owned, 100, 6),
                Fixture.CALL_TIMEOUT_NS, completion));
        assertEquals("owned", owned.segment().getString(100));
        assertEquals((byte) 0x11, owned.segment().get(ValueLayout.JAVA_BYTE, 99), "bytes around the range");
        client.close();
        assertThrows(IllegalStateException.class, () -> owned.segment().get(ValueLayout.JAVA_BYTE, 0),
                "the client's memory is freed with it, and every access to it fails");
        assertThrows(IllegalArgumentException.class, () -> fixture.connect(server, b -> { }).allocateRegion(0));
    }
}
