package dev.ofl.bench.run;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.HistogramLogWriter;

/**
 * The run's outputs: the table on standard output and the JSON file. The JSON holds the
 * conditions, every block (with its percentiles, CPU and checks), every summary (percentiles
 * averaged over matching blocks), and the HdrHistogram log of every block, tagged
 * {@code b<index>-<link>} with the block's {@code index} and {@code link} in the {@code blocks} array.
 */
final class Report {
    /** Version of the JSON layout; raised when a field changes meaning or disappears. */
    static final int JSON_VERSION = 1;
    /** The percentiles of the by-link table, in its column order: the summaries' own, without the maximum. */
    private static final double[] BY_LINK_PERCENTILES = Arrays.stream(Summary.PERCENTILES).filter(p -> p < 100).toArray();

    private Report() {
    }

    /**
     * Prints the summaries, one line each, with the conditions above them; with two links or more,
     * then the same percentiles side by side per link ({@link #printByLink}).
     */
    static void printTable(PrintStream out, Map<String, Object> conditions, List<Summary> summaries) {
        StringBuilder header = new StringBuilder("#");
        for (Map.Entry<String, Object> e : conditions.entrySet()) {
            header.append(' ').append(e.getKey()).append(": ").append(e.getValue()).append(';');
        }
        out.println(header);
        out.println("# RTT = from writing the request's first byte to its completion (checks outside); each"
                + " percentile is the mean of that percentile over the matching blocks (ABBA rounds);"
                + " p50 range = smallest..largest block p50; MB/s = (request + response bytes) / mean RTT;"
                + " CPU = thread CPU time / requests (c = client calling thread, s = server connection"
                + " thread, or with a trailing p the server process where that thread is virtual; process CPU"
                + " in the JSON); alloc = heap bytes allocated / requests by the same threads; bad = bytes or"
                + " requests that failed a check");
        String format = "%-4s %-14s %-40s %6s %8s %9s %9s %9s %9s %9s %-19s %9s %8s %8s %9s %9s %5s %6s%n";
        out.printf(Locale.ROOT, format, "link", "case", "variant", "blocks", "requests", "p50_us", "p90_us",
                "p99_us", "p99.9_us", "max_us", "p50_range_us", "MB/s", "cpu_c_us", "cpu_s_us", "alloc_c_B",
                "alloc_s_B", "bad", "errors");
        for (Summary s : summaries) {
            out.printf(Locale.ROOT, format, s.link(), s.testCase().name(), s.variant().label(), s.blocks(),
                    s.requests(), micros(s.percentileNs(50)), micros(s.percentileNs(90)), micros(s.percentileNs(99)),
                    micros(s.percentileNs(99.9)), micros(s.percentileNs(100)),
                    micros(s.p50MinNs()) + ".." + micros(s.p50MaxNs()), number(s.megabytesPerSecond()),
                    micros(s.clientThreadCpuNsPerRequest()), serverCpu(s),
                    number(s.clientThreadAllocatedBytesPerRequest()), number(s.serverThreadAllocatedBytesPerRequest()),
                    s.mismatches(), s.errors());
        }
        printByLink(out, summaries);
    }

    /**
     * With two links or more, one row per case and variant with a column group per link, in the
     * order the links were named: the links' percentiles side by side, as the seed's A/B columns
     * set its two direct links against each other. Nothing with one link.
     */
    private static void printByLink(PrintStream out, List<Summary> summaries) {
        List<String> links = summaries.stream().map(Summary::link).distinct().toList();
        if (links.size() < 2) {
            return;
        }
        Map<List<String>, Map<String, Summary>> rows = new LinkedHashMap<>();
        for (Summary s : summaries) {
            rows.computeIfAbsent(List.of(s.testCase().name(), s.variant().label()), k -> new HashMap<>())
                    .put(s.link(), s);
        }
        out.println("# by link: the percentiles above side by side, a column group per link ('-': no such row for"
                + " that link)");
        StringBuilder head = new StringBuilder(String.format(Locale.ROOT, "%-14s %-40s", "case", "variant"));
        for (String link : links) {
            for (double p : BY_LINK_PERCENTILES) {
                head.append(String.format(Locale.ROOT, " %11s", link + "_" + percentileKey(p) + "_us"));
            }
        }
        out.println(head);
        for (Map.Entry<List<String>, Map<String, Summary>> row : rows.entrySet()) {
            StringBuilder line = new StringBuilder(String.format(Locale.ROOT, "%-14s %-40s", row.getKey().get(0),
                    row.getKey().get(1)));
            for (String link : links) {
                Summary s = row.getValue().get(link);
                for (double p : BY_LINK_PERCENTILES) {
                    line.append(String.format(Locale.ROOT, " %11s", s == null ? "-" : micros(s.percentileNs(p))));
                }
            }
            out.println(line);
        }
    }

