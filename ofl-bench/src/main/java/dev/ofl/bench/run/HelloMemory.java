package dev.ofl.bench.run;

import dev.ofl.api.ClientConfig;
import dev.ofl.api.Limits;
import dev.ofl.api.Ofl;
import dev.ofl.api.OflClient;
import dev.ofl.api.OflRefusedException;
import dev.ofl.api.OflServer;
import dev.ofl.api.RefusalCode;
import dev.ofl.api.ServerConfig;
import dev.ofl.api.spi.ServerMemory;
import dev.ofl.api.wire.Bootstrap;
import dev.ofl.api.wire.ProtocolException;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SegmentAllocator;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.lang.management.ManagementFactory;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

/**
 * What clients that say HELLO and send nothing cost a server, in resident memory (VmRSS of this
 * process) and by the server's own accounting ({@link ServerMemory}): idle, while {@code --hold}
 * such clients stay connected, and after {@code --cycles} of them came and went one by one.
 *
 * <p>The idle figure is taken after {@code --warmup} such clients (default 200), so that it includes
 * the classes loaded and the code compiled for a connection; without, the JIT's growth during the
 * first hundreds of connections is counted as if the clients had left it behind.
 *
 * <p>TCP clients are raw sockets that send a HELLO with the client defaults and read the WELCOME,
 * so the figures are the server's alone. RDMA needs a queue pair on the client's side, so RDMA
 * clients are {@link OflClient}s of a second JVM that this one starts and drives over its
 * standard input: their memory, and what the allocator keeps of it after they close, is not
 * counted in the server's figures. {@code --report-every N} adds a line every N cycles, to tell
 * growth that goes on from growth that levels off.
 *
 * <pre>
 * ./ofl bench memory --backend tcp --hold 20 --cycles 1000 --warmup 200
 * ./ofl bench memory --backend rdma --hold 20 --cycles 3000 --report-every 500
 * </pre>
 */
public final class HelloMemory {
    private HelloMemory() {
    }

    /**
     * Runs the measurement and prints one line per phase.
     *
     * @param args {@code --backend tcp|rdma}, {@code --hold N}, {@code --cycles N}
     * @throws Exception if a client cannot connect
     */
    public static void main(String[] args) throws Exception {
        String backend = "tcp";
        int hold = 20;
        int cycles = 1000;
        int warmup = 200;
        int every = 0;
        String clientsOf = null;
        for (int i = 0; i + 1 < args.length; i += 2) {
            switch (args[i]) {
                case "--backend" -> backend = args[i + 1];
                case "--hold" -> hold = Integer.parseInt(args[i + 1]);
                case "--cycles" -> cycles = Integer.parseInt(args[i + 1]);
                case "--warmup" -> warmup = Integer.parseInt(args[i + 1]);
                case "--report-every" -> every = Integer.parseInt(args[i + 1]);
                case "--clients-of" -> clientsOf = args[i + 1];
                default -> throw new IllegalArgumentException("unknown option " + args[i]
                        + "; use --backend tcp|rdma, --hold N, --cycles N, --warmup N, --report-every N");
            }
        }
        if (clientsOf != null) {
            serveCommands(backend, clientsOf);
            return;
        }
        ServerConfig config = ServerConfig.builder().backend(backend).bind(new InetSocketAddress("127.0.0.1", 0))
                .serviceName("hello-memory").build();
        try (OflServer server = Ofl.serve(config, (request, response) -> 0);
                Clients clients = backend.equals("tcp") ? null : new Clients(backend, server)) {
            // Clients first, so that the classes and compiled code of a connection are in the idle figure.
            cycle(server, clients, Math.max(1, warmup));
            awaitIdle(server);
            report("idle", server);
            List<AutoCloseable> held = new ArrayList<>();
            if (clients != null) {
                clients.command("hold " + hold);
            } else {
                for (int i = 0; i < hold; i++) {
                    held.add(hello(server));
                }
            }
            // RDMA: the child has its WELCOMEs; the server's side of each connection follows at once.
            long deadlineNs = System.nanoTime() + 60_000_000_000L;
            while (server.connectionCount() < hold && System.nanoTime() - deadlineNs < 0) {
                Thread.sleep(10);
            }
            report(hold + " HELLO-and-idle clients held", server);
            if (clients != null) {
                clients.command("release");
            }
            for (AutoCloseable client : held) {
                client.close();
            }
            awaitIdle(server);
            report("after they left", server);
            int done = 0;
            while (done < cycles) {
                int n = every > 0 ? Math.min(every, cycles - done) : cycles - done;
                cycle(server, clients, n);
                done += n;
                awaitIdle(server);
                if (done < cycles) {
                    report("after " + done + " cycles", server);
                }
            }
            report("after " + cycles + " HELLO-and-leave cycles", server);
        }
    }

