package dev.ofl.bench.admission;

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
import dev.ofl.api.ServerStatistics;
import dev.ofl.api.spi.BootstrapServer;
import dev.ofl.api.spi.ServerMemory;
import dev.ofl.verbs.MemlockLimit;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Hostile peers against a server in a process of its own, one attack at a time, while well-behaved
 * clients connect and call: for each attack, from one source address and from sixteen, with and
 * without peer authentication where the attack applies, the share of well-behaved clients served
 * within 1 s, and the server's threads, descriptors, resident memory, staging and registered
 * memory before, during and after. Everything on 127.0.0.0/8.
 *
 * <pre>
 * ./ofl bench admission hostile [--attacks silent,trickle,...] [--sources 1,16] [--keys off,on]
 *                                [--good N] [--json FILE]
 * </pre>
 *
 * <p>A well-behaved client comes from 127.0.0.1, connects (connect timeout 1 s), makes one call
 * with a 4 KiB response (call timeout 1 s) and closes; it is served if the call returned OK with
 * every byte right within 1 s of its start. Attackers come from 127.0.0.2 on (127.0.0.1 itself
 * for the co-tenant) and each reopens 100 ms after the server dropped or refused it. See
 * {@link Attack} for what each does. The server runs with every default but its address, service
 * name and, with keys on, one key.
 */
public final class HostileBench {
    static final String SERVICE = "hostile-bench";
    static final int KEY_ID = 1;
    /** The benchmark's key: a fixed test key, in no deployment. */
    static final byte[] KEY = "hostile-bench key, never deploy!".getBytes(StandardCharsets.US_ASCII);
    /** The op whose response fills the request's whole capacity (a big lookup). */
    static final int OP_FILL = 2;
    /** A well-behaved call: a 4 KiB lookup. */
    private static final int GOOD_RESPONSE = 4096;
    private static final long SERVED_WITHIN_NS = TimeUnit.SECONDS.toNanos(1);
    /** Resources are back when within this of the baseline (a thread or a descriptor comes and goes). */
    private static final int SLACK = 4;

    private HostileBench() {
    }

    /**
     * Runs the matrix, or ({@code server ...}) the server process it drives.
     *
     * @param args see the class comment
     * @throws Exception if the measurement cannot run
     */
    public static void main(String[] args) throws Exception {
        if (args.length > 0 && args[0].equals("server")) {
            serve(args[1], args[2].equals("on"));
            return;
        }
        List<Attack> attacks = List.of(Attack.values());
        List<Integer> sources = List.of(1, 16);
        List<Boolean> keys = List.of(false, true);
        int good = 40;
        Path json = null;
        for (int i = 0; i + 1 < args.length; i += 2) {
            switch (args[i]) {
                case "--attacks" -> attacks = Arrays.stream(args[i + 1].split(",")).map(Attack::named).toList();
                case "--sources" -> sources = Arrays.stream(args[i + 1].split(",")).map(Integer::valueOf).toList();
                case "--keys" -> keys = Arrays.stream(args[i + 1].split(",")).map(k -> k.equals("on")).toList();
                case "--good" -> good = Integer.parseInt(args[i + 1]);
                case "--json" -> json = Path.of(args[i + 1]);
                default -> throw new IllegalArgumentException("unknown option " + args[i] + "; see the class comment");
            }
        }
        List<Cell> cells = new ArrayList<>();
        PrintStream out = System.out;
        out.println(Cell.HEADER);
        for (Attack attack : attacks) {
            for (boolean keysOn : keys) {
                if (!attack.applies(keysOn)) {
                    continue;
                }
                for (int n : sources) {
                    if (attack.coTenant() && n > 1 && sources.contains(1)) {
                        continue; // the good client's own address is one address
                    }
                    Cell cell = run(attack, n, keysOn, good);
                    cells.add(cell);
                    out.println(cell.row());
                    out.flush();
                }
            }
        }
        long failing = cells.stream().filter(c -> !c.meetsTargets()).count();
        out.printf(Locale.ROOT, "%d of %d cells met the targets (>= 95%% served within 1 s; resources back to the "
                + "baseline)%n", cells.size() - failing, cells.size());
        if (json != null) {
            Files.writeString(json, Cell.json(cells));
            out.println("JSON: " + json);
        }
    }