    /** Writes the JSON file. */
    static void writeJson(Path file, Map<String, Object> conditions, List<BlockResult> blocks,
            List<Summary> summaries) throws IOException {
        ObjectMapper mapper = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);
        mapper.writeValue(file.toFile(), toJson(mapper, conditions, blocks, summaries));
    }

    /** The JSON document, as {@link #writeJson} writes it. */
    static ObjectNode toJson(ObjectMapper mapper, Map<String, Object> conditions, List<BlockResult> blocks,
            List<Summary> summaries) {
        ObjectNode root = mapper.createObjectNode();
        root.put("format", "ofl-bench");
        root.put("version", JSON_VERSION);
        root.set("conditions", mapper.valueToTree(conditions));
        long bad = 0;
        long errors = 0;
        ArrayNode blockArray = root.putArray("blocks");
        for (BlockResult r : blocks) {
            ObjectNode b = blockArray.addObject();
            b.put("index", r.block().index());
            b.put("link", r.link());
            caseAndVariant(b, r.block().testCase(), r.block().variant());
            b.put("repeat", r.block().repeat());
            b.put("warmups", r.warmups());
            b.put("requests", r.requests());
            ObjectNode p = b.putObject("percentilesNs");
            for (double q : Summary.PERCENTILES) {
                p.put(percentileKey(q), r.requests() == 0 ? 0 : r.histogram().getValueAtPercentile(q));
            }
            b.put("meanNs", r.meanNs());
            b.put("clientThreadCpuNs", r.clientThreadCpuNs());
            b.put("clientProcessCpuNs", r.clientProcessCpuNs());
            b.put("serverThreadCpuNs", r.serverThreadCpuNs());
            b.put("serverProcessCpuNs", r.serverProcessCpuNs());
            b.put("clientThreadAllocatedBytes", r.clientThreadAllocatedBytes());
            b.put("serverThreadAllocatedBytes", r.serverThreadAllocatedBytes());
            b.put("mismatches", r.mismatches());
            b.put("errors", r.errors());
            b.put("histogramTag", tag(r));
            bad += r.mismatches();
            errors += r.errors();
        }
        ArrayNode summaryArray = root.putArray("summaries");
        for (Summary s : summaries) {
            ObjectNode o = summaryArray.addObject();
            o.put("link", s.link());
            caseAndVariant(o, s.testCase(), s.variant());
            o.put("blocks", s.blocks());
            o.put("requests", s.requests());
            ObjectNode p = o.putObject("meanPercentilesNs");
            for (double q : Summary.PERCENTILES) {
                p.put(percentileKey(q), s.percentileNs(q));
            }
            o.put("p50MinNs", s.p50MinNs());
            o.put("p50MaxNs", s.p50MaxNs());
            o.put("meanNs", s.meanNs());
            o.put("megabytesPerSecond", s.megabytesPerSecond());
            o.put("clientThreadCpuNsPerRequest", s.clientThreadCpuNsPerRequest());
            o.put("clientProcessCpuNsPerRequest", s.clientProcessCpuNsPerRequest());
            o.put("serverThreadCpuNsPerRequest", s.serverThreadCpuNsPerRequest());
            o.put("serverProcessCpuNsPerRequest", s.serverProcessCpuNsPerRequest());
            o.put("clientThreadAllocatedBytesPerRequest", s.clientThreadAllocatedBytesPerRequest());
            o.put("serverThreadAllocatedBytesPerRequest", s.serverThreadAllocatedBytesPerRequest());
            o.put("mismatches", s.mismatches());
            o.put("errors", s.errors());
        }
        root.put("badChecks", bad);
        root.put("errors", errors);
        root.put("histogramLog", histogramLog(blocks));
        return root;
    }

    private static void caseAndVariant(ObjectNode o, ExchangeCase c, Variant v) {
        o.put("case", c.name());
        o.put("requestBytes", c.requestBytes());
        o.put("responseBytes", c.responseBytes());
        o.put("backend", v.backend());
        o.put("wait", Variant.waitName(v.waitMode()));
        o.put("request", v.requestInPlace() ? "inplace" : "copy");
        o.put("response", v.responseInPlace() ? "inplace" : "copy");
        o.put("variant", v.label());
    }

    /** The HdrHistogram log (text, compressed base64 lines) of every block's histogram. */
    static String histogramLog(List<BlockResult> blocks) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (PrintStream stream = new PrintStream(bytes, true, StandardCharsets.UTF_8)) {
            HistogramLogWriter writer = new HistogramLogWriter(stream);
            writer.outputLogFormatVersion();
            writer.outputLegend();
            for (BlockResult r : blocks) {
                Histogram h = r.histogram().copy();
                h.setTag(tag(r));
                writer.outputIntervalHistogram(h);
            }
        }
        return bytes.toString(StandardCharsets.UTF_8);
    }

    static String tag(BlockResult r) {
        return "b" + r.block().index() + "-" + r.link();
    }

    static String percentileKey(double percentile) {
        return percentile == 100 ? "max" : "p" + (percentile == Math.rint(percentile)
                ? Long.toString((long) percentile) : Double.toString(percentile));
    }

    private static String serverCpu(Summary s) {
        return serverCpuMicros(s.serverThreadCpuNsPerRequest(), s.serverProcessCpuNsPerRequest());
    }

    /**
     * The server connection thread's CPU per request in microseconds, else (a virtual thread, which
     * has no thread CPU time) the process's, marked {@code p}; {@code -} if neither is known.
     */
    static String serverCpuMicros(double threadNs, double processNs) {
        if (!Double.isNaN(threadNs) || Double.isNaN(processNs)) {
            return micros(threadNs);
        }
        return micros(processNs) + "p";
    }

    static String micros(double ns) {
        return Double.isNaN(ns) ? "-" : String.format(Locale.ROOT, "%.1f", ns / 1e3);
    }

    private static String number(double value) {
        return Double.isNaN(value) ? "-" : String.format(Locale.ROOT, "%.1f", value);
    }
}
