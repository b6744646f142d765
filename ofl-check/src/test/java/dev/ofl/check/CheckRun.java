package dev.ofl.check;

import static org.junit.jupiter.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * One in-process invocation of the command through picocli, with its output captured.
 *
 * @param exitStatus what {@code execute} returned
 * @param out standard output
 * @param err standard error
 */
record CheckRun(int exitStatus, String out, String err) {
    static CheckRun of(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int exitStatus = Check.commandLine().setOut(new PrintWriter(out, true)).setErr(new PrintWriter(err, true))
                .execute(args);
        return new CheckRun(exitStatus, out.toString(), err.toString());
    }

    /** The lines of standard output that report a check. */
    List<String> checkLines() {
        return out.lines().filter(l -> l.startsWith("PASS ") || l.startsWith("FAIL ")).toList();
    }

    /** The line of the check named {@code name}, or a failure. */
    String line(String name) {
        return out.lines().filter(l -> l.startsWith("PASS " + name + ":") || l.startsWith("FAIL " + name + ":")
                || l.equals("PASS " + name) || l.equals("FAIL " + name)).findFirst()
                .orElseThrow(() -> new AssertionError("no line for " + name + "\n" + this));
    }

    JsonNode json() {
        try {
            return new ObjectMapper().readTree(out);
        } catch (IOException e) {
            throw new AssertionError("not JSON: " + e.getMessage() + "\n" + this, e);
        }
    }

    /** A port nothing listens on now, on 127.0.0.1. */
    static int freePort() {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new AssertionError("no free port on the loopback address", e);
        }
    }

    /** softverbs' library, as surefire names it; fails (never skips) when it has not been built. */
    static String softverbs() {
        String library = System.getProperty("ofl.verbs.library", "");
        if (!Files.isRegularFile(Path.of(library))) {
            fail("no verbs library at ofl.verbs.library = '" + library + "': build softverbs first (make -C "
                    + "ofl-softverbs, or mvn -pl ofl-check -am)");
        }
        return library;
    }

    @Override
    public String toString() {
        return "exit " + exitStatus + "\n--- out ---\n" + out + "--- err ---\n" + err;
    }
}
