package dev.ofl.check;

import static dev.ofl.check.CheckService.OP_BULK;
import static dev.ofl.check.CheckService.OP_ECHO;
import static dev.ofl.check.CheckService.OP_FAIL;
import static dev.ofl.check.CheckService.OP_REFUSE;
import static dev.ofl.check.CheckService.OP_ROWS;
import static dev.ofl.check.CheckService.OP_STALL;
import static dev.ofl.check.CheckService.OP_STALLS_FINISHED;
import static dev.ofl.check.CheckService.ROW_BYTES;
import static dev.ofl.check.CheckService.STALL_RESPONSE_BYTES;
import static dev.ofl.check.CheckService.U32;
import static dev.ofl.check.CheckService.U64;

import dev.ofl.api.ClientConfig;
import dev.ofl.api.Completion;
import dev.ofl.api.Limits;
import dev.ofl.api.Ofl;
import dev.ofl.api.OflClient;
import dev.ofl.api.OflConnectionException;
import dev.ofl.api.OflRefusedException;
import dev.ofl.api.OflStatus;
import dev.ofl.api.RefusalCode;
import dev.ofl.api.Region;
import dev.ofl.api.ResponseRanges;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * The checks that need only a remote peer: a client on this host against an {@code ofl check}
 * server (in this process, or {@code --serve} on the other host), each with its own connection and
 * each response byte checked, together with the bytes around its ranges. They mirror the original
 * library's link validation: echo, rows of the reference sizes, ranges, refusal, handler failure,
 * pipelining, the fatal timeout with no late write, reconnect with stable payload addresses, the
 * bootstrap's refusals, and the bandwidth of large responses against a threshold.
 *
 * <p>Not thread-safe; one run at a time.
 */
final class LinkChecks {
    /** What check memory holds before a response lands. */
    static final byte SENTINEL = (byte) 0xA5;
    /** The timeout of calls that must succeed. */
    private static final long CALL_TIMEOUT_NS = TimeUnit.SECONDS.toNanos(30);
    /** The deadline the timeout check gives a handler that stalls for {@link #STALL_MS}. */
    private static final long SHORT_TIMEOUT_NS = TimeUnit.MILLISECONDS.toNanos(50);
    private static final int STALL_MS = 500;
    /** The bandwidth check's response size at most: the negotiated maximum below it. */
    private static final long BULK_MAX_BYTES = 64L << 20;
    /** The bandwidth check's calls: the best one stands for the link's capacity. */
    private static final int BULK_CALLS = 8;

    /** A check's body: returns what it saw, or throws {@link CheckFailure} (or anything) on failure. */
    @FunctionalInterface
    private interface Body {
        String run() throws Exception;
    }

    /** A failed expectation, with the values involved. */
    static final class CheckFailure extends Exception {
        private static final long serialVersionUID = 1L;

        CheckFailure(String message) {
            super(message);
        }
    }

    private final Supplier<ClientConfig.Builder> settings;
    /** The same settings without the key, when the server is expected to require one; else null. */
    private final Supplier<ClientConfig.Builder> unauthenticated;
    private final ClientConfig config;
    private final Consumer<CheckResult> report;
    /** The bandwidth a large response must reach, in Gb/s; 0 for none (the figure is only reported). */
    private final double minGbps;
    private final List<CheckResult> results = new ArrayList<>();

    /**
     * @param settings a new builder with the client's settings each time: backend, server address,
     *     local address, service, properties; the refusal checks change one setting of it
     * @param unauthenticated the same settings without the key, if {@code settings} carries one the
     *     server must require (adds the check that a client without it is refused); else null
     * @param report called with each result as it is known
     * @param minGbps the bandwidth {@code link.bandwidth} must reach with a large response, in Gb/s;
     *     0 reports the figure without a threshold
     */
    LinkChecks(Supplier<ClientConfig.Builder> settings, Supplier<ClientConfig.Builder> unauthenticated,
            Consumer<CheckResult> report, double minGbps) {
        this.settings = settings;
        this.unauthenticated = unauthenticated;
        this.config = settings.get().build();
        this.report = report;
        this.minGbps = minGbps;
    }

