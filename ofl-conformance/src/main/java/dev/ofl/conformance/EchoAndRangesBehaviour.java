package dev.ofl.conformance;

import static dev.ofl.conformance.Fixture.CALL_TIMEOUT_NS;
import static dev.ofl.conformance.Fixture.INT_LE;
import static dev.ofl.conformance.Fixture.WAIT_SECONDS;
import static dev.ofl.conformance.Fixture.awaitCondition;
import static dev.ofl.conformance.Fixture.deadline;
import static dev.ofl.conformance.Fixture.within;
import static dev.ofl.conformance.Patterns.ROW_BYTES;
import static dev.ofl.conformance.Patterns.fillRow;
import static dev.ofl.conformance.Patterns.randomBytes;
import static dev.ofl.conformance.Patterns.streamByte;
import static dev.ofl.conformance.Patterns.streamBytes;
import static dev.ofl.conformance.ResponseChecks.assertBytes;
import static dev.ofl.conformance.ResponseChecks.assertOutsideRangesUntouched;
import static dev.ofl.conformance.ResponseChecks.assertSentinel;
import static dev.ofl.conformance.TestHandlers.echo;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.ofl.api.Completion;
import dev.ofl.api.Limits;
import dev.ofl.api.OflClient;
import dev.ofl.api.OflServer;
import dev.ofl.api.OflStatus;
import dev.ofl.api.Region;
import dev.ofl.api.ResponseRanges;
import dev.ofl.api.WaitMode;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Echo and ranges: responses of every size arrive byte-exact in every wait mode, streamed in
 * several commits, scattered over many ranges in descriptor order, and bounded by the capacity the
 * ranges give; the first streamed piece reaches the client while the handler still runs. Every
 * response byte is checked, and the bytes around the ranges are checked untouched.
 */
abstract class EchoAndRangesBehaviour extends ConformanceBehaviour {
    /** More than any backend's piece size, so that a piece leaves while the handler runs. */
    static final int FIRST_PIECE_BYTES = 1 << 20;

    EchoAndRangesBehaviour(TransportUnderTest transport) {
        super(transport);
    }

    /** A byte-checked echo of many sizes in every wait mode; op, generation and sequence pass through. */
    @Test
    void echoIsByteExactInEveryWaitMode() {
        for (WaitMode mode : fixture.transport().waitModes()) {
            List<long[]> seen = new CopyOnWriteArrayList<>();
            OflServer server = fixture.serve(b -> b.waitMode(mode), (request, response) -> {
                seen.add(new long[] {request.sequence(), request.op(), request.generation(),
                    request.payload().byteSize(), request.responseCapacity()});
                response.write(request.payload());
                return 0;
            });
            OflClient client = fixture.connect(server, b -> b.waitMode(mode));
            MemorySegment memory = fixture.allocate(128 << 10);
            Region region = client.registerRegion(memory);
            ResponseRanges ranges = ResponseRanges.of(region);
            Completion completion = new Completion();
            int[] sizes = {64, 0, 1, 7, 8, 9, 1000, 4096, 65_536, 128 << 10};
            int[] ops = {TestOp.ECHO.code(), 0, -1, Integer.MAX_VALUE, Integer.MIN_VALUE, 42, 7, 8, 9, 10};
            long[] generations = {0, Long.MIN_VALUE, -1, Long.MAX_VALUE, 1, 42, 1L << 40, 3, 4, 5};
            for (int i = 0; i < sizes.length; i++) {
                byte[] payload = randomBytes(sizes[i], 1000L * i + mode.ordinal());
                MemorySegment area = client.requestPayload();
                MemorySegment.copy(MemorySegment.ofArray(payload), 0, area, 0, payload.length);
                long ticket = client.submit(ops[i], generations[i], payload.length, ranges);
                assertTrue(ticket >= 0, () -> "submit returned " + OflStatus.name((int) ticket));
                int status = client.await(ticket, deadline(client), completion);
                String context = mode + ", request " + i + " of " + sizes[i] + " bytes";
                assertEquals(OflStatus.OK, status, () -> context + ": " + completion);
                assertEquals(ticket, completion.ticket(), context);
                assertEquals(payload.length, completion.responseLength(), context);
                assertBytes(payload, memory, 0, context);
                long[] handled = seen.get(i);
                assertEquals(i, handled[0], context + ": sequence seen by the handler");
                assertEquals(ops[i], (int) handled[1], context + ": op seen by the handler");
                assertEquals(generations[i], handled[2], context + ": generation seen by the handler");
                assertEquals(payload.length, handled[3], context + ": payload length seen by the handler");
                assertEquals(memory.byteSize(), handled[4], context + ": response capacity seen by the handler");
            }
            assertEquals(sizes.length, seen.size(), mode + ": handler calls");
            assertFalse(client.isBroken(), mode + ": client broken after clean calls");
        }
    }

