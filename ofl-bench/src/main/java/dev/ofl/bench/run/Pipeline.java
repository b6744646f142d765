package dev.ofl.bench.run;

import dev.ofl.api.ClientConfig;
import dev.ofl.api.Completion;
import dev.ofl.api.Limits;
import dev.ofl.api.Ofl;
import dev.ofl.api.OflClient;
import dev.ofl.api.OflHandler;
import dev.ofl.api.OflServer;
import dev.ofl.api.OflStatus;
import dev.ofl.api.Region;
import dev.ofl.api.ResponseRanges;
import dev.ofl.api.ServerConfig;
import dev.ofl.api.WaitMode;
import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Pipelined throughput: one client keeps {@code --in-flight} requests outstanding against a server
 * in the same process and counts completed requests per second, block after block.
 *
 * <p>With {@code --compare NAME=CLASSPATH,...} it runs each named build's server and client as a
 * child process with that classpath (this class is found first, from this tool's jar; it uses only
 * the public API), in ABBA order, and prints the median of each build side by side, so that a
 * change to the server's data path can be measured before and after in one run. The first and last
 * byte of every response are checked inside the timed loop (the same cost in every build); a wrong
 * byte ends the run with status 1.
 *
 * <pre>
 * ./ofl bench pipeline --backend rdma --in-flight 8 --response-bytes 64,65536
 * ./ofl bench pipeline --compare before=/tmp/before.cp,after=/tmp/after.cp
 * </pre>
 */
public final class Pipeline {
    private static final int OP = 1;

    private Pipeline() {
    }

    /**
     * Runs the measurement.
     *
     * @param args {@code --backend}, {@code --wait}, {@code --in-flight}, {@code --response-bytes}
     *     (comma-separated), {@code --requests} per block, {@code --blocks} per run,
     *     {@code --repeats} (ABBA rounds with {@code --compare}), {@code --compare}
     * @throws Exception if a run fails
     */
    public static void main(String[] args) throws Exception {
        Map<String, String> options = new LinkedHashMap<>();
        options.put("backend", "rdma");
        options.put("wait", "blocking");
        options.put("in-flight", "8");
        options.put("response-bytes", "64,65536");
        options.put("requests", "20000");
        options.put("blocks", "3");
        options.put("repeats", "2");
        for (int i = 0; i < args.length; i++) {
            if (args[i].equals("--help")) {
                System.out.println("options: --backend rdma|tcp --wait blocking|busy --in-flight N --response-bytes "
                        + "A,B --requests N --blocks N --repeats N --compare NAME=CLASSPATH,...");
                return;
            }
            if (!args[i].startsWith("--") || i + 1 >= args.length) {
                throw new IllegalArgumentException("expected --option value, found " + args[i]);
            }
            options.put(args[i].substring(2), args[++i]);
        }
        if (options.containsKey("compare")) {
            compare(options);
            return;
        }
        int inFlight = Integer.parseInt(options.get("in-flight"));
        for (String size : options.get("response-bytes").split(",")) {
            int responseBytes = Integer.parseInt(size.strip());
            double[] rates = run(options.get("backend"), options.get("wait"), inFlight, responseBytes,
                    Integer.parseInt(options.get("requests")), Integer.parseInt(options.get("blocks")));
            for (double rate : rates) {
                System.out.printf(Locale.ROOT, "block %d %.0f%n", responseBytes, rate);
            }
        }
    }

    /** Runs blocks of pipelined requests; returns requests per second of each block. */
    private static double[] run(String backend, String wait, int inFlight, int responseBytes, int requests,
            int blocks) {
        WaitMode mode = wait.equals("busy") ? WaitMode.BUSY_POLL : WaitMode.BLOCKING;
        Limits limits = new Limits(64, Math.max(responseBytes, 64), 1, inFlight);
        OflHandler handler = (request, response) -> {
            long n = response.capacity();
            MemorySegment buffer = response.buffer();
            long at = response.committed();
            buffer.asSlice(at, n).fill((byte) request.generation());
            response.commit(n);
            return 0;
        };
        ServerConfig serverConfig = ServerConfig.builder().backend(backend)
                .bind(new InetSocketAddress("127.0.0.1", 0)).serviceName("pipeline").limits(limits).waitMode(mode)
                .build();
        try (OflServer server = Ofl.serve(serverConfig, handler);
                Arena arena = Arena.ofShared();
                OflClient client = Ofl.connect(ClientConfig.builder().backend(backend).server(server.localAddress())
                        .serviceName("pipeline").limits(limits).waitMode(mode).build())) {
            MemorySegment memory = arena.allocate((long) responseBytes * inFlight, 4096);
            Region region = client.registerRegion(memory);
            ResponseRanges[] ranges = new ResponseRanges[inFlight];
            for (int i = 0; i < inFlight; i++) {
                ranges[i] = new ResponseRanges().add(region, (long) i * responseBytes, responseBytes);
            }
            Completion completion = new Completion();
            long[] tickets = new long[inFlight];
            long[] generations = new long[inFlight];
            double[] rates = new double[blocks];
            long generation = 0;
            // The first block warms up and is not reported.
            for (int block = -1; block < blocks; block++) {
                long startNs = System.nanoTime();
                int submitted = 0;
                int completed = 0;
                while (completed < requests) {
                    int slot = completed % inFlight;
                    if (submitted < requests && submitted - completed < inFlight) {
                        int s = submitted % inFlight;
                        generations[s] = ++generation;
                        tickets[s] = client.submit(OP, generations[s], 0, ranges[s]);
                        if (tickets[s] < 0) {
                            throw new IllegalStateException("submit returned " + OflStatus.name((int) tickets[s]));
                        }
                        submitted++;
                        continue;
                    }
                    int status = client.await(tickets[slot], System.nanoTime() + 10_000_000_000L, completion);
                    if (status != OflStatus.OK || completion.responseLength() != responseBytes) {
                        throw new IllegalStateException("request " + completed + " ended " + OflStatus.name(status)
                                + " with " + completion.responseLength() + " bytes");
                    }
                    byte expected = (byte) generations[slot];
                    long offset = (long) slot * responseBytes;
                    if (memory.get(ValueLayout.JAVA_BYTE, offset) != expected
                            || memory.get(ValueLayout.JAVA_BYTE, offset + responseBytes - 1) != expected) {
                        System.err.println("wrong response bytes for request " + completed);
                        System.exit(1);
                    }
                    completed++;
                }
                double seconds = (System.nanoTime() - startNs) / 1e9;
                if (block >= 0) {
                    rates[block] = requests / seconds;
                }
            }
            return rates;
        }
    }

