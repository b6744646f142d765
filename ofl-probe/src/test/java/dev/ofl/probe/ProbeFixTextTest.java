package dev.ofl.probe;

import dev.ofl.verbs.VerbsLibrary;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The probe's fix texts name what its own command line accepts: {@code --library}, or the
 * environment variable, never the JVM's {@code -D} system property, which {@code ./ofl probe}
 * would refuse as an unknown option.
 */
class ProbeFixTextTest {
    private static final String SYSTEM_PROPERTY_FLAG = "-D" + VerbsLibrary.LIBRARY_PROPERTY;

    @Test
    void aMissingLibraryIsFixedWithTheLibraryOption(@TempDir Path dir) {
        ProbeRun run = ProbeRun.of("--library", dir.resolve("absent.so").toString());

        assertEquals(ExitStatus.LIBRARY_MISSING, run.exitStatus(), run::toString);
        assertTrue(run.err().contains("--library <path>"), run::toString);
        assertTrue(run.err().contains(VerbsLibrary.LIBRARY_ENVIRONMENT + "=<path>"), run::toString);
        assertFalse(run.err().contains(SYSTEM_PROPERTY_FLAG), run::toString);
    }

    @Test
    void theJsonFixAndMessageNameTheOptionToo(@TempDir Path dir) {
        ProbeRun run = ProbeRun.of("--json", "--library", dir.resolve("absent.so").toString());

        String fix = run.json().path("failure").path("fix").asText();
        String message = run.json().path("failure").path("message").asText();
        assertTrue(fix.contains("--library <path>"), fix);
        assertFalse(fix.contains(SYSTEM_PROPERTY_FLAG), fix);
        assertFalse(message.contains(SYSTEM_PROPERTY_FLAG), message);
    }

    @Test
    void anIncompatibleLibraryIsFixedWithTheLibraryOption() {
        ProbeRun run = ProbeRun.of("--json", "--library", "libc.so.6");

        String fix = run.json().path("failure").path("fix").asText();
        assertEquals("LIBRARY_INCOMPATIBLE", run.json().path("failure").path("reason").asText(), run::toString);
        assertTrue(fix.startsWith("point --library <path>"), fix);
    }

    @Test
    void theOptionTheFixNamesIsAccepted(@TempDir Path dir) {
        String library = dir.resolve("absent.so").toString();
        String suggested = ProbeReport.PROBE_LIBRARY_SETTING.replace("<path>", library);
        String option = suggested.substring(0, suggested.indexOf(" ("));

        ProbeRun run = ProbeRun.of(option.split(" "));

        assertEquals(ExitStatus.LIBRARY_MISSING, run.exitStatus(), "parsed, then the library is missing: " + run);
        assertTrue(run.err().contains(library), run::toString);
    }

    @Test
    void theRewriteReplacesOnlyTheLibrarySetting() {
        String bindingsFix = "install it, or point " + VerbsLibrary.LIBRARY_SETTING + " at another one";

        assertEquals("install it, or point " + ProbeReport.PROBE_LIBRARY_SETTING + " at another one",
                ProbeReport.forProbe(bindingsFix));
        assertEquals("bring the link up", ProbeReport.forProbe("bring the link up"));
        assertEquals(null, ProbeReport.forProbe(null));
    }
}
