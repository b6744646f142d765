package dev.ofl.conformance;

import static dev.ofl.conformance.Fixture.CALL_TIMEOUT_NS;
import static dev.ofl.conformance.Fixture.WAIT_SECONDS;
import static dev.ofl.conformance.Fixture.deadline;
import static dev.ofl.conformance.Fixture.within;
import static dev.ofl.conformance.Patterns.streamBytes;
import static dev.ofl.conformance.ResponseChecks.assertBytes;
import static dev.ofl.conformance.ResponseChecks.assertEchoWorks;
import static dev.ofl.conformance.ResponseChecks.assertSentinel;
import static dev.ofl.conformance.TestHandlers.echo;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.ofl.api.Completion;
import dev.ofl.api.Ofl;
import dev.ofl.api.OflClient;
import dev.ofl.api.OflConnectionException;
import dev.ofl.api.OflException;
import dev.ofl.api.OflRefusedException;
import dev.ofl.api.OflServer;
import dev.ofl.api.OflStatus;
import dev.ofl.api.RefusalCode;
import dev.ofl.api.Region;
import dev.ofl.api.ResponseRanges;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.Test;

/**
 * Shutdown: closing a server drains the running request and takes no new one; a server that dies
 * mid-request breaks its clients at once; {@code close()} is idempotent on both ends.
 */
abstract class ShutdownBehaviour extends ConformanceBehaviour {
    ShutdownBehaviour(TransportUnderTest transport) {
        super(transport);
    }

    /**
     * A server closed while its handler blocks ends the client's wait with
     * {@link OflConnectionException} before the deadline, not a timeout or a hang, and close()
     * returns after its drain timeout even though the handler is still running.
     */
    @Test
    void serverCloseMidRequestBreaksTheClient() throws Exception {
        Blocker blocker = new Blocker();
        OflServer server = Ofl.serve(fixture.serverBuilder().drainTimeout(Duration.ofMillis(200)).build(),
                (request, response) -> {
                    blocker.block();
                    return 0;
                });
        fixture.own(server);
        OflClient client = fixture.connect(server, b -> { });
        ExecutorService closer = Executors.newSingleThreadExecutor();
        try {
            long ticket = client.submit(TestOp.BLOCK.code(), 0, 0, new ResponseRanges());
            blocker.awaitEntered();
            Future<?> closed = closer.submit(server::close);
            Completion completion = new Completion();
            OflConnectionException broken = assertThrows(OflConnectionException.class,
                    () -> client.await(ticket, deadline(client), completion),
                    "await while the server closes (got " + completion + ")");
            assertNotNull(broken.getMessage());
            try {
                closed.get(WAIT_SECONDS, TimeUnit.SECONDS);
            } catch (TimeoutException e) {
                fail("server close() did not return within its drain timeout while a handler blocks");
            }
            assertTrue(client.isBroken(), "client broken after the server closed");
            assertThrows(OflConnectionException.class, () -> client.submit(TestOp.ECHO.code(), 0, 0, new ResponseRanges()));
        } finally {
            blocker.release();
            closer.shutdownNow();
            assertTrue(closer.awaitTermination(WAIT_SECONDS, TimeUnit.SECONDS));
        }
    }

    /** {@code close()} is idempotent on both ends; a closed server accepts no new client. */
    @Test
    void closeIsIdempotent() {
        OflServer server = fixture.serve(b -> { }, echo());
        OflClient client = fixture.connect(server, b -> { });
        assertEchoWorks(client, fixture.allocate(256), null, "before close");
        client.close();
        client.close();
        InetSocketAddress address = server.localAddress();
        server.close();
        server.close();
        assertThrows(OflException.class, () -> Ofl.connect(fixture.clientBuilder(address).build()).close(),
                "connecting to a closed server");
    }

