package dev.ofl.check;

import dev.ofl.api.OflHandler;
import dev.ofl.api.OflRequest;
import dev.ofl.api.OflResponse;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * What an {@code ofl check} server answers, and what the link checks ask of it: the operation
 * codes, the row pattern and the handler. Both ends of a check are the same ofl version, so the
 * codes need no negotiation. Thread-safe: one handler serves every connection.
 */
final class CheckService implements OflHandler {
    /** The service name both ends use unless {@code --service} names another. */
    static final String DEFAULT_SERVICE = "ofl-check";
    /** Echo the payload. */
    static final int OP_ECHO = 1;
    /** Payload u32 count, u32 seed: answer {@code count} rows of {@link #ROW_BYTES}, streamed row by row. */
    static final int OP_ROWS = 2;
    /** Payload u32 status: commit some bytes, then refuse with that status. */
    static final int OP_REFUSE = 3;
    /** Commit some bytes, then throw. */
    static final int OP_FAIL = 4;
    /** Payload u32 milliseconds: stall that long, then write {@link #STALL_RESPONSE_BYTES} row bytes. */
    static final int OP_STALL = 5;
    /** Answer u64: how many stalled handlers have finished their late write attempt. */
    static final int OP_STALLS_FINISHED = 6;
    /**
     * Payload u32 length, u32 seed: answer {@code length} bytes of {@link #bulkByte} pattern, copied
     * from a block made once, so that the server's time goes to the link rather than to making bytes.
     */
    static final int OP_BULK = 7;
    /** Bytes per row. */
    static final int ROW_BYTES = 256;
    /** The period of the bulk pattern: a prime, so that a seed shifts every byte. */
    private static final int BULK_PERIOD = 251;
    /** The bulk pattern in pieces of this size, each from one copy. */
    static final int BULK_PIECE = 1 << 20;
    /** What a stalled handler writes once its stall is over. */
    static final int STALL_RESPONSE_BYTES = 64 << 10;
    /** The longest stall a request may ask for. */
    static final int MAX_STALL_MS = 10_000;
    /** How numbers travel in payloads. */
    static final ValueLayout.OfInt U32 = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    /** How the stall count travels. */
    static final ValueLayout.OfLong U64 = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    /** A status no check uses for anything else, so a refusal is recognisably the asked one. */
    static final int BAD_OP = 0x0BAD;

    private final AtomicLong stallsFinished = new AtomicLong();
    /** One period past a piece: a piece starts anywhere in the period. */
    private static final MemorySegment BULK_BLOCK = bulkBlock();

    @Override
    public int handle(OflRequest request, OflResponse response) throws Exception {
        MemorySegment payload = request.payload();
        return switch (request.op()) {
            case OP_ECHO -> {
                response.write(payload);
                yield 0;
            }
            case OP_ROWS -> rows(payload.get(U32, 0), payload.get(U32, 4), response);
            case OP_REFUSE -> {
                response.write(MemorySegment.ofArray(new byte[(int) Math.min(100, response.capacity())]));
                yield payload.get(U32, 0);
            }
            case OP_FAIL -> {
                response.write(MemorySegment.ofArray(new byte[(int) Math.min(100, response.capacity())]));
                throw new IllegalStateException("handler failure asked for by an ofl check (op " + OP_FAIL + ")");
            }
            case OP_STALL -> stall(payload.get(U32, 0), response);
            case OP_BULK -> bulk(Integer.toUnsignedLong(payload.get(U32, 0)), payload.get(U32, 4), response);
            case OP_STALLS_FINISHED -> {
                MemorySegment count = MemorySegment.ofArray(new byte[8]);
                count.set(U64, 0, stallsFinished.get());
                response.write(count);
                yield 0;
            }
            default -> BAD_OP;
        };
    }

    private static int rows(int count, int seed, OflResponse response) {
        if (count < 0 || (long) count * ROW_BYTES > response.capacity()) {
            return BAD_OP;
        }
        MemorySegment out = response.buffer();
        for (int row = 0; row < count; row++) {
            for (int column = 0; column < ROW_BYTES; column++) {
                out.set(ValueLayout.JAVA_BYTE, response.committed() + column, rowByte(row, column, seed));
            }
            response.commit(ROW_BYTES);
        }
        return 0;
    }

    private static int bulk(long length, int seed, OflResponse response) {
        if (length > response.capacity()) {
            return BAD_OP;
        }
        for (long at = 0; at < length; at += BULK_PIECE) {
            response.write(bulkPiece(at, seed, Math.min(BULK_PIECE, length - at)));
        }
        return 0;
    }

    /** Bytes {@code at} to {@code at + length} of the bulk pattern for {@code seed}, as a view of the block. */
    static MemorySegment bulkPiece(long at, int seed, long length) {
        return BULK_BLOCK.asSlice(Math.floorMod(at + seed, BULK_PERIOD), length);
    }

    /** Byte {@code at} of the bulk pattern for {@code seed}; never 0xA5. */
    static byte bulkByte(long at, int seed) {
        return patternByte(Math.floorMod(at + seed, BULK_PERIOD));
    }

    private static byte patternByte(int k) {
        byte b = (byte) (k * 7 + 1);
        return b == LinkChecks.SENTINEL ? 0x5A : b;
    }

    private static MemorySegment bulkBlock() {
        byte[] block = new byte[BULK_PIECE + BULK_PERIOD];
        for (int i = 0; i < block.length; i++) {
            block[i] = patternByte(i % BULK_PERIOD);
        }
        return MemorySegment.ofArray(block).asReadOnly();
    }

    private int stall(int ms, OflResponse response) throws InterruptedException {
        if (ms < 0 || ms > MAX_STALL_MS) {
            return BAD_OP;
        }
        try {
            // The slow handler the timeout check needs: the client gives up while this sleeps.
            TimeUnit.MILLISECONDS.sleep(ms);
            return rows((int) Math.min(STALL_RESPONSE_BYTES, response.capacity()) / ROW_BYTES, ms, response);
        } finally {
            stallsFinished.incrementAndGet();
        }
    }

    /** Byte {@code column} of row {@code row}; never 0xA5, the sentinel the checks fill memory with. */
    static byte rowByte(int row, int column, int seed) {
        byte b = (byte) (row * 131 + column * 7 + seed * 29 + (row >>> 8) + 1);
        return b == LinkChecks.SENTINEL ? 0x5A : b;
    }
}
