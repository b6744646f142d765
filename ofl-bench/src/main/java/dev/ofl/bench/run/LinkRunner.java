package dev.ofl.bench.run;

import dev.ofl.api.ClientConfig;
import dev.ofl.api.Completion;
import dev.ofl.api.Limits;
import dev.ofl.api.Ofl;
import dev.ofl.api.OflClient;
import dev.ofl.api.OflException;
import dev.ofl.api.OflStatus;
import dev.ofl.api.Region;
import dev.ofl.api.ResponseRanges;
import java.io.PrintStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.management.CompilationMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.HdrHistogram.Histogram;

/**
 * Runs a schedule over one link: one ofl client at a time, for the block's backend and wait mode,
 * kept while consecutive blocks use the same pair, one request at a time. Every request byte is checked by
 * the server and every response byte by this class; mismatches and errors are counted and printed,
 * never thrown. Round trip = from the first byte of the request being written (in place or
 * prepared and copied in) to the completion; the response check is outside it.
 *
 * <p>With a {@link Pacer}, each block waits for its turn, and the connection is closed after each:
 * another process (the C peer that {@code ofl bench compare} interleaves) then runs between blocks
 * against a server that spins on nothing.
 *
 * <p>Not thread-safe: one runner per link, each on its own thread.
 */
final class LinkRunner {
    /**
     * Lets another process run between the blocks of one link: the runner asks for each block's
     * turn and reports each block done.
     */
    interface Pacer {
        /**
         * Waits until the next block may run; after the last block, until the pacing ends.
         *
         * @return {@code false} if no more blocks may run: the run ends early
         */
        boolean awaitTurn();

        /**
         * Reports a finished block, once the runner's connection to the server is closed.
         *
         * @param result the block
         */
        void blockDone(BlockResult result);
    }

    /** Run-wide settings shared by every link. */
    record Settings(int port, int warmups, long warmupMinNs, int iterations, long cadenceNs, long timeoutNs,
            long jitQuietNs, Duration connectTimeout, Map<String, String> properties) {
    }

    /** The longest a block waits for the JIT to fall quiet ({@link Settings#jitQuietNs()}). */
    private static final long JIT_QUIET_CAP_NS = TimeUnit.SECONDS.toNanos(30);
    /** The most requests of a warm-up chunk; see {@link #warmUp}. */
    private static final int WARMUP_CHUNK = 1000;

    /** One open connection and its memory. */
    private static final class Connection {
        final OflClient client;
        final Region region;
        final MemorySegment scratch;
        final ResponseRanges cpuRanges;

        Connection(OflClient client, Region region, MemorySegment scratch) {
            this.client = client;
            this.region = region;
            this.scratch = scratch;
            this.cpuRanges = new ResponseRanges().add(region, 0, ExchangeHandler.CPU_ANSWER_BYTES);
        }
    }

    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

    private final String link;
    private final InetAddress server;
    private final InetAddress local;
    private final int cpu;
    private final Settings settings;
    private final long maxRequestBytes;
    private final long maxResponseBytes;
    private final PrintStream log;
    private final Progress progress;
    private final Pacer pacer;
    private Arena arena;
    private MemorySegment responseMemory;
    private MemorySegment requestScratch;
    private final Map<String, Connection> connections = new LinkedHashMap<>();
    private final Completion completion = new Completion();
    /** {@code [mismatched bytes, errors]} of the warm-up before the first turn, for the first block. */
    private final long[] carried = new long[2];
    private long iteration;

    LinkRunner(String link, InetAddress server, InetAddress local, int cpu, Settings settings, long maxRequestBytes,
            long maxResponseBytes, PrintStream log, Progress progress, Pacer pacer) {
        this.link = link;
        this.server = server;
        this.local = local;
        this.cpu = cpu;
        this.settings = settings;
        this.maxRequestBytes = maxRequestBytes;
        this.maxResponseBytes = Math.max(maxResponseBytes, ExchangeHandler.CPU_ANSWER_BYTES);
        this.log = log;
        this.progress = progress;
        this.pacer = pacer;
    }

    /**
     * Whether something went wrong that no block counts: the warm-up before the first turn found
     * mismatches or errors, and the pacing ended before any block ran. Read after {@link #run}.
     */
    boolean uncountedFailures() {
        return carried[0] + carried[1] > 0;
    }

