package dev.ofl.api.spi;

import dev.ofl.api.NanoClock;
import dev.ofl.api.OflRequest;
import java.util.HashMap;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Logs handler failures without flooding: the first failure of each kind (exception type and
 * message) with its stack trace, then only a count of its repeats, at most once per interval. A
 * handler that fails on every request costs one log line per interval, not a stack trace per
 * request. Thread-safe.
 */
final class HandlerErrors {
    private static final Logger LOG = LoggerFactory.getLogger(HandlerErrors.class);
    /** Distinct failures remembered; more are counted together, so a hostile stream of messages cannot grow the map. */
    private static final int MAX_DISTINCT = 64;
    private static final long REPEAT_INTERVAL_NS = 10_000_000_000L;
    private static final String OTHER = "(other failures beyond the first " + MAX_DISTINCT + " kinds)";

    private static final class Kind {
        long unreported;
        long lastReportNs;
    }

    private final Map<String, Kind> kinds = new HashMap<>();
    private final NanoClock clock;

    HandlerErrors(NanoClock clock) {
        this.clock = clock;
    }

    synchronized void record(OflRequest request, Exception failure) {
        String key = failure.getClass().getName() + ": " + failure.getMessage();
        Kind kind = kinds.get(key);
        long nowNs = clock.nanoTime();
        if (kind == null) {
            if (kinds.size() < MAX_DISTINCT) {
                kind = new Kind();
                kind.lastReportNs = nowNs;
                kinds.put(key, kind);
                LOG.warn("handler failed (op {}, sequence {}): {}; repeats of this failure are counted, not logged "
                        + "each time", request.op(), request.sequence(), failure.toString(), failure);
                return;
            }
            key = OTHER;
            kind = kinds.computeIfAbsent(key, k -> new Kind());
        }
        kind.unreported++;
        if (nowNs - kind.lastReportNs >= REPEAT_INTERVAL_NS) {
            LOG.warn("handler failed {} more time(s) with {} (last: op {}, sequence {})", kind.unreported, key,
                    request.op(), request.sequence());
            kind.unreported = 0;
            kind.lastReportNs = nowNs;
        }
    }
}
