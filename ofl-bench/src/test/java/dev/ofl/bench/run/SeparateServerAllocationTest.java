package dev.ofl.bench.run;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * The benchmark's server runs in a process of its own, as on a real pair of hosts, and its
 * busy-polling TCP connection thread must allocate nothing per request. Inside one JVM that thread
 * is compiled by C2, whose escape analysis removes short-lived objects; in a process whose cores
 * all spin, C2 can be starved for seconds, and C1 code allocates every object it makes. So this
 * server runs with {@code -XX:TieredStopAtLevel=1}: C1 only, for the whole run. An errno capture
 * on the socket calls allocated 40 bytes per call there.
 */
@Timeout(300)
class SeparateServerAllocationTest {
    private static final int REQUESTS = 20_000;

    @Test
    void aBusyTcpServerInItsOwnProcessAllocatesNothingPerRequestEvenAsC1Code(@TempDir Path dir) throws Exception {
        int port = freePort();
        List<String> command = Compare.java("server", "--bind", "127.0.0.1", "--port", Integer.toString(port),
                "--backend", "tcp", "--wait", "busy");
        command.add(1, "-XX:TieredStopAtLevel=1");
        Process server = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT).start();
        try {
            Compare.awaitLine(server, "ready");
            Path json = dir.resolve("run.json");
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            ByteArrayOutputStream log = new ByteArrayOutputStream();
            int exit = new CommandLine(new BenchClient(new PrintStream(out, true, StandardCharsets.UTF_8),
                    new PrintStream(log, true, StandardCharsets.UTF_8))).execute("--server", "127.0.0.1", "--port",
                    Integer.toString(port), "--backend", "tcp", "--wait", "busy", "--cases", "64/64", "--response",
                    "inplace,copy", "--repeats", "1", "--iterations", Integer.toString(REQUESTS), "--warmup", "2000",
                    "--warmup-ms", "0", "--json", json.toString());
            String output = out.toString(StandardCharsets.UTF_8) + log.toString(StandardCharsets.UTF_8);
            assertEquals(0, exit, output);
            JsonNode root = new ObjectMapper().readTree(json.toFile());
            assertEquals(0, root.get("badChecks").asLong(), output);
            assertEquals(0, root.get("errors").asLong(), output);
            // Two variants, two blocks each (ABBA). A one-time allocation (linking a call site the
            // first time it runs, C1 code made again after a class load) lands in one block; a
            // per-call one in both. So each variant's better block must allocate under one byte per
            // request: the CPU queries around a block are counted too, a few hundred bytes.
            Map<String, Double> best = new TreeMap<>();
            for (JsonNode b : root.get("blocks")) {
                double perRequest = (double) b.get("serverThreadAllocatedBytes").asLong(-1) / b.get("requests").asLong();
                assertTrue(perRequest >= 0, "the server reported its allocation\n" + output);
                best.merge(b.get("variant").asText(), perRequest, Math::min);
            }
            assertEquals(2, best.size(), output);
            best.forEach((variant, perRequest) -> assertTrue(perRequest < 1, variant + ": the server connection "
                    + "thread allocated " + perRequest + " B per request in its better block\n" + output));
        } finally {
            server.destroy();
            if (!server.waitFor(30, TimeUnit.SECONDS)) {
                server.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
            }
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket()) {
            socket.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            return socket.getLocalPort();
        }
    }
}
