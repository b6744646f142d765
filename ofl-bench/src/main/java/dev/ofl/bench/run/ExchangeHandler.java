package dev.ofl.bench.run;

import dev.ofl.api.OflHandler;
import dev.ofl.api.OflRequest;
import dev.ofl.api.OflResponse;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.ByteOrder;

/**
 * The benchmark server's handler. Two operations:
 * <ul>
 * <li>{@link #OP_EXCHANGE}: the request starts with a header, then carries {@link StreamPattern}
 * request bytes; the handler checks every one of them and answers with the requested number of
 * response-pattern bytes, committed every {@value #CHUNK_BYTES} bytes.</li>
 * <li>{@link #OP_CPU}: answers with the CPU time of the connection thread that runs the handler and
 * of the whole server process, and the heap bytes that thread allocated, so the client can compute
 * server CPU and allocation per request.</li>
 * </ul>
 *
 * <p>Exchange request header, little-endian:
 * <pre>
 *  0               8               16      20      24
 * +---------------+---------------+-------+-------+---- request pattern bytes ...
 * |   iteration   | responseBytes | flags | zero  |
 * +---------------+---------------+-------+-------+----
 * </pre>
 * Flag {@link #FLAG_RESPONSE_IN_PLACE}: write the response straight into {@link OflResponse#buffer()}
 * and commit it; without it, prepare it in scratch memory and {@link OflResponse#write} it (a copy).
 *
 * <p>Thread-safe: connections share the handler; each connection thread has its own scratch
 * memory, and is pinned to the configured CPU on its first request. {@link #close()} frees the
 * scratch memory; call it only once the servers are closed.
 */
public final class ExchangeHandler implements OflHandler, AutoCloseable {
    /** Operation code of a checked exchange. */
    public static final int OP_EXCHANGE = 11;
    /** Operation code of the CPU-time query. */
    public static final int OP_CPU = 12;
    /** Little-endian field layout of the header. */
    public static final ValueLayout.OfLong FIELD_LE =
            ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    /** Little-endian layout of the flags field. */
    public static final ValueLayout.OfInt FLAGS_LE = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    /** Offset of the iteration. */
    public static final long ITERATION_OFFSET = 0;
    /** Offset of the response length. */
    public static final long RESPONSE_BYTES_OFFSET = ITERATION_OFFSET + Long.BYTES;
    /** Offset of the flags. */
    public static final long FLAGS_OFFSET = RESPONSE_BYTES_OFFSET + Long.BYTES;
    /** Bytes of the header; the request pattern starts here. */
    public static final int HEADER_BYTES = (int) FLAGS_OFFSET + 2 * Integer.BYTES;
    /** Flag: write the response in place. */
    public static final int FLAG_RESPONSE_IN_PLACE = 1;
    /**
     * Bytes of an {@link #OP_CPU} answer: thread CPU ns, process CPU ns, then the heap bytes the
     * thread allocated; each {@code -1} when unknown.
     */
    public static final int CPU_ANSWER_BYTES = 3 * Long.BYTES;
    /** Response bytes prepared and committed together. */
    public static final int CHUNK_BYTES = 16 << 10;
    /** Refusal: the request is shorter than the header or names a negative length. */
    public static final int REFUSED_MALFORMED = 1;
    /** Refusal: the response does not fit the client's ranges. */
    public static final int REFUSED_TOO_LARGE = 2;
    /** Refusal: an op this handler does not know. */
    public static final int REFUSED_UNKNOWN_OP = 3;
    /** Refusal: request bytes differ from the pattern (a failed check on the server side). */
    public static final int REFUSED_BAD_REQUEST_BYTES = 4;

    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();
    /** Looked up once: each lookup allocates, and the CPU query is made inside measured blocks' accounts. */
    private static final java.lang.management.OperatingSystemMXBean OS = ManagementFactory.getOperatingSystemMXBean();

    /** One connection thread's state. */
    private static final class PerThread {
        final MemorySegment chunk;
        final MemorySegment cpuAnswer;
        /** The last short slice of {@link #chunk} handed to {@link OflResponse#write}, kept for the next. */
        MemorySegment head;
        boolean pinned;

        PerThread(Arena arena) {
            chunk = arena.allocate(CHUNK_BYTES, 64);
            cpuAnswer = chunk.asSlice(0, CPU_ANSWER_BYTES);
            head = chunk;
        }