    /** Runs each build as a child process in ABBA order and prints medians side by side. */
    private static void compare(Map<String, String> options) throws IOException, InterruptedException {
        Map<String, String> builds = new LinkedHashMap<>();
        for (String entry : options.get("compare").split(",")) {
            String[] parts = entry.split("=", 2);
            builds.put(parts[0], parts[1]);
        }
        String self = Pipeline.class.getProtectionDomain().getCodeSource().getLocation().getPath();
        List<String> names = new ArrayList<>(builds.keySet());
        Map<String, Map<Integer, List<Double>>> results = new LinkedHashMap<>();
        int repeats = Integer.parseInt(options.get("repeats"));
        List<String> order = new ArrayList<>();
        for (int r = 0; r < repeats; r++) {
            order.addAll(names);
            List<String> back = new ArrayList<>(names);
            java.util.Collections.reverse(back);
            order.addAll(back);
        }
        for (String name : order) {
            List<String> command = new ArrayList<>(List.of(
                    ProcessHandle.current().info().command().orElse("java"),
                    "--enable-native-access=ALL-UNNAMED",
                    "-Dofl.verbs.library=" + System.getProperty("ofl.verbs.library", ""),
                    "-cp", self + File.pathSeparator + builds.get(name), Pipeline.class.getName()));
            for (String key : List.of("backend", "wait", "in-flight", "response-bytes", "requests", "blocks")) {
                command.add("--" + key);
                command.add(options.get(key));
            }
            Process process = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT).start();
            try (BufferedReader out = new BufferedReader(new InputStreamReader(process.getInputStream(),
                    StandardCharsets.UTF_8))) {
                String line;
                while ((line = out.readLine()) != null) {
                    String[] fields = line.split(" ");
                    if (fields.length == 3 && fields[0].equals("block")) {
                        results.computeIfAbsent(name, k -> new LinkedHashMap<>())
                                .computeIfAbsent(Integer.parseInt(fields[1]), k -> new ArrayList<>())
                                .add(Double.parseDouble(fields[2]));
                    }
                }
            }
            if (process.waitFor() != 0) {
                throw new IllegalStateException("the " + name + " run failed with status " + process.exitValue());
            }
            System.err.printf(Locale.ROOT, "ran %s%n", name);
        }
        System.out.printf(Locale.ROOT, "# %s, wait %s, in flight %s, %s requests per block; median requests/s "
                + "(blocks)%n", options.get("backend"), options.get("wait"), options.get("in-flight"),
                options.get("requests"));
        StringBuilder header = new StringBuilder(String.format(Locale.ROOT, "%-16s", "response bytes"));
        for (String name : names) {
            header.append(String.format(Locale.ROOT, "%22s", name));
        }
        System.out.println(header);
        for (String size : options.get("response-bytes").split(",")) {
            int bytes = Integer.parseInt(size.strip());
            StringBuilder row = new StringBuilder(String.format(Locale.ROOT, "%-16d", bytes));
            for (String name : names) {
                List<Double> rates = results.getOrDefault(name, Map.of()).getOrDefault(bytes, List.of());
                double[] sorted = rates.stream().mapToDouble(Double::doubleValue).sorted().toArray();
                double median = sorted.length == 0 ? Double.NaN : sorted.length % 2 == 1 ? sorted[sorted.length / 2]
                        : (sorted[sorted.length / 2 - 1] + sorted[sorted.length / 2]) / 2;
                row.append(String.format(Locale.ROOT, "%14.0f (n=%2d)", median, sorted.length));
            }
            System.out.println(row);
        }
        System.out.println("# all blocks: " + results);
    }
}
