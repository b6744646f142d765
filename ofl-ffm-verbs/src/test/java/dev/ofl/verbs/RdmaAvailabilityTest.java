package dev.ofl.verbs;

import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Availability probing against this machine's real libibverbs (a kernel without RDMA) and a
 * missing library. Paths are absolute so that a stand-in loaded by another test cannot answer for
 * {@code libibverbs.so.1}.
 */
class RdmaAvailabilityTest {
    /** The running JVM's Debian multiarch directory name: the libraries it can load live there. */
    private static String triplet() {
        return switch (System.getProperty("os.arch")) {
            case "amd64", "x86_64" -> "x86_64-linux-gnu";
            case "aarch64" -> "aarch64-linux-gnu";
            default -> throw new AssertionError("no library paths known for os.arch " + System.getProperty("os.arch"));
        };
    }

    /**
     * A library of the running JVM's architecture (another one's would fail for that reason alone),
     * under the system property {@code ofl.test.sysroot} when set: an emulated JVM's libraries live
     * in a root of their own (./ofl test-aarch64).
     */
    private static Path systemLibrary(String name, String install) {
        String root = System.getProperty("ofl.test.sysroot", "");
        for (String dir : List.of("/usr/lib/", "/lib/")) {
            Path candidate = Path.of(root + dir + triplet() + "/" + name);
            if (Files.exists(candidate)) {
                return candidate;
            }
        }
        Path lib64 = Path.of("/usr/lib64/" + name);
        if (Files.exists(lib64)) {
            return lib64;
        }
        fail(name + " for " + System.getProperty("os.arch") + " is not installed: " + install);
        return null;
    }

    private static Path realLibrary() {
        return systemLibrary("libibverbs.so.1", "apt-get install libibverbs1 (or libibverbs-dev)");
    }

    private static boolean kernelHasRdma() {
        return Files.isDirectory(Path.of("/sys/class/infiniband_verbs"));
    }

    @Test
    void realLibraryOnAKernelWithoutRdmaReportsEnosys() {
        if (kernelHasRdma()) {
            return; // this machine has RDMA; the ENOSYS path cannot occur here
        }
        RdmaAvailability.Probe probe = RdmaAvailability.probe(realLibrary().toString());
        assertFalse(probe.isAvailable());
        RdmaUnavailableException cause = probe.cause();
        assertEquals(RdmaUnavailableException.Reason.KERNEL_WITHOUT_RDMA, cause.reason(), cause.getMessage());
        assertEquals(Errno.ENOSYS, cause.errno());
        assertEquals("ibv_get_device_list", cause.function());
        assertTrue(cause.getMessage().contains("ENOSYS (38, Function not implemented)"), cause.getMessage());
        assertTrue(cause.getMessage().contains("kernel has no RDMA support"), cause.getMessage());
        assertTrue(cause.getMessage().contains("-Dofl.verbs.library"), cause.getMessage());
    }

    @Test
    void unknownArchitectureIsTheCauseNamingIt() {
        RdmaUnavailableException cause = VerbsLibrary.unsupportedArchitecture("riscv64", "libibverbs.so.1");
        assertNotNull(cause);
        assertEquals(RdmaUnavailableException.Reason.UNSUPPORTED_ARCHITECTURE, cause.reason());
        for (String needed : List.of("'riscv64'", "x86-64", "aarch64", "pthread_mutex_t", "libibverbs.so.1", "TCP backend")) {
            assertTrue(cause.getMessage().contains(needed), "message lacks '" + needed + "': " + cause.getMessage());
        }
        for (String known : List.of("amd64", "x86_64", "aarch64")) {
            assertEquals(null, VerbsLibrary.unsupportedArchitecture(known, "libibverbs.so.1"), known);
        }
    }

    @Test
    void missingLibraryNamesThePackagesAndTheProperty() {
        RdmaAvailability.Probe probe = RdmaAvailability.probe("/nonexistent/ofl/libibverbs.so.1");
        assertFalse(probe.isAvailable());
        RdmaUnavailableException cause = probe.cause();
        assertEquals(RdmaUnavailableException.Reason.LIBRARY_MISSING, cause.reason());
        String message = cause.getMessage();
        for (String needed : List.of("/nonexistent/ofl/libibverbs.so.1", "libibverbs1", "rdma-core", "dnf install libibverbs",
                "-Dofl.verbs.library", "OFL_VERBS_LIBRARY")) {
            assertTrue(message.contains(needed), "message lacks '" + needed + "': " + message);
        }
    }

    @Test
    void libraryWithoutVerbsSymbolsIsIncompatible() {
        // The C library of this JVM's architecture: a real shared library without a verbs symbol.
        Path libc = systemLibrary("libc.so.6", "it is the C library");
        RdmaAvailability.Probe probe = RdmaAvailability.probe(libc.toString());
        assertEquals(RdmaUnavailableException.Reason.LIBRARY_INCOMPATIBLE, probe.cause().reason());
        assertTrue(probe.cause().getMessage().contains("ibv_get_device_list"), probe.cause().getMessage());
    }

    @Test
    void processWideProbeAnswersWithoutThrowing() {
        RdmaAvailability.Probe probe = RdmaAvailability.processWide();
        assertNotNull(probe);
        assertEquals(probe.isAvailable(), RdmaAvailability.isAvailable());
        assertEquals(probe.cause() == null, RdmaAvailability.unavailabilityCause() == null);
    }

    @Test
    void configuredLibraryDefaultsToTheSoname() {
        if (System.getProperty(VerbsLibrary.LIBRARY_PROPERTY) == null && System.getenv(VerbsLibrary.LIBRARY_ENVIRONMENT) == null) {
            assertEquals("libibverbs.so.1", VerbsLibrary.configuredLibrary());
        }
    }
}