    /**
     * Closing a server drains: the request whose handler is running finishes and its response
     * lands whole; a request pipelined behind it on the same connection is never handled and its
     * await fails with {@link OflConnectionException}; an idle connection is closed; new clients
     * are refused (the connection is refused, or the bootstrap is answered with
     * {@link RefusalCode#SHUTTING_DOWN}); {@code close()} returns once the handler is done, well
     * before its drain timeout.
     */
    @Test
    void closeDrainsTheRunningRequestAndTakesNoNewOne() throws Exception {
        Blocker blocker = new Blocker();
        List<Long> handled = new CopyOnWriteArrayList<>();
        int responseBytes = 48 << 10;
        int seed = 5;
        OflServer server = fixture.serve(b -> b.drainTimeout(Duration.ofSeconds(WAIT_SECONDS * 4)),
                (request, response) -> {
                    handled.add(request.sequence());
                    if (request.op() == TestOp.BLOCK.code()) {
                        blocker.block();
                        response.write(MemorySegment.ofArray(streamBytes(0, responseBytes, seed)));
                        return 0;
                    }
                    response.write(request.payload());
                    return 0;
                });
        OflClient client = fixture.connect(server, b -> { });
        OflClient idle = fixture.connect(server, b -> { });
        MemorySegment memory = fixture.allocate(2L * responseBytes);
        Region region = client.registerRegion(memory);
        long running = client.submit(TestOp.BLOCK.code(), 0, 0, new ResponseRanges().add(region, 0, responseBytes));
        assertTrue(running >= 0);
        blocker.awaitEntered();
        long behind = client.submit(TestOp.ECHO.code(), 0, 0, new ResponseRanges().add(region, responseBytes,
                responseBytes));
        assertTrue(behind >= 0);
        ExecutorService closer = fixture.threads(1);
        Future<?> closed;
        String refusal;
        try {
            closed = closer.submit(server::close);
            refusal = awaitNewClientsRefused(server);
        } finally {
            blocker.release();
        }
        Completion completion = new Completion();
        int status = client.await(running, deadline(client), completion);
        assertEquals(OflStatus.OK, status, () -> "the request running when close() began: " + completion);
        assertEquals(responseBytes, completion.responseLength(), "its response length");
        assertBytes(streamBytes(0, responseBytes, seed), memory, 0, "the drained response");
        assertThrows(OflConnectionException.class, () -> client.await(behind, deadline(client), completion),
                "await of a request pipelined behind the drained one (got " + completion + ")");
        assertSentinel(memory, responseBytes, responseBytes, "the range of the request never handled");
        within(closed, "server close() once the running handler returned");
        assertEquals(List.of(0L), handled, "sequences the handler saw");
        assertEquals(0, server.connectionCount(), "connections open after close()");
        assertEquals(1, server.statistics().requests(), "requests handled");
        assertThrows(OflConnectionException.class,
                () -> idle.call(TestOp.ECHO.code(), 0, 0, new ResponseRanges(), CALL_TIMEOUT_NS, new Completion()),
                "a call on a connection that was idle when close() began (new clients: " + refusal + ")");
    }

    /**
     * Connects until a new client is refused, as it must be once {@code close()} has begun; a
     * client that got in before is closed. Returns how the refusal came.
     */
    private String awaitNewClientsRefused(OflServer server) {
        long deadlineNs = System.nanoTime() + CALL_TIMEOUT_NS;
        while (System.nanoTime() - deadlineNs < 0) {
            try {
                Ofl.connect(fixture.clientBuilder(server.localAddress()).build()).close();
            } catch (OflRefusedException refused) {
                assertEquals(RefusalCode.SHUTTING_DOWN, refused.code(), refused::getMessage);
                return "refused with " + refused.code();
            } catch (OflException refused) {
                return "refused: " + refused.getMessage();
            }
        }
        return fail("new clients were still accepted " + WAIT_SECONDS + " s after close() began");
    }

    /**
     * A server that goes away (closed here, as a restart would) counts as a peer loss at its
     * client on every backend, not as a transport failure: an alert on transport failures must
     * not page on every server restart.
     */
    @Test
    void aServerThatGoesAwayCountsAsAPeerLossAtTheClient() throws Exception {
        OflServer server = fixture.serve(b -> { }, echo());
        OflClient client = fixture.connect(server, b -> { });
        MemorySegment memory = fixture.allocate(256);
        Region region = client.registerRegion(memory);
        assertEchoWorks(client, memory, ResponseRanges.of(region), "before the server goes away");
        server.close();
        OflConnectionException lost = assertThrows(OflConnectionException.class, () -> {
            for (int i = 0; i < 100; i++) {
                client.call(TestOp.ECHO.code(), 0, 0, ResponseRanges.of(region), CALL_TIMEOUT_NS, new Completion());
            }
        }, "a call after the server went away");
        assertNotNull(lost.getMessage());
        assertTrue(client.isBroken());
        assertEquals(1, client.statistics().peerLosses(), () -> client.statistics().toString());
        assertEquals(0, client.statistics().transportFailures(), () -> client.statistics().toString());
    }
}
