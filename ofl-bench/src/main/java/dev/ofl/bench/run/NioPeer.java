package dev.ofl.bench.run;

import java.io.IOException;
import java.io.PrintStream;
import java.lang.foreign.MemorySegment;
import java.net.Inet4Address;
import java.net.InetSocketAddress;
import java.net.ProtocolFamily;
import java.net.StandardProtocolFamily;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.Arrays;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * A plain Java NIO request/response peer, blocking or busy-polling, the Java baseline beside the C one
 * ({@code ofl-bench/src/main/c/tcp_peer.c}), speaking the same protocol and printing the same
 * line: the client sends 64 bytes naming the response length and the iteration (little-endian);
 * the server writes that many bytes of the iteration's {@link StreamPattern} response stream, every
 * byte of every response as the C peer and an ofl handler answering in place do, and sends them;
 * the client checks every byte. With
 * {@code --busy} both ends make their sockets non-blocking and spin on reads and writes, as the C
 * peer's busy mode does: the JVM's own floor under ofl's busy-poll TCP figures. Sockets are of the
 * address's own family (an IPv4 socket for an IPv4 address, as the C peer and ofl open), not the
 * JDK's default dual-stack IPv6 socket.
 *
 * <pre>
 *   nio [--busy] [--cpu N] server ADDRESS PORT     (prints "ready PORT" once it listens)
 *   nio [--busy] [--cpu N] [--warmup-ms MS] client ADDRESS PORT RESPONSE_BYTES ITERATIONS WARMUP
 * </pre>
 *
 * <p>The client warms up for {@code WARMUP} requests and, with {@code --warmup-ms}, for at least that
 * long: the JVM compiles the request path fully only after thousands of requests, as it does ofl's.
 */
@Command(name = "nio", mixinStandardHelpOptions = true,
        description = "Plain Java NIO peer: 'nio [--busy] server ADDR PORT' or 'nio [--busy] [--warmup-ms MS] client"
                + " ADDR PORT BYTES ITER WARMUP'.")
public final class NioPeer implements Callable<Integer> {
    private static final int REQUEST_BYTES = 64;
    private static final long MAX_RESPONSE_BYTES = 64L << 20;

    @Option(names = "--busy", arity = "0..1", description = "non-blocking sockets polled in a spin, as the C peer's busy mode")
    boolean busy;

    @Option(names = "--cpu", paramLabel = "N", description = "Pin the thread that serves or calls to CPU N"
            + " (default: no pinning)")
    int cpu = -1;

    @Option(names = "--warmup-ms", paramLabel = "MS", description = "Client: warm up for at least MS"
            + " milliseconds as well as for the WARMUP requests (default: 0, the requests only)")
    long warmupMs;

    @Parameters(index = "0", description = "server or client")
    String role;

    @Parameters(index = "1", description = "address")
    String address;

    @Parameters(index = "2", description = "port")
    int port;

    @Parameters(index = "3", arity = "0..1", description = "response bytes (client)")
    long responseBytes;

    @Parameters(index = "4", arity = "0..1", description = "measured requests (client)")
    int iterations = 1000;

    @Parameters(index = "5", arity = "0..1", description = "warm-up requests (client)")
    int warmups = 200;

    private final PrintStream out;

    /** Creates the peer; picocli sets its arguments. */
    public NioPeer() {
        this(System.out);
    }

    /** A peer that prints its ready line and result to {@code out}; for tests. */
    NioPeer(PrintStream out) {
        this.out = out;
    }

    @Override
    public Integer call() throws IOException {
        InetSocketAddress at = new InetSocketAddress(address, port);
        if (cpu >= 0) {
            Affinity.pinCurrentThread(cpu);
        }
        return switch (role) {
            case "server" -> serve(at);
            case "client" -> client(at);
            default -> {
                System.err.println("nio: role '" + role + "' is not server or client");
                yield 2;
            }
        };
    }

    /** Writes every byte of an iteration's response, as an ofl handler that answers in place does. */
    static void fill(MemorySegment response, long length, long iteration) {
        StreamPattern.fill(response, 0, iteration, StreamPattern.RESPONSE, 0, length);
    }

    /** Counts the bytes of a response that differ from what the server must have sent. */
    static long check(MemorySegment response, long length, long iteration) {
        return StreamPattern.countMismatches(response, 0, iteration, StreamPattern.RESPONSE, 0, length);
    }

    private void tune(SocketChannel channel) throws IOException {
        channel.setOption(StandardSocketOptions.TCP_NODELAY, true);
        channel.setOption(StandardSocketOptions.SO_SNDBUF, 4 << 20);
        channel.setOption(StandardSocketOptions.SO_RCVBUF, 4 << 20);
        channel.configureBlocking(!busy);
    }

    /** Reads until the buffer is full; a non-blocking channel's empty reads spin. */
    private static boolean readFully(SocketChannel channel, ByteBuffer buffer) throws IOException {
        while (buffer.hasRemaining()) {
            int n = channel.read(buffer);
            if (n < 0) {
                return false;
            }
            if (n == 0) {
                Thread.onSpinWait();
            }
        }
        return true;
    }

    private static void writeFully(SocketChannel channel, ByteBuffer buffer) throws IOException {
        while (buffer.hasRemaining()) {
            if (channel.write(buffer) == 0) {
                Thread.onSpinWait();
            }
        }
    }

