package dev.ofl.bench.run;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.PrintStream;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.ToDoubleFunction;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * Runs ofl and plain peers as separate processes on the same cases and prints their round trips
 * side by side with ofl/C ratios: the C TCP peer and the plain Java NIO peer (busy and blocking),
 * ofl TCP (busy and blocking; blocking with the server's connections on platform threads; busy
 * through NIO channels instead of direct socket calls; blocking on virtual threads without the
 * server's spin before it parks), and with a verbs device ofl RDMA alike, perftest's
 * {@code ib_send_lat} and rdma-core's {@code ibv_rc_pingpong} on the same device.
 * Each peer runs {@code --rounds} times, the order reversed every other round; the table shows the
 * median p50 over the rounds. Each ofl TCP client also runs between runs of the C peer in its wait
 * modes, one before it and one after it per mode, so that every round gives a ratio of runs one
 * client run apart (tens of seconds), not minutes; and the interleaved rows alternate a paced ofl
 * TCP client's blocks with runs of the C peer, each block's ratio over runs under a second apart.
 *
 * <p>Every server does the same work per request: it writes every byte of the response, a pattern
 * of the iteration, and sends it (the ofl handler writes it in place into the response buffer, the
 * plain peers into their send buffers); no server copies a response prepared elsewhere.
 *
 * <p>Every peer checks every byte; a mismatch or a failed peer makes the exit status 1.
 */
@Command(name = "compare", mixinStandardHelpOptions = true, sortOptions = false,
        description = "ofl TCP (and RDMA) against plain C and Java NIO peers, as separate processes.")
public final class Compare implements Callable<Integer> {
    private static final Pattern PEER_LINE = Pattern.compile(
            "bytes=(\\d+)\\s+n=(\\d+) p50=([0-9.]+)us p99=([0-9.]+)us p99\\.9=([0-9.]+)us max=([0-9.]+)us"
                    + " MB/s=([0-9.]+) mismatches=(\\d+)");

    private static final Pattern PACED_LINE = Pattern.compile(
            "^block \\d+ p50_ns=(\\d+) mean_ns=(\\S+) requests=(\\d+) mismatches=(\\d+) errors=(\\d+)");

    /** Index of the client's CPU in {@code --cpu}. */
    static final int CLIENT = 0;
    /** Index of the server's CPU in {@code --cpu}. */
    static final int SERVER = 1;

    @Option(names = "--address", description = "Loopback or link address all peers use (default: ${DEFAULT-VALUE}).")
    String address = "127.0.0.1";

    @Option(names = "--port", description = "First port; peers use the ports after it (default: ${DEFAULT-VALUE}).")
    int port = 18600;

    @Option(names = "--responses", split = ",", paramLabel = "BYTES",
            description = "Response sizes, each after a 64-byte request (default: 64,12MiB).")
    List<String> responses = new ArrayList<>(List.of("64", "12MiB"));

    @Option(names = "--iterations", description = "Measured requests of responses up to 1 MiB (default: ${DEFAULT-VALUE}).")
    int iterations = 2000;

    @Option(names = "--large-iterations",
            description = "Measured requests of responses over 1 MiB (default: ${DEFAULT-VALUE}).")
    int largeIterations = 100;

    @Option(names = "--rounds", description = "Runs of every peer; the median p50 is shown (default: ${DEFAULT-VALUE}).")
    int rounds = 3;

    @Option(names = "--warmup-ms", paramLabel = "MS", description = "Warm-up of each ofl block, and of the Java NIO"
            + " client, before it is measured (default: ${DEFAULT-VALUE}): the JIT compiles the request path only"
            + " after thousands of requests, later still while other processes load the machine.")
    long warmupMs = 2000;

    @Option(names = "--warmup-jit-quiet-ms", paramLabel = "MS", description = "Then each ofl client warms up until its"
            + " JIT compiled nothing for this long, at most 30 s; 0 = off (default: ${DEFAULT-VALUE}).")
    long warmupJitQuietMs = 1000;

    @Option(names = "--interleaved-blocks", paramLabel = "N", description = "Blocks of each ofl-tcp-interleaved"
            + " client per round, even and at least 2, a C peer run before, between and after them (default:"
            + " ${DEFAULT-VALUE}).")
    int interleavedBlocks = 6;

    @Option(names = "--c-peer", required = true, description = "The compiled tcp_peer (the launcher builds it).")
    Path cPeer;

    @Option(names = "--rdma", description = "Also run ofl RDMA and ib_send_lat on --ib-device.")
    boolean rdma;

    @Option(names = "--ib-device", description = "Verbs device for ib_send_lat (default: the first ibv_devices lists).")
    String ibDevice;

    @Option(names = "--gid-index", description = "GID index for ibv_rc_pingpong's -g (default: ${DEFAULT-VALUE},"
            + " the IPv4-mapped GID of a RoCE port or of softverbs).")
    int gidIndex = 1;

    @Option(names = "--cpu", split = ",", paramLabel = "CLIENT,SERVER",
            description = "Pin the client and the server of every TCP peer (C, Java NIO, ofl TCP) to these CPUs, e.g."
                    + " 0,1 (default: no pinning). The RDMA rows (ofl RDMA, ib_send_lat, ibv_rc_pingpong) run unpinned"
                    + " alike.")
    List<Integer> cpus;

    @Option(names = "--peers", split = ",", paramLabel = "PEER", description = "Run only these peers, e.g."
            + " c-tcp,ofl-tcp (default: all): c-tcp, java-nio, ofl-tcp, ofl-tcp-interleaved, ofl-tcp-platform-threads,"
            + " ofl-tcp-nio-calls, ofl-tcp-no-spin, and with --rdma ofl-rdma, ofl-rdma-platform-threads, ib_send_lat, ibv_rc_pingpong."
            + " An ofl TCP peer's paired ratio needs no c-tcp: its own C runs bracket it.")
    List<String> peerNames;

    private final PrintStream out;
    private final PrintStream log;
    private final Map<String, List<Double>> p50s = new LinkedHashMap<>();
    private final Map<String, Long> bytesOf = new LinkedHashMap<>();
    /** ofl rows: the most heap bytes per request any round's client and server threads allocated. */
    private final Map<String, double[]> allocations = new LinkedHashMap<>();
    /** Every round's response MB/s of a row: response bytes over the mean round trip. */
    private final Map<String, List<Double>> throughputs = new LinkedHashMap<>();
    /**
     * ofl TCP rows: every round's p50 over the mean p50 of the two C peer runs of its wait mode
     * right before and right after its client.
     */
    private final Map<String, List<Double>> pairedRatios = new LinkedHashMap<>();
    /** ofl TCP rows: every round's MB/s over the mean MB/s of the same two C peer runs. */
    private final Map<String, List<Double>> pairedThroughputRatios = new LinkedHashMap<>();
    /** ofl rows: every round's CPU nanoseconds per request: client thread, server thread, server process. */
    private final Map<String, List<double[]>> cpuPerRequest = new LinkedHashMap<>();
    private final List<String> skipped = new ArrayList<>();
    private boolean failed;

    /** Creates the tool, printing the table to standard output and its log to standard error; picocli sets its options. */
    public Compare() {
        this(System.out, System.err);
    }

    /** Creates the tool with its table and its log going to these streams; for tests. */
    Compare(PrintStream out, PrintStream log) {
        this.out = out;
        this.log = log;
    }

    @Override
    public Integer call() throws IOException, InterruptedException {
        List<Long> sizes = new ArrayList<>();
        for (String r : responses) {
            sizes.add(ExchangeCase.parseBytes(r));
        }
        if (interleavedBlocks < 2 || interleavedBlocks % 2 != 0) {
            log.println("compare: --interleaved-blocks must be even and at least 2 (the client runs them as ABBA"
                    + " rounds of one variant)");
            return 2;
        }
        if (cpus != null && (cpus.size() != 2 || cpus.get(CLIENT) < 0 || cpus.get(SERVER) < 0)) {
            log.println("compare: --cpu takes two CPU numbers, the client's and the server's, e.g. 0,1");
            return 2;
        }
        Map<String, List<Runnable>> all = new LinkedHashMap<>();
        for (String mode : List.of("busy", "blocking")) {
            add(all, "c-tcp", () -> {
                for (long bytes : sizes) {
                    runC(mode, bytes, null);
                }
            });
        }
        // The C peer's two ports (cPort) come first.
        int[] nextPort = {port + 2};
        for (String mode : List.of("busy", "blocking")) {
            int p = nextPort[0]++;
            String busy = "--busy=" + mode.equals("busy");
            add(all, "java-nio", () -> runPeerPair("java-nio " + mode, nio(busy, SERVER, "server", address,
                    Integer.toString(p)), sizes, (bytes, n, w) -> nio(busy, CLIENT, "client", address,
                    Integer.toString(p), Long.toString(bytes), Integer.toString(n), Integer.toString(w)), true));
        }
        int oflPort = nextPort[0] + 10;
        add(all, "ofl-tcp", () -> runOfl("tcp", oflPort, sizes, OflVariant.DEFAULT));
        for (String mode : List.of("busy", "blocking")) {
            int p = oflPort + (mode.equals("busy") ? 24 : 28);
            add(all, "ofl-tcp-interleaved", () -> runOflInterleaved(mode, p, sizes));
        }
        add(all, "ofl-tcp-platform-threads", () -> runOfl("tcp", oflPort + 4, sizes, OflVariant.PLATFORM_THREADS));
        add(all, "ofl-tcp-nio-calls", () -> runOfl("tcp", oflPort + 8, sizes, OflVariant.NIO_CALLS));
        add(all, "ofl-tcp-no-spin", () -> runOfl("tcp", oflPort + 20, sizes, OflVariant.NO_SPIN));
        // The peers that need a verbs device.
        Map<String, List<Runnable>> verbs = new LinkedHashMap<>();
        add(verbs, "ofl-rdma", () -> runOfl("rdma", oflPort + 12, sizes, OflVariant.DEFAULT));
        add(verbs, "ofl-rdma-platform-threads", () -> runOfl("rdma", oflPort + 16, sizes, OflVariant.PLATFORM_THREADS));
        add(verbs, "ib_send_lat", () -> runIbSendLat(sizes));
        add(verbs, "ibv_rc_pingpong", () -> runRcPingpong(sizes));
        all.putAll(verbs);
        Set<String> verbsPeers = verbs.keySet();
        List<String> chosen = peerNames != null ? peerNames : all.keySet().stream()
                .filter(name -> rdma || !verbsPeers.contains(name)).toList();
        for (String name : chosen) {
            if (!all.containsKey(name)) {
                log.println("compare: --peers: no peer '" + name + "'; the peers are " + String.join(", ", all.keySet()));
                return 2;
            }
            if (!rdma && verbsPeers.contains(name)) {
                log.println("compare: --peers: " + name + " needs a verbs device (--rdma; the launcher adds it when"
                        + " ibv_devices lists one)");
                return 2;
            }
        }
        List<Runnable> peers = new ArrayList<>();
        for (String name : all.keySet()) {
            if (chosen.contains(name)) {
                peers.addAll(all.get(name));
            }
        }
        for (int round = 0; round < rounds; round++) {
            List<Runnable> order = new ArrayList<>(peers);
            if (round % 2 == 1) {
                Collections.reverse(order);
            }
            log.printf(Locale.ROOT, "compare: round %d of %d%n", round + 1, rounds);
            for (Runnable peer : order) {
                peer.run();
            }
        }
        printTable();
        return failed ? 1 : 0;
    }

    private static void add(Map<String, List<Runnable>> peers, String name, Runnable run) {
        peers.computeIfAbsent(name, k -> new ArrayList<>()).add(run);
    }

    /** {@code command} and, with {@code --cpu}, the client's or server's CPU as one more argument after {@code prefix}. */
    List<String> pinned(List<String> command, int role, String prefix) {
        if (cpus == null) {
            return command;
        }
        List<String> withCpu = new ArrayList<>(command);
        withCpu.add(prefix + cpus.get(role));
        return withCpu;
    }

    /** The NIO peer's command: its wait option, its CPU if pinned, then {@code rest}. */
    private List<String> nio(String busy, int role, String... rest) {
        // For --warmup-ms, as ofl's client (which then also waits for its JIT to be quiet): vs_nio
        // would otherwise set compiled ofl against a partly compiled NIO loop.
        List<String> args = new ArrayList<>(List.of("nio", busy, "--warmup-ms=" + warmupMs));
        args.addAll(pinned(List.of(), role, "--cpu="));
        args.addAll(List.of(rest));
        return java(args.toArray(String[]::new));
    }

    /** A sizes-to-client-command function. */
    private interface ClientCommand {
        List<String> of(long bytes, int iterations, int warmups);
    }

    private int iterationsFor(long bytes) {
        return bytes > (1 << 20) ? largeIterations : iterations;
    }

    private void runPeerPair(String name, List<String> serverCommand, List<Long> sizes, ClientCommand client,
            boolean serverPrintsReady) {
        for (long bytes : sizes) {
            runPair(name, serverCommand, bytes, client, serverPrintsReady, true);
        }
    }

    /** The C peer's port in {@code mode}: the first two of compare's ports, for its rows and its bracketing runs alike. */
    private int cPort(String mode) {
        return port + (mode.equals("busy") ? 0 : 1);
    }

    /**
     * Runs the C peer once in {@code mode} on {@code bytes}: a round of its row ({@code around}
     * null), or a run that brackets the ofl TCP row {@code around} (recorded by the caller alone).
     *
     * @return the run's figures, or {@code null} if it failed (and compare fails)
     */
    private PlainRun runC(String mode, long bytes, String around) {
        // The C peer takes its CPU as a last, optional argument.
        String p = Integer.toString(cPort(mode));
        String name = "c-tcp " + mode + (around == null ? "" : " (bracketing " + around + ")");
        return runPair(name, pinned(List.of(cPeer.toString(), "server", address, p, mode), SERVER, ""),
                bytes, (b, n, w) -> pinned(List.of(cPeer.toString(), "client", address, p, mode, Long.toString(b),
                        Integer.toString(n), Integer.toString(w)), CLIENT, ""), false, around == null);
    }

    /**
     * Runs a plain peer's server and client on {@code bytes} and, if {@code row}, records the
     * round in the row {@code name}.
     *
     * @return the run's figures, or {@code null} if it failed (and compare fails)
     */
    private PlainRun runPair(String name, List<String> serverCommand, long bytes, ClientCommand client,
            boolean serverPrintsReady, boolean row) {
        Process server = null;
        try {
            server = start(serverCommand);
            if (serverPrintsReady) {
                awaitLine(server, "ready");
            }
            int n = iterationsFor(bytes);
            String output = runToEnd(client.of(bytes, n, Math.max(20, n / 10)));
            Matcher m = PEER_LINE.matcher(output);
            if (!m.find()) {
                fail(name + " " + bytes + " B: no result line in: " + output.strip());
                return null;
            }
            // The plain clients also exit 1 on a mismatch (runToEnd fails then): a second guard.
            if (Long.parseLong(m.group(8)) != 0) {
                fail(name + " " + bytes + " B: " + m.group(8) + " mismatches");
                return null;
            }
            // The C and NIO peers print response bytes over their mean round trip as MB/s.
            PlainRun run = new PlainRun(Double.parseDouble(m.group(3)) * 1e3, Double.parseDouble(m.group(7)));
            if (row) {
                record(name, bytes, run.p50Ns());
                recordThroughput(name, bytes, run.megabytesPerSecond());
            }
            return run;
        } catch (IOException | InterruptedException e) {
            fail(name + " " + bytes + " B: " + e.getMessage());
            return null;
        } finally {
            stop(server);
        }
    }

    /**
     * Runs the C peer once in each of {@code waits} (in that order) on {@code bytes}: the runs
     * that bracket the client of the ofl TCP peer {@code around}.
     *
     * @return each wait mode's run; a failed run's is missing
     */
    private Map<String, PlainRun> bracket(List<String> waits, long bytes, String around) {
        Map<String, PlainRun> runByWait = new LinkedHashMap<>();
        for (String wait : waits) {
            PlainRun run = runC(wait, bytes, around);
            if (run != null) {
                runByWait.put(wait, run);
            }
        }
        return runByWait;
    }

    /**
     * One run's figures: of a plain peer (C or Java NIO), or of an ofl client's wait mode.
     *
     * @param p50Ns its median round trip
     * @param megabytesPerSecond response bytes over its mean round trip
     */
    record PlainRun(double p50Ns, double megabytesPerSecond) {
    }

    /** How an ofl peer runs besides its backend: its wait modes, the options both ends add, its rows' label. */
    private enum OflVariant {
        /** Both wait modes, the server's default connection threads. */
        DEFAULT("busy,blocking", List.of(), List.of(), ""),
        /** Blocking mode only, the server's connections on platform threads (busy polling always uses them). */
        PLATFORM_THREADS("blocking", List.of("--connection-threads", "platform"), List.of(), " platform-threads"),
        /** TCP busy polling through NIO channels instead of direct socket calls: what those calls save. */
        NIO_CALLS("busy", List.of("--property", "tcp.directSocketCalls=false"),
                List.of("--property", "tcp.directSocketCalls=false"), " nio-calls"),
        /**
         * TCP blocking on the default virtual threads with the server's spin before it parks turned
         * off: every read parks and the JDK's poller wakes it. The default rows spin
         * {@code tcp.blockingSpinMicros} (50 µs) first, which at 64 B keeps the server polling;
         * platform threads never spin (the kernel wakes them from the read, as it wakes the C and
         * NIO blocking peers), so the platform-threads row is the like-for-like one.
         */
        NO_SPIN("blocking", List.of("--property", "tcp.blockingSpinMicros=0"), List.of(), " no-spin");

        final String waits;
        final List<String> serverOptions;
        final List<String> clientOptions;
        final String suffix;

        OflVariant(String waits, List<String> serverOptions, List<String> clientOptions, String suffix) {
            this.waits = waits;
            this.serverOptions = serverOptions;
            this.clientOptions = clientOptions;
            this.suffix = suffix;
        }
    }

    /** Runs ofl on one backend, in the rows {@code ofl-BACKEND WAIT} plus the variant's suffix. */
    private void runOfl(String backend, int basePort, List<Long> sizes, OflVariant variant) {
        Process server = null;
        String waits = variant.waits;
        String suffix = variant.suffix;
        try {
            List<String> serverCommand = new ArrayList<>(java("server", "--bind", address, "--port",
                    Integer.toString(basePort), "--backend", backend, "--wait", waits));
            serverCommand.addAll(variant.serverOptions);
            // RDMA runs unpinned, as its reference tools do (they have no option for it).
            boolean tcp = backend.equals("tcp");
            if (tcp) {
                serverCommand.addAll(pinned(List.of(), SERVER, "--cpu="));
            }
            // The C peer runs right before and right after an ofl TCP client, in its wait modes
            // and then in reverse (as the client's blocks run A B B A), for the paired ratio. The
            // first runs come before the ofl server starts, as no JVM starting up may slow them;
            // the others share the host with an idle ofl server.
            List<String> waitModes = List.of(waits.split(","));
            String row = "ofl-" + backend + suffix;
            Map<String, PlainRun> before = tcp ? bracket(waitModes, sizes.getFirst(), row) : Map.of();
            server = start(serverCommand);
            awaitLine(server, "ready");
            for (int size = 0; size < sizes.size(); size++) {
                long bytes = sizes.get(size);
                if (tcp && size > 0) {
                    before = bracket(waitModes, bytes, row);
                }
                Path json = Files.createTempFile("ofl-compare-", ".json");
                List<String> clientCommand = oflClient(backend, basePort, waits, bytes, 1, json);
                clientCommand.addAll(variant.clientOptions);
                if (tcp) {
                    clientCommand.addAll(pinned(List.of(), CLIENT, "--cpu="));
                }
                String output = runToEnd(clientCommand);
                Map<String, PlainRun> after = tcp ? bracket(waitModes.reversed(), bytes, row) : Map.of();
                JsonNode root = new ObjectMapper().readTree(json.toFile());
                Files.deleteIfExists(json);
                if (root.path("badChecks").asLong(-1) != 0 || root.path("errors").asLong(-1) != 0) {
                    fail("ofl " + backend + suffix + " " + bytes + " B: bad checks or errors:\n" + output);
                }
                for (JsonNode s : root.path("summaries")) {
                    String wait = s.path("wait").asText();
                    String peer = "ofl-" + backend + " " + wait + suffix;
                    double p50 = s.path("meanPercentilesNs").path("p50").asDouble();
                    // Response bytes only, as the plain peers count (ofl-bench's own MB/s adds the request).
                    double megabytesPerSecond = bytes * 1e3 / s.path("meanNs").asDouble(Double.NaN);
                    record(peer, bytes, p50);
                    recordPaired(peer, bytes, new PlainRun(p50, megabytesPerSecond), before.get(wait), after.get(wait));
                    recordThroughput(peer, bytes, megabytesPerSecond);
                    recordCosts(peer, bytes, s);
                }
            }
        } catch (IOException | InterruptedException e) {
            fail("ofl " + backend + ": " + e.getMessage());
        } finally {
            stop(server);
        }
    }

    /**
     * The row {@code ofl-tcp MODE interleaved}: one ofl TCP server and one paced client (JVMs started
     * once per round), whose {@link #interleavedBlocks} blocks alternate with runs of the C peer in
     * the same mode, C first and last. Each block's paired ratio is over the mean of the C runs
     * right before and right after it, well under a second apart, where the {@code ofl-tcp} row's
     * pairs are tens of seconds apart: on a host whose speed shifts between levels every few
     * seconds, a pair then mostly shares a level. Between blocks the client holds no connection,
     * so no ofl thread spins while the C peer runs.
     */
    private void runOflInterleaved(String mode, int basePort, List<Long> sizes) {
        String row = "ofl-tcp " + mode + " interleaved";
        Process server = null;
        try {
            List<String> serverCommand = new ArrayList<>(java("server", "--bind", address, "--port",
                    Integer.toString(basePort), "--backend", "tcp", "--wait", mode));
            server = start(pinned(serverCommand, SERVER, "--cpu="));
            awaitLine(server, "ready");
            for (long bytes : sizes) {
                runInterleaved(row, mode, basePort, bytes);
            }
        } catch (IOException | InterruptedException e) {
            fail(row + ": " + e.getMessage());
        } finally {
            stop(server);
        }
    }

    private void runInterleaved(String row, String mode, int basePort, long bytes)
            throws IOException, InterruptedException {
        Path json = Files.createTempFile("ofl-compare-", ".json");
        Process client = null;
        try {
            List<String> clientCommand = oflClient("tcp", basePort, mode, bytes, interleavedBlocks / 2, json);
            clientCommand.add("--paced");
            client = start(pinned(clientCommand, CLIENT, "--cpu="));
            // A client that hangs is stopped: its output then ends, and the reads below fail the row.
            Watchdog watchdog = Watchdog.watch(client);
            if (!interleave(row, mode, bytes, client)) {
                if (watchdog.fired()) {
                    fail(row + " " + bytes + " B: the client was stopped after " + Watchdog.LIMIT_MINUTES + " minutes");
                }
                return;
            }
            // The end of its input ended the client, which then wrote its table and JSON.
            if (!client.waitFor(2, TimeUnit.MINUTES)) {
                fail(row + " " + bytes + " B: the client did not end within 2 minutes of its last block");
                return;
            }
            if (client.exitValue() != 0) {
                fail(row + " " + bytes + " B: the client exited with " + client.exitValue() + " (bad checks or errors"
                        + " above)");
                return;
            }
            JsonNode root = new ObjectMapper().readTree(json.toFile());
            for (JsonNode s : root.path("summaries")) {
                recordCosts(row, bytes, s);
            }
        } finally {
            stop(client);
            Files.deleteIfExists(json);
        }
    }

    /**
     * An {@code ofl-bench client} command for one case, a 64-byte request and a response of
     * {@code bytes}, written in place, with compare's iterations and warm-up, its JSON to {@code json}.
     */
    private List<String> oflClient(String backend, int basePort, String waits, long bytes, int repeats, Path json) {
        int n = iterationsFor(bytes);
        return new ArrayList<>(java("client", "--server", address, "--port", Integer.toString(basePort), "--backend",
                backend, "--wait", waits, "--cases", "64/" + bytes, "--response", "inplace", "--repeats",
                Integer.toString(repeats), "--iterations", Integer.toString(n), "--warmup",
                Integer.toString(Math.max(20, n / 10)), "--warmup-ms", Long.toString(warmupMs), "--warmup-jit-quiet-ms",
                Long.toString(warmupJitQuietMs), "--json", json.toString()));
    }

    /** Records an ofl client summary's heap bytes and CPU per request in a row. */
    private void recordCosts(String row, long bytes, JsonNode summary) {
        recordAllocation(row, bytes, summary.path("clientThreadAllocatedBytesPerRequest").asDouble(Double.NaN),
                summary.path("serverThreadAllocatedBytesPerRequest").asDouble(Double.NaN));
        recordCpu(row, bytes, summary.path("clientThreadCpuNsPerRequest").asDouble(Double.NaN),
                summary.path("serverThreadCpuNsPerRequest").asDouble(Double.NaN),
                summary.path("serverProcessCpuNsPerRequest").asDouble(Double.NaN));
    }

    /**
     * Runs the C peer, then each of the paced client's blocks followed by the C peer again, and
     * records the blocks; closes the client's input at the end, or at the first failure.
     *
     * @return {@code false} if the client ended or a block failed (compare fails)
     */
    private boolean interleave(String row, String mode, long bytes, Process client) throws IOException,
            InterruptedException {
        try (BufferedReader results = new BufferedReader(new InputStreamReader(client.getInputStream(),
                StandardCharsets.UTF_8));
                Writer turns = new OutputStreamWriter(client.getOutputStream(), StandardCharsets.UTF_8)) {
            // Each C run waits until the client is idle: warmed up, or its block's connection closed.
            if (!idle(results)) {
                fail(row + " " + bytes + " B: the client ended before its first block");
                return false;
            }
            PlainRun before = runC(mode, bytes, row);
            for (int block = 0; block < interleavedBlocks; block++) {
                turns.write("go\n");
                turns.flush();
                PlainRun ofl = pacedBlock(results, bytes);
                if (ofl == null || !idle(results)) {
                    fail(row + " " + bytes + " B: the client ended or failed in its block " + (block + 1)
                            + " (its log is above; a client is stopped after " + Watchdog.LIMIT_MINUTES + " minutes)");
                    return false;
                }
                PlainRun after = runC(mode, bytes, row);
                record(row, bytes, ofl.p50Ns());
                recordThroughput(row, bytes, ofl.megabytesPerSecond());
                recordPaired(row, bytes, ofl, before, after);
                before = after;
            }
            return true;
        }
    }

    /** Reads a paced client's output up to its next wait for a turn; {@code false} if it ended first. */
    static boolean idle(BufferedReader results) throws IOException {
        String line;
        while ((line = results.readLine()) != null) {
            if (line.equals(BenchClient.LinePacer.AWAITING)) {
                return true;
            }
        }
        return false;
    }

    /**
     * Reads a paced client's output up to its next block line ({@link BenchClient.LinePacer}).
     *
     * @return the block's p50 and response MB/s, or {@code null} if the output ended first or the
     *     block had a mismatch or an error
     */
    PlainRun pacedBlock(BufferedReader results, long bytes) throws IOException {
        String line;
        while ((line = results.readLine()) != null) {
            Matcher m = PACED_LINE.matcher(line);
            if (m.find()) {
                if (Long.parseLong(m.group(3)) == 0 || Long.parseLong(m.group(4)) != 0
                        || Long.parseLong(m.group(5)) != 0) {
                    log.println("compare: " + line);
                    return null;
                }
                // Response bytes over the mean round trip, as the plain peers count.
                return new PlainRun(Double.parseDouble(m.group(1)), bytes * 1e3 / Double.parseDouble(m.group(2)));
            }
        }
        return null;
    }

    private void runIbSendLat(List<Long> sizes) {
        try {
            String device = ibDevice != null ? ibDevice : firstDevice();
            for (long bytes : sizes) {
                if (bytes > (8 << 20)) {
                    log.println("compare: ib_send_lat is not run for " + bytes + " B (over its 8 MiB message cap)");
                    continue;
                }
                int n = iterationsFor(bytes);
                int p = port - 1;
                Process server = start(List.of("ib_send_lat", "-d", device, "-s", Long.toString(bytes), "-n",
                        Integer.toString(n), "-p", Integer.toString(p), "-F"));
                try {
                    String output;
                    try {
                        output = runClient(List.of("ib_send_lat", "-d", device, "-s", Long.toString(bytes), "-n",
                                Integer.toString(n), "-p", Integer.toString(p), "-F", address));
                    } catch (IOException e) {
                        if (e.getMessage().contains("exited with 127")) {
                            // perftest links librdmacm, which needs verbs symbols a minimal libibverbs may lack.
                            skip("ib_send_lat cannot load with this libibverbs (exit 127, symbol lookup error:"
                                    + " librdmacm needs verbs symbols it does not export):"
                                    + " the ibv_rc_pingpong rows are the verbs reference here");
                            return;
                        }
                        throw e;
                    }
                    Double typicalUs = ibTypicalMicros(output);
                    if (typicalUs == null) {
                        fail("ib_send_lat " + bytes + " B on " + device + ": no result in:\n" + output.strip());
                        continue;
                    }
                    // ib_send_lat reports one-way latency (half a round trip); ofl reports round trips.
                    record("ib_send_lat 2x typical", bytes, 2 * typicalUs * 1e3);
                } finally {
                    stop(server);
                }
            }
        } catch (IOException | InterruptedException e) {
            fail("ib_send_lat: " + e.getMessage() + " (install Debian perftest; ./ofl installs it)");
        }
    }

    /**
     * rdma-core's {@code ibv_rc_pingpong}, polling and with {@code -e} (completion events), on the
     * same device: it links only libibverbs, so it runs on softverbs as well as on a NIC. One of
     * its iterations is one round trip.
     */
    private void runRcPingpong(List<Long> sizes) {
        try {
            String device = ibDevice != null ? ibDevice : firstDevice();
            for (String mode : List.of("busy", "blocking")) {
                for (long bytes : sizes) {
                    if (bytes > (1 << 20)) {
                        continue;
                    }
                    int n = iterationsFor(bytes);
                    int p = port - 2;
                    List<String> common = new ArrayList<>(List.of("ibv_rc_pingpong", "-d", device, "-g",
                            Integer.toString(gidIndex), "-s", Long.toString(bytes), "-n", Integer.toString(n), "-p",
                            Integer.toString(p)));
                    if (mode.equals("blocking")) {
                        common.add("-e");
                    }
                    Process server = start(common);
                    try {
                        List<String> client = new ArrayList<>(common);
                        client.add(address);
                        String output = runClient(client);
                        Matcher m = Pattern.compile("= ([0-9.]+) usec/iter").matcher(output);
                        if (!m.find()) {
                            fail("ibv_rc_pingpong " + mode + " " + bytes + " B: no result in: " + output.strip());
                            continue;
                        }
                        record("ibv_rc_pingpong " + mode, bytes, Double.parseDouble(m.group(1)) * 1e3);
                    } finally {
                        stop(server);
                    }
                }
            }
        } catch (IOException | InterruptedException e) {
            fail("ibv_rc_pingpong: " + e.getMessage() + " (Debian ibverbs-utils; ./ofl installs it)");
        }
    }

    /**
     * The {@code t_typical} column of ib_send_lat's result line, in microseconds.
     *
     * @param output ib_send_lat's standard output
     * @return microseconds, or {@code null} if no result line is there
     */
    static Double ibTypicalMicros(String output) {
        boolean header = false;
        for (String line : output.split("\n")) {
            String t = line.strip();
            if (t.startsWith("#bytes")) {
                header = true;
                continue;
            }
            if (header && !t.isEmpty() && Character.isDigit(t.charAt(0))) {
                String[] f = t.split("\\s+");
                if (f.length >= 5) {
                    return Double.parseDouble(f[4]);
                }
            }
        }
        return null;
    }

    private String firstDevice() throws IOException, InterruptedException {
        String output = runToEnd(List.of("ibv_devices"));
        for (String line : output.split("\n")) {
            String t = line.strip();
            if (!t.isEmpty() && !t.startsWith("device") && !t.startsWith("-")) {
                return t.split("\\s+")[0];
            }
        }
        throw new IOException("ibv_devices lists no device; name one with --ib-device");
    }

    /**
     * An ofl TCP row's median p50 over the plain Java NIO peer's of the same wait mode and size, or
     * {@code -}: the part of the round trip that ofl adds to a JVM's own.
     */
    String nioRatio(String peer, long bytes) {
        if (!peer.startsWith("ofl-tcp ")) {
            return "-";
        }
        return ratio(p50s.get(peer + "|" + bytes), p50s.get("java-nio " + waitOf(peer) + "|" + bytes));
    }

    /** A row's wait mode, its second word: "ofl-tcp busy nio-calls", "c-tcp blocking". */
    private static String waitOf(String peer) {
        return peer.split(" ")[1].equals("busy") ? "busy" : "blocking";
    }

    /** Adds one round's p50 to a row, and logs it. */
    void record(String peer, long bytes, double p50Ns) {
        String key = peer + "|" + bytes;
        p50s.computeIfAbsent(key, k -> new ArrayList<>()).add(p50Ns);
        bytesOf.put(key, bytes);
        log.printf(Locale.ROOT, "compare: %s %d B p50 %.1f us%n", peer, bytes, p50Ns / 1e3);
    }

    /**
     * Adds one round's paired ratios to an ofl TCP row: its p50 over the mean of the C peer's p50s
     * of the same wait mode and size, run right before and right after its client, and its MB/s
     * over the mean of theirs. Nothing is added if either C run failed ({@code null}); an MB/s
     * ratio is left out if a side did not measure it ({@code NaN}).
     */
    void recordPaired(String peer, long bytes, PlainRun ofl, PlainRun cBefore, PlainRun cAfter) {
        if (cBefore == null || cAfter == null) {
            return;
        }
        String key = peer + "|" + bytes;
        double ratio = ofl.p50Ns() / ((cBefore.p50Ns() + cAfter.p50Ns()) / 2);
        pairedRatios.computeIfAbsent(key, k -> new ArrayList<>()).add(ratio);
        double throughputRatio = ofl.megabytesPerSecond()
                / ((cBefore.megabytesPerSecond() + cAfter.megabytesPerSecond()) / 2);
        if (!Double.isNaN(throughputRatio)) {
            pairedThroughputRatios.computeIfAbsent(key, k -> new ArrayList<>()).add(throughputRatio);
        }
        log.printf(Locale.ROOT, "compare: %s %d B paired: c-tcp p50 %.1f us before, %.1f us after: ratio %.2f;"
                + " MB/s %.2f before, %.2f after: ratio %.2f%n", peer, bytes, cBefore.p50Ns() / 1e3,
                cAfter.p50Ns() / 1e3, ratio, cBefore.megabytesPerSecond(), cAfter.megabytesPerSecond(),
                throughputRatio);
    }

    /** A row's median paired p50 ratio over its rounds, or {@code -} (not an ofl TCP row, or no pair). */
    String pairedRatio(String key) {
        return medianOrDash(pairedRatios.get(key));
    }

    /** A row's median paired MB/s ratio over its rounds, or {@code -} (not an ofl TCP row, or no pair). */
    String pairedThroughputRatio(String key) {
        return medianOrDash(pairedThroughputRatios.get(key));
    }

    private static String medianOrDash(List<Double> values) {
        return values == null ? "-" : String.format(Locale.ROOT, "%.2f", median(values));
    }

    /** Keeps the largest allocation per request of any round that measured it ({@code NaN}: unknown). */
    void recordAllocation(String peer, long bytes, double clientBytes, double serverBytes) {
        allocations.merge(peer + "|" + bytes, new double[] {clientBytes, serverBytes},
                (a, b) -> new double[] {largest(a[0], b[0]), largest(a[1], b[1])});
    }

    /** Adds one round's response MB/s to a row ({@code NaN}: not measured, left out). */
    void recordThroughput(String peer, long bytes, double megabytesPerSecond) {
        if (!Double.isNaN(megabytesPerSecond)) {
            throughputs.computeIfAbsent(peer + "|" + bytes, k -> new ArrayList<>()).add(megabytesPerSecond);
        }
    }

    /**
     * Adds one round's CPU per request to an ofl row: the client's calling thread, the server's
     * connection thread and the server process ({@code NaN}: unknown).
     */
    void recordCpu(String peer, long bytes, double clientNs, double serverThreadNs, double serverProcessNs) {
        cpuPerRequest.computeIfAbsent(peer + "|" + bytes, k -> new ArrayList<>())
                .add(new double[] {clientNs, serverThreadNs, serverProcessNs});
    }

    /** A row's median response MB/s over its rounds, or {@code -}. */
    String throughput(String key) {
        List<Double> values = throughputs.get(key);
        return values == null ? "-" : String.format(Locale.ROOT, "%.0f", median(values));
    }

    /** A row's median MB/s over the C peer's of the same wait mode and size, or {@code -}. */
    String throughputRatio(String peer, long bytes) {
        return ratio(throughputs.get(peer + "|" + bytes), throughputs.get("c-tcp " + waitOf(peer) + "|" + bytes));
    }

    /** The median of {@code values} over the median of {@code reference}, or {@code -} if either is missing. */
    private static String ratio(List<Double> values, List<Double> reference) {
        return ratio(values, reference, Compare::median);
    }

    /** {@code of} the values over {@code of} the reference, or {@code -} if either is missing. */
    private static String ratio(List<Double> values, List<Double> reference, ToDoubleFunction<List<Double>> of) {
        return values == null || reference == null ? "-"
                : String.format(Locale.ROOT, "%.2f", of.applyAsDouble(values) / of.applyAsDouble(reference));
    }

    /**
     * A row's p50 against its reference's: the median's ratio ({@code best} false) or the best
     * round's ({@code best} true). The reference is the C peer of the same wait mode, except for
     * the reference tools' rows (ib_send_lat, ibv_rc_pingpong), which say what ofl RDMA takes over
     * them: ofl is the numerator there.
     */
    String p50Ratio(String peer, long bytes, boolean best) {
        List<Double> values = p50s.get(peer + "|" + bytes);
        String reference;
        boolean tool = peer.startsWith("ib_send_lat") || peer.startsWith("ibv_rc_pingpong");
        if (peer.startsWith("ib_send_lat")) {
            reference = "ofl-rdma busy";
        } else if (peer.startsWith("ibv_rc_pingpong")) {
            reference = "ofl-rdma " + (peer.endsWith("busy") ? "busy" : "blocking");
        } else {
            reference = "c-tcp " + waitOf(peer);
        }
        List<Double> ref = p50s.get(reference + "|" + bytes);
        return ratio(tool ? ref : values, tool ? values : ref, best ? Collections::min : Compare::median);
    }

    /**
     * An ofl row's CPU per request as {@code client/server} microseconds, medians over the rounds
     * that measured them; the server's as the bench table shows it ({@link Report#serverCpuMicros}).
     */
    String cpu(String key) {
        List<double[]> rounds = cpuPerRequest.get(key);
        if (rounds == null) {
            return "-";
        }
        return Report.micros(knownMedian(rounds, 0)) + "/"
                + Report.serverCpuMicros(knownMedian(rounds, 1), knownMedian(rounds, 2));
    }

    /** The median of one field over the rounds that measured it, {@code NaN} if none did. */
    private static double knownMedian(List<double[]> rounds, int field) {
        List<Double> known = new ArrayList<>();
        for (double[] round : rounds) {
            if (!Double.isNaN(round[field])) {
                known.add(round[field]);
            }
        }
        return known.isEmpty() ? Double.NaN : median(known);
    }

    private static double largest(double a, double b) {
        return Double.isNaN(a) ? b : Double.isNaN(b) ? a : Math.max(a, b);
    }

    /** A row's allocation as {@code client/server} bytes per request, {@code -} where not measured. */
    String allocation(String key) {
        double[] a = allocations.get(key);
        if (a == null) {
            return "-";
        }
        return (Double.isNaN(a[0]) ? "-" : String.format(Locale.ROOT, "%.1f", a[0])) + "/"
                + (Double.isNaN(a[1]) ? "-" : String.format(Locale.ROOT, "%.1f", a[1]));
    }

    private void skip(String message) {
        if (!skipped.contains(message)) {
            skipped.add(message);
            log.println("compare: skipped: " + message);
        }
    }

    private void fail(String message) {
        failed = true;
        log.println("compare: FAILED: " + message);
    }

    /**
     * The median of some values.
     *
     * @param values at least one value
     * @return the middle value, or the mean of the two middle ones
     */
    static double median(List<Double> values) {
        List<Double> sorted = new ArrayList<>(values);
        Collections.sort(sorted);
        int n = sorted.size();
        return n % 2 == 1 ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2;
    }

    private void printTable() {
        out.printf(Locale.ROOT, "# compare on %s: %d rounds (order reversed every other round), median p50 of the"
                + " rounds; request 64 B; every server writes each response's every byte (ofl: in place); %d measured"
                + " requests (%d over 1 MiB); cores: %d; %s%n", address, rounds,
                iterations, largeIterations, Runtime.getRuntime().availableProcessors(),
                cpus == null ? "not pinned" : "TCP peers pinned client,server = " + cpus);
        out.println("# ratio = this peer's p50 / c-tcp p50 of the same wait mode; ofl-rdma rows: / c-tcp of the"
                + " same wait mode; ib_send_lat row: ofl-rdma busy p50 / (2 x ib_send_lat t_typical); ibv_rc_pingpong"
                + " rows: ofl-rdma p50 of the same wait mode / ibv_rc_pingpong usec/iter (one iteration = one"
                + " round trip); alloc = heap bytes per request of the client/server threads, the most of any"
                + " round (ofl rows; '-' on the server: a virtual thread); vs_nio = an ofl-tcp row's p50 / java-nio"
                + " p50 of the same wait mode: what ofl adds to a plain JVM peer's round trip; ofl-tcp blocking: the"
                + " server's virtual threads spin tcp.blockingSpinMicros (50 us) before they park, the no-spin row's"
                + " do not; platform threads never spin, as c-tcp and java-nio blocking: the like-for-like row");
        out.println("# best_ratio = as ratio, of the rows' best rounds (smallest p50 over smallest p50): on a"
                + " host whose speed shifts between levels for seconds to minutes, the medians of two rows may come"
                + " from different levels, their best rounds from the fast one");
        out.println("# MB/s = response bytes / mean round trip, median of the rounds (every TCP and ofl row alike);"
                + " MB/s_ratio = this row's / c-tcp's of the same wait mode; cpu_us = CPU per request of the"
                + " client's calling thread / the server's connection thread (ofl rows; 'p': the server process's,"
                + " for a virtual-thread connection), median of the rounds");
        out.println("# paired_ratio = ofl-tcp rows: each round's p50 / the mean p50 of the c-tcp runs of the same"
                + " wait mode right before and right after its client (one client run apart, tens of seconds, not"
                + " minutes), median of the rounds: the two sides of a pair share a level more often;"
                + " paired_MB/s_ratio = the same for MB/s (each round's / the mean of those two c-tcp runs')");
        out.println("# interleaved rows: one ofl TCP client per round runs --interleaved-blocks blocks (connecting"
                + " anew for each) between runs of c-tcp in the same wait mode, c-tcp first and last; a 'round' is a"
                + " block there, and its paired ratios are over the c-tcp runs right before and right after the block,"
                + " well under a second apart: the figure least moved by the host's level shifts");
        String format = "%-34s %10s %8s %12s %12s %12s %10s %10s %12s %10s %10s %17s %12s %12s %8s%n";
        out.printf(Locale.ROOT, format, "peer", "bytes", "rounds", "p50_us", "min_p50_us", "max_p50_us", "ratio",
                "best_ratio", "paired_ratio", "MB/s", "MB/s_ratio", "paired_MB/s_ratio", "cpu_us", "alloc_B",
                "vs_nio");
        for (Map.Entry<String, List<Double>> e : p50s.entrySet()) {
            String peer = e.getKey().substring(0, e.getKey().indexOf('|'));
            long bytes = bytesOf.get(e.getKey());
            double median = median(e.getValue());
            out.printf(Locale.ROOT, format, peer, bytes, e.getValue().size(), String.format(Locale.ROOT, "%.1f",
                    median / 1e3), String.format(Locale.ROOT, "%.1f", Collections.min(e.getValue()) / 1e3),
                    String.format(Locale.ROOT, "%.1f", Collections.max(e.getValue()) / 1e3),
                    p50Ratio(peer, bytes, false), p50Ratio(peer, bytes, true), pairedRatio(e.getKey()),
                    throughput(e.getKey()), throughputRatio(peer, bytes), pairedThroughputRatio(e.getKey()),
                    cpu(e.getKey()), allocation(e.getKey()), nioRatio(peer, bytes));
        }
        for (String line : skipped) {
            out.println("# skipped: " + line);
        }
    }

    /** The command that runs {@link Bench} with {@code args} in a new JVM like this one. */
    static List<String> java(String... args) {
        List<String> command = new ArrayList<>();
        command.add(ProcessHandle.current().info().command().orElse("java"));
        command.add("--enable-native-access=ALL-UNNAMED");
        String library = System.getProperty("ofl.verbs.library");
        if (library != null) {
            command.add("-Dofl.verbs.library=" + library);
        }
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.add(Bench.class.getName());
        command.addAll(List.of(args));
        return command;
    }

    private Process start(List<String> command) throws IOException {
        ProcessBuilder builder = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT);
        return builder.start();
    }

    private static void awaitLine(Process process, String prefix) throws IOException, InterruptedException {
        BufferedReader reader = new BufferedReader(new InputStreamReader(process.getInputStream(),
                StandardCharsets.UTF_8));
        StringBuilder seen = new StringBuilder();
        String line;
        while ((line = reader.readLine()) != null) {
            if (line.startsWith(prefix)) {
                return;
            }
            seen.append(line).append('\n');
        }
        // A JVM that dies early writes its fatal-error report to standard output: show it.
        boolean ended = process.waitFor(10, TimeUnit.SECONDS);
        throw new IOException("the server ended before printing '" + prefix + "' (exit "
                + (ended ? Integer.toString(process.exitValue()) : "none after 10 s") + "); its output:\n"
                + seen.toString().strip());
    }

    /**
     * Runs a C tool's client against its server started just before: the server may not listen
     * yet on a loaded host (the tools connect once and give up), so a refused connection is tried
     * again, at most 10 times 200 ms apart.
     */
    private String runClient(List<String> command) throws IOException, InterruptedException {
        for (int attempt = 1; ; attempt++) {
            try {
                return runToEnd(command);
            } catch (IOException e) {
                if (attempt == 10 || !e.getMessage().contains("exited with 1")) {
                    throw e;
                }
                Thread.sleep(200);
            }
        }
    }

    private String runToEnd(List<String> command) throws IOException, InterruptedException {
        Process process = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT).start();
        // Reading its output to the end waits as long as the process runs: a hung one is stopped.
        Watchdog watchdog = Watchdog.watch(process);
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        process.waitFor();
        if (watchdog.fired()) {
            throw new IOException(command.getFirst() + " did not end within " + Watchdog.LIMIT_MINUTES + " minutes");
        }
        if (process.exitValue() != 0) {
            throw new IOException(String.join(" ", command) + " exited with " + process.exitValue() + ":\n"
                    + output.strip());
        }
        return output;
    }

    /** Stops a process still running some time after it started; says whether it had to. */
    static final class Watchdog {
        /** How long compare lets any process it starts run. */
        static final long LIMIT_MINUTES = 30;
        private final AtomicBoolean fired = new AtomicBoolean();

        /** Watches {@code process} for {@link #LIMIT_MINUTES}. */
        static Watchdog watch(Process process) {
            return watch(process, TimeUnit.MINUTES.toMillis(LIMIT_MINUTES));
        }

        /** Watches {@code process} for {@code limitMs}; for tests. */
        static Watchdog watch(Process process, long limitMs) {
            Watchdog dog = new Watchdog();
            Thread.ofPlatform().daemon().name("ofl-compare-watchdog").start(() -> {
                try {
                    if (!process.waitFor(limitMs, TimeUnit.MILLISECONDS)) {
                        dog.fired.set(true);
                        process.destroyForcibly();
                    }
                } catch (InterruptedException e) {
                    process.destroyForcibly();
                }
            });
            return dog;
        }

        boolean fired() {
            return fired.get();
        }
    }

    private static void stop(Process process) {
        if (process == null) {
            return;
        }
        process.destroy();
        try {
            if (!process.waitFor(10, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            process.destroyForcibly();
        }
    }
}
