package dev.ofl.verbs;

import dev.ofl.api.Ofl;
import dev.ofl.verbs.ffm.ibv_context;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * A JVM whose {@code os.arch} the binding has no layouts for (here {@code riscv64}, set with
 * {@code -D} in a child JVM) reports RDMA as unavailable with a cause naming the architecture,
 * through {@link RdmaAvailability} and {@code Ofl.unavailabilityCause("rdma")}, and never reads a
 * guessed layout: a struct class refuses to initialise.
 */
class UnsupportedArchitectureTest {

    @Test
    void rdmaIsUnavailableNamingTheArchitecture() throws IOException, InterruptedException {
        List<String> command = List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "--enable-native-access=ALL-UNNAMED",
                "-Dos.arch=riscv64",
                "-Dofl.verbs.library=" + System.getProperty("ofl.verbs.library"),
                "-cp", System.getProperty("java.class.path"),
                Child.class.getName());
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        String output;
        try {
            output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!process.waitFor(60, TimeUnit.SECONDS)) {
                fail("the child JVM did not finish within 60 s");
            }
        } finally {
            process.destroyForcibly();
        }
        assertEquals(0, process.exitValue(), output);
        List<String> lines = output.lines().filter(l -> l.startsWith("child ")).toList();
        assertEquals(3, lines.size(), output);
        assertEquals("child reason UNSUPPORTED_ARCHITECTURE", lines.get(0), output);
        assertTrue(lines.get(1).startsWith("child ofl ") && lines.get(1).contains("'riscv64'")
                && lines.get(1).contains("x86-64") && lines.get(1).contains("aarch64"), output);
        assertTrue(lines.get(2).startsWith("child struct java.lang.ExceptionInInitializerError")
                && lines.get(2).contains("UnsupportedOperationException") && lines.get(2).contains("'riscv64'"), output);
    }

    /** Runs in the child JVM; prints one {@code child ...} line per observation. */
    static final class Child {
        private Child() {
        }

        /**
         * Prints the availability reason, the public API's cause, and what touching a struct does.
         *
         * @param args unused
         */
        public static void main(String[] args) {
            RdmaUnavailableException cause = RdmaAvailability.unavailabilityCause();
            System.out.println("child reason " + (cause == null ? "none" : cause.reason()));
            System.out.println("child ofl " + Ofl.unavailabilityCause("rdma").orElse("available"));
            try {
                System.out.println("child struct loaded, " + ibv_context.sizeof() + " bytes");
            } catch (ExceptionInInitializerError e) {
                System.out.println("child struct " + e.getClass().getName() + ": " + e.getCause());
            }
        }
    }
}