    /** Runs every block in order on the calling thread, then closes the connections. */
    List<BlockResult> run(List<Schedule.Block> blocks) {
        if (cpu >= 0) {
            Affinity.pinCurrentThread(cpu);
        }
        List<BlockResult> results = new ArrayList<>();
        arena = Arena.ofConfined();
        responseMemory = arena.allocate(maxResponseBytes, 4096);
        requestScratch = arena.allocate(maxRequestBytes, 64);
        try {
            if (pacer != null && !blocks.isEmpty()) {
                warmUpBeforeTurns(blocks.getFirst());
            }
            boolean inputLeft = true;
            for (Schedule.Block block : blocks) {
                if (pacer != null && !(inputLeft = pacer.awaitTurn())) {
                    break;
                }
                BlockResult r = runBlock(block);
                results.add(r);
                progress.blockDone(r);
                if (pacer != null) {
                    closeAll();
                    pacer.blockDone(r);
                }
            }
            if (pacer != null && inputLeft) {
                // The report and the JVM's exit wait for the end of the pacing: they would take CPU
                // from what runs after the last block.
                pacer.awaitTurn();
            }
            if (carried[0] + carried[1] > 0) {
                log.println("ofl-bench: link " + link + ": the warm-up before the first turn found " + carried[0]
                        + " mismatched bytes and " + carried[1] + " errors, and no block ran to count them");
            }
        } finally {
            closeAll();
            arena.close();
        }
        return results;
    }

    private void closeAll() {
        for (Connection c : connections.values()) {
            try {
                c.client.close();
            } catch (RuntimeException e) {
                log.println("ofl-bench: link " + link + ": closing a client: " + e.getMessage());
            }
        }
        connections.clear();
    }

    private Connection connection(Variant v) {
        String key = v.backend() + "/" + v.waitMode();
        Connection c = connections.get(key);
        if (c == null) {
            // Only the measured connection stays open: an idle busy-polling server connection would
            // keep a core spinning and distort every other variant (and the server's CPU figures).
            closeAll();
            InetSocketAddress address = new InetSocketAddress(server, BenchServer.port(settings.port(), v.backend(),
                    v.waitMode()));
            OflClient client = Ofl.connect(ClientConfig.builder()
                    .backend(v.backend())
                    .server(address)
                    .localAddress(local)
                    .serviceName(BenchServer.SERVICE)
                    .limits(new Limits((int) maxRequestBytes, (int) maxResponseBytes, 1, 1))
                    .waitMode(v.waitMode())
                    .connectTimeout(settings.connectTimeout())
                    .properties(BenchServer.ofBackend(settings.properties(), v.backend()))
                    .build());
            if (client.limits().maxRequestBytes() < maxRequestBytes) {
                client.close();
                throw new IllegalStateException("link " + link + ": " + address + " negotiated requests of at most "
                        + client.limits().maxRequestBytes() + " bytes, the cases need " + maxRequestBytes
                        + "; start the server with a larger --max-request-bytes");
            }
            // The memory outlives each client: registered again with every new one, once the previous is closed.
            Region region = client.registerRegion(responseMemory);
            c = new Connection(client, region, requestScratch);
            connections.put(key, c);
        }
        return c;
    }

    /**
     * Paced: the warm-up time and the wait for the JIT come before the first turn, on a connection
     * closed after them, so that every block runs right on its turn after only the warm-up requests
     * its new connection needs. What it finds wrong is counted in the first block.
     */
    private void warmUpBeforeTurns(Schedule.Block first) {
        Connection c;
        try {
            c = connection(first.variant());
        } catch (RuntimeException e) {
            // The first block connects again, and counts an error if it cannot.
            log.println("ofl-bench: link " + link + " " + first.variant().label() + ": cannot connect to warm up: "
                    + e.getMessage());
            return;
        }
        warmUp(c, ranges(c, first.testCase()), first, carried, 0, settings.warmupMinNs(), true);
        closeAll();
    }

