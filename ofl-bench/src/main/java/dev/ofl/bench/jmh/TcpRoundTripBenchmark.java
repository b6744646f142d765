package dev.ofl.bench.jmh;

import dev.ofl.api.ConnectionThreads;
import dev.ofl.api.WaitMode;
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
 * does that); the response length is. {@link RdmaRoundTripBenchmark} is the same over RDMA.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(1)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Threads(1)
public class TcpRoundTripBenchmark {
    /** How client and server wait: {@code BUSY_POLL} or {@code BLOCKING}. */
    @Param("BUSY_POLL")
    public WaitMode waitMode;

    /**
     * The JFR state: {@code none}, {@code off} (a recording with ofl's per-request events off) or
     * {@code on} (every call and handler recorded); see {@code OflEventsRecording}.
     */
    @Param("none")
    public String jfr;

    /**
     * The server's connection threads in blocking mode: {@code VIRTUAL} (the default) or
     * {@code PLATFORM}; busy polling always uses platform threads.
     */
    @Param("VIRTUAL")
    public ConnectionThreads threads;

    private OflEventsRecording recording;

    private RoundTripFixture fixture;

    /** Creates the state; JMH calls {@link #setUp()} before the trial. */
    public TcpRoundTripBenchmark() {
    }

    /** Starts the server, connects the client and registers the destination region. */
    @Setup(Level.Trial)
    public void setUp() {
        recording = OflEventsRecording.start(jfr);
        try {
            fixture = new RoundTripFixture("tcp", waitMode, threads);
        } catch (RuntimeException e) {
            recording.close();
            throw e;
        }
    }

    /** Closes the client, then the server, then frees the memory. */
    @TearDown(Level.Trial)
    public void tearDown() {
        try {
            fixture.close();
        } finally {
            recording.close();
        }
    }

    /**
     * One echo round trip.
     *
     * @return the response length, 64
     */
    @Benchmark
    public long echo64() {
        return fixture.echo64();
    }

    /**
     * One request answered with 288 rows (73,728 bytes), committed by the handler every 64 rows.
     *
     * @return the response length, 73,728
     */
    @Benchmark
    public long rows288() {
        return fixture.rows288();
    }

    /**
     * One echo of a 16 KiB payload (over RDMA above the server's inline limit: the server reads it
     * by RDMA READ).
     *
     * @return the response length, 16,384
     */
    @Benchmark
    public long echo16k() {
        return fixture.echo16k();
    }
}
