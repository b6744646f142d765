package dev.ofl.bench.run;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.ofl.api.WaitMode;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.HistogramLogReader;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ReportTest {
    private static final ExchangeCase CASE = ExchangeCase.parse("184416/24");
    private static final Variant COPY = new Variant("tcp", WaitMode.BLOCKING, false, false);
    private static final Variant IN_PLACE = new Variant("tcp", WaitMode.BLOCKING, true, false);

    private static BlockResult block(int index, Variant v, long valueNs) {
        Histogram h = new Histogram(1, TimeUnit.MINUTES.toNanos(1), 3);
        for (int i = 0; i < 100; i++) {
            h.recordValue(valueNs + i);
        }
        return new BlockResult("A", new Schedule.Block(index, CASE, v, 0), 20, h, 100 * valueNs, 1_000, 2_000, 3_000,
                4_000, 100L * index * index, 0, index == 1 ? 3 : 0, 0);
    }

    private static final List<BlockResult> BLOCKS = List.of(block(0, COPY, 10_000), block(1, IN_PLACE, 20_000),
            block(2, IN_PLACE, 22_000), block(3, COPY, 12_000));

    private static Map<String, Object> conditions() {
        Map<String, Object> c = new LinkedHashMap<>();
        c.put("cadence", "burst");
        return c;
    }

    @Test
    void jsonHasEveryBlockEverySummaryAndAReadableHistogramLog(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("run.json");
        Report.writeJson(file, conditions(), BLOCKS, Summary.of(BLOCKS));
        JsonNode root = new ObjectMapper().readTree(file.toFile());
        assertEquals("ofl-bench", root.get("format").asText());
        assertEquals(Report.JSON_VERSION, root.get("version").asInt());
        assertEquals("burst", root.get("conditions").get("cadence").asText());
        assertEquals(4, root.get("blocks").size());
        JsonNode b1 = root.get("blocks").get(1);
        assertEquals("inplace", b1.get("request").asText());
        assertEquals(184_416, b1.get("requestBytes").asLong());
        assertEquals(24, b1.get("responseBytes").asLong());
        assertEquals(3, b1.get("mismatches").asLong());
        for (String key : List.of("p50", "p90", "p99", "p99.9", "max")) {
            assertTrue(b1.get("percentilesNs").has(key), key);
        }
        assertEquals(2, root.get("summaries").size());
        JsonNode copy = root.get("summaries").get(0);
        assertEquals("copy", copy.get("request").asText());
        assertEquals(2, copy.get("blocks").asInt());
        double meanP50 = copy.get("meanPercentilesNs").get("p50").asDouble();
        assertTrue(meanP50 > 11_000 && meanP50 < 11_100, "mean of the block p50s: " + meanP50);
        assertEquals(3_000.0 * 2 / 200, copy.get("serverThreadCpuNsPerRequest").asDouble(), 1e-9);
        assertEquals((0 + 900) / 200.0, copy.get("clientThreadAllocatedBytesPerRequest").asDouble(), 1e-9);
        assertEquals(0.0, copy.get("serverThreadAllocatedBytesPerRequest").asDouble());
        assertEquals(400, root.get("blocks").get(2).get("clientThreadAllocatedBytes").asLong());
        assertEquals(3, root.get("badChecks").asLong());

        HistogramLogReader reader = new HistogramLogReader(new ByteArrayInputStream(
                root.get("histogramLog").asText().getBytes(StandardCharsets.UTF_8)));
        int histograms = 0;
        for (Histogram h; (h = (Histogram) reader.nextIntervalHistogram()) != null; histograms++) {
            assertEquals("b" + histograms + "-A", h.getTag());
            assertEquals(100, h.getTotalCount());
        }
        assertEquals(4, histograms);
    }

    @Test
    void tableHasOneLinePerSummary() {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        Report.printTable(new PrintStream(bytes, true, StandardCharsets.UTF_8), conditions(), Summary.of(BLOCKS));
        List<String> lines = bytes.toString(StandardCharsets.UTF_8).lines().toList();
        assertEquals(5, lines.size());
        assertTrue(lines.get(3).contains("tcp blocking req=copy resp=copy"), lines.get(3));
        assertTrue(lines.get(3).matches(".* 4\\.5 +0\\.0 +0 +0$"), "allocation per request: " + lines.get(3));
        assertTrue(lines.get(4).matches(".* 2\\.5 +0\\.0 +3 +0$"), lines.get(4));
    }

    /**
     * With two links the same percentiles also stand side by side, one row per case and variant,
     * a column group per link; one link prints no such table.
     */
    @Test
    void twoLinksAlsoPrintTheirPercentilesSideBySide() {
        List<BlockResult> blocks = new ArrayList<>(BLOCKS);
        Histogram h = new Histogram(1, TimeUnit.MINUTES.toNanos(1), 3);
        for (int i = 0; i < 100; i++) {
            h.recordValue(40_000 + i);
        }
        blocks.add(new BlockResult("B", new Schedule.Block(0, CASE, IN_PLACE, 0), 20, h, 4_000_000, 1_000, 2_000,
                3_000, 4_000, 0, 0, 0, 0));
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        Report.printTable(new PrintStream(bytes, true, StandardCharsets.UTF_8), conditions(), Summary.of(blocks));
        List<String> lines = bytes.toString(StandardCharsets.UTF_8).lines().toList();
        int by = lines.indexOf(lines.stream().filter(l -> l.startsWith("# by link")).findFirst().orElseThrow());
        assertTrue(lines.get(by + 1).matches("case +variant +A_p50_us +A_p90_us +A_p99_us +A_p99\\.9_us +B_p50_us +B_p90_us"
                + " +B_p99_us +B_p99\\.9_us"), lines.get(by + 1));
        assertEquals(by + 3, lines.size() - 1, "one row per case and variant");
        // A's copy blocks took 10.00-10.10 and 12.00-12.10 us (each percentile averaged: 11.1), B's one
        // in-place block 40.00-40.10 us; B has no copy row.
        assertTrue(lines.get(by + 2).matches(".*req=copy resp=copy( +11\\.1){4}( +-){4}$"), lines.get(by + 2));
        assertTrue(lines.get(by + 3).matches(".*req=inplace resp=copy( +21\\.1){4}( +40\\.1){4}$"),
                lines.get(by + 3));

        ByteArrayOutputStream one = new ByteArrayOutputStream();
        Report.printTable(new PrintStream(one, true, StandardCharsets.UTF_8), conditions(), Summary.of(BLOCKS));
        assertTrue(one.toString(StandardCharsets.UTF_8).lines().noneMatch(l -> l.startsWith("# by link")));
    }

    /** A server connection on a virtual thread has no thread CPU: the process's is shown, marked p. */
    @Test
    void serverCpuFallsBackToTheProcessMarkedWhereTheThreadIsVirtual() {
        Histogram h = new Histogram(1, TimeUnit.MINUTES.toNanos(1), 3);
        for (int i = 0; i < 100; i++) {
            h.recordValue(10_000 + i);
        }
        BlockResult virtual = new BlockResult("A", new Schedule.Block(0, CASE, COPY, 0), 20, h, 1_000_000, 1_000,
                2_000, -1, 400_000, 0, -1, 0, 0);
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        Report.printTable(new PrintStream(bytes, true, StandardCharsets.UTF_8), conditions(),
                Summary.of(List.of(virtual)));
        String row = bytes.toString(StandardCharsets.UTF_8).lines().toList().getLast();
        assertTrue(row.matches(".* 4\\.0p +0\\.0 +- +0 +0$"), row);
    }

    @Test
    void chartsArePngFilesPerCaseAndForThroughput(@TempDir Path dir) throws Exception {
        List<Path> files = Charts.write(dir, Summary.of(BLOCKS));
        assertEquals(List.of(dir.resolve("latency-184416_24.png"), dir.resolve("throughput.png")), files);
        for (Path f : files) {
            byte[] head = Files.readAllBytes(f);
            assertEquals((byte) 0x89, head[0]);
            assertEquals('P', head[1]);
        }
    }
}