    /**
     * The reference row cases: {@code rows} rows of 256 bytes, streamed by the handler in several
     * commits (in place and by copy), every byte checked and the bytes after the range untouched.
     */
    @ParameterizedTest(name = "{0} rows of 256 bytes")
    @ValueSource(ints = {288, 4_096, 16_384, 49_152})
    void rowsStreamedInSeveralCommitsArriveIntact(int rows) {
        int responseBytes = rows * ROW_BYTES;
        List<Integer> commitCounts = new CopyOnWriteArrayList<>();
        OflServer server = fixture.serve(b -> { }, (request, response) -> {
            int count = request.payload().get(INT_LE, 0);
            int seed = request.payload().get(INT_LE, 4);
            int chunkRows = count / 5 + 1;
            if (response.capacity() < (long) count * ROW_BYTES) {
                throw new IllegalStateException("capacity " + response.capacity() + " < " + count + " rows");
            }
            byte[] row = new byte[ROW_BYTES];
            int commits = 0;
            for (int first = 0; first < count; first += chunkRows) {
                int n = Math.min(chunkRows, count - first);
                if (commits % 2 == 0) {
                    long at = response.committed();
                    for (int r = 0; r < n; r++) {
                        fillRow(row, first + r, seed);
                        MemorySegment.copy(MemorySegment.ofArray(row), 0, response.buffer(),
                                at + (long) r * ROW_BYTES, ROW_BYTES);
                    }
                    response.commit((long) n * ROW_BYTES);
                } else {
                    byte[] chunk = new byte[n * ROW_BYTES];
                    for (int r = 0; r < n; r++) {
                        fillRow(row, first + r, seed);
                        System.arraycopy(row, 0, chunk, r * ROW_BYTES, ROW_BYTES);
                    }
                    response.write(MemorySegment.ofArray(chunk));
                }
                commits++;
            }
            commitCounts.add(commits);
            return 0;
        });
        OflClient client = fixture.connect(server, b -> b.limits(new Limits(4096, responseBytes, Limits.MAX_RANGES, 8)));
        int tail = 4096;
        MemorySegment memory = fixture.allocate(responseBytes + tail);
        Region region = client.registerRegion(memory);
        ResponseRanges ranges = new ResponseRanges().add(region, 0, responseBytes);
        Completion completion = new Completion();
        for (int seed = 1; seed <= 2; seed++) {
            MemorySegment payload = client.requestPayload();
            payload.set(INT_LE, 0, rows);
            payload.set(INT_LE, 4, seed);
            int status = client.call(TestOp.ECHO.code(), seed, 8, ranges, CALL_TIMEOUT_NS, completion);
            assertEquals(OflStatus.OK, status, completion::toString);
            assertEquals(responseBytes, completion.responseLength(), "response length");
            byte[] expected = new byte[ROW_BYTES];
            for (int r = 0; r < rows; r++) {
                fillRow(expected, r, seed);
                long at = (long) r * ROW_BYTES;
                long mismatch = MemorySegment.mismatch(memory, at, at + ROW_BYTES,
                        MemorySegment.ofArray(expected), 0, ROW_BYTES);
                if (mismatch >= 0) {
                    fail("seed " + seed + ": row " + r + " differs at byte " + mismatch + ": expected "
                            + expected[(int) mismatch] + ", got " + memory.get(ValueLayout.JAVA_BYTE, at + mismatch));
                }
            }
            assertSentinel(memory, responseBytes, tail, "bytes after the range");
        }
        assertEquals(2, commitCounts.size(), "handler calls");
        for (int commits : commitCounts) {
            assertTrue(commits >= 2, "the handler streamed in " + commits + " commits");
        }
    }

