package dev.ofl.bench.jmh;

import dev.ofl.api.ClientConfig;
import dev.ofl.api.Completion;
import dev.ofl.api.Limits;
import dev.ofl.api.OflStatus;
import dev.ofl.api.Region;
import dev.ofl.api.ResponseRanges;
import dev.ofl.api.spi.ClientSession;
import java.lang.foreign.Arena;
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
 * The client session's own cost of one call, with no peer and no second thread: {@code submit}
 * and {@code await} of the real {@link ClientSession} over a transport that answers each request
 * in the same thread with an OK completion of 64 bytes. With no network and no scheduler in the
 * way, it resolves the few nanoseconds that {@code dev.ofl.Call} adds:
 * {@code -p jfr=none,off,on} compares no recording, a recording with the event off, and with it
 * on (see {@code OflEventsRecording}). Run with {@code -prof gc}.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(2)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Threads(1)
public class ClientEventsCostBenchmark {
    private static final long RESPONSE_BYTES = 64;
    private static final long TIMEOUT_NS = TimeUnit.SECONDS.toNanos(5);

    /** The JFR state: {@code none}, {@code off} or {@code on}. */
    @Param({"none", "off", "on"})
    public String jfr;

    private OflEventsRecording recording;
    private Arena arena;
    private ClientSession client;
    private ResponseRanges ranges;
    private final Completion completion = new Completion();

    /** Creates the state; JMH calls {@link #setUp()} before the trial. */
    public ClientEventsCostBenchmark() {
    }

    /** Starts the recording, makes the client over the answering transport and registers a region. */
    @Setup(Level.Trial)
    public void setUp() {
        recording = OflEventsRecording.start(jfr);
        arena = Arena.ofShared();
        client = new ClientSession(ClientConfig.builder().server(new InetSocketAddress("127.0.0.1", 9))
                .serviceName("cost").limits(new Limits(64, 4096, 1, 1)).build(),
                (config, slots, slotBytes) -> new AnsweringTransport(RESPONSE_BYTES));
        Region region = client.registerRegion(arena.allocate(4096));
        ranges = new ResponseRanges().add(region, 0, RESPONSE_BYTES);
    }

    /** Closes the client, the memory and the recording. */
    @TearDown(Level.Trial)
    public void tearDown() {
        client.close();
        arena.close();
        recording.close();
    }

    /**
     * One call: submit, then await the completion the transport delivers on the first poll.
     *
     * @return the response length, 64
     */
    @Benchmark
    public long call() {
        int status = client.call(1, 0, 8, ranges, TIMEOUT_NS, completion);
        if (status != OflStatus.OK) {
            throw new IllegalStateException("expected OK, got " + completion);
        }
        return completion.responseLength();
    }
}
