package dev.ofl.bench.admission;

import dev.ofl.api.ClientConfig;
import dev.ofl.api.Completion;
import dev.ofl.api.Limits;
import dev.ofl.api.Ofl;
import dev.ofl.api.OflClient;
import dev.ofl.api.OflServer;
import dev.ofl.api.OflStatus;
import dev.ofl.api.RefusalCode;
import dev.ofl.api.ResponseRanges;
import dev.ofl.api.ServerConfig;
import dev.ofl.api.WaitMode;
import dev.ofl.api.wire.Bootstrap;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.lang.foreign.Arena;
import java.lang.foreign.ValueLayout;
import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * Measures admission on loopback, server and peers in this process (2 cores are enough).
 *
 * <pre>
 * AdmissionBench idle [connections]   idle accepted TCP connections in BLOCKING mode: the
 *                                     process's platform threads and RSS before and after
 * AdmissionBench idle-rdma [connections]
 *                                     the same over RDMA: the clients run in a child JVM (a queue
 *                                     pair needs a verbs client), so the figures are the server's;
 *                                     then one request on every connection
 * </pre>
 *
 * <p>Hostile peers are measured by {@link HostileBench} ({@code ./ofl bench admission hostile}).
 */
public final class AdmissionBench {
    private static final String SERVICE = "admission-bench";
    private static final Limits SMALL = new Limits(1024, 4096, 1, 1);

    private AdmissionBench() {
    }

    /**
     * Runs one measurement.
     *
     * @param args {@code idle [connections]} or {@code idle-rdma [connections]}
     * @throws Exception if the measurement cannot run
     */
    public static void main(String[] args) throws Exception {
        String mode = args.length > 0 ? args[0] : "";
        switch (mode) {
            case "idle" -> idle(args.length > 1 ? Integer.parseInt(args[1]) : 1000);
            case "idle-rdma" -> idleRdma(args.length > 1 ? Integer.parseInt(args[1]) : 1000);
            case "rdma-clients" -> rdmaClients(new InetSocketAddress(args[1], Integer.parseInt(args[2])),
                    Integer.parseInt(args[3]));
            default -> {
                System.err.println("usage: AdmissionBench idle [connections] | idle-rdma [connections]");
                System.exit(2);
            }
        }
    }

    // ---------------------------------------------------------------------------------------------

    private static void idle(int connections) throws Exception {
        OflServer server = Ofl.serve(ServerConfig.builder()
                .bind(new InetSocketAddress("127.0.0.1", 0))
                .serviceName(SERVICE)
                .waitMode(WaitMode.BLOCKING)
                .maxConnections(connections)
                .maxConnectionsPerAddress(connections)
                .build(), (request, response) -> 0);
        System.gc();
        long rssBefore = rssKib();
        int threadsBefore = ManagementFactory.getThreadMXBean().getThreadCount();
        byte[] hello = Bootstrap.encode(Bootstrap.HELLO, Bootstrap.Endpoint.tcp(RefusalCode.ACCEPTED, SERVICE, SMALL,
                ""));
        List<SocketChannel> sockets = new ArrayList<>();
        long startNs = System.nanoTime();
        for (int i = 0; i < connections; i++) {
            // Spread over addresses only so that the per-address pending cap never applies.
            SocketChannel socket = SocketChannel.open();
            socket.bind(new InetSocketAddress(spread(i % 200), 0));
            socket.connect(server.localAddress());
            socket.write(ByteBuffer.wrap(hello));
            ByteBuffer welcome = ByteBuffer.allocate(Bootstrap.MAX_BODY_LENGTH + Bootstrap.FRAME_LENGTH);
            int status = readWelcomeStatus(socket, welcome);
            if (status != RefusalCode.ACCEPTED.wire()) {
                throw new IllegalStateException("connection " + i + " was refused with status " + status);
            }
            sockets.add(socket);
        }
        long openNs = System.nanoTime() - startNs;
        long deadlineNs = System.nanoTime() + 10_000_000_000L;
        while (server.connectionCount() < connections && System.nanoTime() - deadlineNs < 0) {
            Thread.sleep(10);
        }
        Thread.sleep(2000);
        System.gc();
        long rssAfter = rssKib();
        int threadsAfter = ManagementFactory.getThreadMXBean().getThreadCount();
        System.out.printf(Locale.ROOT, "idle TCP connections, BLOCKING mode, limits %s (the HELLO's)%n", SMALL);
        System.out.printf(Locale.ROOT, "connections accepted:     %d (opened in %d ms)%n", server.connectionCount(),
                openNs / 1_000_000);
        System.out.printf(Locale.ROOT, "platform threads:         %d before, %d after%n", threadsBefore,
                threadsAfter);
        System.out.printf(Locale.ROOT, "process RSS:              %.1f MiB before, %.1f MiB after (%+.1f MiB; "
                + "includes the raw client sockets of this process)%n", rssBefore / 1024.0, rssAfter / 1024.0,
                (rssAfter - rssBefore) / 1024.0);
        for (SocketChannel socket : sockets) {
            socket.close();
        }
        server.close();
    }

