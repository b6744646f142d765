package dev.ofl.bench.run;

import dev.ofl.api.WaitMode;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * The client role: one client per link (per {@code --server} address, optionally from a matching
 * {@code --local} address), all links at once, each running the same ABBA schedule of cases and
 * variants against an {@code ofl-bench server}. Prints a table per link, case and variant;
 * optionally writes JSON and PNG charts.
 *
 * <p>Exit status: 0 when every request succeeded and every byte matched; 1 on any mismatch or
 * error; 2 on bad options.
 */
@Command(name = "client", mixinStandardHelpOptions = true, sortOptions = false,
        description = "Run checked exchanges against 'ofl-bench server' over one or more links.")
public final class BenchClient implements Callable<Integer> {
    /** Named experiments: option values used where the command line gives none. */
    enum Experiment {
        /** The seed's NIC-loopback case, burst and unpinned: request copied in vs written in place. */
        SEED_LOOPBACK("seed-loopback", "184416/24", "copy,inplace", "copy", 3, 1000, 0),
        /** The same at a fixed 42 ms cadence; pin both roles (client --cpu, server --cpu) to match the seed. */
        SEED_CADENCE("seed-cadence", "184416/24", "copy,inplace", "copy", 3, 200, 42),
        /** The response side: copy vs in place on a small echo and a 12 MiB response. */
        RESPONSE_MODES("response-modes", "64/64,64/12MiB", "inplace", "copy,inplace", 2, 1000, 0),
        /** The cases and modes {@code ofl bench compare} runs ofl in: the response written in place, as the plain peers write theirs. */
        COMPARE("compare", "64/64,64/12MiB", "inplace", "inplace", 2, 1000, 0);

        final String label;
        final String cases;
        final String request;
        final String response;
        final int repeats;
        final int iterations;
        final long cadenceMs;

        Experiment(String label, String cases, String request, String response, int repeats, int iterations,
                long cadenceMs) {
            this.label = label;
            this.cases = cases;
            this.request = request;
            this.response = response;
            this.repeats = repeats;
            this.iterations = iterations;
            this.cadenceMs = cadenceMs;
        }

        static Experiment parse(String label) {
            for (Experiment e : values()) {
                if (e.label.equals(label)) {
                    return e;
                }
            }
            List<String> names = new ArrayList<>();
            for (Experiment e : values()) {
                names.add(e.label);
            }
            throw new IllegalArgumentException("--experiment " + label + " is not one of " + String.join(", ", names));
        }
    }

    @Spec
    private CommandSpec spec;

    @Option(names = "--server", required = true, split = ",", paramLabel = "ADDRESS",
            description = "The server's address, one per link (links run at once, labelled A, B, ...).")
    List<String> servers;

    @Option(names = "--local", split = ",", paramLabel = "ADDRESS",
            description = "Local address of each link, in --server order (default: chosen by routing).")
    List<String> locals = new ArrayList<>();

    @Option(names = "--port", paramLabel = "PORT", description = "The server's base port (default: ${DEFAULT-VALUE}).")
    int port = BenchServer.DEFAULT_PORT;

    @Option(names = "--experiment", paramLabel = "NAME",
            description = "A named experiment: seed-loopback, seed-cadence, response-modes, compare; explicit"
                    + " options override its values.")
    String experiment;

    @Option(names = "--backend", split = ",", paramLabel = "tcp|rdma", description = "Backends (default: tcp).")
    List<String> backends;

    @Option(names = "--property", paramLabel = "KEY=VALUE",
            description = "A backend property, e.g. tcp.directSocketCalls=false, for the clients of the backend its "
                    + "prefix names; repeatable.")
    private Map<String, String> properties = new LinkedHashMap<>();

    @Option(names = "--wait", split = ",", paramLabel = "busy|blocking",
            description = "Wait modes of both sides (default: busy,blocking).")
    List<String> waits;

    @Option(names = "--cases", split = ",", paramLabel = "REQ/RESP",
            description = "Request/response bytes, e.g. 64/64, 184416/24, 64/12MiB (default: 64/64).")
    List<String> cases;

    @Option(names = "--request", split = ",", paramLabel = "copy|inplace",
            description = "Request written into requestPayload() in place, or prepared and copied in"
                    + " (default: inplace).")
    List<String> requestModes;

    @Option(names = "--response", split = ",", paramLabel = "copy|inplace",
            description = "Server writes the response in place or prepares and copies it (default: copy).")
    List<String> responseModes;