    /**
     * A response scattered over 16 ranges of odd sizes and alignments across two regions, one of
     * them in descending address order: the stream follows descriptor order and no byte outside the
     * ranges changes.
     */
    @Test
    void scatterAcrossSixteenRangesTouchesNothingElse() {
        int[] lengths = {1, 3, 7, 13, 129, 4095, 17, 1, 255, 8191, 31, 5, 1023, 65, 9, 333};
        AtomicReference<Long> capacitySeen = new AtomicReference<>();
        OflServer server = fixture.serve(b -> { }, (request, response) -> {
            capacitySeen.set(request.responseCapacity());
            int length = request.payload().get(INT_LE, 0);
            int seed = request.payload().get(INT_LE, 4);
            byte[] piece = new byte[37];
            for (int at = 0; at < length; at += piece.length) {
                int n = Math.min(piece.length, length - at);
                for (int k = 0; k < n; k++) {
                    piece[k] = streamByte(at + k, seed);
                }
                response.write(MemorySegment.ofArray(piece).asSlice(0, n));
            }
            return 0;
        });
        OflClient client = fixture.connect(server, b -> { });
        MemorySegment first = fixture.allocate(40_000);
        MemorySegment second = fixture.allocate(30_000);
        Region firstRegion = client.registerRegion(first);
        Region secondRegion = client.registerRegion(second);
        ResponseRanges ranges = new ResponseRanges();
        MemorySegment[] rangeMemory = new MemorySegment[lengths.length];
        long[] rangeOffsets = new long[lengths.length];
        long ascending = 3;
        long descending = second.byteSize() - 5;
        long total = 0;
        for (int i = 0; i < lengths.length; i++) {
            if (i % 2 == 0) {
                rangeMemory[i] = first;
                rangeOffsets[i] = ascending;
                ranges.add(firstRegion, ascending, lengths[i]);
                ascending += lengths[i] + 2L * i + 1;
            } else {
                descending -= lengths[i] + 2L * i + 1;
                rangeMemory[i] = second;
                rangeOffsets[i] = descending;
                ranges.add(secondRegion, descending, lengths[i]);
            }
            total += lengths[i];
        }
        assertEquals(16, ranges.count());
        Completion completion = new Completion();
        long[] responseLengths = {total, total - 1000, 1};
        for (int call = 0; call < responseLengths.length; call++) {
            int length = (int) responseLengths[call];
            int seed = call + 1;
            MemorySegment payload = client.requestPayload();
            payload.set(INT_LE, 0, length);
            payload.set(INT_LE, 4, seed);
            int status = client.call(TestOp.ECHO.code(), 0, 8, ranges, CALL_TIMEOUT_NS, completion);
            assertEquals(OflStatus.OK, status, completion::toString);
            assertEquals(length, completion.responseLength(), "response length");
            assertEquals(total, capacitySeen.get(), "capacity seen by the handler");
            long stream = 0;
            for (int i = 0; i < lengths.length && stream < length; i++) {
                for (int k = 0; k < lengths[i] && stream < length; k++, stream++) {
                    byte actual = rangeMemory[i].get(ValueLayout.JAVA_BYTE, rangeOffsets[i] + k);
                    if (actual != streamByte(stream, seed)) {
                        fail("call " + call + ": stream byte " + stream + " (range " + i + ", byte " + k
                                + ") is " + actual + ", expected " + streamByte(stream, seed));
                    }
                }
            }
            assertOutsideRangesUntouched(first, rangeMemory, rangeOffsets, lengths, "first region");
            assertOutsideRangesUntouched(second, rangeMemory, rangeOffsets, lengths, "second region");
        }
    }

