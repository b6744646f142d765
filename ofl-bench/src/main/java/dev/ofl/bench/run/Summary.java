package dev.ofl.bench.run;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.HdrHistogram.Histogram;

/**
 * The blocks of one link, case and variant taken together: each percentile is the mean of that
 * percentile over the matching blocks (not the percentile of the merged samples), as the ABBA
 * design calls for; the spread of the p50s shows how much the blocks disagree.
 *
 * @param link the link
 * @param testCase the case
 * @param variant the variant
 * @param blocks how many blocks matched
 * @param requests measured requests over all of them
 * @param percentiles percentile (e.g. 50.0) to its mean over the blocks, in nanoseconds
 * @param p50MinNs the smallest block p50
 * @param p50MaxNs the largest block p50
 * @param meanNs mean round trip over all measured requests
 * @param clientThreadCpuNsPerRequest client calling-thread CPU per request
 * @param clientProcessCpuNsPerRequest client process CPU per request
 * @param serverThreadCpuNsPerRequest server connection-thread CPU per request, {@code NaN} if unknown
 * @param serverProcessCpuNsPerRequest server process CPU per request, {@code NaN} if unknown
 * @param clientThreadAllocatedBytesPerRequest heap bytes the client calling thread allocated per request,
 *     {@code NaN} if unknown
 * @param serverThreadAllocatedBytesPerRequest heap bytes the server connection thread allocated per request,
 *     {@code NaN} if unknown
 * @param mismatches bad bytes over all blocks
 * @param errors failed requests over all blocks
 * @param merged every measured round trip of the matching blocks
 */
public record Summary(String link, ExchangeCase testCase, Variant variant, int blocks, long requests,
        Map<Double, Double> percentiles, long p50MinNs, long p50MaxNs, double meanNs,
        double clientThreadCpuNsPerRequest, double clientProcessCpuNsPerRequest, double serverThreadCpuNsPerRequest,
        double serverProcessCpuNsPerRequest, double clientThreadAllocatedBytesPerRequest,
        double serverThreadAllocatedBytesPerRequest, long mismatches, long errors, Histogram merged) {

    /** The percentiles every table, JSON file and chart reports. */
    public static final double[] PERCENTILES = {50, 90, 99, 99.9, 100};

    /**
     * Groups blocks by link, case and variant, in order of first appearance, and averages them.
     *
     * @param results the blocks as measured
     * @return one summary per link, case and variant
     */
    public static List<Summary> of(List<BlockResult> results) {
        Map<List<Object>, List<BlockResult>> groups = new LinkedHashMap<>();
        for (BlockResult r : results) {
            groups.computeIfAbsent(List.of(r.link(), r.block().testCase(), r.block().variant()),
                    k -> new ArrayList<>()).add(r);
        }
        List<Summary> summaries = new ArrayList<>();
        for (List<BlockResult> group : groups.values()) {
            summaries.add(summarise(group));
        }
        return summaries;
    }

    private static Summary summarise(List<BlockResult> group) {
        BlockResult first = group.getFirst();
        Histogram merged = new Histogram(first.histogram().getLowestDiscernibleValue(),
                first.histogram().getHighestTrackableValue(), first.histogram().getNumberOfSignificantValueDigits());
        Map<Double, Double> percentiles = new LinkedHashMap<>();
        long p50Min = Long.MAX_VALUE;
        long p50Max = Long.MIN_VALUE;
        long requests = 0;
        long sumNs = 0;
        long mismatches = 0;
        long errors = 0;
        int measuredBlocks = 0;
        for (BlockResult r : group) {
            merged.add(r.histogram());
            requests += r.requests();
            sumNs += r.sumNs();
            mismatches += r.mismatches();
            errors += r.errors();
            if (r.requests() == 0) {
                continue;
            }
            measuredBlocks++;
            for (double p : PERCENTILES) {
                percentiles.merge(p, (double) r.histogram().getValueAtPercentile(p), Double::sum);
            }
            long p50 = r.histogram().getValueAtPercentile(50);
            p50Min = Math.min(p50Min, p50);
            p50Max = Math.max(p50Max, p50);
        }
        int n = measuredBlocks;
        percentiles.replaceAll((p, sum) -> sum / n);
        return new Summary(first.link(), first.block().testCase(), first.block().variant(), group.size(), requests,
                percentiles, n == 0 ? 0 : p50Min, n == 0 ? 0 : p50Max,
                requests == 0 ? Double.NaN : (double) sumNs / requests,
                perRequest(group, requests, BlockResult::clientThreadCpuNs),
                perRequest(group, requests, BlockResult::clientProcessCpuNs),
                perRequest(group, requests, BlockResult::serverThreadCpuNs),
                perRequest(group, requests, BlockResult::serverProcessCpuNs),
                perRequest(group, requests, BlockResult::clientThreadAllocatedBytes),
                perRequest(group, requests, BlockResult::serverThreadAllocatedBytes), mismatches, errors, merged);
    }

    private static double perRequest(List<BlockResult> group, long requests,
            java.util.function.ToLongFunction<BlockResult> field) {
        long sum = 0;
        for (BlockResult r : group) {
            long v = field.applyAsLong(r);
            if (v < 0) {
                return Double.NaN;
            }
            sum += v;
        }
        return requests == 0 ? Double.NaN : (double) sum / requests;
    }

    /**
     * A percentile's mean over the blocks.
     *
     * @param percentile one of {@link #PERCENTILES}
     * @return nanoseconds, {@code NaN} when no block measured anything
     */
    public double percentileNs(double percentile) {
        return percentiles.getOrDefault(percentile, Double.NaN);
    }

    /**
     * Bytes moved per second in both directions: (request + response bytes) / mean round trip.
     *
     * @return megabytes (10^6) per second, {@code NaN} when nothing was measured
     */
    public double megabytesPerSecond() {
        return (testCase.requestBytes() + testCase.responseBytes()) / meanNs * 1e3;
    }
}