        /** The first {@code length} bytes of the chunk; a repeated length makes no new slice. */
        MemorySegment head(long length) {
            if (head.byteSize() != length) {
                head = chunk.asSlice(0, length);
            }
            return head;
        }
    }

    private final int cpu;
    private final Arena arena = Arena.ofShared();
    private final ThreadLocal<PerThread> perThread = ThreadLocal.withInitial(() -> new PerThread(arena));

    /**
     * Creates a handler.
     *
     * @param cpu the CPU to pin each connection thread to, or {@code -1} for no pinning
     */
    public ExchangeHandler(int cpu) {
        this.cpu = cpu;
    }

    @Override
    public int handle(OflRequest request, OflResponse response) {
        PerThread own = perThread.get();
        if (cpu >= 0 && !own.pinned) {
            Affinity.pinCurrentThread(cpu);
            own.pinned = true;
        }
        return switch (request.op()) {
            case OP_EXCHANGE -> exchange(request.payload(), response, own);
            case OP_CPU -> cpu(response, own);
            default -> REFUSED_UNKNOWN_OP;
        };
    }

    private static int exchange(MemorySegment payload, OflResponse response, PerThread own) {
        if (payload.byteSize() < HEADER_BYTES) {
            return REFUSED_MALFORMED;
        }
        long iteration = payload.get(FIELD_LE, ITERATION_OFFSET);
        long responseBytes = payload.get(FIELD_LE, RESPONSE_BYTES_OFFSET);
        int flags = payload.get(FLAGS_LE, FLAGS_OFFSET);
        if (responseBytes < 0) {
            return REFUSED_MALFORMED;
        }
        if (responseBytes > response.capacity()) {
            return REFUSED_TOO_LARGE;
        }
        if (StreamPattern.countMismatches(payload, HEADER_BYTES, iteration, StreamPattern.REQUEST, HEADER_BYTES,
                payload.byteSize() - HEADER_BYTES) != 0) {
            return REFUSED_BAD_REQUEST_BYTES;
        }
        boolean inPlace = (flags & FLAG_RESPONSE_IN_PLACE) != 0;
        for (long at = 0; at < responseBytes; at += CHUNK_BYTES) {
            long length = Math.min(CHUNK_BYTES, responseBytes - at);
            if (inPlace) {
                StreamPattern.fill(response.buffer(), at, iteration, StreamPattern.RESPONSE, at, length);
                response.commit(length);
            } else {
                StreamPattern.fill(own.chunk, 0, iteration, StreamPattern.RESPONSE, at, length);
                response.write(length == CHUNK_BYTES ? own.chunk : own.head(length));
            }
        }
        return 0;
    }

    private static int cpu(OflResponse response, PerThread own) {
        // A client of an earlier version asks for the two CPU times only (16 bytes).
        int fields = response.capacity() >= CPU_ANSWER_BYTES ? 3 : response.capacity() >= 2 * Long.BYTES ? 2 : 0;
        if (fields == 0) {
            return REFUSED_TOO_LARGE;
        }
        own.cpuAnswer.set(FIELD_LE, 0, THREADS.getCurrentThreadCpuTime());
        own.cpuAnswer.set(FIELD_LE, Long.BYTES, processCpuNs());
        if (fields == 3) {
            own.cpuAnswer.set(FIELD_LE, 2 * Long.BYTES, threadAllocatedBytes());
            response.write(own.cpuAnswer);
        } else {
            response.write(own.cpuAnswer.asSlice(0, 2 * Long.BYTES));
        }
        return 0;
    }

    /**
     * CPU time of this whole process, every thread (including native ones, such as a verbs
     * library's progress thread).
     *
     * @return nanoseconds, or {@code -1} when the platform does not say
     */
    public static long processCpuNs() {
        if (OS instanceof com.sun.management.OperatingSystemMXBean os) {
            return os.getProcessCpuTime();
        }
        return -1;
    }

    /**
     * Heap bytes the current thread has allocated since it started.
     *
     * @return bytes, or {@code -1} when the platform does not say (a virtual thread, for one)
     */
    public static long threadAllocatedBytes() {
        if (THREADS instanceof com.sun.management.ThreadMXBean threads && threads.isThreadAllocatedMemoryEnabled()
                && !Thread.currentThread().isVirtual()) {
            return threads.getCurrentThreadAllocatedBytes();
        }
        return -1;
    }

    /** Frees every thread's scratch memory. Call only once no request can be handled any more. */
    @Override
    public void close() {
        arena.close();
    }
}