    private static void cycle(OflServer server, Clients clients, int n) throws Exception {
        if (clients != null) {
            clients.command("cycle " + n);
            return;
        }
        for (int i = 0; i < n; i++) {
            hello(server).close();
        }
    }

    /**
     * The client JVM: reads {@code cycle N} (N clients that connect and close one after another),
     * {@code hold N} (N clients that connect and stay) and {@code release} (the held ones close),
     * answering {@code ok} to each, until its standard input ends.
     */
    private static void serveCommands(String backend, String server) throws Exception {
        int colon = server.lastIndexOf(':');
        InetSocketAddress address = new InetSocketAddress(server.substring(0, colon),
                Integer.parseInt(server.substring(colon + 1)));
        ClientConfig config = ClientConfig.builder().backend(backend).server(address).serviceName("hello-memory")
                .build();
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        List<OflClient> held = new ArrayList<>();
        String line;
        while ((line = in.readLine()) != null) {
            String[] words = line.strip().split(" ");
            switch (words[0]) {
                case "cycle" -> {
                    for (int i = Integer.parseInt(words[1]); i > 0; i--) {
                        connect(config).close();
                    }
                }
                case "hold" -> {
                    for (int i = Integer.parseInt(words[1]); i > 0; i--) {
                        held.add(connect(config));
                    }
                }
                case "release" -> {
                    held.forEach(OflClient::close);
                    held.clear();
                }
                default -> throw new IllegalArgumentException("unknown command " + line);
            }
            System.out.println("ok");
            System.out.flush();
        }
        held.forEach(OflClient::close);
    }

    /**
     * Connects, waiting while the server is at its connection cap: on a loaded host the server's
     * side of the connections that just left may still be tearing down. Said on standard error.
     */
    private static OflClient connect(ClientConfig config) throws InterruptedException {
        for (int busy = 0;; busy++) {
            try {
                return Ofl.connect(config);
            } catch (OflRefusedException e) {
                if (e.code() != RefusalCode.SERVER_BUSY || busy == 1000) {
                    throw e;
                }
                if (busy == 0) {
                    System.err.println("the server is at its connection cap; waiting for it to finish tearing down");
                }
                Thread.sleep(10);
            }
        }
    }

    /** The client JVM of an RDMA run, started with this JVM's class path and verbs library. */
    private static final class Clients implements AutoCloseable {
        private final Process process;
        private final PrintStream commands;
        private final BufferedReader answers;

        Clients(String backend, OflServer server) throws IOException {
            InetSocketAddress address = server.localAddress();
            List<String> command = List.of(ProcessHandle.current().info().command().orElse("java"),
                    "--enable-native-access=ALL-UNNAMED",
                    "-Dofl.verbs.library=" + System.getProperty("ofl.verbs.library", ""),
                    "-cp", System.getProperty("java.class.path"), HelloMemory.class.getName(),
                    "--backend", backend,
                    "--clients-of", address.getAddress().getHostAddress() + ":" + address.getPort());
            process = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT).start();
            commands = new PrintStream(process.getOutputStream(), true, StandardCharsets.UTF_8);
            answers = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
        }

        void command(String line) throws IOException {
            commands.println(line);
            String answer = answers.readLine();
            if (!"ok".equals(answer)) {
                throw new IOException("the client JVM answered " + answer + " to " + line);
            }
        }

