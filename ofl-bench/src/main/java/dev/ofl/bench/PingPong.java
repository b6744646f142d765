package dev.ofl.bench;

import dev.ofl.api.ClientConfig;
import dev.ofl.api.Completion;
import dev.ofl.api.Limits;
import dev.ofl.api.Ofl;
import dev.ofl.api.OflClient;
import dev.ofl.api.OflException;
import dev.ofl.api.OflServer;
import dev.ofl.api.OflStatus;
import dev.ofl.api.Region;
import dev.ofl.api.ResponseRanges;
import dev.ofl.api.ServerConfig;
import dev.ofl.api.WaitMode;
import dev.ofl.bench.PatternHandler.ResponseMode;
import java.io.IOException;
import java.io.PrintStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import org.HdrHistogram.Histogram;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * The ping-pong tool: starts a server and a client in one JVM on an explicit address, runs
 * byte-checked round trips for each case, and prints one table of round-trip percentiles with the
 * conditions beside them.
 *
 * <p>Cases: a 64-byte echo, and responses of 288, 4,096, 16,384 and 49,152 rows of 256 bytes laid
 * into one range of a region registered once. The client checks every byte of every response;
 * a mismatch or an error is counted, printed, and makes the exit status non-zero. Round-trip times
 * (submit to completion) are recorded after warm-up; checking happens outside the timed window.
 *
 * <p>A backend that cannot run here (for example {@code rdma} without an RDMA device) is reported
 * as skipped with its reason, never replaced by another. The {@code rdma} rows are labelled
 * {@code rdma/softverbs} when the verbs library (system property {@code ofl.verbs.library}, else
 * environment variable {@code OFL_VERBS_LIBRARY}) lies in an {@code ofl-softverbs} build, the
 * user-space emulation that moves bytes through Unix sockets and a progress thread; the header
 * names the library either way. Because softverbs is far slower than a NIC for large responses,
 * the rdma rows measure fewer requests per large case by default (see {@code --iterations}), and
 * show both response modes (copy and in place) by default; tcp rows measure 1,000 requests of every
 * case, copy only.
 *
 * <p>Exit status: 0 when every case ran without mismatch or error and at least one backend ran;
 * 1 on any mismatch or error; 2 on bad options; 3 when no requested backend could run.
 */
@Command(name = "pingpong", mixinStandardHelpOptions = true, sortOptions = false,
        description = "Byte-checked round trips between an ofl server and client in one JVM.")
public final class PingPong implements Callable<Integer> {
    private static final String SERVICE = "ofl-pingpong";
    private static final int EXIT_MISMATCH = 1;
    private static final int EXIT_NOTHING_RAN = 3;
    private static final int AUTO_WARMUP_REQUESTS = 200;
    private static final long AUTO_WARMUP_MS = 1500;
    private static final String RDMA = "rdma";
    private static final int DEFAULT_ITERATIONS = 1000;
    /** Same as {@code VerbsLibrary.LIBRARY_PROPERTY}; read here so the tool needs no compile-time verbs dependency. */
    private static final String VERBS_LIBRARY_PROPERTY = "ofl.verbs.library";
    /** Same as {@code VerbsLibrary.LIBRARY_ENVIRONMENT}. */
    private static final String VERBS_LIBRARY_ENVIRONMENT = "OFL_VERBS_LIBRARY";
    /** Same as {@code VerbsLibrary.DEFAULT_LIBRARY}. */
    private static final String VERBS_DEFAULT_LIBRARY = "libibverbs.so.1";
    private static final String SOFTVERBS_DIRECTORY = "ofl-softverbs";

    /** One ping-pong case. */
    enum Case {
        ECHO64("echo64", 0, 1000),
        ROWS288("rows288", 288, 1000),
        ROWS4096("rows4096", 4096, 200),
        ROWS16384("rows16384", 16384, 100),
        ROWS49152("rows49152", 49152, 50);

