package dev.ofl.bench.run;

import org.HdrHistogram.Histogram;

/**
 * What one block measured on one link.
 *
 * @param link the link's label ({@code A}, {@code B}, ...)
 * @param block the block of the schedule
 * @param warmups checked, unrecorded requests before the measured ones
 * @param histogram round-trip times of the measured requests, in nanoseconds
 * @param sumNs sum of the measured round trips
 * @param clientThreadCpuNs CPU time of the calling thread over the measured requests
 * @param clientProcessCpuNs CPU time of the client process over them (every link of the process)
 * @param serverThreadCpuNs CPU time of the server's connection thread over them, {@code -1} if unknown
 * @param serverProcessCpuNs CPU time of the server process over them, {@code -1} if unknown
 * @param clientThreadAllocatedBytes heap bytes the calling thread allocated over them, {@code -1} if unknown
 * @param serverThreadAllocatedBytes heap bytes the server's connection thread allocated over them,
 *     {@code -1} if unknown (a virtual thread, for one)
 * @param mismatches bytes that differed from the pattern (response bytes checked by the client,
 *     plus one per request the server refused because its request bytes differed)
 * @param errors failed requests (timeouts, refusals, broken connections)
 */
public record BlockResult(String link, Schedule.Block block, long warmups, Histogram histogram, long sumNs,
        long clientThreadCpuNs, long clientProcessCpuNs, long serverThreadCpuNs, long serverProcessCpuNs,
        long clientThreadAllocatedBytes, long serverThreadAllocatedBytes, long mismatches, long errors) {

    /**
     * Measured requests.
     *
     * @return the count
     */
    public long requests() {
        return histogram.getTotalCount();
    }

    /**
     * Mean round trip.
     *
     * @return nanoseconds, {@code NaN} when nothing was measured
     */
    public double meanNs() {
        return requests() == 0 ? Double.NaN : (double) sumNs / requests();
    }

    /**
     * A CPU time or an allocation per measured request.
     *
     * @param total one of the CPU (nanoseconds) or allocation (bytes) fields
     * @return its unit per request, {@code NaN} when unknown or nothing was measured
     */
    public double perRequest(long total) {
        return total < 0 || requests() == 0 ? Double.NaN : (double) total / requests();
    }
}