    private static Cell run(Attack attack, int sources, boolean keysOn, int goodClients) throws Exception {
        try (ServerProcess server = ServerProcess.start(attack.backend(), keysOn)) {
            GoodClients good = new GoodClients(server.address(), attack.backend(), keysOn);
            good.warmUp(20);
            Stats before = server.stats();
            Attacker attacker = attack.start(server.address(), sources, keysOn);
            try {
                // Long enough for pending places to churn past the bootstrap timeout.
                Thread.sleep(2500);
                Stats during = server.stats();
                GoodClients.Result result = good.attempt(goodClients);
                Stats peak = Stats.max(during, server.stats());
                attacker.stop();
                Stats after = server.awaitBaseline(before, TimeUnit.SECONDS.toNanos(20));
                return new Cell(attack, sources, keysOn, result, before, peak, after, attacker.summary());
            } finally {
                attacker.stop();
            }
        }
    }

    // ---------------------------------------------------------------------------------------------
    // The server process

    /** The server's side: serves until its input ends, printing its resources whenever asked. */
    private static void serve(String backend, boolean keysOn) throws IOException {
        ServerConfig.Builder builder = ServerConfig.builder()
                .backend(backend)
                .bind(new InetSocketAddress("127.0.0.1", 0))
                .serviceName(SERVICE);
        if (keysOn) {
            builder.authenticationKey(KEY_ID, KEY);
        }
        OflServer server = Ofl.serve(builder.build(), (request, response) -> {
            if (request.op() == OP_FILL) {
                MemorySegment buffer = response.buffer();
                for (long i = 0; i < response.capacity(); i += 8) {
                    buffer.set(ValueLayout.JAVA_LONG_UNALIGNED, i, i);
                }
                response.commit(response.capacity());
            } else {
                response.buffer().asSlice(0, response.capacity()).fill((byte) request.generation());
                response.commit(response.capacity());
            }
            return 0;
        });
        System.out.println("port " + server.localAddress().getPort());
        System.out.flush();
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        for (String line; (line = in.readLine()) != null; ) {
            if (line.equals("stats")) {
                System.out.println(Stats.of(server).line());
                System.out.flush();
            }
        }
        server.close();
    }

    /** A server in a child JVM, driven over its standard input. */
    static final class ServerProcess implements AutoCloseable {
        private final Process process;
        private final BufferedReader out;
        private final PrintStream in;
        private final InetSocketAddress address;

        private ServerProcess(Process process, BufferedReader out, InetSocketAddress address) {
            this.process = process;
            this.out = out;
            this.in = new PrintStream(process.getOutputStream(), true, StandardCharsets.UTF_8);
            this.address = address;
        }

