package dev.ofl.verbs.rdma;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

/**
 * Collects what is written to {@link System#err} (where the tests' slf4j-simple logs) from
 * {@link #start()} until {@link #close()}, which puts the original stream back. Tests that assert
 * what the server logged read it with {@link #text()}, during the capture or after it.
 */
final class StderrCapture implements AutoCloseable {
    private final PrintStream original = System.err;
    private final ByteArrayOutputStream captured = new ByteArrayOutputStream();

    private StderrCapture() {
        System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
    }

    /** Starts capturing; close it in a {@code finally} (try-with-resources) so that stderr comes back. */
    static StderrCapture start() {
        return new StderrCapture();
    }

    /** What was written so far. */
    String text() {
        return captured.toString(StandardCharsets.UTF_8);
    }

    @Override
    public void close() {
        System.setErr(original);
    }
}
