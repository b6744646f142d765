package dev.ofl.bench.run;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ofl.api.WaitMode;
import java.util.List;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

class BenchClientOptionsTest {
    private static BenchClient.Plan plan(String... args) {
        BenchClient client = new BenchClient(System.out, System.err);
        new CommandLine(client).parseArgs(args);
        return client.plan();
    }

    @Test
    void defaultsAreOneEchoCaseBothWaitModesOverTcp() {
        BenchClient.Plan p = plan("--server", "127.0.0.1");
        assertEquals(List.of(new ExchangeCase("64/64", 64, 64)), p.cases());
        assertEquals(List.of(new Variant("tcp", WaitMode.BUSY_POLL, true, false),
                new Variant("tcp", WaitMode.BLOCKING, true, false)), p.variants());
        assertEquals(2, p.repeats());
        assertEquals(1000, p.iterations());
        assertEquals(0, p.cadenceNs());
        assertTrue(p.locals().isEmpty());
    }

    @Test
    void seedExperimentFillsWhatTheCommandLineLeavesOut() {
        BenchClient.Plan p = plan("--server", "127.0.0.1", "--experiment", "seed-cadence", "--wait", "blocking");
        assertEquals(List.of(new ExchangeCase("184416/24", 184_416, 24)), p.cases());
        assertEquals(List.of(new Variant("tcp", WaitMode.BLOCKING, false, false),
                new Variant("tcp", WaitMode.BLOCKING, true, false)), p.variants());
        assertEquals(42_000_000, p.cadenceNs());
        assertEquals(3, p.repeats());
        BenchClient.Plan overridden = plan("--server", "127.0.0.1", "--experiment", "seed-cadence", "--cadence", "0",
                "--repeats", "5");
        assertEquals(0, overridden.cadenceNs());
        assertEquals(5, overridden.repeats());
    }

    @Test
    void severalLinksWithLocalAddressesInOrder() {
        BenchClient.Plan p = plan("--server", "127.0.0.1,127.0.0.2", "--local", "127.0.0.3", "--local", "127.0.0.4");
        assertEquals(2, p.servers().size());
        assertEquals("127.0.0.4", p.locals().get(1).getHostAddress());
        assertEquals("B", BenchClient.linkName(1));
    }

    @Test
    void pinningIsOneCpuForAllLinksOrOnePerLink() {
        BenchClient one = new BenchClient(System.out, System.err);
        new CommandLine(one).parseArgs("--server", "127.0.0.1,127.0.0.2", "--cpu", "0");
        one.plan();
        assertEquals(0, one.cpuOf(1));
        BenchClient each = new BenchClient(System.out, System.err);
        new CommandLine(each).parseArgs("--server", "127.0.0.1,127.0.0.2", "--cpu", "0,1");
        each.plan();
        assertEquals(1, each.cpuOf(1));
        BenchClient none = new BenchClient(System.out, System.err);
        new CommandLine(none).parseArgs("--server", "127.0.0.1");
        none.plan();
        assertEquals(-1, none.cpuOf(0));
        assertMessage("--cpu", () -> plan("--server", "127.0.0.1,127.0.0.2", "--cpu", "0,1,0"));
    }

    @Test
    void variantsAreTheProductOfBackendWaitRequestAndResponse() {
        BenchClient.Plan p = plan("--server", "::1", "--backend", "tcp,rdma", "--wait", "busy", "--request",
                "copy,inplace", "--response", "copy,inplace");
        assertEquals(8, p.variants().size());
        assertFalse(p.variants().getFirst().requestInPlace());
        assertEquals("rdma", p.variants().getLast().backend());
    }

    @Test
    void badValuesNameTheOption() {
        assertMessage("--local", () -> plan("--server", "127.0.0.1,127.0.0.2", "--local", "127.0.0.3"));
        assertMessage("--request", () -> plan("--server", "127.0.0.1", "--request", "zerocopy"));
        assertMessage("wait mode", () -> plan("--server", "127.0.0.1", "--wait", "spin"));
        assertMessage("--experiment", () -> plan("--server", "127.0.0.1", "--experiment", "nope"));
        assertMessage("backend", () -> plan("--server", "127.0.0.1", "--backend", "udp"));
        assertMessage("request of 8 bytes", () -> plan("--server", "127.0.0.1", "--cases", "8/64"));
        assertMessage("duration", () -> plan("--server", "127.0.0.1", "--cadence", "soon"));
    }

    @Test
    void pacedRunsOneLink() {
        assertTrue(new CommandLine(new BenchClient(System.out, System.err)).parseArgs("--server", "127.0.0.1",
                "--paced").hasMatchedOption("--paced"));
        plan("--server", "127.0.0.1", "--paced");
        assertMessage("--paced", () -> plan("--server", "127.0.0.1,127.0.0.2", "--paced"));
    }

    private static void assertMessage(String part, org.junit.jupiter.api.function.Executable call) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, call);
        assertTrue(e.getMessage().contains(part), e.getMessage());
    }

    @Test
    void sizesAndDurationsParse() {
        assertEquals(12L << 20, ExchangeCase.parseBytes("12MiB"));
        assertEquals(16L << 10, ExchangeCase.parseBytes("16k"));
        assertEquals(184_416, ExchangeCase.parse("184416/24").requestBytes());
        assertEquals(42_000_000, BenchClient.parseDuration("42ms"));
        assertEquals(500_000, BenchClient.parseDuration("500us"));
        assertEquals(2_000_000_000, BenchClient.parseDuration("2s"));
        assertEquals(0, BenchClient.parseDuration("0"));
    }

    @Test
    void portsOfBackendsAndWaitModesDoNotCollide() {
        assertEquals(100, BenchServer.port(100, "tcp", WaitMode.BUSY_POLL));
        assertEquals(101, BenchServer.port(100, "tcp", WaitMode.BLOCKING));
        assertEquals(102, BenchServer.port(100, "rdma", WaitMode.BUSY_POLL));
        assertEquals(103, BenchServer.port(100, "rdma", WaitMode.BLOCKING));
    }
}