        final String label;
        final long rows;
        /** Measured requests of this case on rdma when {@code --iterations} is not given. */
        final int rdmaIterations;

        Case(String label, long rows, int rdmaIterations) {
            this.label = label;
            this.rows = rows;
            this.rdmaIterations = rdmaIterations;
        }

        boolean echo() {
            return rows == 0;
        }

        long responseBytes() {
            return echo() ? Patterns.ECHO_BYTES : rows * Patterns.ROW_BYTES;
        }

        static Case parse(String label) {
            for (Case c : values()) {
                if (c.label.equals(label)) {
                    return c;
                }
            }
            return null;
        }
    }

    /** One line of the table. */
    private record Result(String backend, String waitMode, ResponseMode response, Case testCase, long warmups,
            long iterations,
            Histogram histogram, long sumNs, long maxNs, long mismatches, long errors) {
    }

    @Spec
    private CommandSpec spec;

    @Option(names = "--backend", split = ",", paramLabel = "tcp|rdma",
            description = "Backends to measure, repeatable or comma-separated (default: ${DEFAULT-VALUE}).")
    private List<String> backends = new ArrayList<>(List.of("tcp"));

    @Option(names = "--wait", split = ",", paramLabel = "busy|blocking",
            description = "Wait modes of both client and server (default: ${DEFAULT-VALUE}).")
    private List<String> waits = new ArrayList<>(List.of("busy", "blocking"));

    @Option(names = "--cases", split = ",", paramLabel = "CASE",
            description = "Cases: echo64, rows288, rows4096, rows16384, rows49152 (default: all).")
    private List<String> cases = new ArrayList<>(List.of("echo64", "rows288", "rows4096", "rows16384", "rows49152"));

    @Option(names = "--iterations", paramLabel = "N",
            description = "Measured requests per case, for every backend (default: " + DEFAULT_ITERATIONS
                    + " for tcp; for rdma 1000 for echo64 and rows288, 200 for rows4096, 100 for rows16384 and"
                    + " 50 for rows49152, since softverbs moves large responses far slower than a NIC).")
    private Integer iterations;

    @Option(names = "--warmup", paramLabel = "N",
            description = "Unrecorded (but checked) requests before each case (default: at least " + AUTO_WARMUP_REQUESTS
                    + " or the case's measured requests if fewer, continuing until " + AUTO_WARMUP_MS
                    + " ms have passed, so the JIT has compiled the hot paths before cheap cases are measured).")
    private Integer warmup;

    @Option(names = "--response", split = ",", paramLabel = "copy|inplace",
            description = "How the server handler writes rows: copy (OflResponse.write from scratch rows) or"
                    + " inplace (straight into OflResponse.buffer() and commit); comma list allowed, applied to"
                    + " every backend (default: copy for tcp, copy,inplace for rdma).")
    private List<String> responses;

    @Option(names = "--bind", paramLabel = "ADDRESS",
            description = "Explicit address the server binds and the client connects to (default: ${DEFAULT-VALUE}).")
    private String bind = "127.0.0.1";

    @Option(names = "--timeout-ms", paramLabel = "MS",
            description = "Deadline of each request; a timeout counts as an error (default: ${DEFAULT-VALUE}).")
    private long timeoutMs = 5000;

    @Option(names = "--connect-timeout-ms", paramLabel = "MS",
            description = "Bound on the client's connect plus bootstrap and on the server's wait for it; raise it"
                    + " where the JVM runs slowly, e.g. an emulated guest (default: ${DEFAULT-VALUE}).")
    private long connectTimeoutMs = 5000;

    private final PrintStream out;
    private final PrintStream log;

    /** Creates the tool printing its table to standard output and its progress to standard error. */
    public PingPong() {
        this(System.out, System.err);
    }

    private PingPong(PrintStream out, PrintStream log) {
        this.out = out;
        this.log = log;
    }

    /**
     * Runs the tool and exits with its status.
     *
     * @param args the command-line options; {@code --help} lists them
     */
    public static void main(String[] args) {
        System.exit(new CommandLine(new PingPong()).execute(args));
    }

