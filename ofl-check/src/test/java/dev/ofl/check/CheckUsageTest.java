package dev.ofl.check;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Options, help and usage errors; none of these runs a check. */
class CheckUsageTest {
    @Test
    void helpExplainsEveryOptionAndEveryExitStatus() {
        CheckRun run = CheckRun.of("--help");

        assertEquals(0, run.exitStatus(), run::toString);
        for (String expected : new String[] {"--backend=NAME", "--ip=ADDR", "--port=P", "--serve", "--connect",
            "--local-ip=ADDR", "--service=NAME", "--library=PATH", "--device=D", "--gid-index=N", "--checks=WHICH",
            "--json", "--key-file=FILE", "--key-id=N", "--max-request-bytes=N", "--max-in-flight=N", "Exit status:", "'N passed"}) {
            assertTrue(run.out().contains(expected), () -> expected + " missing from\n" + run);
        }
        for (int status : new int[] {Check.PASSED, Check.FAILED, Check.USAGE}) {
            assertTrue(run.out().lines().anyMatch(l -> l.matches("\\s+" + status + "\\s+\\S.*")),
                    () -> "exit status " + status + " missing from\n" + run);
        }
    }

    @Test
    void missingRequiredOptionsAreAUsageError() {
        CheckRun run = CheckRun.of("--backend", "tcp", "--ip", "127.0.0.1");

        assertEquals(Check.USAGE, run.exitStatus(), run::toString);
        assertTrue(run.err().contains("Missing required option: '--port=P'"), run::toString);
    }

    @Test
    void rdmaOptionsWithTcpAreAUsageError() {
        CheckRun run = CheckRun.of("--backend", "tcp", "--ip", "127.0.0.1", "--port", "18601", "--device", "mlx5_0");

        assertEquals(Check.USAGE, run.exitStatus(), run::toString);
        assertTrue(run.err().contains("--library, --device and --gid-index are for --backend rdma, not tcp"),
                run::toString);
    }

    @Test
    void portOutOfRangeIsAUsageError() {
        CheckRun run = CheckRun.of("--backend", "tcp", "--ip", "127.0.0.1", "--port", "70000");

        assertEquals(Check.USAGE, run.exitStatus(), run::toString);
        assertTrue(run.err().contains("--port must be 1-65535, got 70000"), run::toString);
    }

    @Test
    void serveAndConnectExcludeEachOther() {
        CheckRun run = CheckRun.of("--backend", "tcp", "--ip", "127.0.0.1", "--port", "18601", "--serve",
                "--connect");

        assertEquals(Check.USAGE, run.exitStatus(), run::toString);
        assertTrue(run.err().contains("mutually exclusive"), run::toString);
    }

    @Test
    void namesAreNotAddressLiterals() {
        CheckRun run = CheckRun.of("--backend", "tcp", "--ip", "localhost", "--port", "18601");

        assertEquals(Check.USAGE, run.exitStatus(), run::toString);
        assertTrue(run.err().contains("'localhost' is not an IP address literal"), run::toString);
    }

    @Test
    void unknownBackendIsAUsageErrorListingThePresentOnes() {
        CheckRun run = CheckRun.of("--backend", "infiniband", "--ip", "127.0.0.1", "--port", "18601");

        assertEquals(Check.USAGE, run.exitStatus(), run::toString);
        assertTrue(run.err().contains("no backend named 'infiniband'") && run.err().contains("tcp")
                && run.err().contains("rdma"), run::toString);
    }

    @Test
    void checksSelectionIsForTheDefaultModeOnly() {
        CheckRun run = CheckRun.of("--backend", "tcp", "--ip", "127.0.0.1", "--port", "18601", "--connect",
                "--checks", "link");

        assertEquals(Check.USAGE, run.exitStatus(), run::toString);
        assertTrue(run.err().contains("--checks is for the default mode"), run::toString);
    }

    @Test
    void aShortMissingOrOpenKeyFileIsAUsageError(@TempDir Path dir) throws IOException {
        Path shortKey = dir.resolve("short.key");
        Files.write(shortKey, new byte[31]);
        Files.setPosixFilePermissions(shortKey, PosixFilePermissions.fromString("rw-------"));
        CheckRun run = CheckRun.of("--backend", "tcp", "--ip", "127.0.0.1", "--port", "18601", "--key-file",
                shortKey.toString());

        assertEquals(Check.USAGE, run.exitStatus(), run::toString);
        assertTrue(run.err().contains("holds 31 bytes; a key has at least 32"), run::toString);

        CheckRun missing = CheckRun.of("--backend", "tcp", "--ip", "127.0.0.1", "--port", "18601", "--key-file",
                dir.resolve("absent.key").toString());
        assertEquals(Check.USAGE, missing.exitStatus(), missing::toString);
        assertTrue(missing.err().contains("does not exist"), missing::toString);

        Path open = dir.resolve("open.key");
        Files.write(open, new java.security.SecureRandom().generateSeed(32));
        Files.setPosixFilePermissions(open, PosixFilePermissions.fromString("rw-r--r--"));
        CheckRun readable = CheckRun.of("--backend", "tcp", "--ip", "127.0.0.1", "--port", "18601", "--key-file",
                open.toString());
        assertEquals(Check.USAGE, readable.exitStatus(), readable::toString);
        assertTrue(readable.err().contains("chmod 600"), readable::toString);

        CheckRun device = CheckRun.of("--backend", "tcp", "--ip", "127.0.0.1", "--port", "18601", "--key-file",
                "/dev/zero");
        assertEquals(Check.USAGE, device.exitStatus(), device::toString);
        assertTrue(device.err().contains("not a regular file"), device::toString);

        CheckRun badId = CheckRun.of("--backend", "tcp", "--ip", "127.0.0.1", "--port", "18601", "--key-file",
                shortKey.toString(), "--key-id", "-1");
        assertEquals(Check.USAGE, badId.exitStatus(), badId::toString);
        assertTrue(badId.err().contains("--key-id must be 0-4294967295, got '-1'"), badId::toString);
    }

    @Test
    void limitsTheProtocolCannotCarryAreAUsageError() {
        CheckRun run = CheckRun.of("--backend", "tcp", "--ip", "127.0.0.1", "--port", "18601", "--max-ranges", "17");

        assertEquals(Check.USAGE, run.exitStatus(), run::toString);
        assertTrue(run.err().contains("--max-* limits: "), run::toString);
    }
}
