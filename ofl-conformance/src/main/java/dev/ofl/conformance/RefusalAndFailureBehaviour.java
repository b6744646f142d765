package dev.ofl.conformance;

import static dev.ofl.conformance.Fixture.CALL_TIMEOUT_NS;
import static dev.ofl.conformance.Fixture.INT_LE;
import static dev.ofl.conformance.Fixture.deadline;
import static dev.ofl.conformance.Patterns.randomBytes;
import static dev.ofl.conformance.ResponseChecks.assertBytes;
import static dev.ofl.conformance.ResponseChecks.assertEchoWorks;
import static dev.ofl.conformance.ResponseChecks.assertSentinel;
import static dev.ofl.conformance.TestHandlers.echo;
import static dev.ofl.conformance.TestHandlers.outcomes;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ofl.api.Completion;
import dev.ofl.api.Limits;
import dev.ofl.api.OflClient;
import dev.ofl.api.OflServer;
import dev.ofl.api.OflStatus;
import dev.ofl.api.Region;
import dev.ofl.api.ResponseRanges;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/**
 * Refusal and handler failure: misuse is refused before anything is sent (ranges, payloads,
 * tickets, heap memory as a region), and a handler that refuses or throws gives its status to the
 * client while the connection stays usable.
 */
abstract class RefusalAndFailureBehaviour extends ConformanceBehaviour {
    RefusalAndFailureBehaviour(TransportUnderTest transport) {
        super(transport);
    }

    /**
     * Ranges in another client's region, past the negotiated response capacity or above the range
     * limit, and payloads too large or negative, are refused with {@link IllegalArgumentException}
     * before anything is sent: the first request the handler then sees carries sequence 0. A region
     * handle cannot be forged: {@link Region} has no public constructor.
     */
    @Test
    void invalidSubmissionsAreRefusedBeforeSending() {
        List<Long> sequences = new CopyOnWriteArrayList<>();
        OflServer server = fixture.serve(b -> { }, (request, response) -> {
            sequences.add(request.sequence());
            response.write(request.payload());
            return 0;
        });
        Limits small = new Limits(1024, 4096, 4, 4);
        OflClient client = fixture.connect(server, b -> b.limits(small));
        OflClient other = fixture.connect(server, b -> b.limits(small));
        assertEquals(small, client.limits(), "negotiated limits");
        assertEquals(small.maxRequestBytes(), client.requestPayload().byteSize(), "payload area size");
        MemorySegment memory = fixture.allocate(8192);
        Region region = client.registerRegion(memory);
        Region foreign = other.registerRegion(fixture.allocate(8192));
        // A handle comes only from registerRegion: the API has no way to forge one for this client.
        assertEquals(0, Region.class.getConstructors().length, "Region has no public constructor");

        assertThrows(IllegalArgumentException.class,
                () -> client.submit(TestOp.ECHO.code(), 0, 8, new ResponseRanges().add(foreign, 0, 64)),
                "a range in another client's region");
        assertThrows(IllegalArgumentException.class,
                () -> client.submit(TestOp.ECHO.code(), 0, 8, new ResponseRanges().add(region, 0, 64).add(foreign, 64, 64)),
                "a second range in another client's region");
        assertThrows(IllegalArgumentException.class,
                () -> client.submit(TestOp.ECHO.code(), 0, 8, new ResponseRanges().add(region, 0, 4097)),
                "one range past the negotiated maxResponseBytes");
        assertThrows(IllegalArgumentException.class,
                () -> client.submit(TestOp.ECHO.code(), 0, 8, new ResponseRanges().add(region, 0, 4000).add(region, 4000, 97)),
                "ranges summing past the negotiated maxResponseBytes");
        ResponseRanges five = new ResponseRanges();
        for (int i = 0; i < 5; i++) {
            five.add(region, i * 10L, 10);
        }
        assertThrows(IllegalArgumentException.class, () -> client.submit(TestOp.ECHO.code(), 0, 8, five),
                "five ranges with a negotiated maxRanges of 4");
        ResponseRanges one = new ResponseRanges().add(region, 0, 64);
        assertThrows(IllegalArgumentException.class, () -> client.submit(TestOp.ECHO.code(), 0, 1025, one),
                "a payload past the negotiated maxRequestBytes");
        assertThrows(IllegalArgumentException.class, () -> client.submit(TestOp.ECHO.code(), 0, -1, one),
                "a negative payload length");
        assertThrows(IllegalArgumentException.class, () -> new ResponseRanges().add(region, 8000, 193),
                "a range past the region's end");
        assertFalse(client.isBroken(), "refused submissions must not break the connection");
        assertEquals(List.of(), sequences, "nothing may reach the handler");

        byte[] payload = randomBytes(64, 7);
        MemorySegment.copy(MemorySegment.ofArray(payload), 0, client.requestPayload(), 0, 64);
        Completion completion = new Completion();
        assertEquals(OflStatus.OK, client.call(TestOp.ECHO.code(), 0, 64, one, CALL_TIMEOUT_NS, completion),
                completion::toString);
        assertEquals(64, completion.responseLength());
        assertBytes(payload, memory, 0, "echo after the refused submissions");
        assertEquals(List.of(0L), sequences, "the first request to reach the handler carries sequence 0");

        MemorySegment otherMemory = fixture.allocate(64);
        Region otherRegion = other.registerRegion(otherMemory);
        MemorySegment.copy(MemorySegment.ofArray(payload), 0, other.requestPayload(), 0, 64);
        assertEquals(OflStatus.OK, other.call(TestOp.ECHO.code(), 0, 64, ResponseRanges.of(otherRegion), CALL_TIMEOUT_NS,
                completion), completion::toString);
        assertBytes(payload, otherMemory, 0, "the other client's echo");
    }