    /** An empty payload with no ranges gets an empty OK response. */
    @Test
    void emptyRequestGetsEmptyResponse() {
        AtomicReference<long[]> seen = new AtomicReference<>();
        OflServer server = fixture.serve(b -> { }, (request, response) -> {
            seen.set(new long[] {request.payload().byteSize(), request.responseCapacity(), response.capacity()});
            return 0;
        });
        OflClient client = fixture.connect(server, b -> { });
        Completion completion = new Completion();
        int status = client.call(TestOp.ECHO.code(), 0, 0, new ResponseRanges(), CALL_TIMEOUT_NS, completion);
        assertEquals(OflStatus.OK, status, completion::toString);
        assertEquals(0, completion.responseLength());
        assertArrayEquals(new long[] {0, 0, 0}, seen.get(), "payload, request capacity, response capacity");
    }

    /**
     * Responses with and without ranges alternate on one connection: each handler finds a buffer
     * of its request's capacity, however many empty responses came before, and each response
     * lands byte-exact. The server keeps its view of a staging extent between responses, and an
     * empty response holds no extent, so a view shown for an empty response must not stand in for
     * the next extent.
     */
    @Test
    void responsesWithAndWithoutRangesAlternate() {
        List<String> buffers = new CopyOnWriteArrayList<>();
        OflServer server = fixture.serve(b -> { }, (request, response) -> {
            long capacity = response.capacity();
            buffers.add(capacity + "/" + (response.buffer().byteSize() >= capacity));
            int seed = request.payload().get(INT_LE, 0);
            byte[] bytes = streamBytes(0, (int) capacity, seed);
            MemorySegment.copy(MemorySegment.ofArray(bytes), 0, response.buffer(), 0, capacity);
            response.commit(capacity);
            return 0;
        });
        OflClient client = fixture.connect(server, b -> { });
        MemorySegment memory = fixture.allocate(8192);
        Region region = client.registerRegion(memory);
        Completion completion = new Completion();
        int[] capacities = {24, 0, 24, 0, 0, 5000, 0, 5000, 24, 0, 24};
        for (int i = 0; i < capacities.length; i++) {
            int capacity = capacities[i];
            int seed = 40 + i;
            memory.fill(Fixture.SENTINEL);
            client.requestPayload().set(INT_LE, 0, seed);
            ResponseRanges ranges = capacity == 0 ? new ResponseRanges() : new ResponseRanges().add(region, 64, capacity);
            int status = client.call(TestOp.ECHO.code(), 0, Integer.BYTES, ranges, CALL_TIMEOUT_NS, completion);
            assertEquals(OflStatus.OK, status, "call " + i + " of " + capacity + " bytes: " + completion);
            assertEquals(capacity, completion.responseLength(), "call " + i);
            assertBytes(streamBytes(0, capacity, seed), memory, 64, "call " + i + "'s response");
            assertSentinel(memory, 0, 64, "before the range of call " + i);
            assertSentinel(memory, 64 + capacity, 8192 - 64 - capacity, "after the range of call " + i);
        }
        assertEquals(capacities.length, buffers.size());
        for (int i = 0; i < capacities.length; i++) {
            assertEquals(capacities[i] + "/true", buffers.get(i), "call " + i + ": capacity/buffer holds it");
        }
    }

