package dev.ofl.bench.run;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.ofl.api.OflServer;
import java.io.BufferedReader;
import java.io.ByteArrayOutputStream;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.PrintStream;
import java.io.StringReader;
import java.nio.channels.Channels;
import java.nio.channels.Pipe;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
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
        ByteArrayOutputStream log = new ByteArrayOutputStream();
        AtomicLong requests = new AtomicLong();
        List<String> said = new ArrayList<>();
        List<Compare.PlainRun> blocks = new ArrayList<>();
        Compare compare = new Compare(new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8),
                new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8));
        try (ExchangeHandler handler = new ExchangeHandler(-1);
                OflServer server = LoopbackBenchServer.blocking((request, response) -> {
                    requests.incrementAndGet();
                    return handler.handle(request, response);
                })) {
            // Operating-system pipes, as compare's to its child: a piped stream of java.io would
            // fail a read once the thread that last wrote it has ended.
            Pipe toClient = Pipe.open();
            Pipe fromClient = Pipe.open();
            OutputStream turns = Channels.newOutputStream(toClient.sink());
            int base = LoopbackBenchServer.basePort(server);
            PrintStream out = new PrintStream(Channels.newOutputStream(fromClient.sink()), true, StandardCharsets.UTF_8);
            BenchClient client = new BenchClient(out, new PrintStream(log, true, StandardCharsets.UTF_8),
                    Channels.newInputStream(toClient.source()));
            FutureTask<Integer> run = new FutureTask<>(() -> {
                try {
                    return new CommandLine(client).execute("--server", "127.0.0.1", "--port", Integer.toString(base),
                            "--backend", "tcp", "--wait", "blocking", "--cases", "64/64", "--response", "inplace",
                            "--repeats", "2", "--iterations", "50", "--warmup", "10", "--warmup-ms", "200",
                            "--warmup-jit-quiet-ms", "0", "--timeout-ms",
                            Long.toString(TimeUnit.SECONDS.toMillis(30)), "--json", json.toString(), "--paced");
                } finally {
                    out.close();
                }
            });
            Thread.ofPlatform().start(run);
            try (BufferedReader lines = new BufferedReader(new InputStreamReader(
                    Channels.newInputStream(fromClient.source()), StandardCharsets.UTF_8))) {
                talk(lines, turns, server, requests, compare, said, blocks, log);
            } finally {
                // The end of its input: a client still waiting for a turn reports and ends.
                turns.close();
            }
            assertEquals(0, run.get(60, TimeUnit.SECONDS), log.toString(StandardCharsets.UTF_8));
            assertEquals(2, server.statistics().connectionsAccepted() - 1, "one connection per block, after the"
                    + " warm-up's");
        }
        String output = log.toString(StandardCharsets.UTF_8);
        assertEquals(List.of("idle", "block", "idle", "block", "idle"), said, output);
        JsonNode root = new ObjectMapper().readTree(json.toFile());
        assertEquals(2, root.get("blocks").size(), output);
        for (int i = 0; i < blocks.size(); i++) {
            assertEquals(50, root.get("blocks").get(i).get("requests").asLong(), output);
            assertTrue(blocks.get(i).p50Ns() > 0, output);
            assertTrue(blocks.get(i).megabytesPerSecond() > 0, output);
        }
    }

    /**
     * Two turns for a schedule of four blocks, as compare gives them; the input ends after the
     * second block, and the client's output is read to its end.
     */
    private static void talk(BufferedReader lines, OutputStream turns, OflServer server, AtomicLong requests,
            Compare compare, List<String> said, List<Compare.PlainRun> blocks, ByteArrayOutputStream log)
            throws Exception {
        for (int turn = 0; turn < 2; turn++) {
            assertTrue(Compare.idle(lines), log.toString(StandardCharsets.UTF_8));
            said.add("idle");
            if (turn == 0) {
                assertTrue(requests.get() > 0, "the warm-up (--warmup-ms) comes before the first turn");
            }
            // Idle means no connection open, and nothing sent until the turn is given.
            awaitNoConnection(server);
            long before = requests.get();
            Thread.sleep(100);
            assertEquals(before, requests.get(), "requests while awaiting a turn");
            turns.write("go\n".getBytes(StandardCharsets.UTF_8));
            turns.flush();
            Compare.PlainRun block = compare.pacedBlock(lines, 64);
            assertNotNull(block, log.toString(StandardCharsets.UTF_8));
            blocks.add(block);
            said.add("block");
            // The block's 10 warm-up and 50 measured requests, and its CPU queries, came on this turn.
            assertTrue(requests.get() - before >= 60, "requests of the block: " + (requests.get() - before));
        }
        assertTrue(Compare.idle(lines));
        said.add("idle");
        turns.close();
        // At the end of its input the client reports (its table) and ends.
        while (lines.readLine() != null) {
            // the table
        }
    }

    /** Waits until the server holds no connection; the client's close reaches it a little later. */
    private static void awaitNoConnection(OflServer server) throws InterruptedException {
        long deadlineNs = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (server.connectionCount() != 0) {
            assertTrue(System.nanoTime() - deadlineNs < 0, "a connection stayed open while the client was idle");
            Thread.sleep(10);
        }
    }

    /** compare's bound on every process it starts: a hung one is stopped, so reading its output ends. */
    @Test
    void aProcessThatOutrunsItsWatchdogIsStoppedAndOneThatEndsIsNot() throws Exception {
        Process hung = new ProcessBuilder("sleep", "600").start();
        Compare.Watchdog stopped = Compare.Watchdog.watch(hung, 100);
        assertEquals(-1, hung.getInputStream().read(), "its output ends once it is stopped");
        assertTrue(hung.waitFor(60, TimeUnit.SECONDS));
        assertTrue(stopped.fired());
        Process quick = new ProcessBuilder("true").start();
        Compare.Watchdog idle = Compare.Watchdog.watch(quick, TimeUnit.MINUTES.toMillis(10));
        assertEquals(0, quick.waitFor());
        assertFalse(idle.fired());
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