    @Option(names = "--repeats", paramLabel = "N",
            description = "ABBA rounds per case; each round runs every variant twice (default: 2).")
    Integer repeats;

    @Option(names = "--iterations", paramLabel = "N", description = "Measured requests per block (default: 1000).")
    Integer iterations;

    @Option(names = "--warmup", paramLabel = "N",
            description = "At least this many checked, unrecorded requests before each block, back to back in"
                    + " chunks of a tenth of --iterations (at most 1000), each after the server CPU query that"
                    + " brackets a block (default: ${DEFAULT-VALUE}).")
    int warmup = 200;

    @Option(names = "--warmup-ms", paramLabel = "MS",
            description = "Keep warming up until this long has passed in each block (default: ${DEFAULT-VALUE}).")
    long warmupMs = 500;

    @Option(names = "--warmup-jit-quiet-ms", paramLabel = "MS",
            description = "Then keep warming up until this client's JIT compiled nothing for this long, at most 30 s;"
                    + " 0 = off (default: ${DEFAULT-VALUE}).")
    long warmupJitQuietMs;

    @Option(names = "--cadence", paramLabel = "DURATION",
            description = "Start measured requests at this fixed interval, e.g. 42ms; 0 = burst (default: 0).")
    String cadence;

    @Option(names = "--cpu", split = ",", paramLabel = "N",
            description = "Pin each link's calling thread (and the threads it starts) to a CPU: one CPU for all"
                    + " links, or one per link in --server order (pin the server with its own --cpu).")
    List<Integer> cpus = new ArrayList<>();

    @Option(names = "--timeout-ms", paramLabel = "MS", description = "Deadline of each request (default: ${DEFAULT-VALUE}).")
    long timeoutMs = 10_000;

    @Option(names = "--connect-timeout-ms", paramLabel = "MS",
            description = "Bound of each connect, bootstrap included (default: ${DEFAULT-VALUE}); a server's first"
                    + " connection registers its staging pool, which takes longer on a slow or emulated host.")
    long connectTimeoutMs = 5_000;

    @Option(names = "--max-block-p50-us", paramLabel = "US",
            description = "Fail (exit 1) if any block's p50 exceeds this many microseconds: a guard for a whole"
                    + " block stuck in a slow mode, such as the 1 ms mode blocking RDMA peers once had on softverbs.")
    Double maxBlockP50Us;

    @Option(names = "--paced", description = "Run each block only when a line arrives on standard input (the run"
            + " ends early at the end of input), close the connection after it and print 'block N p50_ns=..' on"
            + " standard output; 'awaiting a turn' before each wait, and after the last block, which the run ends"
            + " at the next line or the end of input. Another process can then run between blocks against a server"
            + " that spins on nothing, as 'ofl bench compare' runs the C peer. --warmup-ms and"
            + " --warmup-jit-quiet-ms are waited out once, before the first turn, on a connection closed after them;"
            + " each block warms up its own connection with --warmup requests. One link only.")
    boolean paced;

    @Option(names = "--json", paramLabel = "FILE", description = "Write every block, summary and histogram log as JSON.")
    Path json;

    @Option(names = "--plot", paramLabel = "DIR", description = "Write PNG charts: latency per case, MB/s.")
    Path plot;

    private final PrintStream out;
    private final PrintStream log;
    private final InputStream in;

    /** Creates the role printing its table to standard output and progress to standard error. */
    public BenchClient() {
        this(System.out, System.err, System.in);
    }

    BenchClient(PrintStream out, PrintStream log) {
        this(out, log, InputStream.nullInputStream());
    }

    /** A role whose {@code --paced} turns come from {@code in}; for tests. */
    BenchClient(PrintStream out, PrintStream log, InputStream in) {
        this.out = out;
        this.log = log;
        this.in = in;
    }

    /** The settings after the experiment's values fill what the command line left out. */
    record Plan(List<ExchangeCase> cases, List<Variant> variants, int repeats, int iterations, long cadenceNs,
            List<InetAddress> servers, List<InetAddress> locals) {
    }

