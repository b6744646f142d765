package dev.ofl.verbs.rdma;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ofl.api.ClientConfig;
import dev.ofl.api.Completion;
import dev.ofl.api.Limits;
import dev.ofl.api.Ofl;
import dev.ofl.api.OflClient;
import dev.ofl.api.OflServer;
import dev.ofl.api.OflStatus;
import dev.ofl.api.Region;
import dev.ofl.api.ResponseRanges;
import dev.ofl.api.ServerConfig;
import dev.ofl.api.WaitMode;
import dev.ofl.conformance.Conditions;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The link fault matrix: ofl over a real link (the rxe guest's veth pair: the server on one end,
 * the client bound to the other, so every packet crosses it) while {@code netem} loses, delays,
 * reorders, duplicates or corrupts packets, or the link goes down for a moment, for longer than the
 * RC retry budget, or flaps. Per fault, backend and wait mode: requests with a few in flight and
 * deadlines of a few hundred milliseconds (scaled to the guest's speed), each response into memory
 * of its own filled with a sentinel first. Asserted: every OK response is byte-exact; no byte
 * lands in the memory of a request after its outcome (TIMED_OUT, or lost to a break), compared
 * with a copy taken when the outcome was known, once the fault is over and any late packet had
 * time to arrive (a request lost to a break may have been placed in part before it: counted as
 * partial, which the contract allows); once the fault is cleared a call succeeds (after a
 * reconnect if the connection broke); the server's connections go back to none. Recorded per row,
 * printed as one table and written as JSON ({@value #REPORT}): requests, OK, TIMED_OUT, other
 * breaks, partial and late bytes, how late {@code await} returned past its deadline at most, and
 * the time to the first OK once the fault was cleared. Where {@value #RESOURCES} names a command
 * that prints the kernel's verbs objects, they are back to what they were before the row once both
 * ends are closed. An {@code await} that overruns its
 * deadline by more than 5 s has every thread's stack printed.
 *
 * <p>Runs where {@value #NETDEVS} names the two netdevs of the link (client's end first) and
 * {@value #PEER} the server's address on it: {@code ./ofl test-rxe}. Anywhere else it is skipped:
 * it needs {@code netem} and a link between two devices, which the build host does not have.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@EnabledIfSystemProperty(named = LinkFaultMatrixTest.NETDEVS, matches = ".+",
        disabledReason = "needs netem on a kernel link between two RDMA devices: ./ofl test-rxe runs it")
@Timeout(600)
class LinkFaultMatrixTest {
    static final String NETDEVS = "ofl.test.faults.netdevs";
    static final String PEER = "ofl.test.faults.clientAddress";
    static final String REPORT = "ofl.test.faults.report";
    static final String LINK_UP = "ofl.test.faults.linkUp";
    /** A command that prints the kernel's count of verbs objects per device ({@code rdma resource show}). */
    static final String RESOURCES = "ofl.test.faults.resources";
    private static final String SERVICE = "link-faults";
    private static final int RESPONSE = 16 * 1024;
    private static final int IN_FLIGHT = 4;
    private static final int REQUESTS = Integer.getInteger("ofl.test.faults.requests", 40);
    private static final byte SENTINEL = (byte) 0xA5;
    private static final Limits LIMITS = new Limits(64, RESPONSE, 1, IN_FLIGHT);

    /** One fault: what is done to the link while the requests run, and how it is undone. */
    enum Fault {
        LOSS_0_1("loss 0.1%"), LOSS_1("loss 1%"), LOSS_10("loss 10%"), DELAY("delay 5ms 2ms"),
        REORDER("delay 2ms reorder 25% 50%"), DUPLICATE("duplicate 5%"), CORRUPT("corrupt 1%"),
        DOWN_SHORT(null), DOWN_LONG(null), FLAP(null);

        final String netem;

        Fault(String netem) {
            this.netem = netem;
        }
    }

    private final List<String> rows = new ArrayList<>();
    private final List<String> json = new ArrayList<>();

    static Stream<Arguments> matrix() {
        List<Arguments> cases = new ArrayList<>();
        for (Fault fault : Fault.values()) {
            cases.add(Arguments.of(fault, RdmaBackend.NAME, WaitMode.BUSY_POLL));
            cases.add(Arguments.of(fault, RdmaBackend.NAME, WaitMode.BLOCKING));
            cases.add(Arguments.of(fault, "tcp", WaitMode.BUSY_POLL));
        }
        return cases.stream();
    }

    @ParameterizedTest(name = "{0} {1} {2}")
    @MethodSource("matrix")
    void nothingLandsLateAndTheLinkRecovers(Fault fault, String backend, WaitMode mode) throws Exception {
        String[] netdevs = System.getProperty(NETDEVS).split(",");
        InetAddress clientAddress = InetAddress.getByName(System.getProperty(PEER));
        long deadlineNs = TestEnvironment.nanos(1) * 3 / 10;
        String resourcesBefore = resources();
        try (OflServer server = Ofl.serve(ServerConfig.builder().backend(backend)
                .bind(new InetSocketAddress(TestEnvironment.address(), 0)).serviceName(SERVICE).limits(LIMITS)
                .waitMode(mode).bootstrapTimeout(TestEnvironment.duration(10))
                .properties(backend.equals("tcp") ? java.util.Map.of() : TestEnvironment.rdmaProperties()).build(),
                LinkFaultMatrixTest::answer);
                Arena arena = Arena.ofShared()) {
            MemorySegment memory = arena.allocate((long) RESPONSE * (REQUESTS + 8), 4096);
            memory.fill(SENTINEL);
            ClientConfig config = ClientConfig.builder().backend(backend).server(server.localAddress())
                    .localAddress(clientAddress).serviceName(SERVICE).limits(LIMITS).waitMode(mode)
                    .connectTimeout(TestEnvironment.duration(2))
                    .properties(backend.equals("tcp") ? java.util.Map.of() : TestEnvironment.rdmaProperties()).build();
            Outcome outcome = new Outcome();
            try (OflClient client = Ofl.connect(config)) {
                Region region = client.registerRegion(memory);
                Thread downs = start(fault, netdevs);
                try {
                    run(client, region, memory, 0, REQUESTS, deadlineNs, outcome);
                } finally {
                    if (downs != null) {
                        downs.join();
                    }
                    clear(fault, netdevs);
                }
                long clearedNs = System.nanoTime();
                // Late packets of the fault (netem's delays, a retry's resend) have had their chance
                // once the link was quiet for twice the RC retry budget.
                Thread.sleep(1000);
                outcome.recoveryNs = recover(client, region, memory, deadlineNs, outcome) - clearedNs;
                outcome.lateBytes = lateBytes(memory, outcome);
            }
            Conditions.await(() -> server.connectionCount() == 0, "the server's connections to end");
            record(fault, backend, mode, outcome);
            assertEquals(outcome.ok, outcome.exact, "OK responses that were not byte-exact");
            assertEquals(0, outcome.lateBytes, "bytes that landed after their request's outcome");
        }
        // Once both ends are closed, every queue pair, registration, queue, protection domain and
        // context the row made is gone from the kernel too, whatever the fault did to them.
        try {
            Conditions.await(() -> resources().equals(resourcesBefore), "the kernel's verbs objects to be as before");
        } catch (AssertionError e) {
            assertEquals(resourcesBefore, resources(), "the kernel's verbs objects after the row");
        }
    }

    /** The kernel's verbs objects per device, as the {@value #RESOURCES} command prints them. */
    private static String resources() {
        String command = System.getProperty(RESOURCES);
        if (command == null) {
            return "";
        }
        try {
            return sh(command).strip();
        } catch (IOException e) {
            throw new IllegalStateException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** What the handler answers: RESPONSE bytes derived from the request's number. */
    private static int answer(dev.ofl.api.OflRequest request, dev.ofl.api.OflResponse response) {
        long n = request.payload().get(ValueLayout.JAVA_LONG_UNALIGNED, 0);
        MemorySegment out = response.buffer();
        for (int i = 0; i < RESPONSE; i += 8) {
            out.set(ValueLayout.JAVA_LONG_UNALIGNED, i, n * 0x9E3779B97F4A7C15L + i);
        }
        response.commit(RESPONSE);
        return 0;
    }

    /** What one row counts. */
    private static final class Outcome {
        int sent;
        int ok;
        int exact;
        int timedOut;
        int broken;
        long maxLateNs;
        long lateBytes;
        long partialBytes;
        long recoveryNs;
        int reconnects;
        final List<Integer> failed = new ArrayList<>();
        /** Each failed request's memory as it was when its outcome was known. */
        final java.util.Map<Integer, byte[]> atOutcome = new java.util.HashMap<>();
        String firstBreak = "";
    }

    /**
     * Requests {@code first} to {@code first + count - 1}, up to {@link #IN_FLIGHT} at once, each into
     * its own slice; a break ends the tickets in flight and the client reconnects until it can.
     */
    private static void run(OflClient client, Region region, MemorySegment memory, int first, int count,
            long deadlineNs, Outcome outcome) {
        ArrayDeque<long[]> inFlight = new ArrayDeque<>();
        Completion completion = new Completion();
        int next = first;
        while (next < first + count || !inFlight.isEmpty()) {
            while (next < first + count && inFlight.size() < IN_FLIGHT && !client.isBroken()) {
                client.requestPayload().set(ValueLayout.JAVA_LONG_UNALIGNED, 0, next);
                long ticket;
                try {
                    ticket = client.submit(1, 0, 8, new ResponseRanges().add(region, (long) next * RESPONSE, RESPONSE));
                } catch (RuntimeException e) {
                    break;
                }
                outcome.sent++;
                inFlight.add(new long[] {ticket, next, client.clock().nanoTime() + deadlineNs});
                next++;
            }
            if (inFlight.isEmpty()) {
                reconnect(client, outcome);
                continue;
            }
            long[] oldest = inFlight.poll();
            int request = (int) oldest[1];
            awaiting = oldest[2];
            try {
                int status = client.await(oldest[0], oldest[2], completion);
                outcome.maxLateNs = Math.max(outcome.maxLateNs, client.clock().nanoTime() - oldest[2]);
                if (status == OflStatus.OK) {
                    outcome.ok++;
                    if (exact(memory, request)) {
                        outcome.exact++;
                    }
                } else {
                    if (status == OflStatus.TIMED_OUT) {
                        outcome.timedOut++;
                    }
                    failed(memory, request, outcome);
                }
            } catch (RuntimeException e) {
                outcome.broken++;
                failed(memory, request, outcome);
                if (outcome.firstBreak.isEmpty()) {
                    outcome.firstBreak = e.getMessage();
                }
            } finally {
                awaiting = 0;
            }
        }
    }

    /** A request that did not end OK: what its memory holds now is all it may ever hold. */
    private static void failed(MemorySegment memory, int request, Outcome outcome) {
        outcome.failed.add(request);
        outcome.atOutcome.put(request, memory.asSlice((long) request * RESPONSE, RESPONSE).toArray(ValueLayout.JAVA_BYTE));
    }

    private static void reconnect(OflClient client, Outcome outcome) {
        long endNs = System.nanoTime() + TestEnvironment.nanos(60);
        while (true) {
            try {
                client.reconnect();
                outcome.reconnects++;
                return;
            } catch (RuntimeException e) {
                if (System.nanoTime() - endNs > 0) {
                    throw new AssertionError("no reconnect within 60 s (scaled)", e);
                }
                sleep(50);
            }
        }
    }

    /** Calls until one is OK once the fault is cleared; returns when it was. */
    private static long recover(OflClient client, Region region, MemorySegment memory, long deadlineNs,
            Outcome outcome) {
        long endNs = System.nanoTime() + TestEnvironment.nanos(60);
        int request = REQUESTS;
        while (System.nanoTime() - endNs < 0 && request < REQUESTS + 8) {
            if (client.isBroken()) {
                reconnect(client, outcome);
            }
            Outcome one = new Outcome();
            run(client, region, memory, request, 1, deadlineNs, one);
            outcome.failed.addAll(one.failed);
            outcome.atOutcome.putAll(one.atOutcome);
            request++;
            if (one.exact == 1) {
                return System.nanoTime();
            }
        }
        throw new AssertionError("no call succeeded within 60 s (scaled) after the fault was cleared");
    }

    private static boolean exact(MemorySegment memory, int request) {
        long base = (long) request * RESPONSE;
        for (int i = 0; i < RESPONSE; i += 8) {
            if (memory.get(ValueLayout.JAVA_LONG_UNALIGNED, base + i) != request * 0x9E3779B97F4A7C15L + i) {
                return false;
            }
        }
        return true;
    }

    /** Bytes that changed after their request's outcome; counts the partial ones meanwhile. */
    private static long lateBytes(MemorySegment memory, Outcome outcome) {
        long late = 0;
        for (int request : outcome.failed) {
            byte[] then = outcome.atOutcome.get(request);
            for (int i = 0; i < RESPONSE; i++) {
                if (then[i] != SENTINEL) {
                    outcome.partialBytes++;
                }
                if (memory.get(ValueLayout.JAVA_BYTE, (long) request * RESPONSE + i) != then[i]) {
                    late++;
                }
            }
        }
        return late;
    }

    /** The deadline of the await in progress, or 0: the watchdog prints the stacks of one that overruns it. */
    private static volatile long awaiting;

    static {
        Thread.ofPlatform().daemon().name("fault-matrix-watchdog").start(() -> {
            long dumped = 0;
            while (true) {
                sleep(1000);
                long deadline = awaiting;
                if (deadline != 0 && deadline != dumped && System.nanoTime() - deadline > TimeUnit.SECONDS.toNanos(5)) {
                    dumped = deadline;
                    StringBuilder dump = new StringBuilder("an await overran its deadline by 5 s; every thread:\n");
                    Thread.getAllStackTraces().forEach((thread, stack) -> {
                        dump.append('"').append(thread.getName()).append("\" ").append(thread.getState()).append('\n');
                        for (StackTraceElement frame : stack) {
                            dump.append("    at ").append(frame).append('\n');
                        }
                    });
                    System.out.println(dump);
                }
            }
        });
    }

    /** Applies a netem fault at once, or starts the thread that takes the link down and up. */
    private static Thread start(Fault fault, String[] netdevs) throws IOException, InterruptedException {
        if (fault.netem != null) {
            for (String netdev : netdevs) {
                sh("tc qdisc add dev " + netdev + " root netem " + fault.netem);
            }
            return null;
        }
        long shortMs = 100;
        // Longer than the RC retry budget with the defaults (7 x 67 ms).
        long longMs = 2000;
        return Thread.ofPlatform().start(() -> {
            try {
                sleep(200);
                switch (fault) {
                    case DOWN_SHORT -> downFor(netdevs[0], shortMs);
                    case DOWN_LONG -> downFor(netdevs[0], longMs);
                    default -> {
                        for (int i = 0; i < 5; i++) {
                            downFor(netdevs[0], 50);
                            sleep(200);
                        }
                    }
                }
            } catch (IOException | InterruptedException e) {
                throw new IllegalStateException(e);
            }
        });
    }

    private static void downFor(String netdev, long ms) throws IOException, InterruptedException {
        sh("ip link set " + netdev + " down");
        sleep(ms);
        sh(System.getProperty(LINK_UP));
    }

    private static void clear(Fault fault, String[] netdevs) throws IOException, InterruptedException {
        if (fault.netem != null) {
            for (String netdev : netdevs) {
                sh("tc qdisc del dev " + netdev + " root");
            }
        }
    }

    private static String sh(String command) throws IOException, InterruptedException {
        Process process = new ProcessBuilder(command.split(" ")).redirectErrorStream(true).start();
        String output = new String(process.getInputStream().readAllBytes());
        assertTrue(process.waitFor(TestEnvironment.seconds(60), TimeUnit.SECONDS), command + " did not end");
        assertEquals(0, process.exitValue(), command + " failed: " + output);
        return output;
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private synchronized void record(Fault fault, String backend, WaitMode mode, Outcome o) {
        rows.add(String.format(Locale.ROOT, "%-10s %-4s %-9s %5d %5d %5d %5d %5d %7d %6d %9.1f %9.1f %4d  %s",
                fault, backend, mode, o.sent, o.ok, o.exact, o.timedOut, o.broken, o.partialBytes, o.lateBytes,
                o.maxLateNs / 1e6,
                o.recoveryNs / 1e6, o.reconnects, o.firstBreak.length() > 80 ? o.firstBreak.substring(0, 80)
                        : o.firstBreak));
        json.add(String.format(Locale.ROOT, "{\"fault\":\"%s\",\"netem\":%s,\"backend\":\"%s\",\"mode\":\"%s\","
                + "\"sent\":%d,\"ok\":%d,\"exact\":%d,\"timedOut\":%d,\"broken\":%d,\"partialBytes\":%d,"
                + "\"lateBytes\":%d,"
                + "\"maxLateMs\":%.1f,\"recoveryMs\":%.1f,\"reconnects\":%d,\"firstBreak\":\"%s\"}",
                fault, fault.netem == null ? "null" : "\"" + fault.netem + "\"", backend, mode, o.sent, o.ok,
                o.exact, o.timedOut, o.broken, o.partialBytes, o.lateBytes, o.maxLateNs / 1e6, o.recoveryNs / 1e6,
                o.reconnects,
                o.firstBreak.replace("\\", "\\\\").replace("\"", "\\\"")));
    }

    @AfterAll
    void printTheMatrix() throws IOException {
        String header = String.format(Locale.ROOT, "%-10s %-4s %-9s %5s %5s %5s %5s %5s %7s %6s %9s %9s %4s  %s",
                "fault", "back", "wait", "sent", "ok", "exact", "t/o", "brk", "partial", "late", "maxLateMs",
                "recoverMs", "reco",
                "first break");
        System.out.println("link fault matrix (" + REQUESTS + " requests of " + RESPONSE + " B, " + IN_FLIGHT
                + " in flight, deadline " + TestEnvironment.nanos(1) * 3 / 10 / 1_000_000 + " ms):");
        System.out.println(header);
        rows.forEach(System.out::println);
        String report = System.getProperty(REPORT);
        if (report != null) {
            Files.writeString(Path.of(report), "[\n" + String.join(",\n", json) + "\n]\n");
        }
    }
}
