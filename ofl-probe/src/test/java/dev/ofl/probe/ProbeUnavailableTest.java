package dev.ofl.probe;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeFalse;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The CLI where RDMA is not usable: a library that does not exist, a library that is not
 * libibverbs, and this host's real libibverbs on a kernel without RDMA support.
 */
class ProbeUnavailableTest {
    /** What libibverbs looks for to list devices; absent when the kernel has no RDMA support. */
    private static final Path KERNEL_VERBS = Path.of("/sys/class/infiniband_verbs");
    /**
     * By its absolute path: by name, a process that loaded softverbs (whose soname is the same)
     * gets softverbs back, so the outcome depended on which test class ran first.
     */
    private static final String SYSTEM_LIBIBVERBS = ProbeRun.systemLibibverbs();

    @Test
    void libraryPathThatDoesNotExistExitsThree(@TempDir Path dir) {
        String missing = dir.resolve("absent/libibverbs.so.1").toString();

        ProbeRun run = ProbeRun.of("--library", missing);

        assertEquals(ExitStatus.LIBRARY_MISSING, run.exitStatus(), run::toString);
        assertTrue(run.err().contains("the verbs library cannot be loaded (LIBRARY_MISSING, exit 3)"), run::toString);
        assertTrue(run.err().contains(missing), run::toString);
        assertTrue(run.err().contains("Fix: install libibverbs"), run::toString);
        assertEquals("", run.out());
    }

    @Test
    void libraryPathThatDoesNotExistInJson(@TempDir Path dir) {
        ProbeRun run = ProbeRun.of("--json", "--library", dir.resolve("absent.so").toString());

        assertEquals(ExitStatus.LIBRARY_MISSING, run.exitStatus(), run::toString);
        JsonNode json = run.json();
        assertEquals("LIBRARY_MISSING", json.path("outcome").asText());
        assertEquals(3, json.path("exitStatus").asInt());
        assertEquals("LIBRARY_MISSING", json.path("failure").path("reason").asText());
        assertTrue(json.path("failure").path("fix").asText().contains("libibverbs"));
        assertEquals(0, json.path("devices").size());
        assertEquals("", run.err());
    }

    @Test
    void libraryThatIsNotLibibverbsExitsFive() {
        ProbeRun run = ProbeRun.of("--library", "libc.so.6", "--json");

        assertEquals(ExitStatus.FAILURE, run.exitStatus(), run::toString);
        assertEquals("LIBRARY_INCOMPATIBLE", run.json().path("failure").path("reason").asText(), run::toString);
        assertTrue(run.json().path("failure").path("message").asText().contains("ibv_get_device_list"), run::toString);
    }

    @Test
    void systemLibibverbsOnAKernelWithoutRdmaSaysSoAndExitsFour() {
        assumeFalse(Files.exists(KERNEL_VERBS), "this kernel has RDMA support; see the test below");

        ProbeRun run = ProbeRun.of("--library", SYSTEM_LIBIBVERBS);

        assertNotEquals(ExitStatus.LIBRARY_MISSING, run.exitStatus(),
                () -> "the system libibverbs is not installed: apt-get install libibverbs1 (./ofl installs it)\n" + run);
        assertEquals(ExitStatus.KERNEL_WITHOUT_RDMA, run.exitStatus(), run::toString);
        assertTrue(run.err().contains("the kernel has no RDMA support"), run::toString);
        assertTrue(run.err().contains("KERNEL_WITHOUT_RDMA, exit 4"), run::toString);
        assertTrue(run.err().contains("ibv_get_device_list(" + SYSTEM_LIBIBVERBS + ") failed: errno ENOSYS (38, "
                + "Function not implemented)"), run::toString);
        assertTrue(run.err().contains("Fix: "), run::toString);
        assertEquals("", run.out());
    }

    @Test
    void systemLibibverbsOnAKernelWithoutRdmaInJson() {
        assumeFalse(Files.exists(KERNEL_VERBS), "this kernel has RDMA support");

        ProbeRun run = ProbeRun.of("--library", SYSTEM_LIBIBVERBS, "--ip", "127.0.0.1", "--json");

        assertEquals(ExitStatus.KERNEL_WITHOUT_RDMA, run.exitStatus(), run::toString);
        JsonNode json = run.json();
        assertEquals("KERNEL_WITHOUT_RDMA", json.path("outcome").asText());
        JsonNode failure = json.path("failure");
        assertEquals("KERNEL_WITHOUT_RDMA", failure.path("reason").asText());
        assertEquals("ibv_get_device_list", failure.path("function").asText());
        assertEquals(38, failure.path("errno").asInt());
        assertEquals("ENOSYS", failure.path("errnoName").asText());
        assertTrue(json.path("query").isNull(), "no answer without devices");
    }

    @Test
    void systemLibibverbsOnAKernelWithRdmaListsOrSaysNoDevice() {
        assumeTrue(Files.exists(KERNEL_VERBS), "needs RDMA hardware support in the kernel (/sys/class/infiniband_verbs), "
                + "which CI machines do not have; the tests above cover this kernel");

        ProbeRun run = ProbeRun.of("--library", SYSTEM_LIBIBVERBS);

        assertTrue(run.exitStatus() == ExitStatus.FOUND || run.exitStatus() == ExitStatus.NO_DEVICE, run::toString);
    }
}
