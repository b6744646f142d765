package dev.ofl.api.spi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/**
 * Events a peer can repeat at will reach the log once per cause and interval, with their count:
 * read from the standard error stream the tests' slf4j-simple writes to, on an injected clock.
 */
class RepeatedLogTest {
    private static final String LOGGER = "dev.ofl.api.spi.RepeatedLogTest.subject";
    private final ByteArrayOutputStream captured = new ByteArrayOutputStream();
    private final AtomicLong nowNs = new AtomicLong(1_000);
    private PrintStream originalErr;
    private RepeatedLog log;

    @BeforeEach
    void captureLog() {
        originalErr = System.err;
        System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
        log = new RepeatedLog(LoggerFactory.getLogger(LOGGER), nowNs::get);
    }

    @AfterEach
    void restoreLog() {
        System.setErr(originalErr);
    }

    private List<String> lines() {
        System.err.flush();
        return captured.toString(StandardCharsets.UTF_8).lines().filter(l -> l.contains(LOGGER)).toList();
    }

    @Test
    void theFirstOccurrenceIsLoggedInFullAndSaysRepeatsAreCounted() {
        log.warn("refused: SERVER_BUSY", "refusing a connection from 10.0.0.1: busy");
        List<String> lines = lines();
        assertEquals(1, lines.size(), lines::toString);
        assertTrue(lines.get(0).contains("WARN"), lines::toString);
        assertTrue(lines.get(0).contains("refusing a connection from 10.0.0.1: busy"), lines::toString);
        assertTrue(lines.get(0).contains("counted and summarised every 10 s"), lines::toString);
    }

    @Test
    void repeatsWithinTheIntervalAreCountedThenSummarisedOnce() {
        for (int i = 0; i < 1000; i++) {
            log.warn("refused: SERVER_BUSY", "refusing connection " + i);
        }
        assertEquals(1, lines().size(), () -> lines().toString());
        nowNs.addAndGet(RepeatedLog.INTERVAL_NS);
        log.warn("refused: SERVER_BUSY", "refusing connection 1000");
        List<String> lines = lines();
        assertEquals(2, lines.size(), lines::toString);
        assertTrue(lines.get(1).contains("1000 more of \"refused: SERVER_BUSY\" in the last 10 s; the last: refusing "
                + "connection 1000"), lines::toString);
    }

    @Test
    void flushSummarisesABurstThatStopped() {
        log.info("idle timeout", "closing connection 1");
        log.info("idle timeout", "closing connection 2");
        log.info("idle timeout", "closing connection 3");
        log.flush();
        assertEquals(1, lines().size(), "the interval is not over yet");
        nowNs.addAndGet(RepeatedLog.INTERVAL_NS);
        log.flush();
        List<String> lines = lines();
        assertEquals(2, lines.size(), lines::toString);
        assertTrue(lines.get(1).contains("INFO"), lines::toString);
        assertTrue(lines.get(1).contains("2 more of \"idle timeout\""), lines::toString);
        log.flush();
        assertEquals(2, lines().size(), "nothing left to summarise");
    }

    @Test
    void causesAreCountedApart() {
        log.warn("refused: SERVER_BUSY", "busy 1");
        log.warn("refused: MALFORMED", "malformed 1");
        log.warn("refused: SERVER_BUSY", "busy 2");
        assertEquals(2, lines().size(), () -> lines().toString());
    }

    @Test
    void afterAQuietIntervalTheNextOccurrenceIsLoggedInFull() {
        log.warn("accept failed", "first");
        nowNs.addAndGet(2 * RepeatedLog.INTERVAL_NS);
        log.warn("accept failed", "second");
        List<String> lines = lines();
        assertEquals(2, lines.size(), lines::toString);
        assertTrue(lines.get(1).endsWith("second"), lines::toString);
    }
}
