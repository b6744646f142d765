package dev.ofl.bench.run;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * The C peer ({@code src/main/c/tcp_peer.c}) and the Java peers write and check the same response
 * stream, so that compare's peers do the same work: the C server answers a Java client that checks
 * every byte with {@link StreamPattern}, and the C client checks every byte a Java server wrote
 * with it. Response lengths that are not whole words exercise the C peer's tail.
 */
@Timeout(value = 120, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class CPeerStreamTest {
    private static final String RESPONSE_BYTES = "100003";

    @TempDir
    static Path build;
    private static Path peer;
    private Process server;

    @BeforeAll
    static void compile() throws IOException, InterruptedException {
        peer = build.resolve("tcp_peer");
        List<String> command = List.of("gcc", "-O2", "-Wall", "-Werror", "-o", peer.toString(),
                Path.of("src/main/c/tcp_peer.c").toAbsolutePath().toString());
        Process gcc;
        try {
            gcc = new ProcessBuilder(command).redirectErrorStream(true).start();
        } catch (IOException e) {
            fail("cannot run gcc (" + e.getMessage() + "): apt-get install gcc libc6-dev, as ./ofl does");
            return;
        }
        String output = new String(gcc.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(gcc.waitFor(60, TimeUnit.SECONDS), "gcc did not finish");
        assertEquals(0, gcc.exitValue(), output);
    }

    @AfterEach
    void stopServer() throws InterruptedException {
        if (server != null) {
            server.destroy();
            server.waitFor(10, TimeUnit.SECONDS);
        }
    }

    /** compare's --peers runs only the peers it names: here the real C peer's rows and nothing else. */
    @Test
    void compareRunsOnlyThePeersItIsGiven() throws IOException {
        ByteArrayOutputStream table = new ByteArrayOutputStream();
        ByteArrayOutputStream log = new ByteArrayOutputStream();
        int exit = compare(table, log, "--c-peer", peer.toString(), "--peers", "c-tcp", "--responses", "64",
                "--rounds", "1", "--iterations", "50", "--port", Integer.toString(twoFreePorts()));
        String printed = table.toString(StandardCharsets.UTF_8);
        assertEquals(0, exit, printed + log.toString(StandardCharsets.UTF_8));
        List<String> rows = printed.lines().filter(line -> !line.startsWith("#") && !line.startsWith("peer ")).toList();
        assertEquals(2, rows.size(), printed);
        assertTrue(rows.get(0).startsWith("c-tcp busy ") && rows.get(1).startsWith("c-tcp blocking "), printed);
    }

    /** An unknown peer, or a verbs peer without a verbs device, is refused before anything runs. */
    @Test
    void compareRefusesPeersItCannotRun() {
        ByteArrayOutputStream table = new ByteArrayOutputStream();
        ByteArrayOutputStream log = new ByteArrayOutputStream();
        assertEquals(2, compare(table, log, "--c-peer", peer.toString(), "--peers", "c-tcp,c-tpc"));
        assertTrue(log.toString(StandardCharsets.UTF_8).contains("no peer 'c-tpc'; the peers are c-tcp, java-nio,"),
                log.toString(StandardCharsets.UTF_8));
        assertEquals(2, compare(table, log, "--c-peer", peer.toString(), "--peers", "ofl-rdma"));
        assertTrue(log.toString(StandardCharsets.UTF_8).contains("ofl-rdma needs a verbs device"),
                log.toString(StandardCharsets.UTF_8));
        assertEquals("", table.toString(StandardCharsets.UTF_8), "no table");
        assertFalse(log.toString(StandardCharsets.UTF_8).contains("compare: round"), "no round began");
    }

    private static int compare(ByteArrayOutputStream table, ByteArrayOutputStream log, String... args) {
        return new CommandLine(new Compare(new PrintStream(table, true, StandardCharsets.UTF_8),
                new PrintStream(log, true, StandardCharsets.UTF_8))).execute(args);
    }

    @Test
    void aJavaClientFindsEveryByteTheCServerWroteAsItsOwnPatternSays() throws Exception {
        int port = freePort();
        server = new ProcessBuilder(peer.toString(), "server", "127.0.0.1", Integer.toString(port), "blocking")
                .redirectErrorStream(true).start();
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        // The Java client tries to connect for two seconds: long enough for the C server to listen.
        int exit = new CommandLine(new NioPeer(new PrintStream(out, true, StandardCharsets.UTF_8))).execute(
                "client", "127.0.0.1", Integer.toString(port), RESPONSE_BYTES, "20", "2");
        String line = out.toString(StandardCharsets.UTF_8);
        assertEquals(0, exit, line);
        assertTrue(line.contains("bytes=" + RESPONSE_BYTES + " ") && line.contains("n=20 ")
                && line.contains("mismatches=0"), line);
    }

    @Test
    void theCClientFindsEveryByteAJavaServerWroteAsItsOwnPatternSays() throws Exception {
        NioServerRun javaServer = NioServerRun.start(false);
        Process client = new ProcessBuilder(peer.toString(), "client", "127.0.0.1", Integer.toString(javaServer.port()),
                "blocking",
                RESPONSE_BYTES, "20", "2").redirectErrorStream(true).start();
        String line = new String(client.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(client.waitFor(60, TimeUnit.SECONDS), "the C client did not finish");
        assertEquals(0, client.exitValue(), line);
        assertTrue(line.startsWith("c-tcp blocking bytes=" + RESPONSE_BYTES + " ") && line.contains("mismatches=0"),
                line);
        assertEquals(0, javaServer.exit().get(60, TimeUnit.SECONDS),
                "the Java server ends cleanly when its client leaves");
    }

    /** A free port whose next one is free too (compare's C peer takes both). */
    private static int twoFreePorts() throws IOException {
        for (int attempt = 0; ; attempt++) {
            int port = freePort();
            if (port == 65535) {
                continue;
            }
            try (ServerSocket next = new ServerSocket()) {
                next.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port + 1));
                return port;
            } catch (IOException e) {
                if (attempt == 20) {
                    throw e;
                }
            }
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket()) {
            socket.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            return socket.getLocalPort();
        }
    }
}