    /**
     * Runs every requested backend, wait mode, response mode and case, then prints the table.
     *
     * @return the exit status, as described on the class
     */
    @Override
    public Integer call() {
        Set<String> backendNames = new LinkedHashSet<>(backends);
        List<WaitMode> waitModes = parseWaits();
        List<ResponseMode> responseModes = responses == null ? null : parseResponses();
        List<Case> selected = parseCases();
        if (iterations != null && iterations < 1 || warmup != null && warmup < 0 || timeoutMs < 1
                || connectTimeoutMs < 1) {
            throw new ParameterException(spec.commandLine(), "--iterations must be at least 1, --warmup at least 0,"
                    + " and --timeout-ms and --connect-timeout-ms at least 1");
        }
        InetAddress address;
        try {
            address = InetAddress.getByName(bind);
        } catch (UnknownHostException e) {
            throw new ParameterException(spec.commandLine(), "--bind " + bind + " is not an address: " + e.getMessage());
        }

        List<Result> results = new ArrayList<>();
        List<String> skipped = new ArrayList<>();
        boolean failed = false;
        for (String backend : backendNames) {
            String label = label(backend);
            Optional<String> cause = Ofl.unavailabilityCause(backend);
            if (cause.isPresent()) {
                skipped.add(label + " rows skipped: " + cause.get());
                log.println("pingpong: the " + label + " rows are skipped: " + cause.get());
                continue;
            }
            List<ResponseMode> modes = responseModes != null ? responseModes
                    : RDMA.equals(backend) ? List.of(ResponseMode.COPY, ResponseMode.IN_PLACE)
                    : List.of(ResponseMode.COPY);
            for (WaitMode waitMode : waitModes) {
                for (ResponseMode responseMode : modes) {
                    try {
                        run(backend, waitMode, responseMode, new InetSocketAddress(address, 0), selected, results);
                    } catch (OflException | IllegalArgumentException e) {
                        failed = true;
                        log.println("pingpong: " + label + " " + waitName(waitMode) + " " + responseName(responseMode)
                                + " could not run: " + e.getMessage());
                    }
                }
            }
        }

        printTable(results, skipped, backendNames);
        for (Result r : results) {
            failed |= r.mismatches() != 0 || r.errors() != 0;
        }
        if (failed) {
            return EXIT_MISMATCH;
        }
        return results.isEmpty() ? EXIT_NOTHING_RAN : 0;
    }

    private void run(String backend, WaitMode waitMode, ResponseMode responseMode, InetSocketAddress bindAddress,
            List<Case> selected, List<Result> results) {
        long maxResponseBytes = 0;
        for (Case c : selected) {
            maxResponseBytes = Math.max(maxResponseBytes, c.responseBytes());
        }
        Limits limits = new Limits(4 << 10, (int) maxResponseBytes, 1, 1);
        ServerConfig serverConfig = ServerConfig.builder()
                .backend(backend)
                .bind(bindAddress)
                .serviceName(SERVICE)
                .limits(limits)
                .waitMode(waitMode)
                .bootstrapTimeout(Duration.ofMillis(connectTimeoutMs))
                .build();
        try (PatternHandler handler = new PatternHandler(responseMode);
                Arena arena = Arena.ofConfined()) {
            try (OflServer server = Ofl.serve(serverConfig, handler);
                    OflClient client = Ofl.connect(ClientConfig.builder()
                            .backend(backend)
                            .server(server.localAddress())
                            .serviceName(SERVICE)
                            .limits(limits)
                            .waitMode(waitMode)
                            .connectTimeout(Duration.ofMillis(connectTimeoutMs))
                            .build())) {
                Region region = client.registerRegion(arena.allocate(maxResponseBytes, 4096));
                for (Case c : selected) {
                    int measured = iterationsOf(backend, c);
                    log.printf("pingpong: %s %s %s %s: %s warm-up + %d measured requests%n", label(backend),
                            waitName(waitMode), responseName(responseMode), c.label, warmupRule(), measured);
                    results.add(runCase(backend, waitMode, responseMode, client, region, c, measured));
                }
            }
        }
    }