    /**
     * Resolves the options into a plan.
     *
     * @return the plan
     * @throws IllegalArgumentException naming the option at fault
     */
    Plan plan() {
        Experiment e = experiment == null ? null : Experiment.parse(experiment);
        List<ExchangeCase> parsedCases = new ArrayList<>();
        for (String c : orDefault(cases, e == null ? "64/64" : e.cases)) {
            parsedCases.add(ExchangeCase.parse(c));
        }
        List<WaitMode> modes = new ArrayList<>();
        for (String w : orDefault(waits, "busy,blocking")) {
            modes.add(BenchServer.parseWait(w));
        }
        List<String> backendNames = orDefault(backends, "tcp");
        for (String b : backendNames) {
            BenchServer.port(port, b, WaitMode.BUSY_POLL);
        }
        List<Boolean> requestInPlace = inPlace("--request", orDefault(requestModes, e == null ? "inplace" : e.request));
        List<Boolean> responseInPlace = inPlace("--response",
                orDefault(responseModes, e == null ? "copy" : e.response));
        List<Variant> variants = new ArrayList<>();
        for (String b : backendNames) {
            for (WaitMode w : modes) {
                for (boolean req : requestInPlace) {
                    for (boolean resp : responseInPlace) {
                        variants.add(new Variant(b, w, req, resp));
                    }
                }
            }
        }
        int r = repeats != null ? repeats : e == null ? 2 : e.repeats;
        int n = iterations != null ? iterations : e == null ? 1000 : e.iterations;
        long cadenceNs = cadence != null ? parseDuration(cadence) : e == null ? 0
                : TimeUnit.MILLISECONDS.toNanos(e.cadenceMs);
        if (r < 1 || n < 1 || warmup < 0 || warmupMs < 0 || warmupJitQuietMs < 0 || timeoutMs < 1
                || connectTimeoutMs < 1) {
            throw new IllegalArgumentException("--repeats and --iterations must be at least 1, --warmup,"
                    + " --warmup-ms and --warmup-jit-quiet-ms at least 0, --timeout-ms and --connect-timeout-ms at least 1");
        }
        if (cadenceNs < 0) {
            throw new IllegalArgumentException("--cadence must be 0 (a burst) or positive, was " + cadence);
        }
        if (cpus.size() > 1 && cpus.size() != servers.size()) {
            throw new IllegalArgumentException("--cpu names " + cpus.size() + " CPUs for " + servers.size()
                    + " --server addresses; give one CPU for all links or one per link");
        }
        if (paced && servers.size() != 1) {
            throw new IllegalArgumentException("--paced runs one link, but --server names " + servers.size()
                    + " addresses");
        }
        if (!locals.isEmpty() && locals.size() != servers.size()) {
            throw new IllegalArgumentException("--local names " + locals.size() + " addresses for " + servers.size()
                    + " --server addresses; give one per link, in the same order");
        }
        return new Plan(parsedCases, variants, r, n, cadenceNs, addresses("--server", servers),
                addresses("--local", locals));
    }

    private static List<String> orDefault(List<String> given, String fallback) {
        return new ArrayList<>(new LinkedHashSet<>(given != null ? given : List.of(fallback.split(","))));
    }

    private static List<Boolean> inPlace(String option, List<String> names) {
        List<Boolean> modes = new ArrayList<>();
        for (String name : names) {
            modes.add(switch (name) {
                case "inplace" -> true;
                case "copy" -> false;
                default -> throw new IllegalArgumentException(option + " " + name + " is not one of copy, inplace");
            });
        }
        return modes;
    }

    private static List<InetAddress> addresses(String option, List<String> names) {
        List<InetAddress> result = new ArrayList<>();
        for (String name : names) {
            try {
                result.add(InetAddress.getByName(name));
            } catch (UnknownHostException ex) {
                throw new IllegalArgumentException(option + " " + name + " is not an address: " + ex.getMessage());
            }
        }
        return result;
    }

    /**
     * Parses a duration such as {@code 42ms}, {@code 500us}, {@code 1s} or {@code 0}.
     *
     * @param text the duration
     * @return nanoseconds
     * @throws IllegalArgumentException if the text is not a duration
     */
    static long parseDuration(String text) {
        String t = text.strip().toLowerCase(Locale.ROOT);
        try {
            if (t.equals("0")) {
                return 0;
            }
            if (t.endsWith("ms")) {
                return Math.round(Double.parseDouble(t.substring(0, t.length() - 2)) * 1e6);
            }
            if (t.endsWith("us")) {
                return Math.round(Double.parseDouble(t.substring(0, t.length() - 2)) * 1e3);
            }
            if (t.endsWith("s")) {
                return Math.round(Double.parseDouble(t.substring(0, t.length() - 1)) * 1e9);
            }
            return Duration.parse(text).toNanos();
        } catch (NumberFormatException | DateTimeParseException e) {
            throw new IllegalArgumentException("'" + text + "' is not a duration such as 42ms, 500us or 1s");
        }
    }

