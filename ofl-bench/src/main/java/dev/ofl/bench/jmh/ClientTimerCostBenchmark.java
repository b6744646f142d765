package dev.ofl.bench.jmh;

import dev.ofl.api.ClientConfig;
import dev.ofl.api.Completion;
import dev.ofl.api.Limits;
import dev.ofl.api.OflClient;
import dev.ofl.api.OflStatus;
import dev.ofl.api.Region;
import dev.ofl.api.ResponseRanges;
import dev.ofl.api.spi.ClientSession;
import dev.ofl.micrometer.TimedOflClient;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
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
 * What {@link TimedOflClient} adds to a call: the client session over a transport that answers
 * in the calling thread (no peer, no second thread), {@code -p client=plain} bare and
 * {@code -p client=timed} wrapped, recording into a {@link SimpleMeterRegistry} timer with
 * percentiles and a histogram. Run with {@code -prof gc}: both should allocate nothing per call.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(2)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Threads(1)
public class ClientTimerCostBenchmark {
    private static final long RESPONSE_BYTES = 64;
    private static final long TIMEOUT_NS = TimeUnit.SECONDS.toNanos(5);

    /** {@code plain} or {@code timed}. */
    @Param({"plain", "timed"})
    public String client;

    private SimpleMeterRegistry registry;
    private OflClient calls;
    private ResponseRanges ranges;
    private final Completion completion = new Completion();

    /** Creates the state; JMH calls {@link #setUp()} before the trial. */
    public ClientTimerCostBenchmark() {
    }

    /** Makes the client over the answering transport, wrapped or not, and a region it owns. */
    @Setup(Level.Trial)
    public void setUp() {
        registry = new SimpleMeterRegistry();
        OflClient session = new ClientSession(ClientConfig.builder().server(new InetSocketAddress("127.0.0.1", 9))
                .serviceName("cost").limits(new Limits(64, 4096, 1, 1)).build(),
                (config, slots, slotBytes) -> new AnsweringTransport(RESPONSE_BYTES));
        calls = switch (client) {
            case "plain" -> session;
            case "timed" -> new TimedOflClient(session, registry, "cost");
            default -> throw new IllegalArgumentException("client is plain or timed, was " + client);
        };
        Region region = calls.allocateRegion(4096);
        ranges = new ResponseRanges().add(region, 0, RESPONSE_BYTES);
    }

    /** Closes the client and the registry. */
    @TearDown(Level.Trial)
    public void tearDown() {
        calls.close();
        registry.close();
    }

    /**
     * One call: submit, then await the completion the transport delivers on the first poll.
     *
     * @return the response length, 64
     */
    @Benchmark
    public long call() {
        int status = calls.call(1, 0, 8, ranges, TIMEOUT_NS, completion);
        if (status != OflStatus.OK) {
            throw new IllegalStateException("expected OK, got " + completion);
        }
        return completion.responseLength();
    }
}