    /**
     * Warms up on a block's case and variant: at least {@code requests} requests and {@code minNs},
     * then, if {@code untilJitQuiet}, until the JIT falls quiet; stops at the first failed exchange.
     *
     * @param tally {@code [mismatched bytes, errors]}, added to
     */
    private void warmUp(Connection c, ResponseRanges ranges, Schedule.Block block, long[] tally, long requests,
            long minNs, boolean untilJitQuiet) {
        Histogram discarded = new Histogram(1, TimeUnit.MINUTES.toNanos(1), 3);
        int chunk = Math.max(1, Math.min(WARMUP_CHUNK, settings.iterations() / 10));
        long endNs = System.nanoTime() + minNs;
        long firstIteration = iteration;
        boolean warm = true;
        while (warm && (iteration - firstIteration < requests || System.nanoTime() - endNs < 0)) {
            warm = warmUp(c, ranges, block.testCase(), block.variant(), tally, chunk, discarded);
        }
        if (warm && untilJitQuiet && settings.jitQuietNs() > 0) {
            warmUntilJitQuiet(c, ranges, block.testCase(), block.variant(), tally, chunk, discarded);
        }
    }

    private static ResponseRanges ranges(Connection c, ExchangeCase testCase) {
        ResponseRanges ranges = new ResponseRanges();
        if (testCase.responseBytes() > 0) {
            ranges.add(c.region, 0, testCase.responseBytes());
        }
        return ranges;
    }

    /**
     * Runs one block on the connection of its variant. Unpaced, its warm-up also lasts
     * {@link Settings#warmupMinNs()} and waits for the JIT to fall quiet; paced, that came before
     * the first turn, and a block warms up on {@link Settings#warmups()} requests only.
     */
    private BlockResult runBlock(Schedule.Block block) {
        ExchangeCase testCase = block.testCase();
        Variant v = block.variant();
        Histogram histogram = new Histogram(1, TimeUnit.MINUTES.toNanos(1), 3);
        long[] tally = {carried[0], carried[1]};
        carried[0] = 0;
        carried[1] = 0;
        Connection c;
        try {
            c = connection(v);
        } catch (RuntimeException e) {
            log.println("ofl-bench: link " + link + " " + v.label() + ": cannot connect: " + e.getMessage());
            return new BlockResult(link, block, 0, histogram, 0, -1, -1, -1, -1, -1, -1, tally[0], tally[1] + 1);
        }
        ResponseRanges ranges = ranges(c, testCase);
        long firstIteration = iteration;
        boolean full = pacer == null;
        warmUp(c, ranges, block, tally, settings.warmups(), full ? settings.warmupMinNs() : 0, full);
        long warmups = iteration - firstIteration;
        long[] serverCpu0 = serverCpu(c);
        long threadCpu0 = THREADS.getCurrentThreadCpuTime();
        long processCpu0 = ExchangeHandler.processCpuNs();
        long allocated0 = ExchangeHandler.threadAllocatedBytes();
        long sumNs = exchanges(c, ranges, testCase, v, tally, settings.iterations(), settings.cadenceNs(), histogram,
                false);
        long threadCpu = THREADS.getCurrentThreadCpuTime() - threadCpu0;
        long processCpu = ExchangeHandler.processCpuNs() - processCpu0;
        long allocated1 = ExchangeHandler.threadAllocatedBytes();
        long[] serverCpu1 = serverCpu(c);
        // A server connection on a virtual thread (BLOCKING) has no thread CPU time: -1 at both ends.
        long serverThread = serverCpu0 == null || serverCpu1 == null || serverCpu0[0] < 0 || serverCpu1[0] < 0 ? -1
                : serverCpu1[0] - serverCpu0[0];
        long serverProcess = serverCpu0 == null || serverCpu1 == null ? -1 : serverCpu1[1] - serverCpu0[1];
        long clientAllocated = allocated0 < 0 || allocated1 < 0 ? -1 : allocated1 - allocated0;
        long serverAllocated = serverCpu0 == null || serverCpu1 == null || serverCpu0[2] < 0 || serverCpu1[2] < 0 ? -1
                : serverCpu1[2] - serverCpu0[2];
        return new BlockResult(link, block, warmups, histogram, sumNs, threadCpu, processCpu, serverThread,
                serverProcess, clientAllocated, serverAllocated, tally[0], tally[1]);
    }