        @Override
        public void close() throws IOException {
            commands.close();
            try {
                if (!process.waitFor(60, TimeUnit.SECONDS)) {
                    process.destroy();
                }
            } catch (InterruptedException e) {
                process.destroy();
                Thread.currentThread().interrupt();
                throw new IOException("interrupted while the client JVM ended", e);
            }
        }
    }

    private static AutoCloseable hello(OflServer server) throws IOException, ProtocolException {
        SocketChannel channel = SocketChannel.open(server.localAddress());
        channel.write(ByteBuffer.wrap(Bootstrap.encode(Bootstrap.HELLO,
                Bootstrap.Endpoint.tcp(RefusalCode.ACCEPTED, "hello-memory", Limits.CLIENT_DEFAULTS, ""))));
        ByteBuffer frame = ByteBuffer.allocate(Bootstrap.FRAME_LENGTH);
        readFully(channel, frame);
        ByteBuffer body = ByteBuffer.allocate(Bootstrap.decodeFrame(frame.array(), Bootstrap.WELCOME).bodyLength());
        readFully(channel, body);
        RefusalCode status = Bootstrap.decodeBody(body.array()).status();
        if (status != RefusalCode.ACCEPTED) {
            channel.close();
            throw new IOException("the server refused: " + status);
        }
        return channel;
    }

    private static void readFully(SocketChannel channel, ByteBuffer buffer) throws IOException {
        while (buffer.hasRemaining()) {
            if (channel.read(buffer) < 0) {
                throw new IOException("the server closed the bootstrap");
            }
        }
    }

    private static void awaitIdle(OflServer server) throws InterruptedException {
        long deadlineNs = System.nanoTime() + 60_000_000_000L;
        while (server.connectionCount() > 0 && System.nanoTime() - deadlineNs < 0) {
            Thread.sleep(10);
        }
        // Connection threads end just after they give their place back.
        Thread.sleep(200);
        System.gc();
    }

    private static void report(String phase, OflServer server) throws IOException {
        long rssKiB = 0;
        for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
            if (line.startsWith("VmRSS:")) {
                rssKiB = Long.parseLong(line.replaceAll("[^0-9]", ""));
            }
        }
        System.out.printf(Locale.ROOT, "%-40s RSS %8.1f MiB   connections %4d   receive %10d B   staging %10d B"
                + "   heap committed %6.1f MiB%s%n", phase, rssKiB / 1024.0, server.connectionCount(),
                ServerMemory.receiveBytes(), ServerMemory.stagingBytes(),
                ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getCommitted() / MIB, malloc());
    }

    private static final double MIB = 1 << 20;

    /**
     * glibc's malloc heaps, in use and free: RSS that grows while the bytes in use do not is memory
     * the allocator keeps, not memory the server holds. Empty where there is no {@code mallinfo2}.
     */
    // Restricted: the bench runs with native access for the RDMA backend anyway.
    @SuppressWarnings("restricted")
    private static String malloc() {
        Linker linker = Linker.nativeLinker();
        return linker.defaultLookup().find("mallinfo2").map(address -> {
            // struct mallinfo2: ten size_t; uordblks (in use) is the 8th, fordblks (free) the 9th.
            MemoryLayout layout = MemoryLayout.structLayout(MemoryLayout.sequenceLayout(10, ValueLayout.JAVA_LONG));
            MethodHandle call = linker.downcallHandle(address, FunctionDescriptor.of(layout));
            try (Arena arena = Arena.ofConfined()) {
                long[] info = ((MemorySegment) call.invokeExact((SegmentAllocator) arena)).toArray(ValueLayout.JAVA_LONG);
                return String.format(Locale.ROOT, "   malloc in use %6.1f MiB, free %6.1f MiB", info[7] / MIB,
                        info[8] / MIB);
            } catch (Throwable t) {
                throw new IllegalStateException("mallinfo2 failed", t);
            }
        }).orElse("");
    }
}
