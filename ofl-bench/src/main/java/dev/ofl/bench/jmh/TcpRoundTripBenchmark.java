package dev.ofl.bench.jmh;

import dev.ofl.api.ClientConfig;
import dev.ofl.api.Completion;
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
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Round trips over TCP on 127.0.0.1 with the server in this JVM: a 64-byte echo, and a response of
 * 288 rows of 256 bytes streamed in pieces of 64 rows. Client and server wait alike, busy-polling by
 * default ({@code -p waitMode=BLOCKING} for the other mode). Run with {@code -prof gc}:
 * {@code gc.alloc.rate.norm} is the bytes allocated per call by the client and the server
 * connection thread together, so zero proves the steady-state hot paths allocate nothing.
 *
 * <p>The payload is written into the send slot in place each call; responses land in a region
 * registered once, through range lists built once. Bytes are not checked here (the ping-pong tool
 * does that); the response length is.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(1)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Threads(1)
public class TcpRoundTripBenchmark {
    private static final long TIMEOUT_NS = TimeUnit.SECONDS.toNanos(5);
    private static final String SERVICE = "ofl-jmh";
    private static final long ROWS = 288;
    private static final long ROWS_BYTES = ROWS * Patterns.ROW_BYTES;

    /** How client and server wait: {@code BUSY_POLL} or {@code BLOCKING}. */
    @Param("BUSY_POLL")
    public WaitMode waitMode;

    private Arena arena;
    private PatternHandler handler;
    private OflServer server;
    private OflClient client;
    private MemorySegment echoSource;
    private ResponseRanges echoRanges;
    private ResponseRanges rowsRanges;
    private long iteration;
    private final Completion completion = new Completion();

    /** Creates the state; JMH calls {@link #setUp()} before the trial. */
    public TcpRoundTripBenchmark() {
    }

    /** Starts the server, connects the client and registers the destination region. */
    @Setup(Level.Trial)
    public void setUp() {
        Limits limits = new Limits(4 << 10, (int) ROWS_BYTES, 1, 1);
        arena = Arena.ofShared();
        handler = new PatternHandler(ResponseMode.COPY);
        server = Ofl.serve(ServerConfig.builder()
                .bind(new InetSocketAddress("127.0.0.1", 0))
                .serviceName(SERVICE)
                .limits(limits)
                .waitMode(waitMode)
                .build(), handler);
        client = Ofl.connect(ClientConfig.builder()
                .server(server.localAddress())
                .serviceName(SERVICE)
                .limits(limits)
                .waitMode(waitMode)
                .build());
        echoSource = arena.allocate(Patterns.ECHO_BYTES, 64);
        Patterns.writeEcho(echoSource, 1);
        Region region = client.registerRegion(arena.allocate(ROWS_BYTES, 4096));
        echoRanges = new ResponseRanges().add(region, 0, Patterns.ECHO_BYTES);
        rowsRanges = new ResponseRanges().add(region, 0, ROWS_BYTES);
    }

    /** Closes the client, then the server, then frees the memory. */
    @TearDown(Level.Trial)
    public void tearDown() {
        client.close();
        server.close();
        handler.close();
        arena.close();
    }

    /**
     * One echo round trip.
     *
     * @return the response length, 64
     */
    @Benchmark
    public long echo64() {
        MemorySegment.copy(echoSource, 0, client.requestPayload(), 0, Patterns.ECHO_BYTES);
        int status = client.call(PatternHandler.OP_ECHO, 0, Patterns.ECHO_BYTES, echoRanges, TIMEOUT_NS,
                completion);
        return checked(status, Patterns.ECHO_BYTES);
    }

    /**
     * One request answered with 288 rows (73,728 bytes), committed by the handler every 64 rows.
     *
     * @return the response length, 73,728
     */
    @Benchmark
    public long rows288() {
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
}
