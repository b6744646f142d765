package dev.ofl.probe;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.fail;

/**
 * One in-process invocation of the CLI through picocli, with its output captured.
 *
 * @param exitStatus what {@code execute} returned
 * @param out standard output
 * @param err standard error
 */
record ProbeRun(int exitStatus, String out, String err) {
    static final ObjectMapper MAPPER = new ObjectMapper();

    static ProbeRun of(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int exitStatus = Probe.commandLine().setOut(new PrintWriter(out, true)).setErr(new PrintWriter(err, true))
                .execute(args);
        return new ProbeRun(exitStatus, out.toString(), err.toString());
    }

    JsonNode json() {
        try {
            return MAPPER.readTree(out);
        } catch (Exception e) {
            throw new AssertionError("not JSON: " + e.getMessage() + "\n" + this, e);
        }
    }

    /**
     * The system's libibverbs of the running JVM's architecture, by absolute path, under the system
     * property {@code ofl.test.sysroot} when set (an emulated JVM's libraries live in a root of
     * their own); failing (never skipping) when it is not installed.
     */
    static String systemLibibverbs() {
        String triplet = switch (System.getProperty("os.arch")) {
            case "amd64", "x86_64" -> "x86_64-linux-gnu";
            case "aarch64" -> "aarch64-linux-gnu";
            default -> "";
        };
        String root = System.getProperty("ofl.test.sysroot", "");
        for (String dir : new String[] {"/usr/lib/" + triplet, "/lib/" + triplet, "/usr/lib64"}) {
            Path library = Path.of(root + dir, "libibverbs.so.1");
            if (Files.exists(library)) {
                return library.toString();
            }
        }
        fail("the system libibverbs.so.1 for " + System.getProperty("os.arch") + " is not installed: apt-get install "
                + "libibverbs1 (./ofl installs it)");
        return null;
    }

    /**
     * Returns softverbs' library, failing (never skipping) when it has not been built: the one the
     * system property {@code ofl.test.softverbs} names (an emulated JVM is given its own
     * architecture's), otherwise the build's.
     */
    static String softverbs() {
        String named = System.getProperty("ofl.test.softverbs", "");
        if (!named.isBlank() && Files.isRegularFile(Path.of(named))) {
            return named;
        }
        Path moduleDir = Path.of(System.getProperty("basedir", ".")).toAbsolutePath().normalize();
        Path library = moduleDir.resolveSibling("ofl-softverbs").resolve("target/lib/libibverbs.so.1");
        if (!Files.isRegularFile(library)) {
            fail(library + " is missing: build ofl-softverbs first (make -C ofl-softverbs, or mvn -pl ofl-softverbs "
                    + "package)");
        }
        return library.toString();
    }

    @Override
    public String toString() {
        return "exit " + exitStatus + "\n--- out ---\n" + out + "--- err ---\n" + err;
    }
}
