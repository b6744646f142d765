package dev.ofl.bench.run;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import picocli.CommandLine;

class NioPeerTest {
    @Test
    void theServerWritesEveryByteOfTheIterationsResponseAndCheckFindsEachWrongOne() {
        int length = 1001;
        MemorySegment response = Arena.ofAuto().allocate(length);
        response.fill((byte) 0x5A);
        NioPeer.fill(response, length, 77);
        assertEquals(0, NioPeer.check(response, length, 77));
        assertEquals(0, StreamPattern.countMismatches(response, 0, 77, StreamPattern.RESPONSE, 0, length),
                "the C peer, the NIO peer and ofl's handler send the same stream");
        assertTrue(NioPeer.check(response, length, 78) > length / 2, "another iteration's response differs almost everywhere");
        response.set(ValueLayout.JAVA_BYTE, 1000, (byte) (response.get(ValueLayout.JAVA_BYTE, 1000) + 1));
        response.set(ValueLayout.JAVA_BYTE, 3, (byte) (response.get(ValueLayout.JAVA_BYTE, 3) ^ 1));
        assertEquals(2, NioPeer.check(response, length, 77));
    }

    @Test
    void parsesIbSendLatTypicalAndMedians() {
        String output = """
                ---------------------------------------------------------------------------------------
                 #bytes #iterations    t_min[usec]    t_max[usec]  t_typical[usec]    t_avg[usec]
                 64      1000          3.10           12.50        3.42               3.55
                ---------------------------------------------------------------------------------------
                """;
        assertEquals(3.42, Compare.ibTypicalMicros(output), 1e-9);
        assertEquals(null, Compare.ibTypicalMicros("no table"));
        assertEquals(2.0, Compare.median(List.of(3.0, 1.0, 2.0)), 1e-9);
        assertEquals(2.5, Compare.median(List.of(3.0, 1.0, 2.0, 4.0)), 1e-9);
    }

    /** An ofl row shows the most any round allocated per request; unknown in every round shows '-'. */
    @Test
    void compareShowsTheLargestAllocationOfAnyRound() {
        Compare compare = new Compare();
        compare.recordAllocation("ofl-tcp busy", 64, 0.0, 0.04);
        compare.recordAllocation("ofl-tcp busy", 64, 0.25, 0.0);
        compare.recordAllocation("ofl-tcp busy", 64, Double.NaN, Double.NaN);
        compare.recordAllocation("ofl-tcp blocking", 64, 0.0, Double.NaN);
        compare.recordAllocation("ofl-tcp blocking", 64, 0.0, Double.NaN);
        assertEquals("0.3/0.0", compare.allocation("ofl-tcp busy|64"), "a round whose query failed hides no other");
        assertEquals("0.0/-", compare.allocation("ofl-tcp blocking|64"));
        assertEquals("-", compare.allocation("c-tcp busy|64"));
    }

    /**
     * MB/s and CPU per request are medians over the rounds that measured them; MB/s is also set
     * against the C peer of the same wait mode, and a server's process CPU is marked 'p'.
     */
    @Test
    void compareShowsMedianThroughputAndCpuPerRequest() {
        Compare compare = new Compare();
        throughputs(compare, "c-tcp busy", 10.0, 8.0, 9.0);
        throughputs(compare, "ofl-tcp busy", 8.1, Double.NaN);
        assertEquals("9", compare.throughput("c-tcp busy|64"));
        assertEquals("0.90", compare.throughputRatio("ofl-tcp busy", 64), "a round that measured nothing is left out");
        assertEquals("-", compare.throughputRatio("ofl-tcp blocking", 64), "no C row of that wait mode");
        compare.recordCpu("ofl-tcp busy", 64, 8_000, 7_000, 30_000);
        compare.recordCpu("ofl-tcp busy", 64, 9_000, Double.NaN, Double.NaN);
        compare.recordCpu("ofl-tcp busy", 64, 10_000, 9_000, 30_000);
        assertEquals("9.0/8.0", compare.cpu("ofl-tcp busy|64"));
        compare.recordCpu("ofl-tcp blocking", 64, 3_000, Double.NaN, 20_000);
        assertEquals("3.0/20.0p", compare.cpu("ofl-tcp blocking|64"));
        assertEquals("-", compare.cpu("c-tcp busy|64"));
    }

