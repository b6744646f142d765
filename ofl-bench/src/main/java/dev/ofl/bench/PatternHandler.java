package dev.ofl.bench;

import dev.ofl.api.OflHandler;
import dev.ofl.api.OflRequest;
import dev.ofl.api.OflResponse;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/**
 * The ping-pong server's handler. Two operations:
 * <ul>
 * <li>{@link #OP_ECHO}: answers with the request payload.</li>
 * <li>{@link #OP_ROWS}: the payload is {@value #ROWS_PAYLOAD_BYTES} bytes, the row count and the
 * iteration as little-endian 64-bit integers; answers with that many {@link Patterns} rows of
 * {@value Patterns#ROW_BYTES} bytes, committed every {@value #BATCH_ROWS} rows so the response
 * streams while the next rows are prepared.</li>
 * </ul>
 *
 * <p>Thread-safe: connections share the handler, and each connection thread gets its own scratch
 * rows. Allocation-free per request once a thread has its scratch. {@link #close()} frees the
 * scratch memory; call it only after the server is closed.
 */
public final class PatternHandler implements OflHandler, AutoCloseable {
    /** Operation code of the echo. */
    public static final int OP_ECHO = 1;
    /** Operation code of a row response. */
    public static final int OP_ROWS = 2;
    /** Payload length of a row request: row count, then iteration. */
    public static final int ROWS_PAYLOAD_BYTES = 16;
    /** Rows prepared and committed together. */
    public static final int BATCH_ROWS = 64;
    /** Refusal status: the payload is not a well-formed request of its op. */
    public static final int REFUSED_MALFORMED = 1;
    /** Refusal status: the response does not fit the client's ranges. */
    public static final int REFUSED_TOO_LARGE = 2;
    /** Refusal status: an op this handler does not know. */
    public static final int REFUSED_UNKNOWN_OP = 3;

    /** Field layout of the row request payload. */
    public static final ValueLayout.OfLong FIELD_LE =
            ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    /** Offset of the row count in a row request. */
    public static final long ROWS_OFFSET = 0;
    /** Offset of the iteration in a row request. */
    public static final long ITERATION_OFFSET = ROWS_OFFSET + 8;

    /** How a handler produces its response bytes. */
    public enum ResponseMode {
        /** Prepares rows in its own scratch memory and appends them with {@link OflResponse#write}. */
        COPY,
        /** Prepares rows straight in {@link OflResponse#buffer()} and {@link OflResponse#commit}s them. */
        IN_PLACE
    }

    /** One connection thread's scratch: a batch of rows and a view for every batch length. */
    private static final class Scratch {
        final MemorySegment rows;
        final MemorySegment[] views = new MemorySegment[BATCH_ROWS + 1];

        Scratch(Arena arena) {
            rows = arena.allocate((long) BATCH_ROWS * Patterns.ROW_BYTES, 64);
            for (int n = 0; n <= BATCH_ROWS; n++) {
                views[n] = rows.asSlice(0, (long) n * Patterns.ROW_BYTES);
            }
        }
    }

    private final ResponseMode mode;
    private final Arena arena = Arena.ofShared();
    private final ThreadLocal<Scratch> scratch = ThreadLocal.withInitial(() -> new Scratch(arena));

    /**
     * Creates a handler.
     *
     * @param mode how it writes responses
     */
    public PatternHandler(ResponseMode mode) {
        this.mode = mode;
    }

    /**
     * How this handler writes responses.
     *
     * @return the mode
     */
    public ResponseMode mode() {
        return mode;
    }

    @Override
    public int handle(OflRequest request, OflResponse response) {
        return switch (request.op()) {
            case OP_ECHO -> echo(request, response);
            case OP_ROWS -> rows(request, response);
            default -> REFUSED_UNKNOWN_OP;
        };
    }

    private int echo(OflRequest request, OflResponse response) {
        MemorySegment payload = request.payload();
        if (payload.byteSize() > response.capacity()) {
            return REFUSED_TOO_LARGE;
        }
        if (mode == ResponseMode.COPY) {
            response.write(payload);
        } else {
            MemorySegment.copy(payload, 0, response.buffer(), response.committed(), payload.byteSize());
            response.commit(payload.byteSize());
        }
        return 0;
    }

    private int rows(OflRequest request, OflResponse response) {
        MemorySegment payload = request.payload();
        if (payload.byteSize() != ROWS_PAYLOAD_BYTES) {
            return REFUSED_MALFORMED;
        }
        long rows = payload.get(FIELD_LE, ROWS_OFFSET);
        long iteration = payload.get(FIELD_LE, ITERATION_OFFSET);
        if (rows < 0 || rows > response.capacity() / Patterns.ROW_BYTES) {
            return REFUSED_TOO_LARGE;
        }
        Scratch own = mode == ResponseMode.COPY ? scratch.get() : null;
        for (long row = 0; row < rows; row += BATCH_ROWS) {
            int batch = (int) Math.min(BATCH_ROWS, rows - row);
            if (own != null) {
                Patterns.writeRows(own.rows, 0, row, batch, iteration);
                response.write(own.views[batch]);
            } else {
                Patterns.writeRows(response.buffer(), response.committed(), row, batch, iteration);
                response.commit((long) batch * Patterns.ROW_BYTES);
            }
        }
        return 0;
    }

    /** Frees every thread's scratch memory. Call only once no request can be handled any more. */
    @Override
    public void close() {
        arena.close();
    }
}