    /**
     * Runs every link check in order. If the first (connecting) fails, the others are reported as
     * failed without running, naming that cause.
     *
     * @return the results, one per check
     */
    List<CheckResult> run() {
        boolean connected = check("link.connect", this::connect);
        List<Object[]> rest = new ArrayList<>(List.of(
                new Object[] {"link.echo-64", (Body) () -> echo(64)},
                new Object[] {"link.echo-max-request", (Body) () -> echo(-1)},
                new Object[] {"link.rows-288", (Body) () -> rows(288, 1)},
                new Object[] {"link.rows-4096-in-16-ranges", (Body) () -> rows(4096, Limits.MAX_RANGES)},
                new Object[] {"link.rows-49152", (Body) () -> rows(49_152, 1)},
                new Object[] {"link.refusal-leaves-connection-usable", (Body) this::refusal},
                new Object[] {"link.handler-failure-leaves-connection-usable", (Body) this::handlerFailure},
                new Object[] {"link.pipelined-in-flight", (Body) this::pipelined},
                new Object[] {"link.timeout-is-fatal-and-nothing-lands-late", (Body) this::timeout},
                new Object[] {"link.reconnect-keeps-payload-address", (Body) this::reconnect},
                new Object[] {"link.wrong-service-refused", (Body) this::wrongService},
                new Object[] {"link.limits-beyond-server-refused", (Body) this::limitsBeyond},
                new Object[] {"link.bandwidth", (Body) this::bandwidth}));
        if (unauthenticated != null) {
            rest.add(new Object[] {"link.unauthenticated-refused", (Body) this::unauthenticatedRefused});
        }
        for (Object[] entry : rest) {
            String name = (String) entry[0];
            if (connected) {
                check(name, (Body) entry[1]);
            } else {
                record(new CheckResult(name, false, "not run: link.connect failed"));
            }
        }
        return results;
    }

