package dev.ofl.bench.run;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.ofl.api.Limits;
import dev.ofl.api.Ofl;
import dev.ofl.api.OflServer;
import dev.ofl.api.ServerConfig;
import dev.ofl.api.WaitMode;
import java.io.BufferedReader;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.io.StringReader;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * {@code client --paced}, as {@code ofl bench compare} interleaves it with the C peer: a block runs
 * only on a turn read from the input, on a connection of its own, and each block done is a line
 * compare parses.
 */
@Timeout(value = 120, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class PacedClientTest {
    @Test
    void blocksRunOnTheirTurnsOnlyEachOnItsOwnConnection(@TempDir Path dir) throws Exception {
        Path json = dir.resolve("run.json");
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream log = new ByteArrayOutputStream();
        int exit;
        long accepted;
        try (ExchangeHandler handler = new ExchangeHandler(-1);
                OflServer server = Ofl.serve(ServerConfig.builder()
                        .backend("tcp")
                        .bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))
                        .serviceName(BenchServer.SERVICE)
                        .limits(new Limits(4096, 1 << 20, 1, 1))
                        .waitMode(WaitMode.BLOCKING)
                        .build(), handler)) {
            int base = server.localAddress().getPort() - BenchServer.port(0, "tcp", WaitMode.BLOCKING);
            // Two turns for a schedule of four blocks: the input ends after the second.
            BenchClient client = new BenchClient(new PrintStream(out, true, StandardCharsets.UTF_8),
                    new PrintStream(log, true, StandardCharsets.UTF_8),
                    new ByteArrayInputStream("go\ngo\n".getBytes(StandardCharsets.UTF_8)));
            exit = new CommandLine(client).execute("--server", "127.0.0.1", "--port", Integer.toString(base),
                    "--backend", "tcp", "--wait", "blocking", "--cases", "64/64", "--response", "inplace",
                    "--repeats", "2", "--iterations", "50", "--warmup", "10", "--warmup-ms", "0",
                    "--warmup-jit-quiet-ms", "0", "--timeout-ms", Long.toString(TimeUnit.SECONDS.toMillis(30)),
                    "--json", json.toString(), "--paced");
            accepted = server.statistics().connectionsAccepted();
        }
        String output = out.toString(StandardCharsets.UTF_8) + log.toString(StandardCharsets.UTF_8);
        assertEquals(0, exit, output);
        assertEquals(2, accepted, "one connection per block: " + output);
        JsonNode root = new ObjectMapper().readTree(json.toFile());
        assertEquals(2, root.get("blocks").size(), output);
        Compare compare = new Compare(new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8),
                new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8));
        BufferedReader lines = new BufferedReader(new StringReader(out.toString(StandardCharsets.UTF_8)));
        List<Compare.PlainRun> blocks = new ArrayList<>();
        Compare.PlainRun block;
        while ((block = compare.pacedBlock(lines, 64)) != null) {
            blocks.add(block);
        }
        assertEquals(2, blocks.size(), output);
        for (int i = 0; i < blocks.size(); i++) {
            JsonNode recorded = root.get("blocks").get(i);
            assertEquals(50, recorded.get("requests").asLong(), output);
            assertTrue(blocks.get(i).p50Ns() > 0, output);
            assertTrue(blocks.get(i).megabytesPerSecond() > 0, output);
        }
    }

    @Test
    void compareTakesNoFigureFromABlockThatFailedOrRanNothing() throws Exception {
        Compare compare = new Compare(new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8),
                new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8));
        Compare.PlainRun good = compare.pacedBlock(new BufferedReader(new StringReader(
                "ofl-bench noise\nblock 3 p50_ns=6700 mean_ns=8000 requests=20000 mismatches=0 errors=0\n")), 64);
        assertNotNull(good);
        assertEquals(6700, good.p50Ns());
        assertEquals(8.0, good.megabytesPerSecond(), 1e-9);
        assertNull(compare.pacedBlock(new BufferedReader(new StringReader(
                "block 0 p50_ns=6700 mean_ns=8000 requests=20000 mismatches=1 errors=0\n")), 64));
        assertNull(compare.pacedBlock(new BufferedReader(new StringReader(
                "block 0 p50_ns=6700 mean_ns=8000 requests=20000 mismatches=0 errors=2\n")), 64));
        assertNull(compare.pacedBlock(new BufferedReader(new StringReader(
                "block 0 p50_ns=-1 mean_ns=NaN requests=0 mismatches=0 errors=1\n")), 64));
        assertNull(compare.pacedBlock(new BufferedReader(new StringReader("no block line\n")), 64));
    }
}
