package dev.ofl.verbs.rdma;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ofl.api.Completion;
import dev.ofl.api.Limits;
import dev.ofl.api.Ofl;
import dev.ofl.api.OflClient;
import dev.ofl.api.OflStatus;
import dev.ofl.api.RefusalCode;
import dev.ofl.api.Region;
import dev.ofl.api.ResponseRanges;
import dev.ofl.api.spi.ClientSession;
import dev.ofl.api.wire.Bootstrap;
import dev.ofl.api.wire.TransportKind;
import dev.ofl.verbs.PathMtu;
import dev.ofl.verbs.QueuePairAttributes;
import dev.ofl.verbs.ffm.ibv_mtu;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.lang.foreign.Arena;
import java.lang.foreign.ValueLayout;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The path MTU a connection runs with, read back from the client's queue pair, when the server
 * runs in another process whose softverbs device has a smaller active MTU. A test of its own
 * because it starts a second JVM, which PIT's mutation runs cannot.
 */
@Timeout(120)
class RdmaPathMtuTest {
    private static final int BIG_ECHO_BYTES = 4000;

    /**
     * The server runs in another process whose softverbs device has an active MTU of 1024 bytes;
     * this process's device keeps its own (4096 unless SOFTVERBS_MTU says otherwise). The client's
     * queue pair must run the smaller of the two, as the server's computes it from the same pair.
     */
    @Test
    void thePathMtuIsTheSmallerActiveMtuOfTwoProcessesEndToEnd() throws Exception {
        List<String> command = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "--enable-native-access=ALL-UNNAMED",
                "-Dofl.verbs.library=" + System.getProperty("ofl.verbs.library")));
        command.addAll(TestEnvironment.jvmOptions());
        command.addAll(List.of("-cp", System.getProperty("java.class.path"), TwoProcessPeer.class.getName(),
                "server"));
        ProcessBuilder builder = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT);
        builder.environment().put("SOFTVERBS_MTU", "1024");
        Process child = builder.start();
        try (BufferedReader out = new BufferedReader(new InputStreamReader(child.getInputStream(),
                StandardCharsets.UTF_8))) {
            // Bounded by the class's @Timeout: readLine returns at the child's first line or its exit.
            String line = out.readLine();
            assertNotNull(line, "the server process exited without listening");
            assertTrue(line.startsWith("LISTENING "), line);
            int port = Integer.parseInt(line.substring("LISTENING ".length()).strip());
            try (OflClient client = Ofl.connect(TwoProcessTest.clientConfig(
                    new InetSocketAddress(TestEnvironment.address(), port)));
                    Arena arena = Arena.ofShared()) {
                Link link = ((RdmaClientTransport) ((ClientSession) client).transport()).link();
                int localMtu = PathMtu.fromBytes(link.endpoint(new Bootstrap.Endpoint(RefusalCode.ACCEPTED,
                        TransportKind.RDMA, "x", Limits.CLIENT_DEFAULTS, 0, 0, null, 0, 0, 0, "", null), 0, 0)
                        .mtu());
                int expected = Math.min(localMtu, ibv_mtu.IBV_MTU_1024);
                assertEquals(expected, PathMtu.pathMtu(localMtu, ibv_mtu.IBV_MTU_1024));
                QueuePairAttributes attributes = link.qp.queryAttributes();
                assertEquals(expected, attributes.pathMtu(), "the client's path MTU (local active "
                        + PathMtu.toBytes(localMtu) + " bytes, server's 1024): " + attributes);
                Region region = client.registerRegion(arena.allocate(BIG_ECHO_BYTES));
                // Several packets per request and per response at this MTU: the bytes cross intact.
                for (int i = 0; i < BIG_ECHO_BYTES; i++) {
                    client.requestPayload().set(ValueLayout.JAVA_BYTE, i, (byte) (i * 7 + 1));
                }
                Completion completion = new Completion();
                assertEquals(OflStatus.OK, client.call(1, 0, BIG_ECHO_BYTES, ResponseRanges.of(region),
                        TestEnvironment.nanos(10), completion), completion::toString);
                assertEquals(BIG_ECHO_BYTES, completion.responseLength());
                for (int i = 0; i < BIG_ECHO_BYTES; i++) {
                    assertEquals((byte) (i * 7 + 1), region.segment().get(ValueLayout.JAVA_BYTE, i), "byte " + i);
                }
            }
        } finally {
            child.destroyForcibly();
            assertTrue(child.waitFor(TestEnvironment.seconds(30), TimeUnit.SECONDS), "the server process ended");
        }
    }
}
