package dev.ofl.bench.run;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine;

/**
 * A {@link NioPeer} server run on a thread of its own, on a port the system picks, for tests: it
 * serves one client and ends when that client leaves.
 *
 * @param port the port it listens on
 * @param exit its exit status, once it ended
 */
record NioServerRun(int port, CompletableFuture<Integer> exit) {
    /**
     * Starts the server on 127.0.0.1 and waits up to a minute for its {@code ready PORT} line.
     *
     * @param busy whether it busy-polls
     * @return the running server
     * @throws InterruptedException if interrupted while waiting
     */
    static NioServerRun start(boolean busy) throws InterruptedException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        PrintStream prints = new PrintStream(out, true, StandardCharsets.UTF_8);
        CompletableFuture<Integer> exit = CompletableFuture.supplyAsync(() -> new CommandLine(new NioPeer(prints))
                .execute("--busy=" + busy, "server", "127.0.0.1", "0"));
        Matcher ready = Pattern.compile("ready (\\d+)\n").matcher("");
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (!ready.reset(out.toString(StandardCharsets.UTF_8)).find()) {
            assertTrue(System.nanoTime() - until < 0 && !exit.isDone(), "the NIO server never said it was ready");
            Thread.sleep(10);
        }
        return new NioServerRun(Integer.parseInt(ready.group(1)), exit);
    }
}
