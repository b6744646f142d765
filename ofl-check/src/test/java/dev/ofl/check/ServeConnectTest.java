package dev.ofl.check;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * {@code --serve} in a child JVM, as on another host, and {@code --connect} in this one: the link
 * checks pass against it over softverbs, fail against a server of another service name, and the
 * server stops (drained by its shutdown hook) when the process is told to.
 */
class ServeConnectTest {
    private static final long WAIT_SECONDS = 60;

    @Test
    void linkChecksPassAgainstAServerInAnotherProcess() throws Exception {
        int port = CheckRun.freePort();
        try (Served served = Served.start("rdma", port, "ofl-check")) {
            CheckRun run = CheckRun.of("--backend", "rdma", "--ip", "127.0.0.1", "--port", Integer.toString(port),
                    "--connect", "--local-ip", "127.0.0.1", "--library", CheckRun.softverbs());

            assertEquals(Check.PASSED, run.exitStatus(), () -> run + "\n--- server ---\n" + served.output());
            assertTrue(run.out().contains("against a remote ofl check server"), run::toString);
            assertTrue(run.out().strip().endsWith("15 passed, 0 failed"), run::toString);
            assertTrue(run.line("link.timeout-is-fatal-and-nothing-lands-late").startsWith("PASS "), run::toString);
            served.stop();
        }
    }

    @Test
    void aServerOfAnotherServiceFailsTheChecksAndTheExitStatus() throws Exception {
        int port = CheckRun.freePort();
        try (Served served = Served.start("tcp", port, "another-service")) {
            CheckRun run = CheckRun.of("--backend", "tcp", "--ip", "127.0.0.1", "--port", Integer.toString(port),
                    "--connect");

            assertEquals(Check.FAILED, run.exitStatus(), run::toString);
            String connect = run.line("link.connect");
            assertTrue(connect.startsWith("FAIL link.connect: ") && connect.contains("another-service"),
                    run::toString);
            assertTrue(run.out().strip().endsWith("1 passed, 14 failed"), run::toString);
            served.stop();
        }
    }

    /** An {@code ofl check --serve} child process with its output collected line by line. */
    private static final class Served implements AutoCloseable {
        private final Process process;
        private final BlockingQueue<String> lines = new LinkedBlockingQueue<>();
        private final List<String> seen = new ArrayList<>();

        private Served(Process process) {
            this.process = process;
            Thread.ofPlatform().daemon().name("ofl-check-served-output").start(() -> {
                try (BufferedReader reader = new BufferedReader(new InputStreamReader(process.getInputStream(),
                        StandardCharsets.UTF_8))) {
                    for (String line = reader.readLine(); line != null; line = reader.readLine()) {
                        lines.add(line);
                    }
                } catch (IOException e) {
                    lines.add("(reading the server's output failed: " + e + ")");
                }
            });
        }

        /** Starts the server and returns once it says it listens, or fails with what it printed. */
        static Served start(String backend, int port, String service) throws InterruptedException, IOException {
            List<String> command = new ArrayList<>(List.of(
                    ProcessHandle.current().info().command().orElse("java"),
                    "--enable-native-access=ALL-UNNAMED",
                    "-cp", System.getProperty("java.class.path"),
                    Check.class.getName(),
                    "--backend", backend, "--ip", "127.0.0.1", "--port", Integer.toString(port), "--serve",
                    "--service", service));
            if (backend.equals("rdma")) {
                command.addAll(List.of("--library", CheckRun.softverbs()));
            }
            Served served = new Served(new ProcessBuilder(command).redirectErrorStream(true).start());
            served.awaitLine("ofl check: listening on /127.0.0.1:" + port);
            return served;
        }

        private void awaitLine(String prefix) throws InterruptedException {
            long deadlineNs = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_SECONDS);
            while (true) {
                String line = lines.poll(Math.max(0, deadlineNs - System.nanoTime()), TimeUnit.NANOSECONDS);
                if (line == null) {
                    fail("the server never printed '" + prefix + "'; it printed:\n" + output());
                }
                seen.add(line);
                if (line.startsWith(prefix)) {
                    return;
                }
            }
        }

        /** Stops the process as an operator's Ctrl-C or SIGTERM would; it must end within the bound. */
        void stop() throws InterruptedException {
            process.destroy();
            assertTrue(process.waitFor(WAIT_SECONDS, TimeUnit.SECONDS), "the server did not stop on SIGTERM\n"
                    + output());
            // 128 + SIGTERM: the JVM ran its shutdown hooks, among them the server's close().
            assertEquals(143, process.exitValue(), this::output);
        }

        String output() {
            lines.drainTo(seen);
            return String.join("\n", seen);
        }

        @Override
        public void close() {
            if (process.isAlive()) {
                process.destroyForcibly();
                try {
                    process.waitFor(WAIT_SECONDS, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        }
    }
}