    /** Awaiting a ticket never issued, or one already awaited, is misuse. */
    @Test
    void awaitingAnUnknownOrSpentTicketIsRefused() {
        OflServer server = fixture.serve(b -> { }, echo());
        OflClient client = fixture.connect(server, b -> { });
        Completion completion = new Completion();
        assertThrows(IllegalArgumentException.class, () -> client.await(12_345, deadline(client), completion),
                "a ticket never issued");
        long ticket = client.submit(TestOp.ECHO.code(), 0, 0, new ResponseRanges());
        assertTrue(ticket >= 0);
        assertEquals(OflStatus.OK, client.await(ticket, deadline(client), completion), completion::toString);
        assertThrows(IllegalArgumentException.class, () -> client.await(ticket, deadline(client), completion),
                "a ticket awaited twice");
        assertFalse(client.isBroken());
    }

    /** A handler refusal, with and without bytes committed first, reaches the client; the connection stays usable. */
    @Test
    void handlerRefusalLeavesTheConnectionUsable() {
        OflServer server = fixture.serve(b -> { }, outcomes());
        OflClient client = fixture.connect(server, b -> { });
        MemorySegment memory = fixture.allocate(4096);
        ResponseRanges ranges = ResponseRanges.of(client.registerRegion(memory));
        Completion completion = new Completion();

        client.requestPayload().set(INT_LE, 0, -2);
        assertEquals(OflStatus.REFUSED, client.call(TestOp.REFUSE.code(), 0, 4, ranges, CALL_TIMEOUT_NS, completion),
                completion::toString);
        assertEquals(-2, completion.handlerStatus(), "handler status");
        assertEquals(0, completion.responseLength(), "a refusal carries no data");
        assertFalse(client.isBroken());

        client.requestPayload().set(INT_LE, 0, Integer.MIN_VALUE);
        assertEquals(OflStatus.REFUSED, client.call(TestOp.REFUSE_AFTER_DATA.code(), 0, 4, ranges, CALL_TIMEOUT_NS,
                completion), completion::toString);
        assertEquals(Integer.MIN_VALUE, completion.handlerStatus(), "handler status after committed data");
        assertEquals(0, completion.responseLength(), "a refusal carries no data, even after commits");
        assertFalse(client.isBroken());

        assertEchoWorks(client, memory, ranges, "after the refusals");
    }

    /** A handler that throws (unchecked or checked) gives HANDLER_FAILED; the connection stays usable. */
    @Test
    void handlerFailureLeavesTheConnectionUsable() {
        OflServer server = fixture.serve(b -> { }, outcomes());
        OflClient client = fixture.connect(server, b -> { });
        MemorySegment memory = fixture.allocate(4096);
        ResponseRanges ranges = ResponseRanges.of(client.registerRegion(memory));
        Completion completion = new Completion();
        Map<Integer, String> reasons = Map.of(
                TestOp.THROW.code(), "java.lang.IllegalStateException: handler failure injected by the conformance suite",
                TestOp.THROW_CHECKED.code(), "java.lang.Exception: checked handler failure injected by the conformance suite",
                TestOp.THROW_CONNECTION.code(), "dev.ofl.api.OflConnectionException: a downstream connection of the "
                        + "handler broke");
        for (int op : new int[] {TestOp.THROW.code(), TestOp.THROW_CHECKED.code(), TestOp.THROW_CONNECTION.code()}) {
            assertEquals(OflStatus.HANDLER_FAILED, client.call(op, 0, 0, ranges, CALL_TIMEOUT_NS, completion),
                    completion::toString);
            assertEquals(0, completion.responseLength(), "a failure carries no data");
            assertEquals(reasons.get(op), completion.failureReason(), "the server's reason");
            assertFalse(client.isBroken());
        }
        assertEchoWorks(client, memory, ranges, "after the handler failures");
    }