        static ServerProcess start(String backend, boolean keysOn) throws IOException {
            List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java")
                    .toString(), "--enable-native-access=ALL-UNNAMED", "-Xmx1g", "-cp",
                    System.getProperty("java.class.path")));
            String library = System.getProperty("ofl.verbs.library");
            if (library != null) {
                command.add("-Dofl.verbs.library=" + library);
            }
            command.addAll(List.of(HostileBench.class.getName(), "server", backend, keysOn ? "on" : "off"));
            // The server's own log, kept: a server that ends says why there (target/hostile-server.log).
            java.io.File log = Path.of("target", "hostile-server.log").toFile();
            log.getParentFile().mkdirs();
            Process process = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.to(log)).start();
            BufferedReader out = new BufferedReader(new InputStreamReader(process.getInputStream(),
                    StandardCharsets.UTF_8));
            String first = out.readLine();
            if (first == null || !first.startsWith("port ")) {
                process.destroyForcibly();
                throw new IllegalStateException("the server process did not start: " + first);
            }
            return new ServerProcess(process, out, new InetSocketAddress("127.0.0.1",
                    Integer.parseInt(first.substring(5))));
        }

        InetSocketAddress address() {
            return address;
        }

        private String exitOrRunning() {
            try {
                return process.waitFor(5, java.util.concurrent.TimeUnit.SECONDS) ? String.valueOf(process.exitValue())
                        : "still running";
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return "unknown";
            }
        }

        Stats stats() throws IOException {
            in.println("stats");
            String line = out.readLine();
            if (line == null) {
                throw new IllegalStateException("the server process ended (exit " + exitOrRunning() + "); its log: "
                        + "target/hostile-server.log");
            }
            return Stats.parse(line);
        }

        /** Polls the server's resources until they are back to the baseline, or the time is up. */
        Stats awaitBaseline(Stats baseline, long timeoutNs) throws IOException, InterruptedException {
            long deadlineNs = System.nanoTime() + timeoutNs;
            Stats now = stats();
            while (!now.backTo(baseline) && System.nanoTime() - deadlineNs < 0) {
                Thread.sleep(200);
                now = stats();
            }
            return now;
        }

        /** Ends the server (its input closes) and waits for the process, killing it after 15 s. */
        @Override
        public void close() {
            in.close();
            try {
                if (!process.waitFor(15, TimeUnit.SECONDS)) {
                    process.destroyForcibly().waitFor();
                }
            } catch (InterruptedException e) {
                process.destroyForcibly();
                Thread.currentThread().interrupt();
            }
        }
    }

    /**
     * A server's resources at one moment.
     *
     * @param threads live JVM threads (platform; virtual threads are not counted by the JVM)
     * @param osThreads the process's kernel threads
     * @param descriptors open file descriptors
     * @param rssKib resident memory
     * @param stagingInUse staging bytes borrowed now
     * @param registered bytes registered with an RDMA device
     * @param receive receive memory of the accepted connections
     * @param connections accepted connections
     * @param pending pending handshakes
     * @param sendTimeouts connections broken by the send timeout so far
     */
    record Stats(long threads, long osThreads, long descriptors, long rssKib, long stagingInUse, long registered,
            long receive, long connections, long pending, long sendTimeouts) {
        static Stats of(OflServer server) throws IOException {
            long osThreads = -1;
            long rss = -1;
            for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
                if (line.startsWith("Threads:")) {
                    osThreads = Long.parseLong(line.replaceAll("[^0-9]", ""));
                } else if (line.startsWith("VmRSS:")) {
                    rss = Long.parseLong(line.replaceAll("[^0-9]", ""));
                }
            }
            long descriptors;
            try (var fds = Files.list(Path.of("/proc/self/fd"))) {
                descriptors = fds.count();
            }
            ServerStatistics statistics = server.statistics();
            return new Stats(ManagementFactory.getThreadMXBean().getThreadCount(), osThreads, descriptors, rss,
                    ServerMemory.stagingInUseBytes(), registeredBytes(server), ServerMemory.receiveBytes(),
                    server.connectionCount(), ((BootstrapServer) server).pendingHandshakes(),
                    statistics.sendTimeouts());
        }

        private static long registeredBytes(OflServer server) {
            return server.backend().equals("rdma") ? MemlockLimit.registeredBytes() : 0;
        }

        String line() {
            return threads + " " + osThreads + " " + descriptors + " " + rssKib + " " + stagingInUse + " " + registered
                    + " " + receive + " " + connections + " " + pending + " " + sendTimeouts;
        }

        static Stats parse(String line) {
            long[] v = Arrays.stream(line.trim().split(" ")).mapToLong(Long::parseLong).toArray();
            return new Stats(v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7], v[8], v[9]);
        }

        static Stats max(Stats a, Stats b) {
            return new Stats(Math.max(a.threads, b.threads), Math.max(a.osThreads, b.osThreads),
                    Math.max(a.descriptors, b.descriptors), Math.max(a.rssKib, b.rssKib),
                    Math.max(a.stagingInUse, b.stagingInUse), Math.max(a.registered, b.registered),
                    Math.max(a.receive, b.receive), Math.max(a.connections, b.connections),
                    Math.max(a.pending, b.pending), Math.max(a.sendTimeouts, b.sendTimeouts));
        }

        /** Whether this is back to a baseline: no connection, handshake or staging left, threads and descriptors within slack. */
        boolean backTo(Stats baseline) {
            return connections <= baseline.connections && pending == 0 && stagingInUse <= baseline.stagingInUse
                    && receive <= baseline.receive && registered <= baseline.registered
                    && threads <= baseline.threads + SLACK && osThreads <= baseline.osThreads + SLACK
                    && descriptors <= baseline.descriptors + SLACK;
        }
    }

    // ---------------------------------------------------------------------------------------------
    // Well-behaved clients

    /** Clients from 127.0.0.1 that connect, call once with a 4 KiB response, and close. */
    static final class GoodClients {
        private final InetSocketAddress server;
        private final String backend;
        private final boolean keysOn;
        private final Arena arena = Arena.ofShared();
        private final MemorySegment memory = arena.allocate(GOOD_RESPONSE);

        /** What a round of well-behaved clients got. */
        record Result(int attempts, int served, long p50Ns, long p99Ns, Map<String, Integer> failures) {
            double share() {
                return attempts == 0 ? 0 : 100.0 * served / attempts;
            }
        }

        GoodClients(InetSocketAddress server, String backend, boolean keysOn) {
            this.server = server;
            this.backend = backend;
            this.keysOn = keysOn;
        }

        void warmUp(int calls) {
            Result warm = attempt(calls);
            if (warm.served() < calls) {
                throw new IllegalStateException("without an attack only " + warm.served() + " of " + calls
                        + " calls were served: " + warm.failures());
            }
        }

        Result attempt(int attempts) {
            long[] took = new long[attempts];
            int served = 0;
            Map<String, Integer> failures = new LinkedHashMap<>();
            for (int i = 0; i < attempts; i++) {
                long startNs = System.nanoTime();
                String failure = callOnce((byte) (i + 1));
                took[i] = System.nanoTime() - startNs;
                if (failure == null && took[i] <= SERVED_WITHIN_NS) {
                    served++;
                } else {
                    failures.merge(failure == null ? "OK but later than 1 s" : failure, 1, Integer::sum);
                }
                try {
                    Thread.sleep(50);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    break;
                }
            }
            long[] sorted = took.clone();
            Arrays.sort(sorted);
            return new Result(attempts, served, sorted[attempts / 2],
                    sorted[Math.min(attempts - 1, (int) Math.ceil(attempts * 0.99) - 1)], failures);
        }

        /** One connect and call; {@code null} if served, else a short reason. */
        private String callOnce(byte generation) {
            ClientConfig.Builder builder = ClientConfig.builder().backend(backend).server(server)
                    .localAddress(InetAddress.getLoopbackAddress()).serviceName(SERVICE)
                    .connectTimeout(java.time.Duration.ofSeconds(1));
            if (keysOn) {
                builder.authenticationKey(KEY_ID, KEY);
            }
            try (OflClient client = Ofl.connect(builder.build())) {
                Region region = client.registerRegion(memory);
                Completion completion = new Completion();
                int status = client.call(1, generation, 0, new ResponseRanges().add(region, 0, GOOD_RESPONSE),
                        SERVED_WITHIN_NS, completion);
                if (status != OflStatus.OK) {
                    return OflStatus.name(status);
                }
                for (long at = 0; at < GOOD_RESPONSE; at++) {
                    if (memory.get(ValueLayout.JAVA_BYTE, at) != generation) {
                        return "wrong bytes";
                    }
                }
                return null;
            } catch (RuntimeException e) {
                String message = String.valueOf(e.getMessage()).replaceAll(":[0-9]+", "").replaceAll("[0-9]+ ms", "N ms");
                return e.getClass().getSimpleName() + ": " + message.substring(0, Math.min(90, message.length()));
            }
        }
    }

    // ---------------------------------------------------------------------------------------------
    // Report

    /** One attack's figures. */
    record Cell(Attack attack, int sources, boolean keysOn, GoodClients.Result good, Stats before, Stats during,
            Stats after, String attackSummary) {
        static final String HEADER = String.format(Locale.ROOT, "%-16s %3s %4s  %7s %8s  %-30s %-30s %-30s %s",
                "attack", "src", "keys", "served", "p99", "threads/fds/RSS MiB before", "during (peak)", "after",
                "staging MiB, registered MiB during / after; attackers");

        boolean meetsTargets() {
            return good.share() >= 95.0 && after.backTo(before);
        }

        String row() {
            return String.format(Locale.ROOT, "%-16s %3d %4s  %6.1f%% %6.0f ms  %-30s %-30s %-30s %.1f, %.1f / %.1f, %.1f; %s%s",
                    attack.label(), sources, keysOn ? "on" : "off", good.share(), good.p99Ns() / 1e6, resources(before),
                    resources(during), resources(after) + (after.backTo(before) ? "" : " NOT BACK"),
                    mib(during.stagingInUse()), mib(during.registered()), mib(after.stagingInUse()),
                    mib(after.registered()), attackSummary, good.failures().isEmpty() ? "" : "; failed: "
                            + good.failures());
        }

        private static String resources(Stats s) {
            return s.threads() + "/" + s.osThreads() + " thr, " + s.descriptors() + " fd, "
                    + String.format(Locale.ROOT, "%.0f", s.rssKib() / 1024.0);
        }

        private static double mib(long bytes) {
            return bytes / (1024.0 * 1024.0);
        }

        static String json(List<Cell> cells) {
            StringBuilder json = new StringBuilder("[\n");
            for (int i = 0; i < cells.size(); i++) {
                Cell c = cells.get(i);
                json.append(String.format(Locale.ROOT, "  {\"attack\": \"%s\", \"sources\": %d, \"keys\": %b, "
                        + "\"attempts\": %d, \"served\": %d, \"p50_ms\": %.1f, \"p99_ms\": %.1f, \"before\": %s, "
                        + "\"during\": %s, \"after\": %s, \"back_to_baseline\": %b, \"meets_targets\": %b}%s%n",
                        c.attack().label(), c.sources(), c.keysOn(), c.good().attempts(), c.good().served(),
                        c.good().p50Ns() / 1e6, c.good().p99Ns() / 1e6, stats(c.before()), stats(c.during()),
                        stats(c.after()), c.after().backTo(c.before()), c.meetsTargets(),
                        i + 1 < cells.size() ? "," : ""));
            }
            return json.append("]\n").toString();
        }

        private static String stats(Stats s) {
            return String.format(Locale.ROOT, "{\"threads\": %d, \"os_threads\": %d, \"descriptors\": %d, "
                    + "\"rss_kib\": %d, \"staging_in_use\": %d, \"registered\": %d, \"receive\": %d, "
                    + "\"connections\": %d, \"pending\": %d, \"send_timeouts\": %d}", s.threads(), s.osThreads(),
                    s.descriptors(), s.rssKib(), s.stagingInUse(), s.registered(), s.receive(), s.connections(),
                    s.pending(), s.sendTimeouts());
        }
    }

    /** A running attack. */
    interface Attacker {
        /** Stops the attack and closes its sockets; idempotent. */
        void stop() throws InterruptedException;

        /** What the attack did, in a few words. */
        String summary();
    }

    /** Limits a hostile HELLO proposes, and a good client's. */
    static final Limits LIMITS = Limits.CLIENT_DEFAULTS;
}
