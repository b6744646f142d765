package dev.ofl.bench.run;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ofl.api.OflRequest;
import dev.ofl.api.OflResponse;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import org.junit.jupiter.api.Test;

class ExchangeHandlerTest {
    /** Keeps a test's allocation from being optimised away. */
    private static volatile Object sink;

    /** A response over plain memory, as a backend's staging area would be. */
    private static final class Response implements OflResponse {
        final MemorySegment buffer;
        long committed;

        Response(MemorySegment buffer) {
            this.buffer = buffer;
        }

        @Override
        public MemorySegment buffer() {
            return buffer;
        }

        @Override
        public long capacity() {
            return buffer.byteSize();
        }

        @Override
        public long committed() {
            return committed;
        }

        @Override
        public void commit(long length) {
            committed += length;
        }
    }

    private static OflRequest request(int op, MemorySegment payload) {
        return new OflRequest() {
            @Override
            public int op() {
                return op;
            }

            @Override
            public long generation() {
                return 0;
            }

            @Override
            public long sequence() {
                return 0;
            }

            @Override
            public MemorySegment payload() {
                return payload;
            }

            @Override
            public long responseCapacity() {
                return 0;
            }
        };
    }

    private static MemorySegment exchange(Arena arena, long iteration, int requestBytes, long responseBytes,
            int flags) {
        MemorySegment p = arena.allocate(requestBytes);
        p.set(ExchangeHandler.FIELD_LE, ExchangeHandler.ITERATION_OFFSET, iteration);
        p.set(ExchangeHandler.FIELD_LE, ExchangeHandler.RESPONSE_BYTES_OFFSET, responseBytes);
        p.set(ExchangeHandler.FLAGS_LE, ExchangeHandler.FLAGS_OFFSET, flags);
        StreamPattern.fill(p, ExchangeHandler.HEADER_BYTES, iteration, StreamPattern.REQUEST,
                ExchangeHandler.HEADER_BYTES, requestBytes - ExchangeHandler.HEADER_BYTES);
        return p;
    }

    @Test
    void answersTheSeedCaseInBothResponseModes() {
        try (Arena arena = Arena.ofConfined(); ExchangeHandler handler = new ExchangeHandler(-1)) {
            for (int flags : new int[] {0, ExchangeHandler.FLAG_RESPONSE_IN_PLACE}) {
                Response r = new Response(arena.allocate(40_000));
                assertEquals(0, handler.handle(request(ExchangeHandler.OP_EXCHANGE,
                        exchange(arena, 9, 184_416, 36_001, flags)), r));
                assertEquals(36_001, r.committed);
                assertEquals(0, StreamPattern.countMismatches(r.buffer, 0, 9, StreamPattern.RESPONSE, 0, 36_001));
            }
        }
    }

    @Test
    void aCorruptedRequestByteIsRefused() {
        try (Arena arena = Arena.ofConfined(); ExchangeHandler handler = new ExchangeHandler(-1)) {
            MemorySegment p = exchange(arena, 5, 184_416, 24, 0);
            p.set(ValueLayout.JAVA_BYTE, 184_415, (byte) (p.get(ValueLayout.JAVA_BYTE, 184_415) + 1));
            Response r = new Response(arena.allocate(24));
            assertEquals(ExchangeHandler.REFUSED_BAD_REQUEST_BYTES,
                    handler.handle(request(ExchangeHandler.OP_EXCHANGE, p), r));
            assertEquals(0, r.committed);
        }
    }

    @Test
    void refusesWhatDoesNotFitAndUnknownOps() {
        try (Arena arena = Arena.ofConfined(); ExchangeHandler handler = new ExchangeHandler(-1)) {
            assertEquals(ExchangeHandler.REFUSED_TOO_LARGE, handler.handle(request(ExchangeHandler.OP_EXCHANGE,
                    exchange(arena, 1, 64, 100, 0)), new Response(arena.allocate(64))));
            assertEquals(ExchangeHandler.REFUSED_MALFORMED, handler.handle(request(ExchangeHandler.OP_EXCHANGE,
                    arena.allocate(8)), new Response(arena.allocate(64))));
            assertEquals(ExchangeHandler.REFUSED_UNKNOWN_OP, handler.handle(request(99, arena.allocate(64)),
                    new Response(arena.allocate(64))));
        }
    }

    @Test
    void cpuAnswerCarriesThreadAndProcessTimeAndTheThreadsAllocation() {
        try (Arena arena = Arena.ofConfined(); ExchangeHandler handler = new ExchangeHandler(-1)) {
            Response r = new Response(arena.allocate(ExchangeHandler.CPU_ANSWER_BYTES));
            assertEquals(0, handler.handle(request(ExchangeHandler.OP_CPU, MemorySegment.NULL), r));
            assertEquals(ExchangeHandler.CPU_ANSWER_BYTES, r.committed);
            long thread = r.buffer.get(ExchangeHandler.FIELD_LE, 0);
            long process = r.buffer.get(ExchangeHandler.FIELD_LE, Long.BYTES);
            assertEquals(true, thread > 0 && process >= thread, thread + " <= " + process);
            long allocated = r.buffer.get(ExchangeHandler.FIELD_LE, 2 * Long.BYTES);
            sink = new byte[1 << 20];
            long after = ExchangeHandler.threadAllocatedBytes();
            assertTrue(allocated > 0 && after - allocated >= 1 << 20, allocated + " then " + after);
        }
    }

    /** A client of an earlier version leaves room for the two CPU times only: it gets those. */
    @Test
    void aCpuQueryWithRoomForTwoFieldsGetsTheCpuTimes() {
        try (Arena arena = Arena.ofConfined(); ExchangeHandler handler = new ExchangeHandler(-1)) {
            Response two = new Response(arena.allocate(2 * Long.BYTES));
            assertEquals(0, handler.handle(request(ExchangeHandler.OP_CPU, MemorySegment.NULL), two));
            assertEquals(2 * Long.BYTES, two.committed);
            assertTrue(two.buffer.get(ExchangeHandler.FIELD_LE, 0) > 0);
            assertEquals(ExchangeHandler.REFUSED_TOO_LARGE, handler.handle(request(ExchangeHandler.OP_CPU,
                    MemorySegment.NULL), new Response(arena.allocate(Long.BYTES))));
        }
    }

    @Test
    void aVirtualThreadsAllocationIsUnknown() throws Exception {
        long[] seen = new long[1];
        Thread.ofVirtual().start(() -> seen[0] = ExchangeHandler.threadAllocatedBytes()).join();
        assertEquals(-1, seen[0]);
    }
}
