package dev.ofl.api.spi;

import dev.ofl.api.NanoClock;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.event.Level;

/**
 * Logs events that peers can repeat at will (refused or dropped connections) without letting them
 * flood the log: per cause, the first occurrence is logged in full; the repeats within the next
 * interval are only counted, and one summary line with their count and the last occurrence is
 * logged when the interval is over (at the next occurrence or at the next {@link #flush}). After a
 * quiet interval, the next occurrence is logged in full again. Thread-safe.
 *
 * <p>Causes are fixed texts of the code, never peer-controlled, so the number of causes is bounded.
 */
final class RepeatedLog {
    /** Between two lines of one cause. */
    static final long INTERVAL_NS = 10_000_000_000L;

    private static final class Cause {
        final Level level;
        long windowStartNs;
        long suppressed;
        String last;

        Cause(Level level, long nowNs) {
            this.level = level;
            this.windowStartNs = nowNs;
        }
    }

    private final Logger log;
    private final NanoClock clock;
    private final Map<String, Cause> causes = new HashMap<>();

    RepeatedLog(Logger log, NanoClock clock) {
        this.log = log;
        this.clock = clock;
    }

    /**
     * Logs or counts one occurrence at WARN.
     *
     * @param cause a fixed text naming the kind of event, the key of the count
     * @param message the whole line for this occurrence, peer-controlled parts escaped
     */
    void warn(String cause, String message) {
        record(Level.WARN, cause, message);
    }

    /**
     * Logs or counts one occurrence at INFO.
     *
     * @param cause a fixed text naming the kind of event, the key of the count
     * @param message the whole line for this occurrence, peer-controlled parts escaped
     */
    void info(String cause, String message) {
        record(Level.INFO, cause, message);
    }

    private void record(Level level, String cause, String message) {
        if (!log.isEnabledForLevel(level)) {
            return;
        }
        String line = null;
        synchronized (this) {
            long nowNs = clock.nanoTime();
            Cause c = causes.get(cause);
            if (c == null) {
                causes.put(cause, new Cause(level, nowNs));
                line = message + " [repeats of \"" + cause + "\" are counted and summarised every "
                        + INTERVAL_NS / 1_000_000_000L + " s]";
            } else if (c.suppressed == 0 && nowNs - c.windowStartNs >= INTERVAL_NS) {
                c.windowStartNs = nowNs;
                line = message;
            } else {
                c.suppressed++;
                c.last = message;
                line = summaryIfDue(cause, c, nowNs);
            }
        }
        if (line != null) {
            log.atLevel(level).log(line);
        }
    }

    /** Logs the summaries whose interval is over; the server calls it periodically. */
    void flush() {
        List<Level> levels = new ArrayList<>();
        List<String> lines = new ArrayList<>();
        synchronized (this) {
            long nowNs = clock.nanoTime();
            for (Map.Entry<String, Cause> entry : causes.entrySet()) {
                String line = summaryIfDue(entry.getKey(), entry.getValue(), nowNs);
                if (line != null) {
                    levels.add(entry.getValue().level);
                    lines.add(line);
                }
            }
        }
        // Logged outside the lock: an appender may block, and connection threads record concurrently.
        for (int i = 0; i < lines.size(); i++) {
            log.atLevel(levels.get(i)).log(lines.get(i));
        }
    }

    private static String summaryIfDue(String cause, Cause c, long nowNs) {
        if (c.suppressed == 0 || nowNs - c.windowStartNs < INTERVAL_NS) {
            return null;
        }
        String line = c.suppressed + " more of \"" + cause + "\" in the last "
                + (nowNs - c.windowStartNs) / 1_000_000_000L + " s; the last: " + c.last;
        c.suppressed = 0;
        c.last = null;
        c.windowStartNs = nowNs;
        return line;
    }
}
