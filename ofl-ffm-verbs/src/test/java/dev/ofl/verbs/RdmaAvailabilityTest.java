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
    private static Path realLibrary() {
        for (String candidate : List.of("/usr/lib/x86_64-linux-gnu/libibverbs.so.1", "/lib/x86_64-linux-gnu/libibverbs.so.1",
                "/usr/lib/aarch64-linux-gnu/libibverbs.so.1", "/lib/aarch64-linux-gnu/libibverbs.so.1",
                "/usr/lib64/libibverbs.so.1")) {
            if (Files.exists(Path.of(candidate))) {
                return Path.of(candidate);
            }
        }
        fail("the real libibverbs.so.1 is not installed: apt-get install libibverbs1 (or libibverbs-dev)");
        return null;
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
        Path libc = Path.of("/lib/x86_64-linux-gnu/libc.so.6");
        if (!Files.exists(libc)) {
            return;
        }
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