    /** A handler cannot commit more than the client's ranges hold; exactly the capacity works. */
    @Test
    void handlerCannotExceedTheResponseCapacity() {
        List<String> refusals = new CopyOnWriteArrayList<>();
        OflServer server = fixture.serve(b -> { }, (request, response) -> {
            long capacity = response.capacity();
            try {
                response.write(MemorySegment.ofArray(new byte[(int) capacity + 1]));
                refusals.add("write of capacity + 1 was accepted");
            } catch (IllegalArgumentException expected) {
                refusals.add("write");
            }
            try {
                response.commit(capacity + 1);
                refusals.add("commit of capacity + 1 was accepted");
            } catch (IllegalArgumentException expected) {
                refusals.add("commit");
            }
            byte[] full = new byte[(int) capacity];
            java.util.Arrays.fill(full, (byte) 0x3C);
            response.write(MemorySegment.ofArray(full));
            return 0;
        });
        OflClient client = fixture.connect(server, b -> { });
        MemorySegment memory = fixture.allocate(1000);
        Region region = client.registerRegion(memory);
        Completion completion = new Completion();
        int status = client.call(TestOp.ECHO.code(), 0, 0, new ResponseRanges().add(region, 100, 777), CALL_TIMEOUT_NS,
                completion);
        assertEquals(OflStatus.OK, status, completion::toString);
        assertEquals(List.of("write", "commit"), refusals);
        assertEquals(777, completion.responseLength());
        byte[] expected = new byte[777];
        java.util.Arrays.fill(expected, (byte) 0x3C);
        assertBytes(expected, memory, 100, "the range");
        assertSentinel(memory, 0, 100, "before the range");
        assertSentinel(memory, 877, 123, "after the range");
    }

    /**
     * The first piece of a streamed response lands in the client's region while the handler still
     * runs. The handler commits {@value #FIRST_PIECE_BYTES} bytes (more than any backend's piece
     * size: TCP sends a piece once 512 KiB are pending, RDMA once 64 KiB are), then waits until
     * another thread has seen every one of those bytes in the region before it commits the rest
     * and returns. A backend that held committed bytes back until the handler returned would leave
     * the handler waiting until it gives up, and the call would fail. The region is watched from
     * another thread while this one awaits, because a client may make progress only inside
     * {@code await} (the TCP client reads its socket there).
     */
    @Test
    void firstPieceReachesTheClientWhileTheHandlerRuns() throws Exception {
        int restBytes = 4096 + 7;
        int total = FIRST_PIECE_BYTES + restBytes;
        int seed = 3;
        CountDownLatch firstPieceSeen = new CountDownLatch(1);
        AtomicReference<String> handlerOutcome = new AtomicReference<>("the handler was not called");
        OflServer server = fixture.serve(b -> { }, (request, response) -> {
            response.write(MemorySegment.ofArray(streamBytes(0, FIRST_PIECE_BYTES, seed)));
            if (!firstPieceSeen.await(WAIT_SECONDS, TimeUnit.SECONDS)) {
                handlerOutcome.set("the first piece never reached the client while the handler ran");
                throw new IllegalStateException(handlerOutcome.get());
            }
            handlerOutcome.set("released after the first piece was seen");
            response.write(MemorySegment.ofArray(streamBytes(FIRST_PIECE_BYTES, restBytes, seed)));
            return 0;
        });
        OflClient client = fixture.connect(server, b -> { });
        int tail = 4096;
        MemorySegment memory = fixture.allocate(total + tail);
        ResponseRanges ranges = new ResponseRanges().add(client.registerRegion(memory), 0, total);
        MemorySegment firstPiece = MemorySegment.ofArray(streamBytes(0, FIRST_PIECE_BYTES, seed));
        ExecutorService watcher = fixture.threads(1);
        try {
            long ticket = client.submit(TestOp.ECHO.code(), 0, 0, ranges);
            assertTrue(ticket >= 0, () -> "submit returned " + OflStatus.name((int) ticket));
            Future<?> watched = watcher.submit(() -> {
                awaitCondition(() -> MemorySegment.mismatch(memory, 0, FIRST_PIECE_BYTES, firstPiece, 0,
                        FIRST_PIECE_BYTES) < 0, "the first piece to land while the handler runs");
                firstPieceSeen.countDown();
            });
            Completion completion = new Completion();
            int status = client.await(ticket, client.clock().nanoTime() + 2 * CALL_TIMEOUT_NS, completion);
            within(watched, "watching the region for the first piece");
            assertEquals(OflStatus.OK, status, () -> handlerOutcome.get() + ": " + completion);
            assertEquals(total, completion.responseLength(), "response length");
            assertBytes(streamBytes(0, total, seed), memory, 0, "the streamed response");
            assertSentinel(memory, total, tail, "bytes after the range");
        } finally {
            firstPieceSeen.countDown();
        }
    }

