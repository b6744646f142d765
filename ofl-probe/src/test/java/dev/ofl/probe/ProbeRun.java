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

    /** Returns softverbs' library, failing (never skipping) when it has not been built. */
    static String softverbs() {
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
