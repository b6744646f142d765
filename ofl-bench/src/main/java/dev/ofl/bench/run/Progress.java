package dev.ofl.bench.run;

import java.io.PrintStream;
import java.util.Locale;

/**
 * Prints one line per finished block with how far the run is and an estimate of the time left, so
 * a long run (large cases, a cadence, many repeats) shows it is alive. Thread-safe: every link's
 * thread reports here.
 */
final class Progress {
    private final PrintStream log;
    private final int total;
    private final long startNs = System.nanoTime();
    private int done;

    Progress(PrintStream log, int total) {
        this.log = log;
        this.total = total;
    }

    synchronized void blockDone(BlockResult r) {
        done++;
        double elapsedS = (System.nanoTime() - startNs) / 1e9;
        double leftS = elapsedS / done * (total - done);
        log.printf(Locale.ROOT, "ofl-bench: [%d/%d] link %s %s %s round %d: p50 %.1f us, %d requests,"
                + " %d mismatches, %d errors; %.0f s elapsed, about %.0f s left%n", done, total, r.link(),
                r.block().testCase().name(), r.block().variant().label(), r.block().repeat() + 1,
                r.requests() == 0 ? Double.NaN : r.histogram().getValueAtPercentile(50) / 1e3, r.requests(),
                r.mismatches(), r.errors(), elapsedS, leftS);
    }
}
