package dev.ofl.bench.run;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.BufferedReader;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
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
 * on the socket calls allocated 40 bytes per call there (544 B per request with the spin's recvs).
 */
@Timeout(value = 300, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class SeparateServerAllocationTest {
    private static final int REQUESTS = 20_000;

    private Process server;

    @AfterEach
    void stopServer() throws InterruptedException {
        if (server != null) {
            server.destroy();
            if (!server.waitFor(30, TimeUnit.SECONDS)) {
                server.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
            }
        }
    }

    @Test
    void aBusyTcpServerInItsOwnProcessAllocatesNothingPerRequestEvenAsC1Code(@TempDir Path dir) throws Exception {
        List<String> command = Compare.java("server", "--bind", "127.0.0.1", "--port", "0", "--backend", "tcp",
                "--wait", "busy");
        command.add(1, "-XX:TieredStopAtLevel=1");
        // At INFO the transport says when it falls back to Java NIO (the bench logs warnings only).
        command.add(1, "-Dorg.slf4j.simpleLogger.log.dev.ofl.tcp=info");
        Path serverLog = dir.resolve("server.log");
        server = new ProcessBuilder(command).redirectError(serverLog.toFile()).start();
        int port = listeningPort(server);
        Path json = dir.resolve("run.json");
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream log = new ByteArrayOutputStream();
        int exit = new CommandLine(new BenchClient(new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(log, true, StandardCharsets.UTF_8))).execute("--server", "127.0.0.1", "--port",
                Integer.toString(port), "--backend", "tcp", "--wait", "busy", "--cases", "64/64", "--response",
                "inplace,copy", "--repeats", "2", "--iterations", Integer.toString(REQUESTS), "--warmup", "2000",
                "--warmup-ms", "0", "--json", json.toString());
        String output = out.toString(StandardCharsets.UTF_8) + log.toString(StandardCharsets.UTF_8);
        assertEquals(0, exit, output);
        String serverOutput = Files.readString(serverLog);
        assertFalse(serverOutput.contains("through Java NIO"), "the server must make direct socket calls, the path "
                + "under test:\n" + serverOutput);
        JsonNode root = new ObjectMapper().readTree(json.toFile());
        assertEquals(0, root.get("badChecks").asLong(), output);
        assertEquals(0, root.get("errors").asLong(), output);
        // Two variants, four blocks each (ABBA twice). A one-time allocation (linking a call site
        // the first time it runs, C1 code made again after a class load) lands in a block or two
        // (once seen on a loaded machine: about 65 KB in both blocks of one variant, with 2-5 ms
        // stalls); a per-call one in all four. So each variant's best block must allocate under
        // one byte per request: the CPU queries around a block are counted too, a few hundred bytes.
        Map<String, Double> best = new TreeMap<>();
        for (JsonNode b : root.get("blocks")) {
            double perRequest = (double) b.get("serverThreadAllocatedBytes").asLong(-1) / b.get("requests").asLong();
            assertTrue(perRequest >= 0, "the server reported its allocation\n" + output);
            best.merge(b.get("variant").asText(), perRequest, Math::min);
        }
        assertEquals(8, root.get("blocks").size(), output);
        assertEquals(2, best.size(), output);
        best.forEach((variant, perRequest) -> assertTrue(perRequest < 1, variant + ": the server connection "
                + "thread allocated " + perRequest + " B per request in the best of its four blocks\n" + output));
    }

    /** The port of the server's one {@code listening tcp busy ADDRESS:PORT} line, read until {@code ready}. */
    private static int listeningPort(Process process) throws IOException {
        BufferedReader reader = new BufferedReader(new InputStreamReader(process.getInputStream(),
                StandardCharsets.UTF_8));
        int port = -1;
        StringBuilder seen = new StringBuilder();
        for (String line; (line = reader.readLine()) != null; ) {
            seen.append(line).append('\n');
            if (line.startsWith("listening tcp busy ")) {
                port = Integer.parseInt(line.substring(line.lastIndexOf(':') + 1));
            } else if (line.startsWith("ready")) {
                assertTrue(port > 0, seen.toString());
                return port;
            }
        }
        throw new IOException("the server ended before it was ready; its output:\n" + seen);
    }
}
