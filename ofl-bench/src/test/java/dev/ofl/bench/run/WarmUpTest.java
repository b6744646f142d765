package dev.ofl.bench.run;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.ofl.api.OflServer;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * A block warms up on everything its measured part sends, in the order it sends it: the server
 * CPU query that begins and ends the measured requests comes between warm-up chunks too. Code
 * compiled on exchanges alone was thrown away at the first CPU query, on both ends, and the
 * measured requests paid for compiling it again (multi-millisecond stalls at p99.9).
 */
@Timeout(value = 120, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class WarmUpTest {
    @Test
    void warmUpChunksBeginWithTheCpuQueryThatBracketsTheMeasuredRequests(@TempDir Path dir) throws Exception {
        Run run = run(dir, false);
        assertEquals(0, run.exit, run.output);
        // Two blocks (one ABBA round of one variant) on one connection. Each: five warm-up chunks
        // of a tenth of the measured requests (10), each after a CPU query; then the CPU query,
        // the 100 measured requests and the closing CPU query (next to the next block's first).
        String warmUp = "C E10 ".repeat(5);
        assertEquals(warmUp + "C E100 C2 " + warmUp.substring(2) + "C E100 C", run.ops, run.output);
        JsonNode root = new ObjectMapper().readTree(run.json.toFile());
        assertEquals(2, root.get("blocks").size(), run.output);
        for (JsonNode b : root.get("blocks")) {
            assertEquals(50, b.get("warmups").asLong(), run.output);
            assertEquals(100, b.get("requests").asLong(), run.output);
        }
        assertEquals(0, root.get("badChecks").asLong(), run.output);
        assertEquals(0, root.get("errors").asLong(), run.output);
    }

    /** Warm-up ends at its first failed request: against a server that is gone, each could wait a timeout. */
    @Test
    void warmUpStopsAtTheFirstFailedRequest(@TempDir Path dir) throws Exception {
        Run run = run(dir, true);
        assertEquals(1, run.exit, run.output);
        assertEquals("C E1 C E100 C2 E1 C E100 C", run.ops, run.output);
        JsonNode root = new ObjectMapper().readTree(run.json.toFile());
        assertEquals(2, root.get("blocks").size(), run.output);
        assertEquals(2 * (1 + 100), root.get("errors").asLong(), "every refused request, warm-up's too");
        for (JsonNode b : root.get("blocks")) {
            assertEquals(1, b.get("warmups").asLong(), run.output);
        }
    }

    private record Run(int exit, String ops, String output, Path json) {
    }

    /**
     * Runs a client of two blocks, 50 warm-up and 100 measured requests each, against a server in
     * this JVM that answers CPU queries and either exchanges or refuses them.
     */
    private static Run run(Path dir, boolean refuseExchanges) throws Exception {
        List<Character> ops = Collections.synchronizedList(new ArrayList<>());
        Path json = dir.resolve("run.json");
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        int exit;
        try (ExchangeHandler handler = new ExchangeHandler(-1);
                OflServer server = LoopbackBenchServer.blocking((request, response) -> {
                    boolean exchange = request.op() == ExchangeHandler.OP_EXCHANGE;
                    ops.add(exchange ? 'E' : request.op() == ExchangeHandler.OP_CPU ? 'C' : '?');
                    return exchange && refuseExchanges ? 99 : handler.handle(request, response);
                })) {
            int base = LoopbackBenchServer.basePort(server);
            PrintStream print = new PrintStream(out, true, StandardCharsets.UTF_8);
            exit = new CommandLine(new BenchClient(print, print)).execute("--server", "127.0.0.1", "--port",
                    Integer.toString(base), "--backend", "tcp", "--wait", "blocking", "--cases", "64/64", "--response",
                    "inplace", "--repeats", "1", "--iterations", "100", "--warmup", "50", "--warmup-ms", "0",
                    "--warmup-jit-quiet-ms", "0", "--timeout-ms", Long.toString(TimeUnit.SECONDS.toMillis(30)),
                    "--json", json.toString());
        }
        return new Run(exit, runs(ops), out.toString(StandardCharsets.UTF_8), json);
    }

    /** The ops as runs: "C" for one CPU query, "E10" for ten exchanges, "C2" for two queries in a row. */
    private static String runs(List<Character> ops) {
        StringBuilder s = new StringBuilder();
        synchronized (ops) {
            for (int i = 0; i < ops.size(); ) {
                int j = i;
                while (j < ops.size() && ops.get(j).equals(ops.get(i))) {
                    j++;
                }
                if (!s.isEmpty()) {
                    s.append(' ');
                }
                s.append(ops.get(i));
                if (j - i > 1 || ops.get(i) == 'E') {
                    s.append(j - i);
                }
                i = j;
            }
        }
        return s.toString();
    }
}