    /**
     * A caller that keeps the first {@code requestPayload()} segment and writes every request into
     * it, four in flight at a time, sends each request its own bytes: the area is one for the
     * client's life, and submit takes the bytes before it returns.
     */
    @Test
    void aKeptPayloadSegmentSendsEachPipelinedRequestItsOwnBytes() {
        OflServer server = fixture.serve(b -> { }, echo());
        OflClient client = fixture.connect(server, b -> b.limits(new Limits(4096, 1 << 20, Limits.MAX_RANGES, 4)));
        MemorySegment kept = client.requestPayload();
        MemorySegment memory = fixture.allocate(4 * 256);
        Region region = client.registerRegion(memory);
        Completion completion = new Completion();
        for (int round = 0; round < 5; round++) {
            long[] tickets = new long[4];
            byte[][] payloads = new byte[4][];
            for (int i = 0; i < tickets.length; i++) {
                payloads[i] = randomBytes(200, round * 10L + i);
                MemorySegment.copy(MemorySegment.ofArray(payloads[i]), 0, kept, 0, payloads[i].length);
                tickets[i] = client.submit(TestOp.ECHO.code(), i, payloads[i].length,
                        new ResponseRanges().add(region, i * 256L, 256));
                assertTrue(tickets[i] >= 0, "submit " + i);
                assertEquals(kept.address(), client.requestPayload().address(), "the payload area never moves");
            }
            for (int i = 0; i < tickets.length; i++) {
                assertEquals(OflStatus.OK, client.await(tickets[i], deadline(client), completion), completion::toString);
                assertBytes(payloads[i], memory, i * 256L, "round " + round + ", request " + i);
            }
        }
    }

    /**
     * Submit never writes the payload area: a template written once and sent at several lengths,
     * shortest first, sends every byte of it each time (range descriptors and padding go into the
     * send slot, not after the payload in the caller's area).
     */
    @Test
    void submitLeavesThePayloadAreaAsTheCallerWroteIt() {
        OflServer server = fixture.serve(b -> { }, echo());
        OflClient client = fixture.connect(server, b -> b.limits(new Limits(4096, 1 << 20, Limits.MAX_RANGES, 4)));
        byte[] template = randomBytes(1000, 77);
        MemorySegment.copy(MemorySegment.ofArray(template), 0, client.requestPayload(), 0, template.length);
        MemorySegment memory = fixture.allocate(1024);
        Region region = client.registerRegion(memory);
        Completion completion = new Completion();
        for (int length : new int[] {8, 50, 200, 1000}) {
            ResponseRanges ranges = new ResponseRanges();
            for (int i = 0; i < Limits.MAX_RANGES; i++) {
                ranges.add(region, i * 64L, 64);
            }
            assertEquals(OflStatus.OK, client.call(TestOp.ECHO.code(), 0, length, ranges, deadline(client)
                    - client.clock().nanoTime(), completion), completion::toString);
            assertBytes(Arrays.copyOf(template, Math.min(length, 1024)), memory, 0,
                    "the echo of the first " + length + " template bytes");
        }
        byte[] area = new byte[template.length];
        MemorySegment.copy(client.requestPayload(), ValueLayout.JAVA_BYTE, 0, area, 0, area.length);
        assertArrayEquals(template, area, "the payload area after four submits");
    }
}
