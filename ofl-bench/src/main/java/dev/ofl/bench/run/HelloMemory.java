package dev.ofl.bench.run;

import dev.ofl.api.ClientConfig;
import dev.ofl.api.Limits;
import dev.ofl.api.Ofl;
import dev.ofl.api.OflClient;
import dev.ofl.api.OflServer;
import dev.ofl.api.RefusalCode;
import dev.ofl.api.ServerConfig;
import dev.ofl.api.spi.ServerMemory;
import dev.ofl.api.wire.Bootstrap;
import dev.ofl.api.wire.ProtocolException;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

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
 * clients are {@link OflClient}s of this process: their own memory is freed when they close, but
 * counts while they are held.
 *
 * <pre>
 * ./ofl bench memory --backend tcp --hold 20 --cycles 1000 --warmup 200
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
        for (int i = 0; i + 1 < args.length; i += 2) {
            switch (args[i]) {
                case "--backend" -> backend = args[i + 1];
                case "--hold" -> hold = Integer.parseInt(args[i + 1]);
                case "--cycles" -> cycles = Integer.parseInt(args[i + 1]);
                case "--warmup" -> warmup = Integer.parseInt(args[i + 1]);
                default -> throw new IllegalArgumentException("unknown option " + args[i]
                        + "; use --backend tcp|rdma, --hold N, --cycles N, --warmup N");
            }
        }
        ServerConfig config = ServerConfig.builder().backend(backend).bind(new InetSocketAddress("127.0.0.1", 0))
                .serviceName("hello-memory").build();
        try (OflServer server = Ofl.serve(config, (request, response) -> 0)) {
            // Clients first, so that the classes and compiled code of a connection are in the idle figure.
            for (int i = 0; i < Math.max(1, warmup); i++) {
                hello(backend, server).close();
            }
            awaitIdle(server);
            report("idle", server);
            List<AutoCloseable> held = new ArrayList<>();
            for (int i = 0; i < hold; i++) {
                held.add(hello(backend, server));
            }
            report(hold + " HELLO-and-idle clients held", server);
            for (AutoCloseable client : held) {
                client.close();
            }
            awaitIdle(server);
            report("after they left", server);
            for (int i = 0; i < cycles; i++) {
                hello(backend, server).close();
            }
            awaitIdle(server);
            report("after " + cycles + " HELLO-and-leave cycles", server);
        }
    }

    private static AutoCloseable hello(String backend, OflServer server) throws IOException, ProtocolException {
        if (!backend.equals("tcp")) {
            return Ofl.connect(ClientConfig.builder().backend(backend).server(server.localAddress())
                    .serviceName("hello-memory").build());
        }
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
        System.out.printf(Locale.ROOT, "%-40s RSS %8.1f MiB   connections %4d   receive %10d B   staging %10d B%n",
                phase, rssKiB / 1024.0, server.connectionCount(), ServerMemory.receiveBytes(),
                ServerMemory.stagingBytes());
    }
}