    /** One case's running tallies; {@link #exchange} adds to them. */
    private static final class Tally {
        final Histogram histogram = new Histogram(1, TimeUnit.MINUTES.toNanos(1), 3);
        long warmups;
        long sumNs;
        long maxNs;
        long mismatches;
        long errors;
        boolean abandoned;
    }

    /** Measured requests of a case: {@code --iterations}, else the backend's default. */
    private int iterationsOf(String backend, Case testCase) {
        if (iterations != null) {
            return iterations;
        }
        return RDMA.equals(backend) ? testCase.rdmaIterations : DEFAULT_ITERATIONS;
    }

    private Result runCase(String backend, WaitMode waitMode, ResponseMode responseMode, OflClient client,
            Region region, Case testCase, int measuredRequests) {
        ResponseRanges ranges = new ResponseRanges().add(region, 0, testCase.responseBytes());
        Completion completion = new Completion();
        Tally tally = new Tally();
        long iteration = 0;
        long warmupEndNs = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(AUTO_WARMUP_MS);
        long warmupRequests = warmup == null ? Math.min(AUTO_WARMUP_REQUESTS, measuredRequests) : warmup;
        while (!tally.abandoned
                && (iteration < warmupRequests || warmup == null && System.nanoTime() - warmupEndNs < 0)) {
            exchange(client, ranges, region.segment(), completion, testCase, iteration++, tally, false);
        }
        tally.warmups = iteration;
        for (long measured = 0; measured < measuredRequests && !tally.abandoned; measured++) {
            exchange(client, ranges, region.segment(), completion, testCase, iteration++, tally, true);
        }
        if (tally.abandoned) {
            tally.errors++;
        }
        return new Result(label(backend), waitName(waitMode), responseMode, testCase, tally.warmups,
                tally.histogram.getTotalCount(), tally.histogram, tally.sumNs, tally.maxNs, tally.mismatches,
                tally.errors);
    }

    /**
     * Sends one request, checks every byte of its response, and with {@code record} adds its round
     * trip to the tally. Errors and mismatches are counted and printed, never thrown; a connection
     * that cannot be reconnected abandons the case.
     */
    private void exchange(OflClient client, ResponseRanges ranges, MemorySegment placed, Completion completion,
            Case testCase, long iteration, Tally tally, boolean record) {
        if (client.isBroken()) {
            try {
                client.reconnect();
            } catch (OflException e) {
                tally.abandoned = true;
                log.println("pingpong: " + testCase.label + ": reconnect failed, case abandoned: " + e.getMessage());
                return;
            }
        }
        MemorySegment payload = client.requestPayload();
        int op;
        int payloadLength;
        if (testCase.echo()) {
            Patterns.writeEcho(payload, iteration);
            op = PatternHandler.OP_ECHO;
            payloadLength = Patterns.ECHO_BYTES;
        } else {
            payload.set(PatternHandler.FIELD_LE, PatternHandler.ROWS_OFFSET, testCase.rows);
            payload.set(PatternHandler.FIELD_LE, PatternHandler.ITERATION_OFFSET, iteration);
            op = PatternHandler.OP_ROWS;
            payloadLength = PatternHandler.ROWS_PAYLOAD_BYTES;
        }
        int status;
        long startNs = System.nanoTime();
        try {
            status = client.call(op, iteration, payloadLength, ranges, TimeUnit.MILLISECONDS.toNanos(timeoutMs),
                    completion);
        } catch (OflException e) {
            tally.errors++;
            log.println("pingpong: " + testCase.label + " iteration " + iteration + ": " + e.getMessage());
            return;
        }
        long rttNs = System.nanoTime() - startNs;
        if (status != OflStatus.OK) {
            tally.errors++;
            log.println("pingpong: " + testCase.label + " iteration " + iteration + ": " + completion);
            return;
        }
        if (completion.responseLength() != testCase.responseBytes()) {
            tally.errors++;
            log.println("pingpong: " + testCase.label + " iteration " + iteration + ": "
                    + completion.responseLength() + " response bytes, expected " + testCase.responseBytes());
            return;
        }
        long bad = testCase.echo()
                ? Patterns.countEchoMismatches(placed, iteration)
                : Patterns.countRowMismatches(placed, testCase.rows, iteration);
        if (bad != 0) {
            tally.mismatches += bad;
            log.println("pingpong: " + testCase.label + " iteration " + iteration + ": " + bad + " of "
                    + testCase.responseBytes() + " response bytes differ from the pattern");
        }
        if (record) {
            tally.histogram.recordValue(Math.min(rttNs, tally.histogram.getHighestTrackableValue()));
            tally.sumNs += rttNs;
            tally.maxNs = Math.max(tally.maxNs, rttNs);
        }
    }

