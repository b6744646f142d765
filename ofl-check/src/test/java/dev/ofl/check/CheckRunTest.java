package dev.ofl.check;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The command run in this process against 127.0.0.1, over TCP and over softverbs: what it prints,
 * and its exit status when every check passes and when one cannot.
 */
class CheckRunTest {
    /** The link checks, in the order they run. */
    private static final List<String> LINK_CHECKS = List.of("link.connect", "link.echo-64", "link.echo-max-request",
            "link.rows-288", "link.rows-4096-in-16-ranges", "link.rows-49152", "link.refusal-leaves-connection-usable",
            "link.handler-failure-leaves-connection-usable", "link.pipelined-in-flight",
            "link.timeout-is-fatal-and-nothing-lands-late", "link.reconnect-keeps-payload-address",
            "link.wrong-service-refused", "link.limits-beyond-server-refused", "link.bandwidth");

    @Test
    void tcpLinkChecksPassWithOneLineEachAndASummary() {
        int port = CheckRun.freePort();
        CheckRun run = CheckRun.of("--backend", "tcp", "--ip", "127.0.0.1", "--port", Integer.toString(port),
                "--checks", "link");

        assertEquals(Check.PASSED, run.exitStatus(), run::toString);
        List<String> lines = run.checkLines();
        assertEquals(1 + LINK_CHECKS.size(), lines.size(), run::toString);
        assertEquals("PASS backend.available: tcp can run here", lines.getFirst(), run::toString);
        for (int i = 0; i < LINK_CHECKS.size(); i++) {
            assertTrue(lines.get(i + 1).startsWith("PASS " + LINK_CHECKS.get(i) + ": "), run::toString);
        }
        assertTrue(run.line("link.connect").contains("/127.0.0.1:" + port + " over tcp"), run::toString);
        assertTrue(run.out().contains("ofl check: tcp on 127.0.0.1:" + port + ", both ends in this process"),
                run::toString);
        assertEquals((1 + LINK_CHECKS.size()) + " passed, 0 failed", run.out().strip().lines().toList().getLast(),
                run::toString);
    }

    /**
     * The whole default run: the link checks, then every conformance behaviour. Over TCP here; the
     * same run over softverbs is what {@code ./ofl check --backend rdma} does, and the RDMA
     * backend's own build runs the suite over softverbs already.
     */
    @Test
    void theDefaultRunIsTheLinkChecksAndTheConformanceSuiteAsJson() {
        CheckRun run = CheckRun.of("--backend", "tcp", "--ip", "127.0.0.1", "--port",
                Integer.toString(CheckRun.freePort()), "--json");

        assertEquals(Check.PASSED, run.exitStatus(), run::toString);
        JsonNode json = run.json();
        assertEquals("tcp", json.get("backend").asText());
        assertEquals("local", json.get("mode").asText());
        assertEquals(0, json.get("failed").asInt(), run::toString);
        List<String> names = new ArrayList<>();
        json.get("checks").forEach(check -> names.add(check.get("name").asText()));
        assertTrue(names.containsAll(LINK_CHECKS), run::toString);
        for (String behaviour : new String[] {"EchoAndRanges", "RefusalAndFailure", "Timeouts", "Reconnect",
            "LimitsAndBootstrap", "Concurrency", "Shutdown", "Statistics", "Threading"}) {
            assertTrue(names.stream().anyMatch(n -> n.startsWith("conformance." + behaviour + ".")),
                    () -> behaviour + " did not run\n" + run);
        }
        assertTrue(names.contains("conformance.EchoAndRanges.rowsStreamedInSeveralCommitsArriveIntact"
                + "[49152_rows_of_256_bytes]"), run::toString);
        assertEquals(names.size(), json.get("passed").asInt(), run::toString);
        // With --json the lines go to standard error, the summary last.
        assertTrue(run.err().contains("PASS link.rows-49152: "), run::toString);
        assertTrue(run.err().contains(names.size() + " passed, 0 failed"), run::toString);
    }

    @Test
    void rdmaLinkChecksPassOverSoftverbs() {
        CheckRun run = CheckRun.of("--backend", "rdma", "--ip", "127.0.0.1", "--port",
                Integer.toString(CheckRun.freePort()), "--library", CheckRun.softverbs(), "--checks", "link");

        assertEquals(Check.PASSED, run.exitStatus(), run::toString);
        assertTrue(run.line("link.connect").contains(" over rdma"), run::toString);
        assertTrue(run.out().strip().endsWith((1 + LINK_CHECKS.size()) + " passed, 0 failed"), run::toString);
    }