    private boolean check(String name, Body body) {
        CheckResult result;
        try {
            result = new CheckResult(name, true, body.run());
        } catch (CheckFailure e) {
            result = new CheckResult(name, false, e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            result = new CheckResult(name, false, "interrupted");
        } catch (Exception | AssertionError e) {
            result = new CheckResult(name, false, e.toString());
        }
        record(result);
        return result.passed();
    }

    private void record(CheckResult result) {
        results.add(result);
        report.accept(result);
    }

    private static void expect(boolean condition, String what) throws CheckFailure {
        if (!condition) {
            throw new CheckFailure(what);
        }
    }

    private static void expectStatus(int expected, int status, Completion completion, String what)
            throws CheckFailure {
        expect(status == expected, what + ": expected " + OflStatus.name(expected) + ", got " + OflStatus.name(status)
                + " (" + completion + ")");
    }

    // ---- the checks

    private String connect() {
        try (OflClient client = Ofl.connect(config)) {
            Limits limits = client.limits();
            return "connected to " + config.server() + " over " + client.backend() + ", service '"
                    + config.serviceName() + "', limits: request " + limits.maxRequestBytes() + " B, response "
                    + limits.maxResponseBytes() + " B, " + limits.maxRanges() + " ranges, " + limits.maxInFlight()
                    + " in flight" + (unauthenticated == null ? "" : ", authenticated both ways");
        }
    }

    private String echo(int requested) throws CheckFailure {
        try (Arena arena = Arena.ofShared(); OflClient client = Ofl.connect(config)) {
            int length = requested < 0 ? client.limits().maxRequestBytes() : requested;
            MemorySegment memory = sentinelFilled(arena, length + 128L);
            Region region = client.registerRegion(memory);
            byte[] payload = new byte[length];
            new Random(length).nextBytes(payload);
            MemorySegment.copy(MemorySegment.ofArray(payload), 0, client.requestPayload(), 0, length);
            Completion completion = new Completion();
            int status = client.call(OP_ECHO, 0, length, new ResponseRanges().add(region, 64, length + 32L),
                    CALL_TIMEOUT_NS, completion);
            expectStatus(OflStatus.OK, status, completion, "echo of " + length + " bytes");
            expect(completion.responseLength() == length, "echo of " + length + " bytes came back as "
                    + completion.responseLength());
            for (int i = 0; i < length; i++) {
                byte seen = memory.get(ValueLayout.JAVA_BYTE, 64 + i);
                expect(seen == payload[i], "echoed byte " + i + " is " + seen + ", sent " + payload[i]);
            }
            expectSentinel(memory, 0, 64, "before the range");
            expectSentinel(memory, 64 + length, memory.byteSize() - 64 - length, "after the response");
            return length + " bytes echoed, every byte checked";
        }
    }

    /**
     * {@code count} rows into {@code ranges} equal ranges with a gap of one row after each; checks
     * every row byte, and that every gap and the tail keep the sentinel.
     */
    private String rows(int count, int ranges) throws CheckFailure {
        try (Arena arena = Arena.ofShared(); OflClient client = Ofl.connect(config)) {
            long responseBytes = (long) count * ROW_BYTES;
            expect(responseBytes <= client.limits().maxResponseBytes(), count + " rows (" + responseBytes
                    + " B) exceed the negotiated maxResponseBytes " + client.limits().maxResponseBytes());
            int rowsPerRange = count / ranges;
            expect(rowsPerRange * ranges == count, count + " rows do not split into " + ranges + " ranges");
            long stride = (long) (rowsPerRange + 1) * ROW_BYTES;
            MemorySegment memory = sentinelFilled(arena, stride * ranges);
            Region region = client.registerRegion(memory);
            ResponseRanges target = new ResponseRanges();
            for (int r = 0; r < ranges; r++) {
                target.add(region, r * stride, (long) rowsPerRange * ROW_BYTES);
            }
            int seed = count + ranges;
            MemorySegment payload = client.requestPayload();
            payload.set(U32, 0, count);
            payload.set(U32, 4, seed);
            Completion completion = new Completion();
            int status = client.call(OP_ROWS, 0, 8, target, CALL_TIMEOUT_NS, completion);
            expectStatus(OflStatus.OK, status, completion, count + " rows");
            expect(completion.responseLength() == responseBytes, count + " rows came back as "
                    + completion.responseLength() + " bytes, expected " + responseBytes);
            for (int row = 0; row < count; row++) {
                long at = (row / rowsPerRange) * stride + (long) (row % rowsPerRange) * ROW_BYTES;
                for (int column = 0; column < ROW_BYTES; column++) {
                    byte seen = memory.get(ValueLayout.JAVA_BYTE, at + column);
                    byte expected = CheckService.rowByte(row, column, seed);
                    if (seen != expected) {
                        throw new CheckFailure("row " + row + " byte " + column + " (memory offset " + (at + column)
                                + ") is " + seen + ", expected " + expected);
                    }
                }
            }
            for (int r = 0; r < ranges; r++) {
                expectSentinel(memory, r * stride + (long) rowsPerRange * ROW_BYTES, ROW_BYTES,
                        "the gap after range " + r);
            }
            return count + " rows of " + ROW_BYTES + " B (" + responseBytes + " B) into " + ranges
                    + (ranges == 1 ? " range" : " ranges") + ", every byte and every gap checked";
        }
    }

    private String refusal() throws CheckFailure {
        int handlerStatus = outcomeWithoutData(OP_REFUSE, 409, OflStatus.REFUSED, "a refusing handler");
        expect(handlerStatus == 409, "the handler refused with 409, the client saw " + handlerStatus);
        return "REFUSED with handler status 409, no byte written, an echo works afterwards";
    }

    /**
     * A throwing handler: HANDLER_FAILED, and from a server that sends reasons its reason, placed
     * at the start of the range and nowhere else; an older server, or one configured not to, writes
     * nothing.
     */
    private String handlerFailure() throws CheckFailure {
        try (Arena arena = Arena.ofShared(); OflClient client = Ofl.connect(config)) {
            MemorySegment memory = sentinelFilled(arena, 4096);
            Region region = client.registerRegion(memory);
            Completion completion = new Completion();
            int status = client.call(OP_FAIL, 0, 0, ResponseRanges.of(region), CALL_TIMEOUT_NS, completion);
            expectStatus(OflStatus.HANDLER_FAILED, status, completion, "a throwing handler");
            String reason = completion.failureReason();
            long written = 0;
            if (reason != null) {
                expect(reason.startsWith("java.lang.IllegalStateException: handler failure asked for by an ofl check"),
                        "the server's reason is not the handler's exception: " + reason);
                byte[] expected = reason.getBytes(StandardCharsets.UTF_8);
                expect(MemorySegment.mismatch(memory, 0, expected.length, MemorySegment.ofArray(expected), 0,
                        expected.length) < 0, "the range does not hold the reason the client reported");
                written = expected.length;
            }
            expectSentinel(memory, written, memory.byteSize() - written, "after a throwing handler (it had committed "
                    + "100 bytes)");
            expect(!client.isBroken(), "a throwing handler broke the connection");
            expectEcho(client, region, memory);
            return reason == null ? "HANDLER_FAILED without a reason (the server sends none), no byte written, an echo "
                    + "works afterwards" : "HANDLER_FAILED with the reason \"" + reason + "\" (" + written + " B, "
                    + "nothing else written), an echo works afterwards";
        }
    }

    /**
     * Calls {@code op}, whose handler commits 100 bytes and then refuses or throws: the outcome
     * must be {@code expected} with no byte written, and the connection must still echo.
     *
     * @return the handler status the client saw
     */
    private int outcomeWithoutData(int op, int payloadStatus, int expected, String what) throws CheckFailure {
        try (Arena arena = Arena.ofShared(); OflClient client = Ofl.connect(config)) {
            MemorySegment memory = sentinelFilled(arena, 4096);
            Region region = client.registerRegion(memory);
            client.requestPayload().set(U32, 0, payloadStatus);
            Completion completion = new Completion();
            int status = client.call(op, 0, 4, ResponseRanges.of(region), CALL_TIMEOUT_NS, completion);
            expectStatus(expected, status, completion, what);
            expectSentinel(memory, 0, memory.byteSize(), "after " + what + " (it had committed 100 bytes)");
            expect(!client.isBroken(), what + " broke the connection");
            expectEcho(client, region, memory);
            return completion.handlerStatus();
        }
    }

    private String pipelined() throws CheckFailure {
        try (Arena arena = Arena.ofShared(); OflClient client = Ofl.connect(config)) {
            int inFlight = client.limits().maxInFlight();
            MemorySegment memory = sentinelFilled(arena, (long) inFlight * 1024);
            Region region = client.registerRegion(memory);
            long[] tickets = new long[inFlight];
            for (int i = 0; i < inFlight; i++) {
                client.requestPayload().set(U32, 0, 0x51DE0000 + i);
                tickets[i] = client.submit(OP_ECHO, i, 4, new ResponseRanges().add(region, i * 1024L, 1024));
                expect(tickets[i] >= 0, "submit " + i + " of " + inFlight + " returned "
                        + OflStatus.name((int) tickets[i]));
            }
            long full = client.submit(OP_ECHO, 0, 0, new ResponseRanges());
            expect(full == OflStatus.IN_FLIGHT_FULL, "a submit beyond maxInFlight " + inFlight + " returned " + full
                    + ", expected IN_FLIGHT_FULL");
            Completion completion = new Completion();
            long deadlineNs = client.clock().nanoTime() + CALL_TIMEOUT_NS;
            for (int i = 0; i < inFlight; i++) {
                int status = client.await(tickets[i], deadlineNs, completion);
                expectStatus(OflStatus.OK, status, completion, "ticket " + i + " of " + inFlight);
                int seen = memory.get(U32, i * 1024L);
                expect(seen == 0x51DE0000 + i, "ticket " + i + "'s range holds " + Integer.toHexString(seen));
                expectSentinel(memory, i * 1024L + 4, 1020, "after ticket " + i + "'s response");
            }
            return inFlight + " requests in flight, the next refused with IN_FLIGHT_FULL, each response in its range";
        }
    }

    private String timeout() throws CheckFailure {
        try (Arena arena = Arena.ofShared(); OflClient client = Ofl.connect(config)) {
            MemorySegment memory = sentinelFilled(arena, STALL_RESPONSE_BYTES * 2L);
            Region region = client.registerRegion(memory);
            long before = stallsFinished(client, region, memory);
            memory.fill(SENTINEL);
            client.requestPayload().set(U32, 0, STALL_MS);
            Completion completion = new Completion();
            long startNs = client.clock().nanoTime();
            int status = client.call(OP_STALL, 0, 4, ResponseRanges.of(region), SHORT_TIMEOUT_NS, completion);
            long waitedNs = client.clock().nanoTime() - startNs;
            expectStatus(OflStatus.TIMED_OUT, status, completion, "a handler stalling " + STALL_MS + " ms against a "
                    + TimeUnit.NANOSECONDS.toMillis(SHORT_TIMEOUT_NS) + " ms deadline");
            expect(waitedNs >= SHORT_TIMEOUT_NS, "TIMED_OUT after " + waitedNs + " ns, before the deadline");
            expect(client.isBroken(), "the client is not broken after TIMED_OUT");
            try {
                client.submit(OP_ECHO, 0, 0, new ResponseRanges());
                throw new CheckFailure("submit on a timed-out client was accepted");
            } catch (OflConnectionException expected) {
                // the broken state refuses work until reconnect()
            }
            client.reconnect();
            long deadlineNs = client.clock().nanoTime() + CALL_TIMEOUT_NS;
            long after;
            do {
                expect(client.clock().nanoTime() - deadlineNs < 0, "the stalled handler never finished");
                after = stallsFinished(client, region, memory);
            } while (after == before);
            expectEcho(client, region, memory);
            // The stall's range was the whole region; only the count and the echo may have written its first 8 bytes.
            expectSentinel(memory, 8, memory.byteSize() - 8, "after the stalled handler's late response");
            return "TIMED_OUT after " + TimeUnit.NANOSECONDS.toMillis(waitedNs) + " ms, client broken and refusing "
                    + "work, the handler's late " + STALL_RESPONSE_BYTES + " B never landed, reconnect() works";
        }
    }

    private String reconnect() throws CheckFailure {
        try (Arena arena = Arena.ofShared(); OflClient client = Ofl.connect(config)) {
            MemorySegment memory = sentinelFilled(arena, 4096);
            Region region = client.registerRegion(memory);
            long address = client.requestPayload().address();
            client.reconnect();
            expect(!client.isBroken(), "broken after reconnect()");
            expect(client.requestPayload().address() == address, "the payload area moved from 0x"
                    + Long.toHexString(address) + " to 0x" + Long.toHexString(client.requestPayload().address()));
            expectEcho(client, region, memory);
            return "payload area at the same address after reconnect(), an echo works";
        }
    }

    private String wrongService() throws CheckFailure {
        String wrong = config.serviceName() + "-not-this";
        ClientConfig other = settings.get().serviceName(wrong).build();
        try {
            Ofl.connect(other).close();
            throw new CheckFailure("a client naming service '" + wrong + "' was accepted");
        } catch (OflRefusedException e) {
            expect(e.code() == RefusalCode.SERVICE_MISMATCH, "refused with " + e.code() + ", expected "
                    + RefusalCode.SERVICE_MISMATCH + ": " + e.getMessage());
            return "service '" + wrong + "' refused with SERVICE_MISMATCH";
        }
    }

    private String unauthenticatedRefused() throws CheckFailure {
        try {
            Ofl.connect(unauthenticated.get().build()).close();
            throw new CheckFailure("a client without the key was accepted: the server does not require "
                    + "authentication");
        } catch (OflRefusedException e) {
            expect(e.code() == RefusalCode.AUTHENTICATION_REQUIRED, "refused with " + e.code() + ", expected "
                    + RefusalCode.AUTHENTICATION_REQUIRED + ": " + e.getMessage());
            return "a client without the key refused with AUTHENTICATION_REQUIRED";
        }
    }

    private String limitsBeyond() throws CheckFailure {
        Limits beyond = new Limits(config.limits().maxRequestBytes(), config.limits().maxResponseBytes(),
                config.limits().maxRanges(), Limits.MAX_IN_FLIGHT);
        ClientConfig other = settings.get().limits(beyond).build();
        try {
            Ofl.connect(other).close();
            return "the server accepts " + Limits.MAX_IN_FLIGHT + " requests in flight, the protocol's maximum; "
                    + "nothing beyond it to refuse";
        } catch (OflRefusedException e) {
            expect(e.code() == RefusalCode.LIMITS_EXCEEDED, "refused with " + e.code() + ", expected "
                    + RefusalCode.LIMITS_EXCEEDED + ": " + e.getMessage());
            return "maxInFlight " + Limits.MAX_IN_FLIGHT + " refused with LIMITS_EXCEEDED";
        }
    }

    /**
     * {@link #BULK_CALLS} responses of the largest size the limits allow (at most 64 MiB), one at a
     * time, each byte checked after its call: the best call's rate stands for the link's capacity
     * (a link that trained at a lower speed cannot beat it; a busy host only makes calls slower).
     */
    private String bandwidth() throws CheckFailure {
        try (Arena arena = Arena.ofShared(); OflClient client = Ofl.connect(config)) {
            long length = Math.min(BULK_MAX_BYTES, client.limits().maxResponseBytes());
            MemorySegment memory = sentinelFilled(arena, length + 64);
            Region region = client.registerRegion(memory);
            Completion completion = new Completion();
            double[] gbps = new double[BULK_CALLS];
            for (int call = 0; call < BULK_CALLS; call++) {
                int seed = 17 * call + 3;
                client.requestPayload().set(U32, 0, (int) length);
                client.requestPayload().set(U32, 4, seed);
                long startNs = System.nanoTime();
                int status = client.call(OP_BULK, 0, 8, new ResponseRanges().add(region, 0, length), CALL_TIMEOUT_NS,
                        completion);
                long tookNs = System.nanoTime() - startNs;
                expectStatus(OflStatus.OK, status, completion, "a " + length + "-byte response");
                expect(completion.responseLength() == length, "a " + length + "-byte response came back as "
                        + completion.responseLength() + " bytes");
                for (long at = 0; at < length; at += CheckService.BULK_PIECE) {
                    long piece = Math.min(CheckService.BULK_PIECE, length - at);
                    long mismatch = MemorySegment.mismatch(memory, at, at + piece,
                            CheckService.bulkPiece(at, seed, piece), 0, piece);
                    if (mismatch >= 0) {
                        throw new CheckFailure("call " + call + ": byte " + (at + mismatch) + " is "
                                + memory.get(ValueLayout.JAVA_BYTE, at + mismatch) + ", expected "
                                + CheckService.bulkByte(at + mismatch, seed));
                    }
                }
                expectSentinel(memory, length, 64, "after the response");
                gbps[call] = length * 8.0 / tookNs;
            }
            double[] sorted = gbps.clone();
            java.util.Arrays.sort(sorted);
            double best = sorted[BULK_CALLS - 1];
            double median = (sorted[BULK_CALLS / 2 - 1] + sorted[BULK_CALLS / 2]) / 2;
            String figures = String.format(java.util.Locale.ROOT, "%d responses of %d B: best %.2f Gb/s, median %.2f "
                    + "Gb/s, every byte checked", BULK_CALLS, length, best, median);
            if (minGbps > 0) {
                expect(best >= minGbps, figures + "; the best is below --min-gbps " + minGbps
                        + ": the link is slower than it should be (a port that trained at a lower speed, a degraded "
                        + "cable or slot, a busy host)");
                return figures + ", at least --min-gbps " + minGbps;
            }
            return figures + " (no --min-gbps threshold)";
        }
    }

    // ---- helpers

    private static MemorySegment sentinelFilled(Arena arena, long bytes) {
        return arena.allocate(bytes, 64).fill(SENTINEL);
    }

    private static void expectSentinel(MemorySegment memory, long offset, long length, String where)
            throws CheckFailure {
        for (long i = offset; i < offset + length; i++) {
            byte seen = memory.get(ValueLayout.JAVA_BYTE, i);
            if (seen != SENTINEL) {
                throw new CheckFailure("byte " + i + " " + where + " was written: " + seen + ", expected untouched");
            }
        }
    }

    /** An 8-byte echo into the start of {@code memory}, checked. */
    private static void expectEcho(OflClient client, Region region, MemorySegment memory) throws CheckFailure {
        client.requestPayload().set(U64, 0, 0x0123_4567_89AB_CDEFL);
        Completion completion = new Completion();
        int status = client.call(OP_ECHO, 0, 8, new ResponseRanges().add(region, 0, 8), CALL_TIMEOUT_NS, completion);
        expectStatus(OflStatus.OK, status, completion, "an echo");
        expect(memory.get(U64, 0) == 0x0123_4567_89AB_CDEFL, "the echo's bytes are wrong: 0x"
                + Long.toHexString(memory.get(U64, 0)));
    }

    /** Asks the server how many stalled handlers have finished; uses the first 8 bytes of {@code memory}. */
    private static long stallsFinished(OflClient client, Region region, MemorySegment memory) throws CheckFailure {
        Completion completion = new Completion();
        int status = client.call(OP_STALLS_FINISHED, 0, 0, new ResponseRanges().add(region, 0, 8), CALL_TIMEOUT_NS,
                completion);
        expectStatus(OflStatus.OK, status, completion, "asking for the stall count");
        expect(completion.responseLength() == 8, "the stall count came as " + completion.responseLength() + " bytes");
        return memory.get(U64, 0);
    }
}