    private void printTable(List<Result> results, List<String> skipped, Set<String> backendNames) {
        Runtime.Version version = Runtime.version();
        out.printf(Locale.ROOT, "# ofl ping-pong: JDK %s (%s), %s %s %s, cores: %d, pinning: none, bind: %s,"
                + " server and client in one JVM, rows of %d B committed every %d rows, date: %s%n",
                version, System.getProperty("java.vm.vendor"), System.getProperty("os.name"),
                System.getProperty("os.version"), System.getProperty("os.arch"),
                Runtime.getRuntime().availableProcessors(), bind, Patterns.ROW_BYTES, PatternHandler.BATCH_ROWS,
                Instant.now().truncatedTo(ChronoUnit.SECONDS));
        if (backendNames.contains(RDMA)) {
            String library = verbsLibrary();
            out.printf(Locale.ROOT, "# rdma: verbs library %s%s; measured requests per case: %s%n", library,
                    isSoftverbs(library) ? " (softverbs: user-space emulation over Unix sockets, not NIC performance)"
                            : "",
                    iterations != null ? iterations + " (--iterations)" : rdmaIterationsRule());
        }
        out.printf(Locale.ROOT, "# RTT = submit to completion of one request (byte check outside the timed window);"
                + " warm-up per case: %s requests, checked, not recorded; MB/s = response bytes / mean RTT;"
                + " mismatches = response bytes that differ from the pattern%n", warmupRule());
        String format = "%-14s %-8s %-8s %-9s %10s %6s %6s %9s %9s %9s %9s %8s %10s %6s%n";
        out.printf(Locale.ROOT, format, "backend", "wait", "response", "case", "bytes", "warmup", "iters", "p50_us",
                "p99_us", "p99.9_us", "max_us", "MB/s", "mismatches", "errors");
        for (Result r : results) {
            Histogram h = r.histogram();
            boolean any = r.iterations() > 0;
            double meanNs = any ? (double) r.sumNs() / r.iterations() : Double.NaN;
            out.printf(Locale.ROOT, format, r.backend(), r.waitMode(), responseName(r.response()), r.testCase().label,
                    r.testCase().responseBytes(), r.warmups(), r.iterations(),
                    micros(any, h.getValueAtPercentile(50)), micros(any, h.getValueAtPercentile(99)),
                    micros(any, h.getValueAtPercentile(99.9)), micros(any, r.maxNs()),
                    any ? String.format(Locale.ROOT, "%.1f", r.testCase().responseBytes() / meanNs * 1e3) : "-",
                    r.mismatches(), r.errors());
        }
        for (String line : skipped) {
            out.println("# " + line);
        }
    }

    private String warmupRule() {
        return warmup == null ? "at least " + AUTO_WARMUP_REQUESTS + " (or the measured count if fewer) and "
                + AUTO_WARMUP_MS + " ms of" : Integer.toString(warmup);
    }