    /**
     * Runs {@code count} exchanges back to back, or one per {@code cadenceNs} if positive, and
     * records every checked round trip: warm-up and measurement alike, so that the measured
     * requests run the code the JIT compiled while warming up (but for the pause between them
     * at a cadence, which the warm-up leaves out).
     *
     * @param stopAtFailure whether to stop at the first exchange that fails or is wrong (warm-up:
     *     the server may be gone, and each failure may wait a request timeout)
     * @return the sum of the recorded round trips in nanoseconds, or -1 if it stopped at a failure
     */
    private long exchanges(Connection c, ResponseRanges ranges, ExchangeCase testCase, Variant v, long[] tally,
            int count, long cadenceNs, Histogram histogram, boolean stopAtFailure) {
        long sumNs = 0;
        long nextStartNs = System.nanoTime();
        for (int i = 0; i < count; i++) {
            if (cadenceNs > 0) {
                nextStartNs += cadenceNs;
                long waitNs;
                while ((waitNs = nextStartNs - System.nanoTime()) > 0) {
                    LockSupport.parkNanos(waitNs);
                }
            }
            long rttNs = exchange(c, ranges, testCase, v, tally);
            if (rttNs >= 0) {
                histogram.recordValue(Math.min(rttNs, histogram.getHighestTrackableValue()));
                sumNs += rttNs;
            } else if (stopAtFailure) {
                return -1;
            }
        }
        return sumNs;
    }

    /**
     * One chunk of warm-up: the server CPU query that begins and ends a measured block, then
     * {@code chunk} exchanges through {@link #exchanges}, with no cadence. Code the JIT compiled
     * for requests of one kind only is thrown away at the first request of another (an uncommon
     * trap), and such requests run again interpreted until compiled anew. A warm-up without CPU
     * queries leaves that to the measured block's first one, on both ends, whose compilers then
     * take the cores the pinned threads spin on (it gave 64-byte busy round trips on 2 cores a
     * p99.9 of 3.4–3.9 ms, against 37 µs for a plain Java NIO peer).
     *
     * @return {@code false} if an exchange failed or was wrong: warming up stops
     */
    private boolean warmUp(Connection c, ResponseRanges ranges, ExchangeCase testCase, Variant v, long[] tally,
            int chunk, Histogram discarded) {
        serverCpu(c);
        return exchanges(c, ranges, testCase, v, tally, chunk, 0, discarded, true) >= 0;
    }

    /**
     * Keeps warming up until this JVM's JIT compiled nothing for {@link Settings#jitQuietNs()}, or
     * {@link #JIT_QUIET_CAP_NS} passed: the request path is compiled fully only after thousands of
     * requests, and much later when other processes load the machine. Stops early at a failed
     * exchange.
     */
    private void warmUntilJitQuiet(Connection c, ResponseRanges ranges, ExchangeCase testCase, Variant v,
            long[] tally, int chunk, Histogram discarded) {
        CompilationMXBean jit = ManagementFactory.getCompilationMXBean();
        if (jit == null || !jit.isCompilationTimeMonitoringSupported()) {
            return;
        }
        long startNs = System.nanoTime();
        long compiledMs = jit.getTotalCompilationTime();
        long quietSinceNs = startNs;
        while (true) {
            long nowNs = System.nanoTime();
            if (nowNs - quietSinceNs >= settings.jitQuietNs() || nowNs - startNs >= JIT_QUIET_CAP_NS) {
                return;
            }
            if (!warmUp(c, ranges, testCase, v, tally, chunk, discarded)) {
                return;
            }
            long ms = jit.getTotalCompilationTime();
            if (ms != compiledMs) {
                compiledMs = ms;
                quietSinceNs = System.nanoTime();
            }
        }
    }

    /**
     * The server connection thread's and process's CPU time and the thread's allocated bytes (-1
     * where unknown), or {@code null} if the query failed.
     */
    private long[] serverCpu(Connection c) {
        if (!ensureConnected(c)) {
            return null;
        }
        try {
            int status = c.client.call(ExchangeHandler.OP_CPU, 0, 0, c.cpuRanges, settings.timeoutNs(), completion);
            // A server of an earlier version answers without the allocation (16 bytes).
            if (status != OflStatus.OK || (completion.responseLength() != ExchangeHandler.CPU_ANSWER_BYTES
                    && completion.responseLength() != 2 * Long.BYTES)) {
                log.println("ofl-bench: link " + link + ": CPU query failed: " + completion);
                return null;
            }
        } catch (OflException e) {
            log.println("ofl-bench: link " + link + ": CPU query failed: " + e.getMessage());
            return null;
        }
        MemorySegment answer = c.region.segment();
        return new long[] {answer.get(ExchangeHandler.FIELD_LE, 0), answer.get(ExchangeHandler.FIELD_LE, Long.BYTES),
            completion.responseLength() == ExchangeHandler.CPU_ANSWER_BYTES
                    ? answer.get(ExchangeHandler.FIELD_LE, 2 * Long.BYTES) : -1};
    }