    /**
     * Runs every link's schedule at once and reports.
     *
     * @return the exit status, as described on the class
     */
    @Override
    public Integer call() throws InterruptedException, IOException {
        Plan plan;
        try {
            plan = plan();
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), e.getMessage());
        }
        List<Schedule.Block> blocks = Schedule.abba(plan.cases(), plan.variants(), plan.repeats());
        long maxRequest = 0;
        long maxResponse = 0;
        for (ExchangeCase c : plan.cases()) {
            maxRequest = Math.max(maxRequest, c.requestBytes());
            maxResponse = Math.max(maxResponse, c.responseBytes());
        }
        LinkRunner.Settings settings = new LinkRunner.Settings(port, warmup, TimeUnit.MILLISECONDS.toNanos(warmupMs),
                plan.iterations(), plan.cadenceNs(), TimeUnit.MILLISECONDS.toNanos(timeoutMs),
                TimeUnit.MILLISECONDS.toNanos(warmupJitQuietMs), Duration.ofMillis(connectTimeoutMs), properties);
        Progress progress = new Progress(log, blocks.size() * plan.servers().size());
        log.printf(Locale.ROOT, "ofl-bench: %d links x %d blocks (%d cases x %d variants x %d ABBA rounds x 2),"
                + " at least %d warm-up + %d measured requests each%s%n", plan.servers().size(), blocks.size(),
                plan.cases().size(), plan.variants().size(), plan.repeats(), warmup, plan.iterations(),
                plan.cadenceNs() > 0 ? String.format(Locale.ROOT, ", one every %.3f ms", plan.cadenceNs() / 1e6) : "");
        List<BlockResult> results = new ArrayList<>();
        boolean failed = false;
        ExecutorService pool = Executors.newFixedThreadPool(plan.servers().size(),
                Thread.ofPlatform().name("ofl-bench-link-", 0).factory());
        try {
            List<Future<List<BlockResult>>> futures = new ArrayList<>();
            List<LinkRunner> runners = new ArrayList<>();
            for (int i = 0; i < plan.servers().size(); i++) {
                LinkRunner runner = new LinkRunner(linkName(i), plan.servers().get(i),
                        plan.locals().isEmpty() ? null : plan.locals().get(i), cpuOf(i), settings, maxRequest,
                        maxResponse, log, progress, paced ? new LinePacer(in, out) : null);
                runners.add(runner);
                futures.add(pool.submit(() -> runner.run(blocks)));
            }
            for (int i = 0; i < futures.size(); i++) {
                try {
                    results.addAll(futures.get(i).get());
                    failed |= runners.get(i).uncountedFailures();
                } catch (ExecutionException e) {
                    failed = true;
                    log.println("ofl-bench: link " + linkName(i) + " failed: " + e.getCause());
                }
            }
        } finally {
            pool.shutdownNow();
        }
        results.sort(java.util.Comparator.comparing(BlockResult::link)
                .thenComparingInt(r -> r.block().index()));
        List<Summary> summaries = Summary.of(results);
        Map<String, Object> conditions = conditions(plan);
        Report.printTable(out, conditions, summaries);
        if (json != null) {
            Report.writeJson(json, conditions, results, summaries);
            log.println("ofl-bench: wrote " + json);
        }
        if (plot != null) {
            for (Path file : Charts.write(plot, summaries)) {
                log.println("ofl-bench: wrote " + file);
            }
        }
        for (BlockResult r : results) {
            failed |= r.mismatches() != 0 || r.errors() != 0;
        }
        List<String> slow = slowBlocks(results, maxBlockP50Us);
        for (String line : slow) {
            log.println("ofl-bench: --max-block-p50-us exceeded: " + line);
        }
        return failed || !slow.isEmpty() ? 1 : 0;
    }

    /**
     * The blocks whose p50 exceeds a bound.
     *
     * @param results the blocks
     * @param maxP50Us the bound in microseconds, or {@code null} for none
     * @return one description per block over the bound
     */
    static List<String> slowBlocks(List<BlockResult> results, Double maxP50Us) {
        List<String> slow = new ArrayList<>();
        if (maxP50Us == null) {
            return slow;
        }
        for (BlockResult r : results) {
            if (r.requests() > 0 && r.histogram().getValueAtPercentile(50) / 1e3 > maxP50Us) {
                slow.add(String.format(Locale.ROOT, "link %s block %d (%s, %s): p50 %.1f us > %.1f us", r.link(),
                        r.block().index(), r.block().testCase().name(), r.block().variant().label(),
                        r.histogram().getValueAtPercentile(50) / 1e3, maxP50Us));
            }
        }
        return slow;
    }

    /**
     * {@code --paced}: a block's turn is a line on the input; each block done is a line on the
     * output, {@code block INDEX p50_ns=.. mean_ns=.. requests=.. mismatches=.. errors=..}, and each
     * wait for a turn begins with the line {@value #AWAITING}, after the last block too (the run
     * then ends at the next line or the end of input).
     */
    static final class LinePacer implements LinkRunner.Pacer {
        /** The line printed before each turn is read, and once more after the last block. */
        static final String AWAITING = "awaiting a turn";

        private final BufferedReader turns;
        private final PrintStream out;

        LinePacer(InputStream in, PrintStream out) {
            this.turns = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8));
            this.out = out;
        }

        @Override
        public boolean awaitTurn() {
            // Said once the runner holds no connection and has nothing left to do meanwhile.
            out.println(AWAITING);
            out.flush();
            try {
                return turns.readLine() != null;
            } catch (IOException e) {
                return false;
            }
        }

        @Override
        public void blockDone(BlockResult r) {
            out.printf(Locale.ROOT, "block %d p50_ns=%d mean_ns=%.0f requests=%d mismatches=%d errors=%d%n",
                    r.block().index(), r.requests() > 0 ? r.histogram().getValueAtPercentile(50) : -1,
                    r.requests() > 0 ? r.meanNs() : Double.NaN, r.requests(), r.mismatches(), r.errors());
            out.flush();
        }
    }

    /** The CPU link {@code index} is pinned to, or {@code -1}. */
    int cpuOf(int index) {
        return cpus.isEmpty() ? -1 : cpus.get(cpus.size() == 1 ? 0 : index);
    }

    /** Link labels: A, B, ... Z, then L26, L27, ... */
    static String linkName(int index) {
        return index < 26 ? String.valueOf((char) ('A' + index)) : "L" + index;
    }

    private Map<String, Object> conditions(Plan plan) {
        Map<String, Object> c = new LinkedHashMap<>();
        Runtime.Version version = Runtime.version();
        c.put("tool", "ofl-bench client");
        c.put("date", Instant.now().truncatedTo(ChronoUnit.SECONDS).toString());
        c.put("jdk", version + " (" + System.getProperty("java.vm.vendor") + ")");
        c.put("os", System.getProperty("os.name") + " " + System.getProperty("os.version") + " "
                + System.getProperty("os.arch"));
        c.put("cores", Runtime.getRuntime().availableProcessors());
        List<String> links = new ArrayList<>();
        for (int i = 0; i < plan.servers().size(); i++) {
            links.add(linkName(i) + "=" + plan.servers().get(i).getHostAddress()
                    + (plan.locals().isEmpty() ? "" : " from " + plan.locals().get(i).getHostAddress()));
        }
        c.put("links", String.join(", ", links));
        c.put("port", port);
        c.put("clientCpu", cpus.isEmpty() ? "not pinned" : "link threads pinned to CPU " + cpus);
        c.put("cadence", plan.cadenceNs() == 0 ? "burst" : String.format(Locale.ROOT, "%.3f ms", plan.cadenceNs() / 1e6));
        c.put("repeats", plan.repeats() + " ABBA rounds");
        String jitQuiet = warmupJitQuietMs > 0 ? ", then until the JIT was quiet for " + warmupJitQuietMs + " ms" : "";
        c.put("warmup", paced
                ? warmupMs + " ms" + jitQuiet + " before the first turn, then at least " + warmup + " requests per block"
                        + " (paced), back to back in chunks after a server CPU query each"
                : "at least " + warmup + " requests and " + warmupMs + " ms per block, back to back in chunks after a"
                        + " server CPU query each" + jitQuiet);
        c.put("iterations", plan.iterations());
        c.put("verbsLibrary", System.getProperty("ofl.verbs.library", System.getenv().getOrDefault("OFL_VERBS_LIBRARY",
                "libibverbs.so.1")));
        if (experiment != null) {
            c.put("experiment", experiment);
        }
        return c;
    }
}
