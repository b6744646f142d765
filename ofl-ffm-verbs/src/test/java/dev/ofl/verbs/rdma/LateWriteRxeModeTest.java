package dev.ofl.verbs.rdma;

import dev.ofl.api.ClientConfig;
import dev.ofl.api.Ofl;
import dev.ofl.api.OflStatus;
import dev.ofl.api.ServerConfig;
import dev.ofl.verbs.ffm.ibv_qp_state;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The late-write guarantee on a provider that reads {@code retry_cnt} 7 as "retry for ever", as the
 * kernel's soft-RoCE driver rxe does: softverbs started with {@code SOFTVERBS_RETRY7=infinite} in
 * a child JVM ({@link LateWritePeer}). With the default {@code rdma.retryCount} (6) the server
 * still sees its late write fail; 7, which would hide it for good there, is refused.
 */
class LateWriteRxeModeTest {
    private final List<Process> children = new ArrayList<>();

    @AfterEach
    void killChildren() {
        children.forEach(Process::destroyForcibly);
    }

    private BlockingQueue<String> runPeer(String retry7) throws IOException {
        List<String> command = List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "--enable-native-access=ALL-UNNAMED",
                "-Dofl.verbs.library=" + System.getProperty("ofl.verbs.library"),
                "-cp", System.getProperty("java.class.path"),
                LateWritePeer.class.getName());
        ProcessBuilder builder = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT);
        builder.environment().put("SOFTVERBS_RETRY7", retry7);
        Process process = builder.start();
        children.add(process);
        BlockingQueue<String> lines = new LinkedBlockingQueue<>();
        Thread.ofPlatform().daemon().start(() -> {
            try (BufferedReader reader = new BufferedReader(
                    new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                for (String line; (line = reader.readLine()) != null; ) {
                    lines.add(line);
                }
            } catch (IOException e) {
                lines.add("IO " + e);
            }
        });
        return lines;
    }

    private static String expect(BlockingQueue<String> lines, String prefix) throws InterruptedException {
        String line = lines.poll(90, TimeUnit.SECONDS);
        assertNotNull(line, "the child said nothing within 90 s (expected " + prefix + ")");
        assertTrue(line.startsWith(prefix), "expected " + prefix + ", the child said: " + line);
        return line;
    }

    @Test
    @Timeout(240)
    void lateWriteFailsAtTheServerWhenRetry7MeansForever() throws Exception {
        BlockingQueue<String> lines = runPeer("infinite");
        expect(lines, "RETRY7 infinite");
        assertEquals("AWAIT " + OflStatus.TIMED_OUT + " " + ibv_qp_state.name(ibv_qp_state.IBV_QPS_ERR),
                expect(lines, "AWAIT"));
        assertEquals("UNDELIVERED 1", expect(lines, "UNDELIVERED"),
                "the server must see its late writes rejected by the client's queue pair");
        assertEquals("CLEAN", expect(lines, "CLEAN"));
    }

    /** Proves the child's softverbs reads the variable: a value it does not know fails the QP setup. */
    @Test
    @Timeout(240)
    void theChildsSoftverbsReadsSoftverbsRetry7() throws Exception {
        BlockingQueue<String> lines = runPeer("for-ever");
        expect(lines, "RETRY7 for-ever");
        String failed = expect(lines, "FAILED");
        assertTrue(failed.contains("ibv_modify_qp") && failed.contains("EINVAL"), failed);
    }

    @Test
    void retryCountSevenIsRefusedByClientAndServer() {
        Map<String, String> seven = Map.of("rdma.retryCount", "7");
        IllegalArgumentException server = assertThrows(IllegalArgumentException.class,
                () -> Ofl.serve(ServerConfig.builder().backend(RdmaBackend.NAME)
                        .bind(new InetSocketAddress("127.0.0.1", 0)).serviceName("late-write-rxe")
                        .properties(seven).build(), (request, response) -> 0));
        assertTrue(server.getMessage().contains("rdma.retryCount = 7 is refused"), server.getMessage());
        IllegalArgumentException client = assertThrows(IllegalArgumentException.class,
                () -> Ofl.connect(ClientConfig.builder().backend(RdmaBackend.NAME)
                        .server(new InetSocketAddress("127.0.0.1", 9)).serviceName("late-write-rxe")
                        .properties(seven).build()));
        assertTrue(client.getMessage().contains("retry for ever"), client.getMessage());
    }
}