    private static void idleRdma(int connections) throws Exception {
        OflServer server = Ofl.serve(ServerConfig.builder()
                .backend("rdma")
                .bind(new InetSocketAddress("127.0.0.1", 0))
                .serviceName(SERVICE)
                .waitMode(WaitMode.BLOCKING)
                .maxConnections(connections)
                .maxConnectionsPerAddress(connections)
                .idleTimeout(Duration.ofMinutes(10))
                .build(), (request, response) -> {
                    response.buffer().set(ValueLayout.JAVA_BYTE, 0, (byte) 1);
                    response.commit(1);
                    return 0;
                });
        System.gc();
        long rssBefore = rssKib();
        int threadsBefore = ManagementFactory.getThreadMXBean().getThreadCount();
        long osThreadsBefore = osThreads();
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java")
                .toString(), "--enable-native-access=ALL-UNNAMED", "-cp", System.getProperty("java.class.path")));
        String library = System.getProperty("ofl.verbs.library");
        if (library != null) {
            command.add("-Dofl.verbs.library=" + library);
        }
        command.addAll(List.of(AdmissionBench.class.getName(), "rdma-clients", "127.0.0.1",
                Integer.toString(server.localAddress().getPort()), Integer.toString(connections)));
        Process clients = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT).start();
        BufferedReader fromClients = new BufferedReader(new InputStreamReader(
                clients.getInputStream(), StandardCharsets.UTF_8));
        Writer toClients = new OutputStreamWriter(clients.getOutputStream(),
                StandardCharsets.UTF_8);
        long startNs = System.nanoTime();
        String ready = fromClients.readLine();
        long openNs = System.nanoTime() - startNs;
        if (ready == null || !ready.startsWith("connected")) {
            clients.destroy();
            server.close();
            throw new IllegalStateException("the client process failed: " + ready);
        }
        Thread.sleep(2000);
        System.gc();
        long rssAfter = rssKib();
        int threadsAfter = ManagementFactory.getThreadMXBean().getThreadCount();
        long osThreadsAfter = osThreads();
        System.out.printf(Locale.ROOT, "idle RDMA connections, BLOCKING mode, limits %s (the HELLO's)%n", SMALL);
        System.out.printf(Locale.ROOT, "connections accepted:     %d (opened in %d ms)%n", server.connectionCount(),
                openNs / 1_000_000);
        System.out.printf(Locale.ROOT, "platform threads:         %d before, %d after (JVM ThreadMXBean)%n",
                threadsBefore, threadsAfter);
        System.out.printf(Locale.ROOT, "OS threads:               %d before, %d after (/proc/self/status: carriers "
                + "and native threads included)%n", osThreadsBefore, osThreadsAfter);
        System.out.printf(Locale.ROOT, "process RSS:              %.1f MiB before, %.1f MiB after (%+.1f MiB; the "
                + "clients are another process)%n", rssBefore / 1024.0, rssAfter / 1024.0,
                (rssAfter - rssBefore) / 1024.0);
        toClients.write("call\n");
        toClients.flush();
        System.out.printf(Locale.ROOT, "then one request on each:  %s%n", fromClients.readLine());
        toClients.close();
        clients.waitFor();
        server.close();
    }

    /** The child process of {@code idle-rdma}: connects, says so, calls on each when asked, ends at EOF. */
    private static void rdmaClients(InetSocketAddress server, int connections) throws Exception {
        List<OflClient> clients = new ArrayList<>();
        try (Arena arena = Arena.ofShared()) {
            List<ResponseRanges> ranges = new ArrayList<>();
            for (int i = 0; i < connections; i++) {
                OflClient client = Ofl.connect(ClientConfig.builder().backend("rdma").server(server)
                        .serviceName(SERVICE).limits(SMALL).waitMode(WaitMode.BLOCKING)
                        .connectTimeout(Duration.ofSeconds(30)).build());
                clients.add(client);
                ranges.add(ResponseRanges.of(client.registerRegion(arena.allocate(4096, 4096))));
            }
            System.out.println("connected " + connections);
            System.out.flush();
            BufferedReader in = new BufferedReader(new InputStreamReader(System.in,
                    StandardCharsets.UTF_8));
            if ("call".equals(in.readLine())) {
                Completion completion = new Completion();
                int ok = 0;
                long startNs = System.nanoTime();
                for (int i = 0; i < connections; i++) {
                    if (clients.get(i).call(1, 0, 0, ranges.get(i), 10_000_000_000L, completion)
                            == OflStatus.OK) {
                        ok++;
                    }
                }
                System.out.println(ok + " of " + connections + " OK in " + (System.nanoTime() - startNs) / 1_000_000
                        + " ms");
                System.out.flush();
            }
            while (in.readLine() != null) {
                // Held until the server's process closes our input.
            }
            for (OflClient client : clients) {
                client.close();
            }
        }
    }

    private static long osThreads() throws IOException {
        for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
            if (line.startsWith("Threads:")) {
                return Long.parseLong(line.replaceAll("[^0-9]", ""));
            }
        }
        return -1;
    }

    /** Reads a WELCOME and returns its status field; blocking. */
    private static int readWelcomeStatus(SocketChannel socket, ByteBuffer into) throws IOException {
        into.clear().limit(Bootstrap.FRAME_LENGTH);
        while (into.hasRemaining()) {
            if (socket.read(into) < 0) {
                return -1;
            }
        }
        byte[] frame = Arrays.copyOf(into.array(), Bootstrap.FRAME_LENGTH);
        int bodyLength;
        try {
            bodyLength = Bootstrap.decodeFrame(frame, Bootstrap.WELCOME).bodyLength();
        } catch (dev.ofl.api.wire.ProtocolException e) {
            return -2;
        }
        into.limit(Bootstrap.FRAME_LENGTH + bodyLength);
        while (into.hasRemaining()) {
            if (socket.read(into) < 0) {
                return -1;
            }
        }
        try {
            return Bootstrap.decodeBody(Arrays.copyOfRange(into.array(), Bootstrap.FRAME_LENGTH,
                    Bootstrap.FRAME_LENGTH + bodyLength)).status().wire();
        } catch (dev.ofl.api.wire.ProtocolException e) {
            return -2;
        }
    }

    private static long rssKib() throws IOException {
        for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
            if (line.startsWith("VmRSS:")) {
                return Long.parseLong(line.replaceAll("[^0-9]", ""));
            }
        }
        return -1;
    }

    /** One of many loopback addresses, 127.1.0.1 on. */
    private static InetAddress spread(int n) {
        return new InetSocketAddress("127.1." + (n / 250) + "." + (1 + n % 250), 0).getAddress();
    }
}
