package dev.ofl.conformance;

import static dev.ofl.conformance.Fixture.CALL_TIMEOUT_NS;
import static dev.ofl.conformance.Fixture.INT_LE;
import static dev.ofl.conformance.Fixture.WAIT_SECONDS;
import static dev.ofl.conformance.Fixture.awaitCondition;
import static dev.ofl.conformance.ResponseChecks.assertEchoWorks;
import static dev.ofl.conformance.ResponseChecks.assertSentinel;
import static dev.ofl.conformance.TestHandlers.outcomes;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ofl.api.Completion;
import dev.ofl.api.OflClient;
import dev.ofl.api.OflHandler;
import dev.ofl.api.OflRefusedException;
import dev.ofl.api.OflServer;
import dev.ofl.api.OflStatus;
import dev.ofl.api.ResponseRanges;
import dev.ofl.api.ServerStatistics;
import dev.ofl.api.wire.Bootstrap;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/** Statistics: each server counter moves when, and only when, its event happens. */
abstract class StatisticsBehaviour extends ConformanceBehaviour {
    StatisticsBehaviour(TransportUnderTest transport) {
        super(transport);
    }

    /**
     * Every {@link ServerStatistics} counter moves when its event happens, and no other counter
     * does: after each event the test waits (bounded) for the exact snapshot that event must give,
     * so a counter that stays still, or one that moves for another event, fails with the snapshot
     * seen. The events: a client accepted, a request handled, refused, failed; a client refused
     * (service mismatch); a malformed HELLO (a protocol violation in the bootstrap, sent over a
     * plain socket to the server's bootstrap address); a response written after its client timed
     * out (undelivered).
     */
    @Test
    void everyCounterMovesWhenItsEventHappens() throws Exception {
        Blocker blocker = new Blocker();
        CountDownLatch lateWriteAttempted = new CountDownLatch(1);
        OflHandler outcomes = outcomes();
        OflServer server = fixture.serve(b -> { }, (request, response) -> {
            if (request.op() != TestOp.BLOCK.code()) {
                return outcomes.handle(request, response);
            }
            blocker.block();
            try {
                byte[] piece = new byte[64 << 10];
                while (response.committed() < response.capacity()) {
                    int n = (int) Math.min(piece.length, response.capacity() - response.committed());
                    response.write(MemorySegment.ofArray(piece).asSlice(0, n));
                }
            } finally {
                lateWriteAttempted.countDown();
            }
            return 0;
        });
        assertEquals(new ServerStatistics(0, 0, 0, 0, 0, 0, 0, 0, 0, 0), server.statistics(), "a new server");

        OflClient client = fixture.connect(server, b -> { });
        awaitStatistics(server, new ServerStatistics(1, 0, 0, 0, 0, 0, 0, 0, 0, 0), "a client accepted");

        MemorySegment memory = fixture.allocate(4096);
        ResponseRanges ranges = ResponseRanges.of(client.registerRegion(memory));
        assertEchoWorks(client, memory, ranges, "an echo");
        awaitStatistics(server, new ServerStatistics(1, 0, 1, 0, 0, 0, 0, 0, 0, 0), "a request handled");

        Completion completion = new Completion();
        client.requestPayload().set(INT_LE, 0, 9);
        assertEquals(OflStatus.REFUSED, client.call(TestOp.REFUSE.code(), 0, 4, ranges, CALL_TIMEOUT_NS, completion),
                completion::toString);
        awaitStatistics(server, new ServerStatistics(1, 0, 2, 1, 0, 0, 0, 0, 0, 0), "a request refused");

        assertEquals(OflStatus.HANDLER_FAILED, client.call(TestOp.THROW.code(), 0, 0, ranges, CALL_TIMEOUT_NS,
                completion), completion::toString);
        awaitStatistics(server, new ServerStatistics(1, 0, 3, 1, 1, 0, 0, 0, 0, 0), "a handler failure");

        assertThrows(OflRefusedException.class, () -> fixture.connect(server, b -> b.serviceName("another-service")));
        awaitStatistics(server, new ServerStatistics(1, 1, 3, 1, 1, 0, 0, 0, 0, 0), "a client refused");

        sendMalformedHello(server.localAddress());
        // One malformed HELLO: one refusal and one connection closed for a protocol violation.
        awaitStatistics(server, new ServerStatistics(1, 2, 3, 1, 1, 1, 0, 0, 0, 0), "a malformed HELLO");
        long violations = 1;

        OflClient late = fixture.connect(server, b -> { });
        awaitStatistics(server, new ServerStatistics(2, 2, 3, 1, 1, violations, 0, 0, 0, 0), "a second client accepted");
        MemorySegment lateMemory = fixture.allocate(8 << 20);
        long ticket = late.submit(TestOp.BLOCK.code(), 0, 0, ResponseRanges.of(late.registerRegion(lateMemory)));
        assertTrue(ticket >= 0);
        blocker.awaitEntered();
        try {
            assertEquals(OflStatus.TIMED_OUT, late.await(ticket, late.clock().nanoTime(), completion),
                    completion::toString);
        } finally {
            blocker.release();
        }
        assertTrue(lateWriteAttempted.await(WAIT_SECONDS, TimeUnit.SECONDS), "the handler never wrote its late response");
        awaitCondition(() -> server.statistics().undeliveredResponses() == 1,
                "the late response to count as undelivered (" + server.statistics() + ")");
        // The blocked request was handed to the handler: it counts as a request, and as undelivered.
        assertEquals(new ServerStatistics(2, 2, 4, 1, 1, violations, 1, 0, 0, 0), server.statistics(),
                "after an undelivered response");
        assertSentinel(lateMemory, 0, lateMemory.byteSize(), "region of the client that timed out");
    }

    /** Waits, bounded, until the server's statistics are exactly {@code expected}. */
    private static void awaitStatistics(OflServer server, ServerStatistics expected, String event) {
        AtomicReference<ServerStatistics> seen = new AtomicReference<>();
        try {
            awaitCondition(() -> {
                seen.set(server.statistics());
                return expected.equals(seen.get());
            }, "the statistics after " + event);
        } catch (AssertionError e) {
            assertEquals(expected, seen.get(), "statistics after " + event);
            throw e;
        }
    }

    /**
     * Opens a plain socket to the server's bootstrap address, sends a HELLO frame with a wrong
     * magic number, and reads the answer to its end.
     */
    private void sendMalformedHello(InetSocketAddress server) throws IOException {
        try (Socket socket = new Socket()) {
            socket.bind(new InetSocketAddress(fixture.transport().bindAddress(), 0));
            socket.connect(server, (int) TimeUnit.SECONDS.toMillis(WAIT_SECONDS));
            socket.setSoTimeout((int) TimeUnit.SECONDS.toMillis(WAIT_SECONDS));
            byte[] frame = new byte[Bootstrap.FRAME_LENGTH];
            java.util.Arrays.fill(frame, (byte) 0x7E);
            socket.getOutputStream().write(frame);
            socket.getOutputStream().flush();
            byte[] answer = new byte[4096];
            while (socket.getInputStream().read(answer) >= 0) {
                // The server answers with a refusing WELCOME, then closes.
            }
        }
    }
}
