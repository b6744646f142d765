package dev.ofl.bench.run;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.CategoryChart;
import org.knowm.xchart.CategoryChartBuilder;
import org.knowm.xchart.CategorySeries;

/**
 * PNG charts of a run: per case, the mean percentiles of every link and variant side by side
 * ({@code latency-<case>.png}); and one chart of MB/s per case and variant ({@code throughput.png}).
 */
final class Charts {
    private static final int WIDTH = 1200;
    private static final int HEIGHT = 700;

    private Charts() {
    }

    /**
     * Writes the charts.
     *
     * @return the files written
     */
    static List<Path> write(Path directory, List<Summary> summaries) throws IOException {
        System.setProperty("java.awt.headless", "true");
        Files.createDirectories(directory);
        List<Path> written = new ArrayList<>();
        if (summaries.isEmpty()) {
            return written;
        }
        Map<String, List<Summary>> byCase = new LinkedHashMap<>();
        for (Summary s : summaries) {
            byCase.computeIfAbsent(s.testCase().name(), k -> new ArrayList<>()).add(s);
        }
        List<String> labels = new ArrayList<>();
        for (double p : Summary.PERCENTILES) {
            labels.add(Report.percentileKey(p));
        }
        for (Map.Entry<String, List<Summary>> e : byCase.entrySet()) {
            CategoryChart chart = new CategoryChartBuilder().width(WIDTH).height(HEIGHT)
                    .title("Round trip, case " + e.getKey() + " (mean over ABBA blocks)")
                    .xAxisTitle("percentile").yAxisTitle("microseconds").build();
            // Lines, not bars: bars start at zero, which a logarithmic axis cannot show.
            chart.getStyler().setDefaultSeriesRenderStyle(CategorySeries.CategorySeriesRenderStyle.Line);
            chart.getStyler().setYAxisLogarithmic(true);
            chart.getStyler().setLegendPosition(org.knowm.xchart.style.Styler.LegendPosition.OutsideS);
            for (Summary s : e.getValue()) {
                if (s.requests() == 0) {
                    continue;
                }
                List<Double> micros = new ArrayList<>();
                for (double p : Summary.PERCENTILES) {
                    micros.add(Math.max(0.001, s.percentileNs(p) / 1e3));
                }
                chart.addSeries(seriesName(s), labels, micros);
            }
            if (chart.getSeriesMap().isEmpty()) {
                continue;
            }
            Path file = directory.resolve("latency-" + fileName(e.getKey()) + ".png");
            BitmapEncoder.saveBitmap(chart, file.toString(), BitmapEncoder.BitmapFormat.PNG);
            written.add(file);
        }
        CategoryChart throughput = new CategoryChartBuilder().width(WIDTH).height(HEIGHT)
                .title("MB/s = (request + response bytes) / mean round trip")
                .xAxisTitle("case").yAxisTitle("MB/s").build();
        throughput.getStyler().setLegendPosition(org.knowm.xchart.style.Styler.LegendPosition.OutsideS);
        Set<String> cases = byCase.keySet();
        Map<String, Map<String, Double>> bySeries = new LinkedHashMap<>();
        for (Summary s : summaries) {
            bySeries.computeIfAbsent(seriesName(s), k -> new LinkedHashMap<>())
                    .put(s.testCase().name(), s.megabytesPerSecond());
        }
        List<String> caseLabels = new ArrayList<>(new LinkedHashSet<>(cases));
        for (Map.Entry<String, Map<String, Double>> e : bySeries.entrySet()) {
            List<Double> values = new ArrayList<>();
            for (String c : caseLabels) {
                Double v = e.getValue().get(c);
                values.add(v == null || v.isNaN() ? 0.0 : v);
            }
            throughput.addSeries(e.getKey(), caseLabels, values);
        }
        Path file = directory.resolve("throughput.png");
        BitmapEncoder.saveBitmap(throughput, file.toString(), BitmapEncoder.BitmapFormat.PNG);
        written.add(file);
        return written;
    }

    private static String seriesName(Summary s) {
        return s.link() + ": " + s.variant().label();
    }

    /** A case name made safe for a file name ({@code 64/12MiB} becomes {@code 64_12MiB}). */
    static String fileName(String caseName) {
        return caseName.replaceAll("[^A-Za-z0-9._-]", "_");
    }
}
