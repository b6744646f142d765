package dev.ofl.bench.jmh;

import dev.ofl.api.ClientConfig;
import dev.ofl.api.Completion;
import dev.ofl.api.ConnectionThreads;
import dev.ofl.api.Limits;
import dev.ofl.api.Ofl;
import dev.ofl.api.OflClient;
import dev.ofl.api.OflServer;
import dev.ofl.api.OflStatus;
import dev.ofl.api.Region;
import dev.ofl.api.ResponseRanges;
import dev.ofl.api.ServerConfig;
import dev.ofl.api.WaitMode;
import dev.ofl.bench.PatternHandler;
import dev.ofl.bench.PatternHandler.ResponseMode;
import dev.ofl.bench.Patterns;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;

/**
 * What the round-trip benchmarks share: a server in this JVM on 127.0.0.1 with the ping-pong
 * handler, one client, a destination region registered once, and range lists built once. The
 * payload is written into the send slot in place each call. Bytes are not checked here (the
 * ping-pong tool does that); the status and response length are.
 */
final class RoundTripFixture implements AutoCloseable {
    /** Rows of the row case. */
    static final long ROWS = 288;
    /** Response bytes of the row case, 73,728. */
    static final long ROWS_BYTES = ROWS * Patterns.ROW_BYTES;
    private static final long TIMEOUT_NS = TimeUnit.SECONDS.toNanos(5);
    /**
     * Payload of the large echo: above the RDMA server's default inline limit (4,096), so the
     * server reads it from the client's send slot by RDMA READ.
     */
    static final int LARGE_ECHO_BYTES = 16 << 10;
    private static final String SERVICE = "ofl-jmh";

    private final Arena arena = Arena.ofShared();
    private final PatternHandler handler = new PatternHandler(ResponseMode.COPY);
    private final OflServer server;
    private final OflClient client;
    private final MemorySegment echoSource;
    private final ResponseRanges echoRanges;
    private final ResponseRanges rowsRanges;
    private final ResponseRanges largeEchoRanges;
    private final Completion completion = new Completion();
    private long iteration;

    /**
     * Starts the server and connects the client; closes what it opened if that fails.
     *
     * @param backend the backend name
     * @param waitMode how both sides wait
     * @param threads the server's connection threads
     */
    RoundTripFixture(String backend, WaitMode waitMode, ConnectionThreads threads) {
        Limits limits = new Limits(LARGE_ECHO_BYTES, (int) ROWS_BYTES, 1, 1);
        OflServer startedServer = null;
        try {
            startedServer = Ofl.serve(ServerConfig.builder()
                    .backend(backend)
                    .bind(new InetSocketAddress("127.0.0.1", 0))
                    .serviceName(SERVICE)
                    .limits(limits)
                    .waitMode(waitMode)
                    .connectionThreads(threads)
                    .build(), handler);
            server = startedServer;
            client = Ofl.connect(ClientConfig.builder()
                    .backend(backend)
                    .server(server.localAddress())
                    .serviceName(SERVICE)
                    .limits(limits)
                    .waitMode(waitMode)
                    .build());
        } catch (RuntimeException e) {
            if (startedServer != null) {
                startedServer.close();
            }
            handler.close();
            arena.close();
            throw e;
        }
        echoSource = arena.allocate(Patterns.ECHO_BYTES, 64);
        Patterns.writeEcho(echoSource, 1);
        Region region = client.registerRegion(arena.allocate(ROWS_BYTES, 4096));
        echoRanges = new ResponseRanges().add(region, 0, Patterns.ECHO_BYTES);
        rowsRanges = new ResponseRanges().add(region, 0, ROWS_BYTES);
        largeEchoRanges = new ResponseRanges().add(region, 0, LARGE_ECHO_BYTES);
    }

    /** One echo round trip; returns the response length, 64. */
    long echo64() {
        MemorySegment.copy(echoSource, 0, client.requestPayload(), 0, Patterns.ECHO_BYTES);
        int status = client.call(PatternHandler.OP_ECHO, 0, Patterns.ECHO_BYTES, echoRanges, TIMEOUT_NS,
                completion);
        return checked(status, Patterns.ECHO_BYTES);
    }

    /**
     * One echo of a 16 KiB payload, written in place; returns the response length. Only the first
     * bytes change from call to call: the cost measured is the transport's, not the filling.
     */
    long echo16k() {
        client.requestPayload().set(PatternHandler.FIELD_LE, 0, iteration++);
        int status = client.call(PatternHandler.OP_ECHO, 0, LARGE_ECHO_BYTES, largeEchoRanges, TIMEOUT_NS,
                completion);
        return checked(status, LARGE_ECHO_BYTES);
    }

    /** One request answered with 288 rows; returns the response length, 73,728. */
    long rows288() {
        MemorySegment payload = client.requestPayload();
        payload.set(PatternHandler.FIELD_LE, PatternHandler.ROWS_OFFSET, ROWS);
        payload.set(PatternHandler.FIELD_LE, PatternHandler.ITERATION_OFFSET, iteration++);
        int status = client.call(PatternHandler.OP_ROWS, 0, PatternHandler.ROWS_PAYLOAD_BYTES, rowsRanges,
                TIMEOUT_NS, completion);
        return checked(status, ROWS_BYTES);
    }

    private long checked(int status, long expectedBytes) {
        if (status != OflStatus.OK || completion.responseLength() != expectedBytes) {
            throw new IllegalStateException("expected OK with " + expectedBytes + " bytes, got " + completion);
        }
        return completion.responseLength();
    }

    /** Closes the client, then the server, then frees the memory. */
    @Override
    public void close() {
        try {
            client.close();
        } finally {
            try {
                server.close();
            } finally {
                handler.close();
                arena.close();
            }
        }
    }
}