    /**
     * {@code --min-gbps}: a threshold no link here reaches fails {@code link.bandwidth} alone, with
     * the figures and the threshold; one every link reaches passes it; a negative one is a usage error.
     */
    @Test
    void aBandwidthBelowMinGbpsFailsTheBandwidthCheckAlone() {
        CheckRun slow = CheckRun.of("--backend", "tcp", "--ip", "127.0.0.1", "--port",
                Integer.toString(CheckRun.freePort()), "--checks", "link", "--min-gbps", "100000");
        assertEquals(Check.FAILED, slow.exitStatus(), slow::toString);
        String line = slow.line("link.bandwidth");
        assertTrue(line.startsWith("FAIL link.bandwidth: 8 responses of ") && line.contains("every byte checked")
                && line.contains("below --min-gbps 100000.0"), slow::toString);
        assertTrue(slow.out().strip().endsWith(LINK_CHECKS.size() + " passed, 1 failed"), slow::toString);

        CheckRun fast = CheckRun.of("--backend", "tcp", "--ip", "127.0.0.1", "--port",
                Integer.toString(CheckRun.freePort()), "--checks", "link", "--min-gbps", "0.001");
        assertEquals(Check.PASSED, fast.exitStatus(), fast::toString);
        assertTrue(fast.line("link.bandwidth").contains("at least --min-gbps 0.001"), fast::toString);

        CheckRun negative = CheckRun.of("--backend", "tcp", "--ip", "127.0.0.1", "--port",
                Integer.toString(CheckRun.freePort()), "--min-gbps", "-1");
        assertEquals(64, negative.exitStatus(), negative::toString);
        assertTrue(negative.err().contains("--min-gbps must be a number of Gb/s, 0 or more"), negative::toString);
    }

    @Test
    void connectingWhereNothingListensFailsEveryLinkCheck() {
        int port = CheckRun.freePort();
        CheckRun run = CheckRun.of("--backend", "tcp", "--ip", "127.0.0.1", "--port", Integer.toString(port),
                "--connect");

        assertEquals(Check.FAILED, run.exitStatus(), run::toString);
        assertTrue(run.line("link.connect").startsWith("FAIL link.connect: ")
                && run.line("link.connect").contains("127.0.0.1:" + port), run::toString);
        for (String check : LINK_CHECKS.subList(1, LINK_CHECKS.size())) {
            assertEquals("FAIL " + check + ": not run: link.connect failed", run.line(check), run::toString);
        }
        assertTrue(run.out().strip().endsWith("1 passed, " + LINK_CHECKS.size() + " failed"), run::toString);
    }

    /** The backend properties reach the servers and clients: a device no host has fails, naming the ones present. */
    @Test
    void aDeviceThatIsNotThereFailsNamingTheDevicesPresent() {
        CheckRun run = CheckRun.of("--backend", "rdma", "--ip", "127.0.0.1", "--port",
                Integer.toString(CheckRun.freePort()), "--library", CheckRun.softverbs(), "--device", "mlx5_9",
                "--checks", "link");

        assertEquals(Check.FAILED, run.exitStatus(), run::toString);
        String serve = run.line("link.serve");
        assertTrue(serve.startsWith("FAIL link.serve: ") && serve.contains("mlx5_9"), run::toString);
        assertTrue(run.out().strip().endsWith("1 passed, 1 failed"), run::toString);
    }

    /**
     * With a key file both ends authenticate, a client without the key is refused, and the limits
     * asked for are the ones negotiated.
     */
    @Test
    void aKeyFileMakesBothEndsAuthenticateAndRefuseAClientWithoutIt(@TempDir Path dir) throws IOException {
        Path keyFile = dir.resolve("link.key");
        Files.write(keyFile, new SecureRandom().generateSeed(32));
        Files.setPosixFilePermissions(keyFile, PosixFilePermissions.fromString("rw-------"));
        int port = CheckRun.freePort();
        CheckRun run = CheckRun.of("--backend", "tcp", "--ip", "127.0.0.1", "--port", Integer.toString(port),
                "--checks", "link", "--key-file", keyFile.toString(), "--key-id", "4000000000",
                "--max-request-bytes", "8192", "--max-in-flight", "4");

        assertEquals(Check.PASSED, run.exitStatus(), run::toString);
        assertEquals(2 + LINK_CHECKS.size(), run.checkLines().size(), run::toString);
        assertTrue(run.line("link.unauthenticated-refused").startsWith("PASS ")
                && run.line("link.unauthenticated-refused").contains("AUTHENTICATION_REQUIRED"), run::toString);
        assertTrue(run.line("link.connect").contains("request 8192 B") && run.line("link.connect").contains(
                "4 in flight") && run.line("link.connect").contains("authenticated both ways"), run::toString);
        assertTrue(run.out().contains("key id 4000000000"), run::toString);
        assertTrue(!run.out().contains(HexFormat.of().formatHex(Files.readAllBytes(keyFile)).substring(0, 16)),
                "the key is never printed");
    }
}
