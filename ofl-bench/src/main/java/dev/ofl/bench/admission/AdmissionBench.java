package dev.ofl.bench.admission;

import dev.ofl.api.ClientConfig;
import dev.ofl.api.Completion;
import dev.ofl.api.Limits;
import dev.ofl.api.Ofl;
import dev.ofl.api.OflClient;
import dev.ofl.api.OflRefusedException;
import dev.ofl.api.OflServer;
import dev.ofl.api.OflStatus;
import dev.ofl.api.RefusalCode;
import dev.ofl.api.ResponseRanges;
import dev.ofl.api.ServerConfig;
import dev.ofl.api.ServerStatistics;
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
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

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
 * AdmissionBench hostile [good] [hostile] [warm-up seconds] [maxConnectionsPerAddress]
 *                                     hostile sockets (silent, trickling, HELLO-then-idle) from
 *                                     127.0.0.2..5, each reopened as soon as the server drops it,
 *                                     while good clients from 127.0.0.1 connect one after another:
 *                                     the share that got their WELCOME within 1 s
 * </pre>
 */
public final class AdmissionBench {
    private static final String SERVICE = "admission-bench";
    private static final Limits SMALL = new Limits(1024, 4096, 1, 1);

    private AdmissionBench() {
    }

    /**
     * Runs one measurement.
     *
     * @param args {@code idle [connections]} or
     *     {@code hostile [good] [hostile] [warm-up seconds] [maxConnectionsPerAddress]}
     * @throws Exception if the measurement cannot run
     */
    public static void main(String[] args) throws Exception {
        String mode = args.length > 0 ? args[0] : "";
        switch (mode) {
            case "idle" -> idle(args.length > 1 ? Integer.parseInt(args[1]) : 1000);
            case "idle-rdma" -> idleRdma(args.length > 1 ? Integer.parseInt(args[1]) : 1000);
            case "rdma-clients" -> rdmaClients(new InetSocketAddress(args[1], Integer.parseInt(args[2])),
                    Integer.parseInt(args[3]));
            case "hostile" -> hostile(args.length > 1 ? Integer.parseInt(args[1]) : 400,
                    args.length > 2 ? Integer.parseInt(args[2]) : 300, args.length > 3 ? Integer.parseInt(args[3]) : 5,
                    args.length > 4 ? Integer.parseInt(args[4]) : 8);
            default -> {
                System.err.println("usage: AdmissionBench idle [connections] | idle-rdma [connections] | hostile [good] "
                        + "[hostile] [warm-up s] [maxConnectionsPerAddress]");
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

    // ---------------------------------------------------------------------------------------------

    private static void hostile(int goodClients, int hostileSockets, int warmUpSeconds, int perAddress)
            throws Exception {
        ServerConfig config = ServerConfig.builder()
                .bind(new InetSocketAddress("127.0.0.1", 0))
                .serviceName(SERVICE)
                .maxConnectionsPerAddress(perAddress)
                .build();
        OflServer server = Ofl.serve(config, (request, response) -> 0);
        Hostiles hostiles = new Hostiles(server.localAddress(), hostileSockets);
        Thread hostileThread = Thread.ofPlatform().name("hostile").daemon().start(hostiles);
        Thread.sleep(warmUpSeconds * 1000L);
        ServerStatistics before = server.statistics();
        long[] welcomeNs = new long[goodClients];
        AtomicInteger next = new AtomicInteger();
        ConcurrentLinkedQueue<String> failures = new ConcurrentLinkedQueue<>();
        int threads = 4;
        List<Thread> workers = new ArrayList<>();
        long startNs = System.nanoTime();
        for (int t = 0; t < threads; t++) {
            workers.add(Thread.ofPlatform().start(() -> {
                for (int i; (i = next.getAndIncrement()) < goodClients; ) {
                    long t0 = System.nanoTime();
                    try (OflClient client = Ofl.connect(ClientConfig.builder()
                            .server(server.localAddress())
                            .localAddress(InetAddress.getLoopbackAddress())
                            .serviceName(SERVICE)
                            .limits(SMALL)
                            .connectTimeout(Duration.ofSeconds(10))
                            .build())) {
                        welcomeNs[i] = System.nanoTime() - t0;
                        if (client.isBroken()) {
                            failures.add("broken right after connecting");
                        }
                    } catch (OflRefusedException e) {
                        welcomeNs[i] = Long.MAX_VALUE;
                        failures.add(e.getMessage().replaceAll(":[0-9]+", ""));
                    } catch (RuntimeException e) {
                        welcomeNs[i] = Long.MAX_VALUE;
                        failures.add(e.getClass().getSimpleName() + ": " + e.getMessage());
                    }
                }
            }));
        }
        for (Thread worker : workers) {
            worker.join();
        }
        long elapsedNs = System.nanoTime() - startNs;
        ServerStatistics after = server.statistics();
        hostiles.stop();
        hostileThread.join(5000);
        long[] sorted = welcomeNs.clone();
        Arrays.sort(sorted);
        long within = Arrays.stream(welcomeNs).filter(ns -> ns <= 1_000_000_000L).count();
        System.out.printf(Locale.ROOT, "hostile sockets: %d (a third each silent, trickling 1 byte / 250 ms, "
                + "HELLO-then-idle) from 127.0.0.2..5, reopened at once when dropped%n", hostileSockets);
        System.out.printf(Locale.ROOT, "server: defaults (bootstrap timeout %d ms, %d pending per address, %d in "
                + "all, idle timeout %d s, %d connections) except maxConnectionsPerAddress %d%n",
                config.bootstrapTimeout().toMillis(), config.maxPendingPerAddress(), config.maxPendingHandshakes(),
                config.idleTimeout().toSeconds(), config.maxConnections(), config.maxConnectionsPerAddress());
        System.out.printf(Locale.ROOT, "good clients: %d from 127.0.0.1, %d threads connecting one after another, "
                + "%.1f s in all%n", goodClients, threads, elapsedNs / 1e9);
        System.out.printf(Locale.ROOT, "WELCOME within 1 s: %d of %d (%.1f%%)%n", within, goodClients,
                100.0 * within / goodClients);
        System.out.printf(Locale.ROOT, "connect time: p50 %s, p99 %s, max %s%n", ms(sorted[goodClients / 2]),
                ms(sorted[(int) Math.min(goodClients - 1, Math.ceil(goodClients * 0.99) - 1)]),
                ms(sorted[goodClients - 1]));
        System.out.printf(Locale.ROOT, "good clients failed: %d %s%n", failures.size(),
                failures.stream().distinct().limit(5).toList());
        System.out.printf(Locale.ROOT, "hostile during the measurement: %d opened, %d answered SERVER_BUSY, %d "
                + "closed unanswered, %d HELLO-then-idle accepted%n", hostiles.opened.get(), hostiles.busy.get(),
                hostiles.closedUnanswered.get(), hostiles.accepted.get());
        System.out.printf(Locale.ROOT, "server during the measurement: %d accepted, %d refused; connections at the "
                + "end %d%n", after.connectionsAccepted() - before.connectionsAccepted(),
                after.connectionsRefused() - before.connectionsRefused(), server.connectionCount());
        server.close();
    }

    private static String ms(long ns) {
        return ns == Long.MAX_VALUE ? "failed" : String.format(Locale.ROOT, "%.1f ms", ns / 1e6);
    }

    /** Hostile sockets on one selector, each reopened as soon as the server drops it. */
    private static final class Hostiles implements Runnable {
        private static final int SILENT = 0;
        private static final int TRICKLE = 1;
        private static final int HELLO_THEN_IDLE = 2;
        private static final long TRICKLE_NS = 250_000_000L;

        private final InetSocketAddress server;
        private final int count;
        private final byte[] hello = Bootstrap.encode(Bootstrap.HELLO,
                Bootstrap.Endpoint.tcp(RefusalCode.ACCEPTED, SERVICE, SMALL, ""));
        private final ByteBuffer read = ByteBuffer.allocate(4096);
        final AtomicLong opened = new AtomicLong();
        final AtomicLong busy = new AtomicLong();
        final AtomicLong closedUnanswered = new AtomicLong();
        final AtomicLong accepted = new AtomicLong();
        private volatile boolean stopped;

        /** One hostile socket's state. */
        private static final class Hostile {
            final int kind;
            final InetAddress from;
            SocketChannel channel;
            int sent;
            long nextByteNs;
            boolean answered;

            Hostile(int kind, InetAddress from) {
                this.kind = kind;
                this.from = from;
            }
        }

        Hostiles(InetSocketAddress server, int count) {
            this.server = server;
            this.count = count;
        }

        void stop() {
            stopped = true;
        }

        @Override
        public void run() {
            List<Hostile> all = new ArrayList<>();
            try (Selector selector = Selector.open()) {
                for (int i = 0; i < count; i++) {
                    Hostile h = new Hostile(i % 3, new InetSocketAddress("127.0.0." + (2 + i % 4), 0).getAddress());
                    all.add(h);
                    open(selector, h);
                }
                while (!stopped) {
                    selector.select(key -> ready(selector, key), 20);
                    long nowNs = System.nanoTime();
                    for (Hostile h : all) {
                        if (h.kind == TRICKLE && h.channel != null && h.channel.isConnected()
                                && nowNs - h.nextByteNs >= 0 && h.sent < hello.length - 1) {
                            try {
                                h.channel.write(ByteBuffer.wrap(hello, h.sent, 1));
                                h.sent++;
                                h.nextByteNs = nowNs + TRICKLE_NS;
                            } catch (IOException e) {
                                reopen(selector, h);
                            }
                        }
                    }
                }
                for (Hostile h : all) {
                    if (h.channel != null) {
                        h.channel.close();
                    }
                }
            } catch (IOException e) {
                throw new IllegalStateException("the hostile peers failed", e);
            }
        }

        private void open(Selector selector, Hostile h) throws IOException {
            SocketChannel channel = SocketChannel.open();
            channel.setOption(StandardSocketOptions.SO_LINGER, 0);
            channel.bind(new InetSocketAddress(h.from, 0));
            channel.configureBlocking(false);
            h.channel = channel;
            h.sent = 0;
            h.answered = false;
            h.nextByteNs = System.nanoTime();
            opened.incrementAndGet();
            if (channel.connect(server)) {
                connected(selector, h);
            } else {
                channel.register(selector, SelectionKey.OP_CONNECT, h);
            }
        }

        private void connected(Selector selector, Hostile h) throws IOException {
            if (h.kind == HELLO_THEN_IDLE) {
                h.channel.write(ByteBuffer.wrap(hello));
            }
            h.channel.register(selector, SelectionKey.OP_READ, h);
        }

        private void ready(Selector selector, SelectionKey key) {
            Hostile h = (Hostile) key.attachment();
            try {
                if (key.isConnectable()) {
                    h.channel.finishConnect();
                    connected(selector, h);
                    return;
                }
                int n = h.channel.read(read.clear());
                if (n > 0 && !h.answered) {
                    h.answered = true;
                    int status = n >= Bootstrap.FRAME_LENGTH + 2 ? Short.toUnsignedInt(read.order(ByteOrder.LITTLE_ENDIAN)
                            .getShort(Bootstrap.FRAME_LENGTH + Bootstrap.STATUS_OFFSET)) : -1;
                    if (status == RefusalCode.SERVER_BUSY.wire()) {
                        busy.incrementAndGet();
                    } else if (status == RefusalCode.ACCEPTED.wire()) {
                        accepted.incrementAndGet();
                    }
                }
                if (n < 0) {
                    if (!h.answered) {
                        closedUnanswered.incrementAndGet();
                    }
                    reopen(selector, h);
                }
            } catch (IOException e) {
                if (!h.answered) {
                    closedUnanswered.incrementAndGet();
                }
                reopen(selector, h);
            }
        }

        private void reopen(Selector selector, Hostile h) {
            try {
                h.channel.close();
                if (!stopped) {
                    open(selector, h);
                }
            } catch (IOException e) {
                throw new IllegalStateException("cannot reopen a hostile socket", e);
            }
        }
    }
}
