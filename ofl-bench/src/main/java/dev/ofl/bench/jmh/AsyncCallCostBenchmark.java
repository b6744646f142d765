package dev.ofl.bench.jmh;

import dev.ofl.api.ClientConfig;
import dev.ofl.api.Completion;
import dev.ofl.api.Limits;
import dev.ofl.api.OflAsyncClient;
import dev.ofl.api.OflClient;
import dev.ofl.api.Region;
import dev.ofl.api.ResponseRanges;
import dev.ofl.api.spi.ClientSession;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.time.Duration;
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
 * What {@link OflAsyncClient} adds to a call: the client session over a transport that answers at
 * once (no peer), called directly ({@code -p path=sync}) or through the asynchronous client and
 * its thread, waiting for the future ({@code -p path=async}). The difference is the hand-off: the
 * queue, waking the client thread, the future and its completion. Run with {@code -prof gc}.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(2)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Threads(1)
public class AsyncCallCostBenchmark {
    private static final long RESPONSE_BYTES = 64;
    private static final Duration TIMEOUT = Duration.ofSeconds(5);

    /** {@code sync} or {@code async}. */
    @Param({"sync", "async"})
    public String path;

    private OflClient client;
    private OflAsyncClient async;
    private ResponseRanges ranges;
    private final MemorySegment payload = MemorySegment.ofArray(new byte[8]);
    private final Completion completion = new Completion();

    /** Creates the state; JMH calls {@link #setUp()} before the trial. */
    public AsyncCallCostBenchmark() {
    }

    /** Makes the session over the answering transport, wrapped or not. */
    @Setup(Level.Trial)
    public void setUp() {
        OflClient session = new ClientSession(ClientConfig.builder().server(new InetSocketAddress("127.0.0.1", 9))
                .serviceName("cost").limits(new Limits(64, 4096, 1, 4)).build(),
                (config, slots, slotBytes) -> new AnsweringTransport(RESPONSE_BYTES));
        if (path.equals("async")) {
            async = OflAsyncClient.builder(session).connect();
            Region region = async.allocateRegion(4096);
            ranges = new ResponseRanges().add(region, 0, RESPONSE_BYTES);
        } else {
            client = session;
            Region region = client.allocateRegion(4096);
            ranges = new ResponseRanges().add(region, 0, RESPONSE_BYTES);
        }
    }

    /** Closes the client. */
    @TearDown(Level.Trial)
    public void tearDown() {
        if (async != null) {
            async.close();
        } else {
            client.close();
        }
    }

    /**
     * One call and its outcome.
     *
     * @return the status, so that nothing is optimised away
     */
    @Benchmark
    public int call() {
        if (async != null) {
            return async.call(1, 0, payload, ranges, TIMEOUT).join().status();
        }
        return client.call(1, 0, 8, ranges, TIMEOUT.toNanos(), completion);
    }
}
