package dev.ofl.api.spi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ofl.api.NanoClock;
import dev.ofl.api.OflRequest;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Handler failures are logged without flooding: what the log shows is the observable contract,
 * read from the standard error stream that the tests' slf4j-simple writes to.
 */
class HandlerErrorsTest {
    private final ByteArrayOutputStream captured = new ByteArrayOutputStream();
    private PrintStream originalErr;

    private record Request(int op, long sequence) implements OflRequest {
        @Override
        public long generation() {
            return 0;
        }

        @Override
        public MemorySegment payload() {
            return MemorySegment.NULL;
        }

        @Override
        public long responseCapacity() {
            return 0;
        }
    }

    @BeforeEach
    void captureLog() {
        originalErr = System.err;
        System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
    }

    @AfterEach
    void restoreLog() {
        System.setErr(originalErr);
    }

    private List<String> handlerErrorLines() {
        System.err.flush();
        return captured.toString(StandardCharsets.UTF_8).lines()
                .filter(l -> l.contains(" dev.ofl.api.spi.HandlerErrors - ")).toList();
    }

    private String log() {
        System.err.flush();
        return captured.toString(StandardCharsets.UTF_8);
    }

    @Test
    void theFirstFailureOfAKindIsLoggedWithItsStackTraceAndTheRequest() {
        HandlerErrors errors = new HandlerErrors(NanoClock.SYSTEM);
        errors.record(new Request(7, 3), new IllegalStateException("downstream gone"));
        List<String> lines = handlerErrorLines();
        assertEquals(1, lines.size(), log());
        String line = lines.get(0);
        assertTrue(line.contains("WARN"), line);
        assertTrue(line.contains("op 7, sequence 3"), line);
        assertTrue(line.contains("java.lang.IllegalStateException: downstream gone"), line);
        assertTrue(log().contains("\tat dev.ofl.api.spi.HandlerErrorsTest."), "the stack trace is logged: " + log());
    }

    @Test
    void repeatsOfAKindAreCountedNotLogged() {
        HandlerErrors errors = new HandlerErrors(NanoClock.SYSTEM);
        for (int i = 0; i < 100; i++) {
            errors.record(new Request(1, i), new IllegalStateException("same failure"));
        }
        assertEquals(1, handlerErrorLines().size(), "one line for a hundred repeats within the interval: " + log());
    }

    @Test
    void theKindIsTheExceptionTypeAndMessage() {
        HandlerErrors errors = new HandlerErrors(NanoClock.SYSTEM);
        errors.record(new Request(1, 0), new IllegalStateException("a"));
        errors.record(new Request(1, 1), new IllegalStateException("b"));
        errors.record(new Request(1, 2), new IllegalArgumentException("a"));
        errors.record(new Request(1, 3), new IllegalStateException("a"));
        List<String> lines = handlerErrorLines();
        assertEquals(3, lines.size(), log());
        assertTrue(lines.get(1).contains("IllegalStateException: b"), lines.get(1));
        assertTrue(lines.get(2).contains("IllegalArgumentException: a"), lines.get(2));
    }

    @Test
    void kindsBeyondTheFirstSixtyFourAreCountedTogetherWithoutTheirStackTraces() {
        HandlerErrors errors = new HandlerErrors(NanoClock.SYSTEM);
        for (int i = 0; i < 64; i++) {
            errors.record(new Request(1, i), new IllegalStateException("kind " + i));
        }
        List<String> firstKinds = log().lines().toList();
        for (int i = 0; i < 64; i++) {
            assertTrue(firstKinds.contains("java.lang.IllegalStateException: kind " + i),
                    "kind " + i + " is logged with its stack trace");
        }
        errors.record(new Request(1, 64), new IllegalStateException("kind 64"));
        errors.record(new Request(1, 65), new IllegalStateException("kind 65"));
        String all = log();
        assertFalse(all.contains("kind 64"), "the 65th kind gets no line of its own: " + all);
        assertFalse(all.contains("kind 65"), all);
        assertEquals(64, all.lines().filter(l -> l.startsWith("java.lang.IllegalStateException: kind")).count(),
                "only the first 64 kinds are logged with their stack trace");
    }
}
