package dev.ofl.bench.run;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.ofl.api.WaitMode;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;

class SummaryTest {
    private static final ExchangeCase CASE = ExchangeCase.parse("64/64");
    private static final Variant A = new Variant("tcp", WaitMode.BUSY_POLL, true, false);
    private static final Variant B = new Variant("tcp", WaitMode.BLOCKING, true, false);

    /** A block whose every round trip takes {@code valueNs}, so each percentile is that value. */
    private static BlockResult block(String link, Variant v, int index, long valueNs, int requests, long cpuNs) {
        Histogram h = new Histogram(1, TimeUnit.MINUTES.toNanos(1), 3);
        for (int i = 0; i < requests; i++) {
            h.recordValue(valueNs);
        }
        return new BlockResult(link, new Schedule.Block(index, CASE, v, 0), 10, h, valueNs * requests, cpuNs,
                2 * cpuNs, cpuNs, -1, 3 * cpuNs, link.equals("B") ? -1 : 0, 0, 0);
    }

    @Test
    void percentilesAreMeansOverMatchingBlocksNotOfMergedSamples() {
        // Block 1: 10 requests at 1,000 ns; block 2: 1,000 requests at 3,000 ns. Merged, the p50
        // would be 3,000; the mean of the block p50s is 2,000.
        List<Summary> summaries = Summary.of(List.of(block("A", A, 0, 1_000, 10, 500),
                block("A", B, 1, 9_000, 10, 0), block("A", A, 2, 3_000, 1_000, 1_500)));
        assertEquals(2, summaries.size());
        Summary a = summaries.getFirst();
        assertEquals(A, a.variant());
        assertEquals(2, a.blocks());
        assertEquals(1_010, a.requests());
        assertEquals(2_000, a.percentileNs(50), 2_000 * 1e-3);
        assertEquals(1_000, a.p50MinNs(), 1);
        assertEquals(3_000, a.p50MaxNs(), 3);
        assertEquals(2_000.0 / 1_010, a.clientThreadCpuNsPerRequest(), 1e-9);
        assertEquals(4_000.0 / 1_010, a.clientProcessCpuNsPerRequest(), 1e-9);
        assertEquals(Double.NaN, a.serverProcessCpuNsPerRequest());
        assertEquals(6_000.0 / 1_010, a.clientThreadAllocatedBytesPerRequest(), 1e-9);
        assertEquals(0.0, a.serverThreadAllocatedBytesPerRequest());
        assertEquals(1_010, a.merged().getTotalCount());
    }

    @Test
    void linksAreSummarisedApart() {
        List<Summary> summaries = Summary.of(List.of(block("A", A, 0, 1_000, 10, 0), block("B", A, 0, 5_000, 10, 0)));
        assertEquals(2, summaries.size());
        assertEquals("A", summaries.get(0).link());
        assertEquals(5_000, summaries.get(1).percentileNs(50), 5);
        assertEquals(Double.NaN, summaries.get(1).serverThreadAllocatedBytesPerRequest(), "unknown on one block: unknown");
    }

    @Test
    void megabytesPerSecondCountBothDirections() {
        Summary s = Summary.of(List.of(block("A", A, 0, 1_000, 10, 0))).getFirst();
        assertEquals(128 / 1_000.0 * 1e3, s.megabytesPerSecond(), 1e-9);
    }

    @Test
    void aBlockStuckInASlowModeFailsTheP50Guard() {
        List<BlockResult> blocks = List.of(block("A", B, 0, 60_000, 10, 0), block("A", B, 1, 1_150_000, 10, 0));
        List<String> slow = BenchClient.slowBlocks(blocks, 900.0);
        assertEquals(1, slow.size());
        org.junit.jupiter.api.Assertions.assertTrue(slow.getFirst().contains("block 1"), slow.getFirst());
        assertEquals(List.of(), BenchClient.slowBlocks(blocks, null));
    }
}
