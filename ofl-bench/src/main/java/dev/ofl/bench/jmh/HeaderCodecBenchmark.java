package dev.ofl.bench.jmh;

import dev.ofl.api.Limits;
import dev.ofl.api.wire.MessageChecks;
import dev.ofl.api.wire.MessageHeader;
import dev.ofl.api.wire.MessageType;
import dev.ofl.api.wire.ProtocolException;
import dev.ofl.api.wire.RangeDescriptor;
import dev.ofl.api.wire.WireStatus;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * CPU cost of the header codec on the data path: encode a header with {@link MessageHeader} and
 * check it as the receiver does with {@link MessageChecks}, in native memory. Run with
 * {@code -prof gc} to see that neither allocates.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(1)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
public class HeaderCodecBenchmark {
    private static final int PAYLOAD_BYTES = 16;
    private static final int RESPONSE_BYTES = 4096;

    private final Limits limits = Limits.CLIENT_DEFAULTS;
    private final MessageHeader header = new MessageHeader();
    private Arena arena;
    private MemorySegment message;
    private long sequence;

    /** Creates the state; JMH calls {@link #setUp()} before the trial. */
    public HeaderCodecBenchmark() {
    }

    /** Allocates a native message buffer holding a request's header, payload and one range. */
    @Setup(Level.Trial)
    public void setUp() {
        arena = Arena.ofShared();
        message = arena.allocate(MessageHeader.requestLength(PAYLOAD_BYTES, 1), 64);
        RangeDescriptor.write(message, MessageHeader.rangesOffset(PAYLOAD_BYTES), 0, RESPONSE_BYTES, 0);
    }

    /** Frees the buffer. */
    @TearDown(Level.Trial)
    public void tearDown() {
        arena.close();
    }

    /**
     * Encodes a REQUEST header and checks it and its range as a server does.
     *
     * @return the response capacity the check found
     * @throws ProtocolException never: the header is well formed
     */
    @Benchmark
    public long requestEncodeAndCheck() throws ProtocolException {
        long seq = sequence++;
        header.wrap(message, 0)
                .reset(MessageType.REQUEST, seq)
                .op(2)
                .generation(seq)
                .payloadLength(PAYLOAD_BYTES)
                .rangeCount(1);
        MessageChecks.checkRequest(header, limits, seq);
        return MessageChecks.checkRanges(message, 0, header, limits);
    }

    /**
     * Encodes an OK RESPONSE header and checks it as a client does.
     *
     * @return the checked message type
     * @throws ProtocolException never: the header is well formed
     */
    @Benchmark
    public int responseEncodeAndCheck() throws ProtocolException {
        long seq = sequence++;
        header.wrap(message, 0)
                .reset(MessageType.RESPONSE, seq)
                .status(WireStatus.OK)
                .responseLength(RESPONSE_BYTES);
        return MessageChecks.checkServerMessage(header, seq, RESPONSE_BYTES, RESPONSE_BYTES);
    }
}
