package dev.ofl.bench.jmh;

import dev.ofl.api.ConnectionThreads;
import dev.ofl.api.Ofl;
import dev.ofl.api.WaitMode;
import java.util.Optional;
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
 * {@link TcpRoundTripBenchmark}'s round trips over the {@code rdma} backend: a 64-byte echo and a
 * 288-row response (73,728 bytes, RDMA-written into the client's region), client and server in this
 * JVM on 127.0.0.1, both waiting busy or blocking. Run with {@code -prof gc}:
 * {@code gc.alloc.rate.norm} is the bytes allocated per call by the client and the server
 * connection thread together.
 *
 * <p>On a machine without an RDMA NIC this runs over softverbs, the user-space libibverbs of
 * {@code ofl-softverbs}, whose times are those of an emulation (Unix sockets and a progress thread),
 * not of a NIC; the allocation figures hold either way. How to run, from the repository root after
 * {@code ./ofl build}:
 *
 * <pre>
 * java --enable-native-access=ALL-UNNAMED \
 *      -Dofl.verbs.library=$PWD/ofl-softverbs/target/lib/libibverbs.so.1 \
 *      -cp ofl-bench/target/ofl-bench-0.1.0-SNAPSHOT.jar:$(cat ofl-bench/target/classpath.txt) \
 *      org.openjdk.jmh.Main RdmaRoundTrip -prof gc
 * </pre>
 *
 * The fork inherits the launcher's {@code -D} options and gets {@code --enable-native-access} from
 * {@link Fork#jvmArgsAppend()}; without {@code -Dofl.verbs.library} the fork looks for the softverbs
 * build from its working directory ({@link VerbsLibraryChoice}). If RDMA cannot run, the setup fails
 * with the backend's reason.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(value = 1, jvmArgsAppend = "--enable-native-access=ALL-UNNAMED")
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Threads(1)
public class RdmaRoundTripBenchmark {
    /** How client and server wait: {@code BUSY_POLL} or {@code BLOCKING}. */
    @Param({"BUSY_POLL", "BLOCKING"})
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
    public RdmaRoundTripBenchmark() {
    }

    /**
     * Chooses the verbs library, starts the server, connects the client and registers the region.
     *
     * @throws IllegalStateException if the rdma backend cannot run here, with its reason
     */
    @Setup(Level.Trial)
    public void setUp() {
        VerbsLibraryChoice.configure();
        Optional<String> cause = Ofl.unavailabilityCause("rdma");
        if (cause.isPresent()) {
            throw new IllegalStateException("the rdma backend cannot run here: " + cause.get());
        }
        recording = OflEventsRecording.start(jfr);
        try {
            fixture = new RoundTripFixture("rdma", waitMode, threads);
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