    private int serve(InetSocketAddress at) throws IOException {
        try (ServerSocketChannel listener = ServerSocketChannel.open(family(at))) {
            listener.setOption(StandardSocketOptions.SO_REUSEADDR, true);
            listener.bind(at);
            // The bound port follows: a server asked for port 0 says which one it got.
            out.println("ready " + ((InetSocketAddress) listener.getLocalAddress()).getPort());
            out.flush();
            try (SocketChannel channel = listener.accept()) {
                tune(channel);
                ByteBuffer request = ByteBuffer.allocateDirect(REQUEST_BYTES).order(ByteOrder.LITTLE_ENDIAN);
                ByteBuffer response = ByteBuffer.allocateDirect(0);
                MemorySegment responseBytes = MemorySegment.ofBuffer(response);
                while (readFully(channel, request.clear())) {
                    long length = request.getLong(0);
                    long iteration = request.getLong(Long.BYTES);
                    if (length < 0 || length > MAX_RESPONSE_BYTES) {
                        System.err.println("nio server: response length " + length + " is outside 0.."
                                + MAX_RESPONSE_BYTES);
                        return 1;
                    }
                    if (length > response.capacity()) {
                        response = ByteBuffer.allocateDirect((int) length);
                        responseBytes = MemorySegment.ofBuffer(response);
                    }
                    fill(responseBytes, length, iteration);
                    writeFully(channel, response.clear().limit((int) length));
                }
            }
        }
        return 0;
    }

    private int client(InetSocketAddress at) throws IOException {
        if (responseBytes < 0 || responseBytes > MAX_RESPONSE_BYTES || iterations < 1 || warmups < 0 || warmupMs < 0) {
            System.err.println("nio client: response bytes must be 0.." + MAX_RESPONSE_BYTES
                    + ", iterations at least 1, warm-up requests and milliseconds at least 0");
            return 2;
        }
        long[] rtt = new long[iterations];
        long mismatches = 0;
        long totalNs = 0;
        long warmed = 0;
        try (SocketChannel channel = connect(at)) {
            tune(channel);
            ByteBuffer request = ByteBuffer.allocateDirect(REQUEST_BYTES).order(ByteOrder.LITTLE_ENDIAN);
            ByteBuffer response = ByteBuffer.allocateDirect((int) Math.max(1, responseBytes));
            MemorySegment received = MemorySegment.ofBuffer(response);
            long warmEndNs = System.nanoTime() + warmupMs * 1_000_000;
            // Both the count and the time, whichever ends later: the JIT needs requests and time alike.
            for (long it = 0; it < warmups || System.nanoTime() - warmEndNs < 0; it++, warmed++) {
                if (!exchange(channel, request, response, it)) {
                    return 1;
                }
                mismatches += check(received, responseBytes, it);
            }
            for (int i = 0; i < iterations; i++) {
                long it = warmed + i;
                long t0 = System.nanoTime();
                if (!exchange(channel, request, response, it)) {
                    return 1;
                }
                long t1 = System.nanoTime();
                mismatches += check(received, responseBytes, it);
                rtt[i] = t1 - t0;
                totalNs += t1 - t0;
            }
        }
        Arrays.sort(rtt);
        double meanNs = (double) totalNs / iterations;
        out.printf(Locale.ROOT, "java-nio %s bytes=%-9d n=%d p50=%.1fus p99=%.1fus p99.9=%.1fus max=%.1fus"
                + " MB/s=%.2f mismatches=%d warmups=%d%n", busy ? "busy" : "blocking", responseBytes, iterations,
                rtt[iterations / 2] / 1e3, rtt[(int) ((long) iterations * 99 / 100)] / 1e3,
                rtt[(int) ((long) iterations * 999 / 1000)] / 1e3, rtt[iterations - 1] / 1e3,
                responseBytes / (meanNs / 1e9) / 1e6, mismatches, warmed);
        return mismatches != 0 ? 1 : 0;
    }

    private static ProtocolFamily family(InetSocketAddress at) {
        return at.getAddress() instanceof Inet4Address ? StandardProtocolFamily.INET : StandardProtocolFamily.INET6;
    }

    /** Sends iteration {@code it}'s request and reads its whole response; false if the server closed. */
    private boolean exchange(SocketChannel channel, ByteBuffer request, ByteBuffer response, long it)
            throws IOException {
        request.clear();
        request.putLong(0, responseBytes).putLong(Long.BYTES, it);
        writeFully(channel, request);
        if (!readFully(channel, response.clear().limit((int) responseBytes))) {
            System.err.println("nio client: the server closed the connection");
            return false;
        }
        return true;
    }

    private static SocketChannel connect(InetSocketAddress at) throws IOException {
        IOException last = null;
        for (int tries = 0; tries < 200; tries++) {
            try {
                SocketChannel channel = SocketChannel.open(family(at));
                try {
                    channel.connect(at);
                    return channel;
                } catch (IOException e) {
                    channel.close();
                    throw e;
                }
            } catch (IOException e) {
                last = e;
                try {
                    Thread.sleep(10);
                } catch (InterruptedException ie) {
                    Thread.currentThread().interrupt();
                    throw new IOException("interrupted while connecting to " + at, ie);
                }
            }
        }
        throw new IOException("nio client: cannot connect to " + at + " after 200 tries", last);
    }
}
