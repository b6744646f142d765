package dev.ofl.probe;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Options, help and usage errors; none of these reach a library. */
class ProbeUsageTest {
    @Test
    void helpExplainsEveryOptionAndEveryExitStatus() {
        ProbeRun run = ProbeRun.of("--help");

        assertEquals(0, run.exitStatus(), run::toString);
        for (String expected : new String[] {"--ip=ADDR", "--gid-index=N", "--json", "--library=PATH", "--help",
            "ofl.verbs.library", "OFL_VERBS_LIBRARY", "Exit status:", "never modifies"}) {
            assertTrue(run.out().contains(expected), () -> expected + " missing from\n" + run);
        }
        for (int status : new int[] {ExitStatus.FOUND, ExitStatus.NOT_FOUND, ExitStatus.NO_DEVICE,
            ExitStatus.LIBRARY_MISSING, ExitStatus.KERNEL_WITHOUT_RDMA, ExitStatus.FAILURE, ExitStatus.USAGE}) {
            assertTrue(run.out().lines().anyMatch(l -> l.matches("\\s+" + status + "\\s+\\S.*")),
                    () -> "exit status " + status + " missing from\n" + run);
        }
    }

    @Test
    void gidIndexWithoutIpIsAUsageError() {
        ProbeRun run = ProbeRun.of("--gid-index", "3");

        assertEquals(ExitStatus.USAGE, run.exitStatus(), run::toString);
        assertTrue(run.err().contains("give --ip ADDR too"), run::toString);
    }

    @Test
    void negativeGidIndexIsAUsageError() {
        ProbeRun run = ProbeRun.of("--ip", "127.0.0.1", "--gid-index", "-1");

        assertEquals(ExitStatus.USAGE, run.exitStatus(), run::toString);
        assertTrue(run.err().contains("--gid-index must be 0 or more, got -1"), run::toString);
    }

    @Test
    void namesAndIpv6AreNotIpv4Literals() {
        for (String notIpv4 : new String[] {"localhost", "::1", "10.0.0", "10.1", "300.1.1.1", "1.2.3.4.5"}) {
            ProbeRun run = ProbeRun.of("--ip", notIpv4);

            assertEquals(ExitStatus.USAGE, run.exitStatus(), run::toString);
            assertTrue(run.err().contains("'" + notIpv4 + "' is not an IPv4 address literal"), run::toString);
        }
    }

    @Test
    void unknownOptionIsAUsageError() {
        ProbeRun run = ProbeRun.of("--verbose");

        assertEquals(ExitStatus.USAGE, run.exitStatus(), run::toString);
        assertTrue(run.err().contains("Unknown option: '--verbose'"), run::toString);
        assertTrue(run.err().contains("Usage: ofl probe"), run::toString);
    }
}