    /** The rdma default measured requests per case, as the header prints them. */
    private static String rdmaIterationsRule() {
        StringBuilder rule = new StringBuilder();
        for (Case c : Case.values()) {
            rule.append(rule.isEmpty() ? "" : ", ").append(c.label).append(' ').append(c.rdmaIterations);
        }
        return rule.append(" (tcp: ").append(DEFAULT_ITERATIONS).append(" each; --iterations N sets all)").toString();
    }

    /** The name a backend's rows carry: {@code rdma/softverbs} when rdma runs on the softverbs emulation. */
    private static String label(String backend) {
        return RDMA.equals(backend) && isSoftverbs(verbsLibrary()) ? RDMA + "/softverbs" : backend;
    }

    /**
     * The verbs library the rdma backend loads, resolved as it does: the system property, else the
     * environment variable, else the system's {@code libibverbs.so.1}.
     */
    private static String verbsLibrary() {
        String property = System.getProperty(VERBS_LIBRARY_PROPERTY);
        if (property != null && !property.isBlank()) {
            return property.strip();
        }
        String environment = System.getenv(VERBS_LIBRARY_ENVIRONMENT);
        if (environment != null && !environment.isBlank()) {
            return environment.strip();
        }
        return VERBS_DEFAULT_LIBRARY;
    }

    /** True when a library path (after resolving links, if it exists) lies in an ofl-softverbs directory. */
    static boolean isSoftverbs(String library) {
        if (library.indexOf('/') < 0) {
            return false;
        }
        Path path;
        try {
            path = Path.of(library).toAbsolutePath().normalize();
        } catch (InvalidPathException e) {
            return false;
        }
        if (containsSoftverbsDirectory(path)) {
            return true;
        }
        try {
            return containsSoftverbsDirectory(path.toRealPath());
        } catch (IOException e) {
            return false;
        }
    }

    private static boolean containsSoftverbsDirectory(Path path) {
        Path parent = path.getParent();
        if (parent == null) {
            return false;
        }
        for (Path name : parent) {
            if (name.toString().equals(SOFTVERBS_DIRECTORY)) {
                return true;
            }
        }
        return false;
    }

    private static String micros(boolean any, long ns) {
        return any ? String.format(Locale.ROOT, "%.1f", ns / 1e3) : "-";
    }

    private List<WaitMode> parseWaits() {
        List<WaitMode> modes = new ArrayList<>();
        for (String w : new LinkedHashSet<>(waits)) {
            modes.add(switch (w) {
                case "busy" -> WaitMode.BUSY_POLL;
                case "blocking" -> WaitMode.BLOCKING;
                default -> throw new ParameterException(spec.commandLine(),
                        "--wait " + w + " is not one of busy, blocking");
            });
        }
        return modes;
    }

    private List<ResponseMode> parseResponses() {
        List<ResponseMode> modes = new ArrayList<>();
        for (String r : new LinkedHashSet<>(responses)) {
            modes.add(switch (r) {
                case "copy" -> ResponseMode.COPY;
                case "inplace" -> ResponseMode.IN_PLACE;
                default -> throw new ParameterException(spec.commandLine(),
                        "--response " + r + " is not one of copy, inplace");
            });
        }
        return modes;
    }

    private List<Case> parseCases() {
        List<Case> selected = new ArrayList<>();
        for (String label : new LinkedHashSet<>(cases)) {
            Case c = Case.parse(label);
            if (c == null) {
                throw new ParameterException(spec.commandLine(), "--cases " + label
                        + " is not one of echo64, rows288, rows4096, rows16384, rows49152");
            }
            selected.add(c);
        }
        return selected;
    }

    private static String waitName(WaitMode mode) {
        return mode == WaitMode.BUSY_POLL ? "busy" : "blocking";
    }

    private static String responseName(ResponseMode mode) {
        return mode == ResponseMode.COPY ? "copy" : "inplace";
    }
}
