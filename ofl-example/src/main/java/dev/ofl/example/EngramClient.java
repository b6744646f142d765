package dev.ofl.example;

import dev.ofl.api.ClientConfig;
import dev.ofl.api.Completion;
import dev.ofl.api.OflClient;
import dev.ofl.api.OflClientPool;
import dev.ofl.api.OflConnectionException;
import dev.ofl.api.OflException;
import dev.ofl.api.OflStatus;
import dev.ofl.api.ResponseRanges;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.LongAdder;

/**
 * The client of the example: threads look up random rows on several servers through one
 * {@link OflClientPool}, each lease carrying {@code inFlight} pipelined lookups at once, and any
 * lookup that does not come back in time (a fatal timeout, a lost server) is answered from the
 * client's local copy of the table instead. Every row is checked, served or not, and the run ends
 * with the counters the original suite reported.
 *
 * <pre>
 * java -cp ... dev.ofl.example.EngramClient --servers 10.0.0.1:18601,10.0.0.3:18601 --table rows.bin \
 *     --lookups 100000 --rows 16 --in-flight 4 --timeout-ms 2 --threads 4 --backend rdma
 * </pre>
 */
public final class EngramClient {
    private final OflClientPool pool;
    private final List<InetSocketAddress> servers;
    private final EngramTable local;
    private final int rowsPerLookup;
    private final int inFlight;
    private final Duration timeout;

    private final LongAdder lookups = new LongAdder();
    private final LongAdder served = new LongAdder();
    private final LongAdder fallbacks = new LongAdder();
    private final LongAdder transportErrors = new LongAdder();
    private final LongAdder mismatches = new LongAdder();
    private final LongAdder latencyNs = new LongAdder();

    /**
     * A client over a pool.
     *
     * @param pool the shared connections; its regions must hold {@code inFlight × rowsPerLookup} rows
     * @param servers the servers to spread lookups over
     * @param local the client's own copy of the table, for the fallback and for checking rows
     * @param rowsPerLookup rows per lookup
     * @param inFlight lookups pipelined on one lease at a time
     * @param timeout how long a lookup may take before it is answered locally
     */
    public EngramClient(OflClientPool pool, List<InetSocketAddress> servers, EngramTable local, int rowsPerLookup,
            int inFlight, Duration timeout) {
        this.pool = pool;
        this.servers = List.copyOf(servers);
        this.local = local;
        this.rowsPerLookup = rowsPerLookup;
        this.inFlight = inFlight;
        this.timeout = timeout;
    }

    /** The bytes each pooled client's region needs. */
    static long regionBytes(int rowsPerLookup, int inFlight) {
        return (long) rowsPerLookup * inFlight * EngramTable.ROW_BYTES;
    }

    /**
     * Runs {@code batches} rounds of {@code inFlight} lookups on this thread.
     *
     * @param batches how many rounds
     * @param seed the row numbers' random seed
     */
    public void run(int batches, long seed) {
        SplittableRandom random = new SplittableRandom(seed);
        Completion completion = new Completion();
        int[][] rows = new int[inFlight][rowsPerLookup];
        long[] tickets = new long[inFlight];
        long[] started = new long[inFlight];
        long lookupBytes = (long) rowsPerLookup * EngramTable.ROW_BYTES;
        for (int b = 0; b < batches; b++) {
            InetSocketAddress server = servers.get(random.nextInt(servers.size()));
            OflClientPool.Lease borrowed;
            try {
                borrowed = pool.borrow(server, Duration.ofSeconds(5));
            } catch (OflException e) {
                // No connection to be had (refused, unreachable, every place lent for 5 s): the whole
                // batch is answered from the local copy, which the caller then reads directly.
                transportErrors.increment();
                lookups.add(inFlight);
                fallbacks.add(inFlight);
                continue;
            }
            try (OflClientPool.Lease lease = borrowed) {
                OflClient client = lease.client();
                MemorySegment region = lease.region().segment();
                int submitted = 0;
                java.util.Arrays.fill(started, System.nanoTime());
                try {
                    for (; submitted < inFlight; submitted++) {
                        MemorySegment payload = client.requestPayload();
                        for (int i = 0; i < rowsPerLookup; i++) {
                            rows[submitted][i] = random.nextInt(local.count());
                            payload.set(EngramTable.ROW_ID, i * 4L, rows[submitted][i]);
                        }
                        started[submitted] = System.nanoTime();
                        tickets[submitted] = client.submit(EngramServer.OP_LOOKUP, 0, rowsPerLookup * 4,
                                new ResponseRanges().add(lease.region(), submitted * lookupBytes, lookupBytes));
                    }
                } catch (OflException e) {
                    // A client that broke before every lookup was sent: the rest are answered locally.
                    transportErrors.increment();
                }
                boolean broken = false;
                for (int k = 0; k < inFlight; k++) {
                    int status = OflStatus.TIMED_OUT;
                    if (k < submitted && !broken) {
                        try {
                            status = client.await(tickets[k], client.deadlineAfter(timeout), completion);
                        } catch (OflConnectionException e) {
                            transportErrors.increment();
                            status = OflStatus.TIMED_OUT;
                        }
                    }
                    if (status == OflStatus.TIMED_OUT) {
                        // After TIMED_OUT nothing more lands in the region: fill it from the local copy.
                        broken = true;
                        for (int i = 0; i < rowsPerLookup; i++) {
                            local.copyRow(rows[k][i], region, k * lookupBytes + (long) i * EngramTable.ROW_BYTES);
                        }
                        fallbacks.increment();
                    } else if (status == OflStatus.OK) {
                        served.increment();
                    } else {
                        throw new IllegalStateException("lookup refused: " + completion);
                    }
                    lookups.increment();
                    latencyNs.add(System.nanoTime() - started[k]);
                    for (int i = 0; i < rowsPerLookup; i++) {
                        if (!local.holds(rows[k][i], region, k * lookupBytes + (long) i * EngramTable.ROW_BYTES)) {
                            mismatches.increment();
                        }
                    }
                }
            }
        }
    }

