package dev.ofl.bench.jmh;

import dev.ofl.api.Limits;
import dev.ofl.api.Region;
import dev.ofl.api.ResponseRanges;
import dev.ofl.api.internal.ApiAccess;
import dev.ofl.api.spi.RequestEncoder;
import dev.ofl.api.wire.MessageChecks;
import dev.ofl.api.wire.MessageHeader;
import dev.ofl.api.wire.MessageType;
import dev.ofl.api.wire.ProtocolException;
import dev.ofl.api.wire.WireStatus;
import dev.ofl.bench.PatternHandler;
import dev.ofl.verbs.CompletionQueue;
import dev.ofl.verbs.Context;
import dev.ofl.verbs.Device;
import dev.ofl.verbs.DeviceList;
import dev.ofl.verbs.Errno;
import dev.ofl.verbs.MemoryRegion;
import dev.ofl.verbs.ProtectionDomain;
import dev.ofl.verbs.QueuePair;
import dev.ofl.verbs.QueuePairCapabilities;
import dev.ofl.verbs.VerbsLibrary;
import dev.ofl.verbs.ffm.ibv_access_flags;
import dev.ofl.verbs.ffm.ibv_recv_wr;
import dev.ofl.verbs.ffm.ibv_send_flags;
import dev.ofl.verbs.ffm.ibv_send_wr;
import dev.ofl.verbs.ffm.ibv_sge;
import dev.ofl.verbs.ffm.ibv_wc;
import dev.ofl.verbs.ffm.ibv_wc_opcode;
import dev.ofl.verbs.ffm.ibv_wc_status;
import dev.ofl.verbs.ffm.ibv_wr_opcode;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.List;
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
 * The CPU cost of the pieces of one RDMA client call, without waiting for any peer: what the
 * client's {@code submit} and {@code await} do in Java and through the verbs downcalls, each
 * measured alone against the {@code dev.ofl.verbs} bindings, with the same native structures and
 * field writes as the backend's {@code RdmaClientTransport} and {@code Link}.
 *
 * <ul>
 * <li>{@link #encodeRequest}: {@code RequestEncoder.check} + {@code encode} of a 16-byte row request
 * with one range (header, payload padding, range descriptor with address and rkey) into a
 * registered send slot.</li>
 * <li>{@link #postSendDowncall}: filling the {@code ibv_send_wr} and its SGE as {@code Link.postSend}
 * does, then {@code post_send} through the ops table on a queue pair in RESET, which the provider
 * refuses ({@code EINVAL}) at once: the Java and downcall part of a post, with no transmission.</li>
 * <li>{@link #submitPath}: both together, the client's whole Java-side submit.</li>
 * <li>{@link #postRecvDowncall}: the completion receive re-post ({@code post_recv}), refused likewise.</li>
 * <li>{@link #pollEmptyCq}: {@code poll_cq} of up to 16 entries on an empty queue, one turn of a
 * busy wait. With softverbs this includes its progress help ({@code epoll_wait} and
 * {@code sched_yield}); a NIC provider reads one CQE's owner bit.</li>
 * <li>{@link #pollZeroEntries}: {@code poll_cq} of 0 entries: the downcall floor (FFM transition and,
 * with softverbs, one uncontended mutex).</li>
 * <li>{@link #flushedSendAndPoll}: {@code post_send} on a queue pair in ERR, for which the provider
 * queues a flush completion at once, then a {@code poll_cq} that returns it: a post and a non-empty
 * poll with no peer involved.</li>
 * <li>{@link #completionDecode}: what {@code await} does with a response completion in Java: read the
 * work completion, wrap and check the ring's RESPONSE header, read its status and length.</li>
 * </ul>
 *
 * <p>Header encode and check alone: {@link HeaderCodecBenchmark}. Run (from the repository root;
 * without {@code -Dofl.verbs.library} the fork looks for the softverbs build from its working
 * directory, see {@link VerbsLibraryChoice}):
 *
 * <pre>
 * java --enable-native-access=ALL-UNNAMED \
 *      -Dofl.verbs.library=$PWD/ofl-softverbs/target/lib/libibverbs.so.1 \
 *      -cp ofl-bench/target/ofl-bench-0.1.0-SNAPSHOT.jar:$(cat ofl-bench/target/classpath.txt) \
 *      org.openjdk.jmh.Main RdmaClientCost -prof gc
 * </pre>
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(value = 1, jvmArgsAppend = "--enable-native-access=ALL-UNNAMED")
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
public class RdmaClientCostBenchmark {
    private static final int PAYLOAD_BYTES = PatternHandler.ROWS_PAYLOAD_BYTES;
    private static final long RESPONSE_BYTES = RoundTripFixture.ROWS_BYTES;
    /** Completions taken per poll, as {@code Link.POLL_BATCH}. */
    private static final int POLL_BATCH = 16;
    /** Inline limit asked for, as {@code RdmaClientTransport.MAX_INLINE}. */
    private static final int MAX_INLINE = 256;

    private final Limits limits = new Limits(4 << 10, (int) RESPONSE_BYTES, 1, 1);
    private final RequestEncoder encoder = new RequestEncoder();
    private final MessageHeader header = new MessageHeader();
    private Arena arena;
    private Context context;
    private QueuePair resetQp;
    private QueuePair errorQp;
    private CompletionQueue idleCq;
    private CompletionQueue flushCq;
    private MemoryRegion slotMr;
    private MemorySegment slot;
    private MemorySegment ring;
    private List<Region> regions;
    private ResponseRanges ranges;
    private RequestEncoder.RangeAddressing addressing;
    private MemorySegment sendWr;
    private MemorySegment sendSge;
    private MemorySegment recvWr;
    private MemorySegment completions;
    private MemorySegment response;
    private long sequence;

    /** Creates the state; JMH calls {@link #setUp()} before the trial. */
    public RdmaClientCostBenchmark() {
    }

    /**
     * Opens the first verbs device, registers a send slot, a response region and a ring, creates a
     * queue pair left in RESET and one moved to ERR, and prepares a response completion.
     */
    @Setup(Level.Trial)
    public void setUp() {
        VerbsLibraryChoice.configure();
        VerbsLibrary library = VerbsLibrary.processWide();
        try (DeviceList devices = DeviceList.open(library)) {
            Device device = devices.devices().getFirst();
            context = device.open();
        }
        System.out.println("# device: " + context.deviceName());
        arena = Arena.ofShared();
        ProtectionDomain pd = context.allocateProtectionDomain();
        int remoteWritable = ibv_access_flags.IBV_ACCESS_LOCAL_WRITE | ibv_access_flags.IBV_ACCESS_REMOTE_WRITE;
        slot = arena.allocate((MessageHeader.requestLength(limits.maxRequestBytes(), 1) + 63) & ~63L, 4096);
        slotMr = pd.register(slot, ibv_access_flags.IBV_ACCESS_LOCAL_WRITE);
        MemorySegment regionMemory = arena.allocate(RESPONSE_BYTES, 4096);
        MemoryRegion regionMr = pd.register(regionMemory, remoteWritable);
        ring = arena.allocate(MessageHeader.LENGTH, 4096);
        pd.register(ring, remoteWritable);

        // The engine's region factory: this benchmark drives the encoder without a client session.
        Region region = ApiAccess.members().newRegion(this, 0, regionMemory);
        regions = List.of(region);
        ranges = new ResponseRanges().add(region, 0, RESPONSE_BYTES);
        addressing = new RequestEncoder.RangeAddressing() {
            @Override
            public long rangeAddress(Region r, long offset) {
                return r.segment().address() + offset;
            }

            @Override
            public int rangeKey(Region r) {
                return regionMr.rkey();
            }
        };

        QueuePairCapabilities caps = new QueuePairCapabilities(16, 16, 1, 1, MAX_INLINE);
        idleCq = context.createCompletionQueue(64, null, 0);
        resetQp = pd.createReliableConnected(idleCq, idleCq, caps);
        flushCq = context.createCompletionQueue(64, null, 0);
        errorQp = pd.createReliableConnected(flushCq, flushCq, caps);
        errorQp.modifyToError();

        sendWr = ibv_send_wr.allocate(arena);
        sendSge = ibv_sge.allocate(arena);
        ibv_send_wr.sg_list(sendWr, sendSge);
        recvWr = ibv_recv_wr.allocate(arena);
        ibv_recv_wr.sg_list(recvWr, ibv_sge.allocate(arena));
        completions = ibv_wc.allocateArray(POLL_BATCH, arena);
        response = ibv_wc.allocate(arena);
        ibv_wc.status(response, ibv_wc_status.IBV_WC_SUCCESS);
        ibv_wc.opcode(response, ibv_wc_opcode.IBV_WC_RECV_RDMA_WITH_IMM);
        ibv_wc.imm_data(response, 0);
        header.wrap(ring, 0).reset(MessageType.RESPONSE, 0).status(WireStatus.OK).responseLength(RESPONSE_BYTES);

        encodeRequest();
        check(postSendDowncall() == Errno.EINVAL, "post_send on a RESET queue pair must be refused with EINVAL");
        check(postRecvDowncall() == Errno.EINVAL, "post_recv on a RESET queue pair must be refused with EINVAL");
        check(pollEmptyCq() == 0, "the idle completion queue must be empty");
        check(flushedSendAndPoll() == 1, "a send on an ERR queue pair must complete at once with a flush");
    }

    private static void check(boolean condition, String what) {
        if (!condition) {
            throw new IllegalStateException(what);
        }
    }

    /** Closes the context (and with it every queue pair, region and queue), then frees the memory. */
    @TearDown(Level.Trial)
    public void tearDown() {
        context.close();
        arena.close();
    }

    /**
     * Checks and encodes a row request with one range into the send slot, as {@code submit} does.
     *
     * @return the message length
     */
    @Benchmark
    public long encodeRequest() {
        RequestEncoder.check(this, regions, limits, PAYLOAD_BYTES, ranges);
        return encoder.encode(slot, sequence++, PatternHandler.OP_ROWS, 0, PAYLOAD_BYTES, ranges, addressing);
    }

    /**
     * Fills the send work request as {@code Link.postSend} does and posts it to a RESET queue pair.
     *
     * @return the provider's answer, {@code EINVAL}
     */
    @Benchmark
    public int postSendDowncall() {
        return postSend(MessageHeader.requestLength(PAYLOAD_BYTES, 1), resetQp);
    }

    /**
     * The whole Java-side submit: {@link #encodeRequest()} then {@link #postSendDowncall()}.
     *
     * @return the provider's answer, {@code EINVAL}
     */
    @Benchmark
    public int submitPath() {
        long length = encodeRequest();
        return postSend(length, resetQp);
    }

    private int postSend(long length, QueuePair qp) {
        ibv_send_wr.wr_id(sendWr, sequence);
        ibv_send_wr.num_sge(sendWr, 1);
        ibv_send_wr.opcode(sendWr, ibv_wr_opcode.IBV_WR_SEND);
        int flags = ibv_send_flags.IBV_SEND_SIGNALED;
        if (length <= qp.capabilities().maxInlineData()) {
            flags |= ibv_send_flags.IBV_SEND_INLINE;
        }
        ibv_send_wr.send_flags(sendWr, flags);
        ibv_send_wr.imm_data(sendWr, 0);
        ibv_send_wr.wr_rdma_remote_addr(sendWr, 0);
        ibv_send_wr.wr_rdma_rkey(sendWr, 0);
        ibv_sge.addr(sendSge, slot.address());
        ibv_sge.length(sendSge, (int) length);
        ibv_sge.lkey(sendSge, slotMr.lkey());
        return qp.postSend(sendWr);
    }

    /**
     * Re-posts a completion receive (no scatter entry) as {@code Link.postReceive} does, to a RESET
     * queue pair.
     *
     * @return the provider's answer, {@code EINVAL}
     */
    @Benchmark
    public int postRecvDowncall() {
        ibv_recv_wr.wr_id(recvWr, 0);
        ibv_recv_wr.num_sge(recvWr, 0);
        return resetQp.postRecv(recvWr);
    }

    /**
     * One busy-wait turn: {@code poll_cq} of up to 16 completions on an empty queue.
     *
     * @return 0
     */
    @Benchmark
    public int pollEmptyCq() {
        return idleCq.poll(POLL_BATCH, completions);
    }

    /**
     * The downcall floor: {@code poll_cq} asking for no completion.
     *
     * @return 0
     */
    @Benchmark
    public int pollZeroEntries() {
        return idleCq.poll(0, completions);
    }

    /**
     * A post whose flush completion the provider queues at once, then the poll that takes it.
     *
     * @return the completions polled, 1
     */
    @Benchmark
    public int flushedSendAndPoll() {
        int rc = postSend(MessageHeader.requestLength(PAYLOAD_BYTES, 1), errorQp);
        if (rc != 0) {
            throw new IllegalStateException("post_send on the ERR queue pair failed: " + Errno.describe(rc));
        }
        return flushCq.poll(POLL_BATCH, completions);
    }

    /**
     * Reads a response completion and checks its RESPONSE header as {@code await} does.
     *
     * @return the response length
     * @throws ProtocolException never: the header is well formed
     */
    @Benchmark
    public long completionDecode() throws ProtocolException {
        if (ibv_wc.status(response) != ibv_wc_status.IBV_WC_SUCCESS
                || ibv_wc.opcode(response) != ibv_wc_opcode.IBV_WC_RECV_RDMA_WITH_IMM
                || ibv_wc.imm_data(response) != 0) {
            throw new IllegalStateException("unexpected completion");
        }
        header.wrap(ring, 0);
        MessageChecks.checkRdmaResponse(header, 0, RESPONSE_BYTES);
        return header.status() + header.handlerStatus() + header.responseLength();
    }
}
