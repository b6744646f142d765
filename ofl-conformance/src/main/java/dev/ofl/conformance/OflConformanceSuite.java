package dev.ofl.conformance;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.ofl.api.ClientConfig;
import dev.ofl.api.Completion;
import dev.ofl.api.IdleStrategy;
import dev.ofl.api.Limits;
import dev.ofl.api.Ofl;
import dev.ofl.api.OflClient;
import dev.ofl.api.OflConnectionException;
import dev.ofl.api.OflException;
import dev.ofl.api.OflHandler;
import dev.ofl.api.OflRefusedException;
import dev.ofl.api.OflServer;
import dev.ofl.api.OflStatus;
import dev.ofl.api.Region;
import dev.ofl.api.ResponseRanges;
import dev.ofl.api.ServerConfig;
import dev.ofl.api.WaitMode;
import dev.ofl.api.wire.RefusalCode;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.nio.ByteOrder;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Deque;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The conformance suite every ofl backend runs. A backend's test subclasses it and names the
 * backend; every test starts its servers and clients through {@link Ofl#serve} and
 * {@link Ofl#connect} only, so the same assertions hold for every transport.
 *
 * <pre>{@code
 * class TcpConformanceTest extends OflConformanceSuite {
 *     @Override
 *     protected String backend() {
 *         return "tcp";
 *     }
 * }
 * }</pre>
 *
 * <p>No test measures time: every wait is bounded by a deadline, a latch await with a timeout or
 * the per-test {@link Timeout}, and no test sleeps to synchronize. Each test checks every response
 * byte it receives, and the bytes around the ranges it gives, against what must be there.
 *
 * <p>Not thread-safe; JUnit runs one test of an instance at a time.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
public abstract class OflConformanceSuite {
    /** The service name both ends use. */
    private static final String SERVICE = "ofl-conformance";
    /** Bound on every wait that should end promptly in a correct backend. */
    private static final long WAIT_SECONDS = 30;
    private static final long CALL_TIMEOUT_NS = TimeUnit.SECONDS.toNanos(WAIT_SECONDS);
    private static final byte SENTINEL = (byte) 0xA5;
    private static final int ROW_BYTES = 256;
    private static final ValueLayout.OfInt INT_LE =
            ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    private static final int OP_ECHO = 1;
    private static final int OP_REFUSE = 2;
    private static final int OP_REFUSE_AFTER_DATA = 3;
    private static final int OP_THROW = 4;
    private static final int OP_THROW_CHECKED = 5;
    private static final int OP_THROW_CONNECTION = 6;
    private static final int OP_BLOCK = 6;

    private final Deque<AutoCloseable> resources = new ArrayDeque<>();
    private Arena arena;

    /** Creates the suite; JUnit calls this once per test. */
    protected OflConformanceSuite() {
    }

    /**
     * The backend under test.
     *
     * @return the name that {@link ClientConfig#backend()} and {@link ServerConfig#backend()} carry
     */
    protected abstract String backend();

    /**
     * Backend-specific client properties, for example which device an RDMA client uses.
     *
     * @return properties passed to every client; empty by default
     */
    protected Map<String, String> clientProperties() {
        return Map.of();
    }

    /**
     * Backend-specific server properties.
     *
     * @return properties passed to every server; empty by default
     */
    protected Map<String, String> serverProperties() {
        return Map.of();
    }

    /**
     * The explicit address servers bind and clients connect from.
     *
     * @return {@code 127.0.0.1} by default
     */
    protected InetAddress bindAddress() {
        try {
            return InetAddress.getByAddress(new byte[] {127, 0, 0, 1});
        } catch (UnknownHostException e) {
            throw new AssertionError(e);
        }
    }

    /**
     * The wait modes the echo test covers, for both the client and the server.
     *
     * @return every {@link WaitMode} by default
     */
    protected List<WaitMode> waitModes() {
        return List.of(WaitMode.values());
    }

    /**
     * What busy-polling clients and servers do between empty polls. The suite runs on shared CI
     * machines, so the default gives the core away.
     *
     * @return {@link IdleStrategy#YIELD} by default
     */
    protected IdleStrategy idleStrategy() {
        return IdleStrategy.YIELD;
    }

    @BeforeEach
    final void openArena() {
        arena = Arena.ofShared();
    }

    @AfterEach
    final void closeResources() throws Exception {
        Exception first = null;
        while (!resources.isEmpty()) {
            try {
                resources.pop().close();
            } catch (Exception e) {
                if (first == null) {
                    first = e;
                } else {
                    first.addSuppressed(e);
                }
            }
        }
        arena.close();
        if (first != null) {
            throw first;
        }
    }

    // ---------------------------------------------------------------------------------------------
    // Echo, rows, scatter

    /** A byte-checked echo of many sizes in every wait mode; op, generation and sequence pass through. */
    @Test
    void echoIsByteExactInEveryWaitMode() {
        for (WaitMode mode : waitModes()) {
            List<long[]> seen = new CopyOnWriteArrayList<>();
            OflServer server = serve(b -> b.waitMode(mode), (request, response) -> {
                seen.add(new long[] {request.sequence(), request.op(), request.generation(),
                    request.payload().byteSize(), request.responseCapacity()});
                response.write(request.payload());
                return 0;
            });
            OflClient client = connect(server, b -> b.waitMode(mode));
            MemorySegment memory = allocate(128 << 10, SENTINEL);
            Region region = client.registerRegion(memory);
            ResponseRanges ranges = ResponseRanges.of(region);
            Completion completion = new Completion();
            int[] sizes = {64, 0, 1, 7, 8, 9, 1000, 4096, 65_536, 128 << 10};
            int[] ops = {OP_ECHO, 0, -1, Integer.MAX_VALUE, Integer.MIN_VALUE, 42, 7, 8, 9, 10};
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
        OflServer server = serve(b -> { }, (request, response) -> {
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
        OflClient client = connect(server, b -> b.limits(new Limits(4096, responseBytes, Limits.MAX_RANGES, 8)));
        int tail = 4096;
        MemorySegment memory = allocate(responseBytes + tail, SENTINEL);
        Region region = client.registerRegion(memory);
        ResponseRanges ranges = new ResponseRanges().add(region, 0, responseBytes);
        Completion completion = new Completion();
        for (int seed = 1; seed <= 2; seed++) {
            MemorySegment payload = client.requestPayload();
            payload.set(INT_LE, 0, rows);
            payload.set(INT_LE, 4, seed);
            int status = client.call(OP_ECHO, seed, 8, ranges, CALL_TIMEOUT_NS, completion);
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
        OflServer server = serve(b -> { }, (request, response) -> {
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
        OflClient client = connect(server, b -> { });
        MemorySegment first = allocate(40_000, SENTINEL);
        MemorySegment second = allocate(30_000, SENTINEL);
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
            int status = client.call(OP_ECHO, 0, 8, ranges, CALL_TIMEOUT_NS, completion);
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
        OflServer server = serve(b -> { }, (request, response) -> {
            seen.set(new long[] {request.payload().byteSize(), request.responseCapacity(), response.capacity()});
            return 0;
        });
        OflClient client = connect(server, b -> { });
        Completion completion = new Completion();
        int status = client.call(OP_ECHO, 0, 0, new ResponseRanges(), CALL_TIMEOUT_NS, completion);
        assertEquals(OflStatus.OK, status, completion::toString);
        assertEquals(0, completion.responseLength());
        assertArrayEquals(new long[] {0, 0, 0}, seen.get(), "payload, request capacity, response capacity");
    }

    /** A handler cannot commit more than the client's ranges hold; exactly the capacity works. */
    @Test
    void handlerCannotExceedTheResponseCapacity() {
        List<String> refusals = new CopyOnWriteArrayList<>();
        OflServer server = serve(b -> { }, (request, response) -> {
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
        OflClient client = connect(server, b -> { });
        MemorySegment memory = allocate(1000, SENTINEL);
        Region region = client.registerRegion(memory);
        Completion completion = new Completion();
        int status = client.call(OP_ECHO, 0, 0, new ResponseRanges().add(region, 100, 777), CALL_TIMEOUT_NS,
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

    // ---------------------------------------------------------------------------------------------
    // Misuse refused before sending

    /**
     * Ranges in another client's region, in a forged region handle, past the negotiated response
     * capacity or above the range limit, and payloads too large or negative, are refused with
     * {@link IllegalArgumentException} before anything is sent: the first request the handler then
     * sees carries sequence 0.
     */
    @Test
    void invalidSubmissionsAreRefusedBeforeSending() {
        List<Long> sequences = new CopyOnWriteArrayList<>();
        OflServer server = serve(b -> { }, (request, response) -> {
            sequences.add(request.sequence());
            response.write(request.payload());
            return 0;
        });
        Limits small = new Limits(1024, 4096, 4, 4);
        OflClient client = connect(server, b -> b.limits(small));
        OflClient other = connect(server, b -> b.limits(small));
        assertEquals(small, client.limits(), "negotiated limits");
        assertEquals(small.maxRequestBytes(), client.requestPayload().byteSize(), "payload area size");
        MemorySegment memory = allocate(8192, SENTINEL);
        Region region = client.registerRegion(memory);
        Region foreign = other.registerRegion(allocate(8192, SENTINEL));
        Region forged = new Region(client, region.id(), allocate(8192, SENTINEL));

        assertThrows(IllegalArgumentException.class,
                () -> client.submit(OP_ECHO, 0, 8, new ResponseRanges().add(foreign, 0, 64)),
                "a range in another client's region");
        assertThrows(IllegalArgumentException.class,
                () -> client.submit(OP_ECHO, 0, 8, new ResponseRanges().add(region, 0, 64).add(foreign, 64, 64)),
                "a second range in another client's region");
        assertThrows(IllegalArgumentException.class,
                () -> client.submit(OP_ECHO, 0, 8, new ResponseRanges().add(forged, 0, 64)),
                "a range in a forged region handle that was never registered");
        assertThrows(IllegalArgumentException.class,
                () -> client.submit(OP_ECHO, 0, 8, new ResponseRanges().add(region, 0, 4097)),
                "one range past the negotiated maxResponseBytes");
        assertThrows(IllegalArgumentException.class,
                () -> client.submit(OP_ECHO, 0, 8, new ResponseRanges().add(region, 0, 4000).add(region, 4000, 97)),
                "ranges summing past the negotiated maxResponseBytes");
        ResponseRanges five = new ResponseRanges();
        for (int i = 0; i < 5; i++) {
            five.add(region, i * 10L, 10);
        }
        assertThrows(IllegalArgumentException.class, () -> client.submit(OP_ECHO, 0, 8, five),
                "five ranges with a negotiated maxRanges of 4");
        ResponseRanges one = new ResponseRanges().add(region, 0, 64);
        assertThrows(IllegalArgumentException.class, () -> client.submit(OP_ECHO, 0, 1025, one),
                "a payload past the negotiated maxRequestBytes");
        assertThrows(IllegalArgumentException.class, () -> client.submit(OP_ECHO, 0, -1, one),
                "a negative payload length");
        assertThrows(IllegalArgumentException.class, () -> new ResponseRanges().add(region, 8000, 193),
                "a range past the region's end");
        assertFalse(client.isBroken(), "refused submissions must not break the connection");
        assertEquals(List.of(), sequences, "nothing may reach the handler");

        byte[] payload = randomBytes(64, 7);
        MemorySegment.copy(MemorySegment.ofArray(payload), 0, client.requestPayload(), 0, 64);
        Completion completion = new Completion();
        assertEquals(OflStatus.OK, client.call(OP_ECHO, 0, 64, one, CALL_TIMEOUT_NS, completion),
                completion::toString);
        assertEquals(64, completion.responseLength());
        assertBytes(payload, memory, 0, "echo after the refused submissions");
        assertEquals(List.of(0L), sequences, "the first request to reach the handler carries sequence 0");

        MemorySegment otherMemory = allocate(64, SENTINEL);
        Region otherRegion = other.registerRegion(otherMemory);
        MemorySegment.copy(MemorySegment.ofArray(payload), 0, other.requestPayload(), 0, 64);
        assertEquals(OflStatus.OK, other.call(OP_ECHO, 0, 64, ResponseRanges.of(otherRegion), CALL_TIMEOUT_NS,
                completion), completion::toString);
        assertBytes(payload, otherMemory, 0, "the other client's echo");
    }

    /** Awaiting a ticket never issued, or one already awaited, is misuse. */
    @Test
    void awaitingAnUnknownOrSpentTicketIsRefused() {
        OflServer server = serve(b -> { }, echo());
        OflClient client = connect(server, b -> { });
        Completion completion = new Completion();
        assertThrows(IllegalArgumentException.class, () -> client.await(12_345, deadline(client), completion),
                "a ticket never issued");
        long ticket = client.submit(OP_ECHO, 0, 0, new ResponseRanges());
        assertTrue(ticket >= 0);
        assertEquals(OflStatus.OK, client.await(ticket, deadline(client), completion), completion::toString);
        assertThrows(IllegalArgumentException.class, () -> client.await(ticket, deadline(client), completion),
                "a ticket awaited twice");
        assertFalse(client.isBroken());
    }

    // ---------------------------------------------------------------------------------------------
    // Handler outcomes

    /** A handler refusal, with and without bytes committed first, reaches the client; the connection stays usable. */
    @Test
    void handlerRefusalLeavesTheConnectionUsable() {
        OflServer server = serve(b -> { }, outcomes());
        OflClient client = connect(server, b -> { });
        MemorySegment memory = allocate(4096, SENTINEL);
        ResponseRanges ranges = ResponseRanges.of(client.registerRegion(memory));
        Completion completion = new Completion();

        client.requestPayload().set(INT_LE, 0, -2);
        assertEquals(OflStatus.REFUSED, client.call(OP_REFUSE, 0, 4, ranges, CALL_TIMEOUT_NS, completion),
                completion::toString);
        assertEquals(-2, completion.handlerStatus(), "handler status");
        assertEquals(0, completion.responseLength(), "a refusal carries no data");
        assertFalse(client.isBroken());

        client.requestPayload().set(INT_LE, 0, Integer.MIN_VALUE);
        assertEquals(OflStatus.REFUSED, client.call(OP_REFUSE_AFTER_DATA, 0, 4, ranges, CALL_TIMEOUT_NS,
                completion), completion::toString);
        assertEquals(Integer.MIN_VALUE, completion.handlerStatus(), "handler status after committed data");
        assertEquals(0, completion.responseLength(), "a refusal carries no data, even after commits");
        assertFalse(client.isBroken());

        assertEchoWorks(client, memory, ranges, "after the refusals");
    }

    /** A handler that throws (unchecked or checked) gives HANDLER_FAILED; the connection stays usable. */
    @Test
    void handlerFailureLeavesTheConnectionUsable() {
        OflServer server = serve(b -> { }, outcomes());
        OflClient client = connect(server, b -> { });
        MemorySegment memory = allocate(4096, SENTINEL);
        ResponseRanges ranges = ResponseRanges.of(client.registerRegion(memory));
        Completion completion = new Completion();
        for (int op : new int[] {OP_THROW, OP_THROW_CHECKED, OP_THROW_CONNECTION}) {
            assertEquals(OflStatus.HANDLER_FAILED, client.call(op, 0, 0, ranges, CALL_TIMEOUT_NS, completion),
                    completion::toString);
            assertEquals(0, completion.responseLength(), "a failure carries no data");
            assertFalse(client.isBroken());
        }
        assertEchoWorks(client, memory, ranges, "after the handler failures");
    }

    // ---------------------------------------------------------------------------------------------
    // Timeouts and reconnect

    /**
     * A timeout breaks the connection before {@code await} returns: the handler's response, written
     * after the client gave up, never lands; the ranges still hold the sentinel.
     */
    @Test
    void lateResponseAfterTimeoutNeverLands() throws InterruptedException {
        Blocker blocker = new Blocker();
        AtomicReference<String> lateOutcome = new AtomicReference<>();
        CountDownLatch lateWriteAttempted = new CountDownLatch(1);
        OflServer server = serve(b -> { }, (request, response) -> {
            blocker.block();
            try {
                byte[] late = new byte[(int) response.capacity()];
                java.util.Arrays.fill(late, (byte) 0x11);
                response.write(MemorySegment.ofArray(late));
                lateOutcome.set("committed " + late.length + " bytes");
            } catch (RuntimeException e) {
                lateOutcome.set("write failed: " + e);
                throw e;
            } finally {
                lateWriteAttempted.countDown();
            }
            return 0;
        });
        OflClient client = connect(server, b -> { });
        // 1.25 MiB over two ranges: more than any backend's piece size, so that pieces are sent from
        // inside the handler as well as at its end.
        MemorySegment memory = allocate(2 << 20, SENTINEL);
        Region region = client.registerRegion(memory);
        ResponseRanges ranges = new ResponseRanges().add(region, 0, 640 << 10).add(region, 1 << 20, 640 << 10);
        long ticket = client.submit(OP_BLOCK, 0, 0, ranges);
        assertTrue(ticket >= 0);
        blocker.awaitEntered();
        Completion completion = new Completion();
        int status = client.await(ticket, client.clock().nanoTime() + TimeUnit.MILLISECONDS.toNanos(50), completion);
        assertEquals(OflStatus.TIMED_OUT, status, completion::toString);
        assertTrue(client.isBroken(), "a timeout must leave the client broken");
        blocker.release();
        assertTrue(lateWriteAttempted.await(WAIT_SECONDS, TimeUnit.SECONDS), "the handler never wrote its late response");
        awaitCondition(() -> server.connectionCount() == 0,
                "the server to notice the broken connection after the late write (" + lateOutcome.get() + ")");
        assertSentinel(memory, 0, memory.byteSize(), "region after a late response (" + lateOutcome.get() + ")");
        assertTrue(client.isBroken());
        assertThrows(OflConnectionException.class, () -> client.submit(OP_ECHO, 0, 0, new ResponseRanges()),
                "submit on a broken client");
    }

    /** {@code reconnect()} after a timeout keeps every payload slot's address and the regions, and works. */
    @Test
    void reconnectKeepsPayloadAddressesAndWorks() {
        Blocker blocker = new Blocker();
        OflServer server = serve(b -> { }, (request, response) -> {
            if (request.op() == OP_BLOCK) {
                blocker.block();
                return 0;
            }
            response.write(request.payload());
            return 0;
        });
        OflClient client = connect(server, b -> b.limits(new Limits(4096, 1 << 20, Limits.MAX_RANGES, 4)));
        MemorySegment memory = allocate(4096, SENTINEL);
        ResponseRanges ranges = ResponseRanges.of(client.registerRegion(memory));
        Set<Long> before = payloadAddressesOverCalls(client, memory, ranges, 8, "before reconnect");

        long ticket = client.submit(OP_BLOCK, 0, 0, ranges);
        blocker.awaitEntered();
        Completion completion = new Completion();
        assertEquals(OflStatus.TIMED_OUT,
                client.await(ticket, client.clock().nanoTime() + TimeUnit.MILLISECONDS.toNanos(20), completion));
        assertTrue(client.isBroken());
        assertThrows(OflConnectionException.class, () -> client.submit(OP_ECHO, 0, 0, ranges));
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

    // ---------------------------------------------------------------------------------------------
    // In flight and ordering

    /**
     * Submits fill the negotiated in-flight capacity, then get {@link OflStatus#IN_FLIGHT_FULL} with
     * nothing sent; the handler sees requests in submission order; completions match their tickets
     * when awaited out of order.
     */
    @Test
    void inFlightIsBoundedAndOrderIsKept() {
        List<long[]> seen = new CopyOnWriteArrayList<>();
        OflServer server = serve(b -> { }, (request, response) -> {
            seen.add(new long[] {request.sequence(), request.op(), request.generation()});
            MemorySegment opBytes = MemorySegment.ofArray(new byte[4]);
            opBytes.set(INT_LE, 0, request.op());
            response.write(opBytes);
            response.write(request.payload());
            return 0;
        });
        int inFlight = 4;
        OflClient client = connect(server, b -> b.limits(new Limits(4096, 1 << 20, Limits.MAX_RANGES, inFlight)));
        MemorySegment memory = allocate(inFlight * 1024L, SENTINEL);
        Region region = client.registerRegion(memory);
        long[] tickets = new long[inFlight];
        byte[][] payloads = new byte[inFlight][];
        for (int i = 0; i < inFlight; i++) {
            payloads[i] = randomBytes(100 + i, 77 + i);
            MemorySegment.copy(MemorySegment.ofArray(payloads[i]), 0, client.requestPayload(), 0, payloads[i].length);
            tickets[i] = client.submit(100 + i, 1000 + i, payloads[i].length,
                    new ResponseRanges().add(region, i * 1024L, 1024));
            assertTrue(tickets[i] >= 0, "submit " + i + " returned " + OflStatus.name((int) tickets[i]));
        }
        assertEquals(OflStatus.IN_FLIGHT_FULL, client.submit(999, 0, 0, new ResponseRanges()),
                "a submit beyond the negotiated maxInFlight");
        Completion completion = new Completion();
        for (int i : new int[] {3, 1, 0, 2}) {
            int status = client.await(tickets[i], deadline(client), completion);
            assertEquals(OflStatus.OK, status, completion::toString);
            assertEquals(tickets[i], completion.ticket(), "completion of ticket " + i);
            assertEquals(4 + payloads[i].length, completion.responseLength(), "response length of ticket " + i);
            assertEquals(100 + i, memory.get(INT_LE, i * 1024L), "op echoed into ticket " + i + "'s range");
            assertBytes(payloads[i], memory, i * 1024L + 4, "payload echoed into ticket " + i + "'s range");
        }
        assertEquals(inFlight, seen.size(), "handler calls");
        for (int i = 0; i < inFlight; i++) {
            assertArrayEquals(new long[] {i, 100 + i, 1000 + i}, seen.get(i), "request " + i + " as the handler saw it");
        }
        long next = client.submit(200, 2000, 0, new ResponseRanges().add(region, 0, 1024));
        assertTrue(next >= 0, "submit after the in-flight requests completed");
        assertEquals(OflStatus.OK, client.await(next, deadline(client), completion), completion::toString);
        assertEquals(inFlight + 1, seen.size(), "handler calls");
        assertArrayEquals(new long[] {inFlight, 200, 2000}, seen.get(inFlight),
                "the refused submit must not have used a sequence number");
    }

    // ---------------------------------------------------------------------------------------------
    // Bootstrap refusals and configuration

    /** A client naming another service is refused with SERVICE_MISMATCH, and the server keeps serving. */
    @Test
    void serviceNameMismatchIsRefused() {
        OflServer server = serve(b -> { }, echo());
        OflRefusedException refused = assertThrows(OflRefusedException.class,
                () -> connect(server, b -> b.serviceName("another-service")));
        assertEquals(RefusalCode.SERVICE_MISMATCH, refused.code(), refused::getMessage);
        assertTrue(refused.getMessage().contains("another-service"), () -> "message names the service: " + refused);
        assertServerStillServes(server);
    }

    /** Proposed limits above the server's maxima are refused with LIMITS_EXCEEDED naming the field. */
    @Test
    void limitsAboveTheServerMaximaAreRefused() {
        OflServer server = serve(b -> b.limits(new Limits(1 << 20, 4 << 20, 8, 4)), echo());
        assertEquals(new Limits(1 << 20, 4 << 20, 8, 4), server.limits());
        Map<String, Limits> proposals = Map.of(
                "maxRequestBytes", new Limits(2 << 20, 1 << 20, 8, 4),
                "maxResponseBytes", new Limits(1024, 8 << 20, 8, 4),
                "maxRanges", new Limits(1024, 1 << 20, 9, 4),
                "maxInFlight", new Limits(1024, 1 << 20, 8, 5));
        for (Map.Entry<String, Limits> proposal : proposals.entrySet()) {
            OflRefusedException refused = assertThrows(OflRefusedException.class,
                    () -> connect(server, b -> b.limits(proposal.getValue())), proposal.getKey());
            assertEquals(RefusalCode.LIMITS_EXCEEDED, refused.code(), refused::getMessage);
            assertTrue(refused.getMessage().contains(proposal.getKey()),
                    () -> "message names " + proposal.getKey() + ": " + refused.getMessage());
        }
        OflClient exact = connect(server, b -> b.limits(new Limits(1 << 20, 4 << 20, 8, 4)));
        assertEquals(new Limits(1 << 20, 4 << 20, 8, 4), exact.limits(), "limits equal to the maxima are accepted");
        assertEchoWorks(exact, allocate(256, SENTINEL), null, "a client proposing exactly the maxima");
    }

    /** A server at its connection cap refuses the next client with SERVER_BUSY. */
    @Test
    void connectionCapRefusesWithServerBusy() {
        OflServer server = serve(b -> b.maxConnections(1), echo());
        OflClient first = connect(server, b -> { });
        OflRefusedException refused = assertThrows(OflRefusedException.class, () -> connect(server, b -> { }));
        assertEquals(RefusalCode.SERVER_BUSY, refused.code(), refused::getMessage);
        assertEchoWorks(first, allocate(256, SENTINEL), null, "the connected client at the cap");
    }

    /** A wildcard bind address (IPv4 and IPv6) is refused when the configuration is built. */
    @Test
    void wildcardBindIsRefused() throws UnknownHostException {
        for (String wildcard : new String[] {"0.0.0.0", "::"}) {
            InetSocketAddress bind = new InetSocketAddress(InetAddress.getByName(wildcard), 0);
            IllegalArgumentException refused = assertThrows(IllegalArgumentException.class,
                    () -> ServerConfig.builder().backend(backend()).bind(bind).serviceName(SERVICE).build(), wildcard);
            assertTrue(refused.getMessage().contains("wildcard"), refused::getMessage);
        }
    }

    // ---------------------------------------------------------------------------------------------
    // Server death, concurrency, close

    /**
     * A server closed while its handler blocks ends the client's wait with
     * {@link OflConnectionException} before the deadline, not a timeout or a hang, and close()
     * returns after its drain timeout even though the handler is still running.
     */
    @Test
    void serverCloseMidRequestBreaksTheClient() throws Exception {
        Blocker blocker = new Blocker();
        OflServer server = Ofl.serve(serverBuilder().drainTimeout(Duration.ofMillis(200)).build(),
                (request, response) -> {
                    blocker.block();
                    return 0;
                });
        resources.push(server);
        OflClient client = connect(server, b -> { });
        ExecutorService closer = Executors.newSingleThreadExecutor();
        try {
            long ticket = client.submit(OP_BLOCK, 0, 0, new ResponseRanges());
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
            assertThrows(OflConnectionException.class, () -> client.submit(OP_ECHO, 0, 0, new ResponseRanges()));
        } finally {
            blocker.release();
            closer.shutdownNow();
            assertTrue(closer.awaitTermination(WAIT_SECONDS, TimeUnit.SECONDS));
        }
    }

    /** Four clients on four threads: their handlers run at the same time (they meet at a barrier). */
    @Test
    void handlersRunConcurrentlyAcrossConnections() throws Exception {
        int clients = 4;
        CyclicBarrier barrier = new CyclicBarrier(clients);
        OflServer server = serve(b -> { }, (request, response) -> {
            barrier.await(WAIT_SECONDS, TimeUnit.SECONDS);
            response.write(request.payload());
            return 0;
        });
        WaitMode mode = waitModes().contains(WaitMode.BLOCKING) ? WaitMode.BLOCKING : waitModes().get(0);
        List<OflClient> connected = new ArrayList<>();
        for (int i = 0; i < clients; i++) {
            connected.add(connect(server, b -> b.waitMode(mode)));
        }
        ExecutorService threads = Executors.newFixedThreadPool(clients);
        try {
            List<Future<String>> results = new ArrayList<>();
            for (int i = 0; i < clients; i++) {
                OflClient client = connected.get(i);
                int id = i;
                results.add(threads.submit(() -> {
                    MemorySegment memory = allocate(512, SENTINEL);
                    ResponseRanges ranges = ResponseRanges.of(client.registerRegion(memory));
                    byte[] payload = randomBytes(300 + id, id);
                    MemorySegment.copy(MemorySegment.ofArray(payload), 0, client.requestPayload(), 0, payload.length);
                    Completion completion = new Completion();
                    int status = client.call(OP_ECHO, id, payload.length, ranges, CALL_TIMEOUT_NS, completion);
                    if (status != OflStatus.OK || completion.responseLength() != payload.length) {
                        return "client " + id + ": " + completion;
                    }
                    long mismatch = MemorySegment.mismatch(memory, 0, payload.length, MemorySegment.ofArray(payload), 0,
                            payload.length);
                    return mismatch < 0 ? "ok" : "client " + id + ": echo differs at byte " + mismatch;
                }));
            }
            for (Future<String> result : results) {
                assertEquals("ok", result.get(WAIT_SECONDS * 2, TimeUnit.SECONDS));
            }
            assertFalse(barrier.isBroken(), "handlers did not overlap");
            assertEquals(clients, server.connectionCount(), "connections open");
        } finally {
            threads.shutdownNow();
            assertTrue(threads.awaitTermination(WAIT_SECONDS, TimeUnit.SECONDS));
        }
    }

    /** {@code close()} is idempotent on both ends; a closed server accepts no new client. */
    @Test
    void closeIsIdempotent() {
        OflServer server = serve(b -> { }, echo());
        OflClient client = connect(server, b -> { });
        assertEchoWorks(client, allocate(256, SENTINEL), null, "before close");
        client.close();
        client.close();
        InetSocketAddress address = server.localAddress();
        server.close();
        server.close();
        assertThrows(OflException.class, () -> Ofl.connect(clientBuilder(address).build()).close(),
                "connecting to a closed server");
    }

    // ---------------------------------------------------------------------------------------------
    // Helpers

    /** Blocks a handler until the test releases it; both waits are bounded. */
    private static final class Blocker {
        private final CountDownLatch entered = new CountDownLatch(1);
        private final CountDownLatch released = new CountDownLatch(1);

        void block() throws InterruptedException {
            entered.countDown();
            if (!released.await(WAIT_SECONDS * 2, TimeUnit.SECONDS)) {
                throw new IllegalStateException("the test never released the handler");
            }
        }

        void awaitEntered() {
            try {
                assertTrue(entered.await(WAIT_SECONDS, TimeUnit.SECONDS), "the handler was never called");
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError(e);
            }
        }

        void release() {
            released.countDown();
        }
    }

    private static OflHandler echo() {
        return (request, response) -> {
            response.write(request.payload());
            return 0;
        };
    }

    /** Echo, refusal (status from the payload), refusal after committed data, and failures. */
    private static OflHandler outcomes() {
        return (request, response) -> switch (request.op()) {
            case OP_REFUSE -> request.payload().get(INT_LE, 0);
            case OP_REFUSE_AFTER_DATA -> {
                response.write(MemorySegment.ofArray(new byte[Math.min(100, (int) response.capacity())]));
                yield request.payload().get(INT_LE, 0);
            }
            case OP_THROW -> {
                response.write(MemorySegment.ofArray(new byte[Math.min(10, (int) response.capacity())]));
                throw new IllegalStateException("handler failure injected by the conformance suite");
            }
            case OP_THROW_CHECKED -> throw new Exception("checked handler failure injected by the conformance suite");
            // A handler that is itself an ofl client may see its own connection break: still a
            // handler failure, not a reason to end this connection.
            case OP_THROW_CONNECTION -> throw new OflConnectionException("a downstream connection of the handler broke");
            default -> {
                response.write(request.payload());
                yield 0;
            }
        };
    }

    private ServerConfig.Builder serverBuilder() {
        return ServerConfig.builder()
                .backend(backend())
                .bind(new InetSocketAddress(bindAddress(), 0))
                .serviceName(SERVICE)
                .idleStrategy(idleStrategy())
                // The same bound as the client's connect: a slow first connection (a cold JVM on a
                // loaded or emulated machine) must not be dropped by the server's 5 s default.
                .bootstrapTimeout(Duration.ofSeconds(WAIT_SECONDS))
                .properties(serverProperties());
    }

    private ClientConfig.Builder clientBuilder(InetSocketAddress server) {
        return ClientConfig.builder()
                .backend(backend())
                .server(server)
                .localAddress(bindAddress())
                .serviceName(SERVICE)
                .idleStrategy(idleStrategy())
                .connectTimeout(Duration.ofSeconds(WAIT_SECONDS))
                .properties(clientProperties());
    }

    private OflServer serve(Consumer<ServerConfig.Builder> settings, OflHandler handler) {
        ServerConfig.Builder builder = serverBuilder();
        settings.accept(builder);
        OflServer server = Ofl.serve(builder.build(), handler);
        resources.push(server);
        assertEquals(backend(), server.backend());
        return server;
    }

    private OflClient connect(OflServer server, Consumer<ClientConfig.Builder> settings) {
        ClientConfig.Builder builder = clientBuilder(server.localAddress());
        settings.accept(builder);
        OflClient client = Ofl.connect(builder.build());
        resources.push(client);
        assertEquals(backend(), client.backend());
        assertFalse(client.isBroken(), "a new client is not broken");
        return client;
    }

    private MemorySegment allocate(long bytes, byte fill) {
        return arena.allocate(bytes, 64).fill(fill);
    }

    private static long deadline(OflClient client) {
        return client.clock().nanoTime() + CALL_TIMEOUT_NS;
    }

    private static byte[] randomBytes(int length, long seed) {
        byte[] bytes = new byte[length];
        new Random(seed).nextBytes(bytes);
        return bytes;
    }

    /** A row: its index in the first four bytes, then a pattern of row, column and seed. */
    private static void fillRow(byte[] row, int index, int seed) {
        row[0] = (byte) index;
        row[1] = (byte) (index >>> 8);
        row[2] = (byte) (index >>> 16);
        row[3] = (byte) (index >>> 24);
        for (int c = 4; c < row.length; c++) {
            row[c] = (byte) (index * 131 + c * 7 + seed * 29);
        }
    }

    /** Stream byte {@code k} of a scatter response; never the sentinel, so every write shows. */
    private static byte streamByte(long k, int seed) {
        byte b = (byte) (k * 13 + (k >>> 8) + seed * 41 + 1);
        return b == SENTINEL ? 0x5A : b;
    }

    private static void assertBytes(byte[] expected, MemorySegment memory, long offset, String what) {
        long mismatch = MemorySegment.mismatch(memory, offset, offset + expected.length,
                MemorySegment.ofArray(expected), 0, expected.length);
        if (mismatch >= 0) {
            fail(what + ": byte " + mismatch + " of " + expected.length + " is "
                    + memory.get(ValueLayout.JAVA_BYTE, offset + mismatch) + ", expected " + expected[(int) mismatch]);
        }
    }

    private static void assertSentinel(MemorySegment memory, long offset, long length, String what) {
        for (long i = 0; i < length; i++) {
            byte actual = memory.get(ValueLayout.JAVA_BYTE, offset + i);
            if (actual != SENTINEL) {
                fail(what + ": byte at " + (offset + i) + " changed to " + actual);
            }
        }
    }

    private static void assertOutsideRangesUntouched(MemorySegment memory, MemorySegment[] rangeMemory,
            long[] offsets, int[] lengths, String what) {
        boolean[] inRange = new boolean[(int) memory.byteSize()];
        for (int i = 0; i < lengths.length; i++) {
            if (rangeMemory[i] == memory) {
                for (int k = 0; k < lengths[i]; k++) {
                    inRange[(int) offsets[i] + k] = true;
                }
            }
        }
        for (int at = 0; at < inRange.length; at++) {
            if (!inRange[at] && memory.get(ValueLayout.JAVA_BYTE, at) != SENTINEL) {
                fail(what + ": byte " + at + " outside every range changed to " + memory.get(ValueLayout.JAVA_BYTE, at));
            }
        }
    }

    /** One echo through the client, byte-checked; {@code ranges} null means one range over {@code memory}. */
    private static void assertEchoWorks(OflClient client, MemorySegment memory, ResponseRanges ranges, String what) {
        ResponseRanges target = ranges;
        if (target == null) {
            target = ResponseRanges.of(client.registerRegion(memory));
        }
        int length = (int) Math.min(200, Math.min(memory.byteSize(), client.limits().maxRequestBytes()));
        byte[] payload = randomBytes(length, what.hashCode());
        MemorySegment.copy(MemorySegment.ofArray(payload), 0, client.requestPayload(), 0, length);
        Completion completion = new Completion();
        assertEquals(OflStatus.OK, client.call(OP_ECHO, 0, length, target, CALL_TIMEOUT_NS, completion),
                () -> what + ": " + completion);
        assertEquals(length, completion.responseLength(), what);
        assertBytes(payload, memory, 0, what);
        assertFalse(client.isBroken(), what);
    }

    private void assertServerStillServes(OflServer server) {
        OflClient client = connect(server, b -> { });
        assertEchoWorks(client, allocate(256, SENTINEL), null, "a well-behaved client after a refusal");
    }

    /** Calls echo {@code calls} times, each payload written in place; returns the payload addresses used. */
    private static Set<Long> payloadAddressesOverCalls(OflClient client, MemorySegment memory, ResponseRanges ranges,
            int calls, String what) {
        Set<Long> addresses = new LinkedHashSet<>();
        Completion completion = new Completion();
        for (int i = 0; i < calls; i++) {
            MemorySegment area = client.requestPayload();
            assertEquals(client.limits().maxRequestBytes(), area.byteSize(), what + ": payload area size");
            addresses.add(area.address());
            byte[] payload = randomBytes(50 + i, i * 31L + what.length());
            MemorySegment.copy(MemorySegment.ofArray(payload), 0, area, 0, payload.length);
            int status = client.call(OP_ECHO, i, payload.length, ranges, CALL_TIMEOUT_NS, completion);
            assertEquals(OflStatus.OK, status, () -> what + ": " + completion);
            assertEquals(payload.length, completion.responseLength(), what);
            assertBytes(payload, memory, 0, what + ", call " + i);
        }
        return Collections.unmodifiableSet(addresses);
    }

    /** Waits, bounded, for a condition that a correct backend reaches promptly. */
    private static void awaitCondition(BooleanSupplier condition, String what) {
        long deadlineNs = System.nanoTime() + CALL_TIMEOUT_NS;
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadlineNs >= 0) {
                fail("timed out waiting for " + what);
            }
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
        }
    }
}