    /** An ofl TCP row is also set against the NIO peer of its own wait mode, medians over rounds. */
    @Test
    void oflTcpRowsAreSetAgainstTheNioPeerOfTheirWaitMode() {
        Compare compare = new Compare();
        p50s(compare, "java-nio busy", 8_000, 12_000, 9_000);
        p50s(compare, "java-nio blocking", 50_000);
        p50s(compare, "ofl-tcp busy nio-calls", 9_900);
        p50s(compare, "ofl-tcp blocking", 20_000);
        p50s(compare, "c-tcp busy", 7_000);
        assertEquals("1.10", compare.nioRatio("ofl-tcp busy nio-calls", 64));
        assertEquals("0.40", compare.nioRatio("ofl-tcp blocking", 64));
        assertEquals("-", compare.nioRatio("c-tcp busy", 64));
        assertEquals("-", compare.nioRatio("ofl-tcp busy nio-calls", 4096), "no row of that size");
    }

    /**
     * A row's ratio to its reference, of the medians and of the best rounds: when the host's speed
     * shifts between levels, the medians may come from different levels and the best rounds not.
     * The reference tools' rows put ofl RDMA over the tool.
     */
    @Test
    void compareSetsRowsAgainstTheirReferenceByMedianAndByBestRound() {
        Compare compare = new Compare();
        p50s(compare, "c-tcp busy", 7_700, 7_600, 7_800);
        p50s(compare, "ofl-tcp busy", 12_300, 8_400, 12_000);
        assertEquals("1.56", compare.p50Ratio("ofl-tcp busy", 64, false), "12.0 / 7.7: two slow rounds of three");
        assertEquals("1.11", compare.p50Ratio("ofl-tcp busy", 64, true), "8.4 / 7.6");
        p50s(compare, "ofl-rdma busy", 30_000, 20_000);
        p50s(compare, "ib_send_lat 2x typical", 12_500, 10_000);
        assertEquals("2.22", compare.p50Ratio("ib_send_lat 2x typical", 64, false), "25.0 / 11.25: ofl over the tool");
        assertEquals("2.00", compare.p50Ratio("ib_send_lat 2x typical", 64, true), "20.0 / 10.0");
        assertEquals("-", compare.p50Ratio("ofl-tcp blocking", 64, true), "no row");
        assertEquals("-", compare.p50Ratio("java-nio busy", 64, true), "no such row of its own");
    }

    /**
     * The paired ratios of an ofl TCP row are the medians over its rounds of its p50 and its MB/s
     * over the mean of those of the C runs right before and after it; a round whose C run failed adds
     * neither, and one without an MB/s figure only its p50 ratio.
     */
    @Test
    void pairedRatiosSetEachRoundAgainstTheCRunsAroundIt() {
        Compare compare = new Compare();
        compare.recordPaired("ofl-tcp busy", 64, run(8_400, 3_000), run(7_600, 4_000), run(7_800, 2_000));
        compare.recordPaired("ofl-tcp busy", 64, run(12_600, 2_000), run(11_400, 1_000), run(11_600, 1_000));
        compare.recordPaired("ofl-tcp busy", 64, run(12_400, Double.NaN), run(7_700, 1_000), run(11_300, 1_000));
        compare.recordPaired("ofl-tcp busy", 64, run(30_000, 9_000), null, run(7_700, 1_000));
        compare.recordPaired("ofl-tcp blocking", 64, run(60_000, 1_000), run(55_000, 1_000), null);
        assertEquals("1.10", compare.pairedRatio("ofl-tcp busy|64"), "8.4 / 7.7, 12.6 / 11.5 and 12.4 / 9.5: their median");
        assertEquals("1.50", compare.pairedThroughputRatio("ofl-tcp busy|64"),
                "3000 / 3000 and 2000 / 1000, the round without MB/s left out: their median");
        assertEquals("-", compare.pairedRatio("ofl-tcp blocking|64"), "its only C pair failed");
        assertEquals("-", compare.pairedThroughputRatio("ofl-tcp blocking|64"), "its only C pair failed");
        assertEquals("-", compare.pairedRatio("c-tcp busy|64"));
        assertEquals("-", compare.pairedThroughputRatio("c-tcp busy|64"));
    }