    private boolean ensureConnected(Connection c) {
        if (!c.client.isBroken()) {
            return true;
        }
        try {
            c.client.reconnect();
            return true;
        } catch (OflException e) {
            log.println("ofl-bench: link " + link + ": reconnect failed: " + e.getMessage());
            return false;
        }
    }

    /**
     * One checked exchange.
     *
     * @param tally {@code [mismatched bytes, errors]}, added to
     * @return the round trip in nanoseconds, or {@code -1} if it failed or its bytes were wrong
     */
    private long exchange(Connection c, ResponseRanges ranges, ExchangeCase testCase, Variant v, long[] tally) {
        if (!ensureConnected(c)) {
            tally[1]++;
            return -1;
        }
        long it = iteration++;
        int requestBytes = (int) testCase.requestBytes();
        long patternBytes = requestBytes - ExchangeHandler.HEADER_BYTES;
        int status;
        long startNs = System.nanoTime();
        try {
            MemorySegment payload = c.client.requestPayload();
            payload.set(ExchangeHandler.FIELD_LE, ExchangeHandler.ITERATION_OFFSET, it);
            payload.set(ExchangeHandler.FIELD_LE, ExchangeHandler.RESPONSE_BYTES_OFFSET, testCase.responseBytes());
            payload.set(ExchangeHandler.FLAGS_LE, ExchangeHandler.FLAGS_OFFSET,
                    v.responseInPlace() ? ExchangeHandler.FLAG_RESPONSE_IN_PLACE : 0);
            payload.set(ExchangeHandler.FLAGS_LE, ExchangeHandler.FLAGS_OFFSET + Integer.BYTES, 0);
            if (v.requestInPlace()) {
                StreamPattern.fill(payload, ExchangeHandler.HEADER_BYTES, it, StreamPattern.REQUEST,
                        ExchangeHandler.HEADER_BYTES, patternBytes);
            } else {
                StreamPattern.fill(c.scratch, ExchangeHandler.HEADER_BYTES, it, StreamPattern.REQUEST,
                        ExchangeHandler.HEADER_BYTES, patternBytes);
                MemorySegment.copy(c.scratch, ExchangeHandler.HEADER_BYTES, payload, ExchangeHandler.HEADER_BYTES,
                        patternBytes);
            }
            status = c.client.call(ExchangeHandler.OP_EXCHANGE, it, requestBytes, ranges, settings.timeoutNs(),
                    completion);
        } catch (OflException | IllegalArgumentException e) {
            tally[1]++;
            log.println("ofl-bench: link " + link + " " + testCase.name() + " iteration " + it + ": " + e.getMessage());
            return -1;
        }
        long rttNs = System.nanoTime() - startNs;
        if (status == OflStatus.REFUSED
                && completion.handlerStatus() == ExchangeHandler.REFUSED_BAD_REQUEST_BYTES) {
            tally[0]++;
            log.println("ofl-bench: link " + link + " " + testCase.name() + " iteration " + it
                    + ": the server found request bytes that differ from the pattern");
            return -1;
        }
        if (status != OflStatus.OK) {
            tally[1]++;
            log.println("ofl-bench: link " + link + " " + testCase.name() + " iteration " + it + ": " + completion);
            return -1;
        }
        if (completion.responseLength() != testCase.responseBytes()) {
            tally[1]++;
            log.println("ofl-bench: link " + link + " " + testCase.name() + " iteration " + it + ": "
                    + completion.responseLength() + " response bytes, expected " + testCase.responseBytes());
            return -1;
        }
        long bad = StreamPattern.countMismatches(c.region.segment(), 0, it, StreamPattern.RESPONSE, 0,
                testCase.responseBytes());
        if (bad != 0) {
            tally[0] += bad;
            log.println("ofl-bench: link " + link + " " + testCase.name() + " iteration " + it + ": " + bad + " of "
                    + testCase.responseBytes() + " response bytes differ from the pattern");
            return -1;
        }
        return rttNs;
    }
}
