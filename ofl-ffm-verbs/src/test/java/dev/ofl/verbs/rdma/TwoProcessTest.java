package dev.ofl.verbs.rdma;

import dev.ofl.api.ClientConfig;
import dev.ofl.api.Completion;
import dev.ofl.api.Ofl;
import dev.ofl.api.OflClient;
import dev.ofl.api.OflConnectionException;
import dev.ofl.api.OflServer;
import dev.ofl.api.OflStatus;
import dev.ofl.api.Region;
import dev.ofl.api.ResponseRanges;
import dev.ofl.api.ServerConfig;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.lang.foreign.Arena;
import java.lang.foreign.ValueLayout;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Server and client in separate JVMs over softverbs: killing either mid-request leaves the other
 * with a clear error well within its deadline, never a hang, and the server keeps serving. Every
 * wait, the connect and bootstrap bounds included, scales with {@link TestEnvironment#timeScale()},
 * which the child gets too, so that the test also holds where a JVM starts slowly (an emulated
 * guest).
 */
class TwoProcessTest {
    private final List<Process> children = new ArrayList<>();

    @AfterEach
    void killChildren() {
        children.forEach(Process::destroyForcibly);
    }

    private Peer start(String... args) throws IOException {
        List<String> command = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "--enable-native-access=ALL-UNNAMED",
                "-Dofl.verbs.library=" + System.getProperty("ofl.verbs.library")));
        command.addAll(TestEnvironment.jvmOptions());
        command.addAll(List.of("-cp", System.getProperty("java.class.path"), TwoProcessPeer.class.getName()));
        command.addAll(List.of(args));
        Process process = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT).start();
        children.add(process);
        return new Peer(process);
    }

    /** A child process whose output lines arrive on a queue, so every wait is bounded. */
    private static final class Peer {
        final Process process;
        final BlockingQueue<String> lines = new LinkedBlockingQueue<>();

        Peer(Process process) {
            this.process = process;
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
        }

        String expect(String prefix) throws InterruptedException {
            long seconds = TestEnvironment.seconds(60);
            String line = lines.poll(seconds, TimeUnit.SECONDS);
            assertNotNull(line, "the child process said nothing within " + seconds + " s (expected " + prefix + ")");
            assertTrue(line.startsWith(prefix), "expected " + prefix + ", the child said: " + line);
            return line;
        }

        void kill() throws InterruptedException {
            process.destroyForcibly();
            assertTrue(process.waitFor(TestEnvironment.seconds(30), TimeUnit.SECONDS), "the child did not die");
        }
    }

    /** The server both this test and the child start: bound to the test address, bootstrap bound scaled. */
    static ServerConfig serverConfig() {
        return ServerConfig.builder().backend(RdmaBackend.NAME)
                .bind(new InetSocketAddress(TestEnvironment.address(), 0)).serviceName("two-process")
                .bootstrapTimeout(TestEnvironment.duration(5))
                .properties(TestEnvironment.rdmaProperties()).build();
    }

    /** A client of {@code server} with the connect bound scaled. */
    static ClientConfig clientConfig(InetSocketAddress server) {
        return ClientConfig.builder().backend(RdmaBackend.NAME).server(server).serviceName("two-process")
                .connectTimeout(TestEnvironment.duration(5))
                .properties(TestEnvironment.rdmaProperties()).build();
    }

    /** Each test's backstop: three minutes on the build host, scaled like every other wait. */
    private static Duration backstop() {
        return TestEnvironment.duration(180);
    }

    @Test
    void killingTheServerMidRequestFailsTheClientBeforeItsDeadline() {
        assertTimeoutPreemptively(backstop(), this::killServerMidRequest);
    }

    private void killServerMidRequest() throws Exception {
        Peer server = start("server");
        int port = Integer.parseInt(server.expect("LISTENING").split(" ")[1]);
        try (OflClient client = Ofl.connect(clientConfig(new InetSocketAddress(TestEnvironment.address(), port)));
             Arena arena = Arena.ofShared()) {
            Region region = client.registerRegion(arena.allocate(4096));
            Completion completion = new Completion();
            client.requestPayload().set(ValueLayout.JAVA_LONG, 0, 7L);
            assertEquals(OflStatus.OK, client.call(1, 0, 8, ResponseRanges.of(region), TestEnvironment.nanos(10),
                    completion));
            assertEquals(7L, region.segment().get(ValueLayout.JAVA_LONG, 0));

            long ticket = client.submit(2, 0, 0, ResponseRanges.of(region));
            server.expect("HANDLING");
            server.kill();
            long deadlineNs = client.clock().nanoTime() + TestEnvironment.nanos(60);
            OflConnectionException e = assertThrows(OflConnectionException.class,
                    () -> client.await(ticket, deadlineNs, completion));
            assertTrue(client.clock().nanoTime() - deadlineNs < 0, "noticed only at the deadline: " + e);
            assertTrue(client.isBroken());
        }
    }

    @Test
    void killingTheClientMidRequestLeavesTheServerServing() {
        assertTimeoutPreemptively(backstop(), this::killClientMidRequest);
    }

    private void killClientMidRequest() throws Exception {
        CountDownLatch entered = new CountDownLatch(1);
        CountDownLatch clientDead = new CountDownLatch(1);
        ServerConfig config = serverConfig();
        try (OflServer server = Ofl.serve(config, (request, response) -> {
            if (request.op() == 2) {
                entered.countDown();
                if (!clientDead.await(TestEnvironment.seconds(60), TimeUnit.SECONDS)) {
                    fail("the test never killed the client");
                }
                response.buffer().fill((byte) 1);
                response.commit(Math.min(response.capacity(), 32 << 10));
                return 0;
            }
            response.write(request.payload());
            return 0;
        });
             Arena arena = Arena.ofShared()) {
            Peer client = start("client", Integer.toString(server.localAddress().getPort()));
            client.expect("ECHOED");
            client.expect("SUBMITTED");
            assertTrue(entered.await(TestEnvironment.seconds(60), TimeUnit.SECONDS), "the handler never ran");
            client.kill();
            clientDead.countDown();

            long deadlineNs = System.nanoTime() + TestEnvironment.nanos(60);
            while (server.connectionCount() > 0 && System.nanoTime() - deadlineNs < 0) {
                Thread.onSpinWait();
                Thread.yield();
            }
            assertEquals(0, server.connectionCount(), "the dead client's connection was never torn down");

            try (OflClient next = Ofl.connect(clientConfig(server.localAddress()))) {
                Region region = next.registerRegion(arena.allocate(4096));
                Completion completion = new Completion();
                next.requestPayload().set(ValueLayout.JAVA_LONG, 0, 99L);
                assertEquals(OflStatus.OK, next.call(1, 0, 8, ResponseRanges.of(region), TestEnvironment.nanos(10),
                        completion));
                assertEquals(99L, region.segment().get(ValueLayout.JAVA_LONG, 0));
            }
        }
    }
}