    /**
     * The counters so far.
     *
     * @return lookups, served, fallbacks, transport errors, mismatched rows and mean latency
     */
    public Report report() {
        long n = lookups.sum();
        return new Report(n, served.sum(), fallbacks.sum(), transportErrors.sum(), mismatches.sum(),
                n == 0 ? 0 : latencyNs.sum() / 1e3 / n);
    }

    /**
     * What a run did.
     *
     * @param lookups lookups made
     * @param served lookups the server answered in time
     * @param fallbacks lookups answered from the local copy
     * @param transportErrors connections that failed under a lookup (a lost server, a refused send)
     * @param mismatchedRows rows whose bytes were not the table's (always 0)
     * @param meanLatencyMicros mean time from submit to the row being in place, fallbacks included
     */
    public record Report(long lookups, long served, long fallbacks, long transportErrors, long mismatchedRows,
            double meanLatencyMicros) {
        @Override
        public String toString() {
            return String.format(Locale.ROOT, "lookups %d, served %d, fallbacks %d, transport errors %d, "
                    + "mismatched rows %d, mean latency %.1f us", lookups, served, fallbacks, transportErrors,
                    mismatchedRows, meanLatencyMicros);
        }
    }

    /**
     * Runs the client against running servers and prints the report.
     *
     * @param args {@code --servers H:P,H:P} and {@code --table FILE} (required), {@code --lookups N},
     *     {@code --rows N}, {@code --in-flight N}, {@code --timeout-ms 2}, {@code --threads N},
     *     {@code --backend tcp|rdma}, {@code --service NAME}
     * @throws Exception if the table cannot be mapped or a thread fails
     */
    public static void main(String[] args) throws Exception {
        Map<String, String> options = EngramServer.options(args);
        List<InetSocketAddress> servers = new ArrayList<>();
        for (String server : EngramServer.required(options, "servers").split(",")) {
            int colon = server.lastIndexOf(':');
            servers.add(new InetSocketAddress(server.substring(0, colon), Integer.parseInt(server.substring(colon + 1))));
        }
        int lookups = Integer.parseInt(options.getOrDefault("lookups", "10000"));
        int rows = Integer.parseInt(options.getOrDefault("rows", "16"));
        int inFlight = Integer.parseInt(options.getOrDefault("in-flight", "4"));
        int threads = Integer.parseInt(options.getOrDefault("threads", "2"));
        Map<String, String> settings = new HashMap<>();
        settings.put("backend", options.getOrDefault("backend", "tcp"));
        settings.put("server", servers.getFirst().getAddress().getHostAddress() + ":" + servers.getFirst().getPort());
        settings.put("serviceName", options.getOrDefault("service", "engram"));
        settings.put("connectTimeout", "2s");
        ClientConfig template = ClientConfig.builder().settings(settings).build();
        Duration timeout = Duration.ofNanos((long) (Double.parseDouble(options.getOrDefault("timeout-ms", "2")) * 1e6));
        try (Arena arena = Arena.ofShared();
             OflClientPool pool = OflClientPool.builder(template).regionBytes(regionBytes(rows, inFlight))
                     .maxLeasesPerServer(threads).build()) {
            EngramTable table = EngramTable.map(Path.of(EngramServer.required(options, "table")), arena);
            EngramClient client = new EngramClient(pool, servers, table, rows, inFlight, timeout);
            System.out.println(run(client, threads, Math.max(1, lookups / inFlight / threads)));
            System.out.println(pool.statistics());
        }
    }

    /**
     * Runs {@code batches} rounds on each of {@code threads} threads and reports.
     *
     * @param client the client
     * @param threads how many threads share the pool
     * @param batches rounds per thread
     * @return the report
     * @throws Exception if a thread fails
     */
    public static Report run(EngramClient client, int threads, int batches) throws Exception {
        try (ExecutorService workers = Executors.newFixedThreadPool(threads)) {
            List<Future<?>> done = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                long seed = t;
                done.add(workers.submit(() -> client.run(batches, seed)));
            }
            for (Future<?> f : done) {
                f.get();
            }
        }
        return client.report();
    }
}