    /**
     * The reason a server gives with HANDLER_FAILED (docs/PROTOCOL.md 4.6): escaped, cut to the
     * ranges and to 256 bytes, read across range boundaries, written nowhere but the stream's first
     * bytes; none without ranges, none once part of the response had gone out, none from a server
     * configured not to send them. The connection stays usable throughout.
     */
    @Test
    void aFailureReasonSaysWhyWithinItsBounds() {
        OflServer server = fixture.serve(b -> { }, outcomes());
        OflClient client = fixture.connect(server, b -> b.limits(new Limits(4096, 1 << 20, 4, 4)));
        MemorySegment memory = fixture.allocate(1 << 20);
        Region region = client.registerRegion(memory);
        Completion completion = new Completion();

        // A line feed and a terminal escape: the reason carries them escaped, never raw.
        assertEquals("java.lang.IllegalArgumentException: row 7 missing\\n\\u001b[2J",
                failWith(client, "row 7 missing\n\u001b[2J", ResponseRanges.of(region), completion));
        long reasonBytes = completion.failureReason().getBytes(StandardCharsets.UTF_8).length;
        assertBytes(completion.failureReason().getBytes(StandardCharsets.UTF_8), memory, 0, "the reason in the range");
        assertSentinel(memory, reasonBytes, 4096, "after the reason");

        memory.fill(Fixture.SENTINEL);
        ResponseRanges split = new ResponseRanges().add(region, 1000, 10).add(region, 2000, 4000);
        String whole = "java.lang.IllegalArgumentException: across two ranges";
        assertEquals(whole, failWith(client, "across two ranges", split, completion), "read across ranges");
        assertBytes(whole.substring(0, 10).getBytes(StandardCharsets.UTF_8), memory, 1000, "the first range");
        assertBytes(whole.substring(10).getBytes(StandardCharsets.UTF_8), memory, 2000, "the second range");
        assertSentinel(memory, 0, 1000, "before the first range");
        assertSentinel(memory, 1010, 990, "between the ranges");

        memory.fill(Fixture.SENTINEL);
        assertEquals("java.lang.Ill", failWith(client, "cut", new ResponseRanges().add(region, 0, 13), completion),
                "cut to the ranges");
        assertSentinel(memory, 13, 4096, "past a small range");
        String cut = failWith(client, "x".repeat(1000), ResponseRanges.of(region), completion);
        assertEquals(256, cut.length(), "cut to 256 bytes");
        assertTrue(cut.startsWith("java.lang.IllegalArgumentException: xxx"), cut);
        assertNull(failWith(client, "no ranges", new ResponseRanges(), completion), "no ranges, no reason");

        assertEquals(OflStatus.HANDLER_FAILED, client.call(TestOp.THROW_AFTER_PIECE.code(), 0, 0,
                ResponseRanges.of(region), CALL_TIMEOUT_NS, completion), completion::toString);
        assertNull(completion.failureReason(), "part of the response had gone out: no reason");
        assertFalse(client.isBroken());

        OflServer quiet = fixture.serve(b -> b.failureReasons(false), outcomes());
        OflClient told = fixture.connect(quiet, b -> { });
        MemorySegment untouched = fixture.allocate(4096);
        assertNull(failWith(told, "not to be told", ResponseRanges.of(told.registerRegion(untouched)), completion),
                "a server configured not to send reasons");
        assertSentinel(untouched, 0, 4096, "the ranges of a failure without a reason");
        assertEchoWorks(client, memory, ResponseRanges.of(region), "after the failures with reasons");
    }

    /** Calls THROW_MESSAGE with {@code message}; returns the reason the completion holds. */
    private static String failWith(OflClient client, String message, ResponseRanges ranges, Completion completion) {
        byte[] payload = message.getBytes(StandardCharsets.UTF_8);
        MemorySegment.copy(MemorySegment.ofArray(payload), 0, client.requestPayload(), 0, payload.length);
        assertEquals(OflStatus.HANDLER_FAILED, client.call(TestOp.THROW_MESSAGE.code(), 0, payload.length, ranges,
                CALL_TIMEOUT_NS, completion), completion::toString);
        assertEquals(0, completion.responseLength(), "a failure reports no response bytes");
        assertFalse(client.isBroken(), "a failure leaves the connection usable");
        return completion.failureReason();
    }

    /** A heap (non-native) segment is refused as a region, naming what is needed; the client stays usable. */
    @Test
    void heapSegmentIsRefusedAsARegion() {
        OflServer server = fixture.serve(b -> { }, echo());
        OflClient client = fixture.connect(server, b -> { });
        IllegalArgumentException refused = assertThrows(IllegalArgumentException.class,
                () -> client.registerRegion(MemorySegment.ofArray(new byte[4096])), "a heap segment as a region");
        assertTrue(refused.getMessage().contains("native"), () -> "the message says regions must be native: "
                + refused.getMessage());
        assertFalse(client.isBroken(), "a refused registration must not break the connection");
        assertEchoWorks(client, fixture.allocate(256), null, "after a refused heap region");
    }

    /** Every op code the test handlers understand is distinct, so no behaviour is mistaken for another. */
    @Test
    void testOpCodesAreDistinct() {
        Map<Integer, TestOp> seen = new HashMap<>();
        for (TestOp op : TestOp.values()) {
            TestOp previous = seen.putIfAbsent(op.code(), op);
            assertNull(previous, () -> op + " has the code of " + previous);
        }
        assertEquals(TestOp.values().length, seen.size(), "distinct op codes");
    }
}