    private static Compare.PlainRun run(double p50Ns, double megabytesPerSecond) {
        return new Compare.PlainRun(p50Ns, megabytesPerSecond);
    }

    /** Records one round's 64-byte p50 per value, in nanoseconds. */
    private static void p50s(Compare compare, String peer, double... nanos) {
        for (double p50 : nanos) {
            compare.record(peer, 64, p50);
        }
    }

    /** Records one round's 64-byte MB/s per value ({@code NaN}: a round that measured none). */
    private static void throughputs(Compare compare, String peer, double... megabytesPerSecond) {
        for (double value : megabytesPerSecond) {
            compare.recordThroughput(peer, 64, value);
        }
    }

    /** With --cpu every TCP peer's client and server get their CPU, each in its own command's form. */
    @Test
    void compareGivesEachRoleOfEveryPeerItsCpuOnlyWhenAsked() {
        Compare compare = new Compare();
        assertEquals(List.of("tcp_peer", "server"), compare.pinned(List.of("tcp_peer", "server"), Compare.SERVER, ""));
        compare.cpus = List.of(0, 1);
        assertEquals(List.of("tcp_peer", "server", "1"),
                compare.pinned(List.of("tcp_peer", "server"), Compare.SERVER, ""));
        assertEquals(List.of("--cpu=0"), compare.pinned(List.of(), Compare.CLIENT, "--cpu="));
    }

    /** Both modes exchange and check real responses between a server and a client of their own. */
    @ParameterizedTest
    @ValueSource(booleans = {true, false})
    void serverAndClientExchangeCheckedResponsesInEitherMode(boolean busy) throws Exception {
        NioServerRun server = NioServerRun.start(busy);
        String line = runClient("--busy=" + busy, "client", "127.0.0.1", Integer.toString(server.port()), "1000", "50",
                "5");
        assertTrue(line.startsWith("java-nio " + (busy ? "busy" : "blocking") + " bytes=1000 "), line);
        assertTrue(line.contains("n=50 ") && line.contains("mismatches=0 warmups=5"), line);
        assertEquals(0, server.exit().get(60, TimeUnit.SECONDS), "the server ends cleanly when its client leaves");
    }

    /**
     * With --warmup-ms the client warms up for that long as well as for its count, which compare
     * relies on to warm the JVM as long as ofl's client.
     */
    @Test
    void theClientWarmsUpForItsTimeAsWellAsItsCount() throws Exception {
        NioServerRun server = NioServerRun.start(false);
        String line = runClient("--warmup-ms=300", "client", "127.0.0.1", Integer.toString(server.port()), "64", "10",
                "2");
        Matcher warmups = Pattern.compile("mismatches=0 warmups=(\\d+)").matcher(line);
        assertTrue(warmups.find(), line);
        // 300 ms of loopback round trips are far more than the count of 2.
        assertTrue(Long.parseLong(warmups.group(1)) > 2, line);
        assertEquals(0, server.exit().get(60, TimeUnit.SECONDS));
    }

    /** Runs the NIO client with {@code args}, asserts it exited 0, and returns what it printed. */
    private static String runClient(String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        int exit = new CommandLine(new NioPeer(new PrintStream(out, true, StandardCharsets.UTF_8))).execute(args);
        String printed = out.toString(StandardCharsets.UTF_8);
        assertEquals(0, exit, printed);
        return printed;
    }
}
