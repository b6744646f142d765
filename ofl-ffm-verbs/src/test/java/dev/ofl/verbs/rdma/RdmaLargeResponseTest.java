package dev.ofl.verbs.rdma;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import dev.ofl.api.ClientConfig;
import dev.ofl.api.Completion;
import dev.ofl.api.Limits;
import dev.ofl.api.Ofl;
import dev.ofl.api.OflClient;
import dev.ofl.api.OflServer;
import dev.ofl.api.OflStatus;
import dev.ofl.api.Region;
import dev.ofl.api.ResponseRanges;
import dev.ofl.api.ServerConfig;
import dev.ofl.api.WaitMode;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetSocketAddress;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Responses of more RDMA WRITEs than the server's send queue holds (256): 17 MiB committed in
 * 64 KiB pieces, each cut again at the client's range boundaries, some 275 writes. The server must
 * signal some of its writes along the way and wait for the queue to drain rather than overflow it
 * or wait for a completion that never comes, whether it spins or parks between completions. Two
 * such responses are in flight at once on one connection: the second is staged while the first's
 * writes may still be reading their staging, so the first's blocks must not be lent out again
 * before its writes completed. Every byte arrives where its range says, and the next response on
 * the connection too.
 */
@Timeout(180)
class RdmaLargeResponseTest {
    private static final int RESPONSE_BYTES = 17 << 20;
    /** The transport's piece size: each commit of this many bytes posts its writes at once. */
    private static final int PIECE = 64 << 10;
    /** Three ranges of uneven lengths, none a multiple of the piece size. */
    private static final long[] LENGTHS = {(7 << 20) + 12_345, (5 << 20) + 999, RESPONSE_BYTES - (12 << 20) - 13_344};

    /** A period that is no multiple of the piece size, so that a misplaced piece shows. */
    private static final int PERIOD = 65_537;

    /** The response to {@code generation}: a repeating pattern, different for each generation. */
    private static MemorySegment response(Arena arena, long generation) {
        MemorySegment pattern = arena.allocate(PERIOD);
        for (int i = 0; i < PERIOD; i++) {
            pattern.set(ValueLayout.JAVA_BYTE, i, (byte) (i * 31 + (i >>> 8) + generation * 7));
        }
        MemorySegment response = arena.allocate(RESPONSE_BYTES);
        for (long at = 0; at < RESPONSE_BYTES; at += PERIOD) {
            MemorySegment.copy(pattern, 0, response, at, Math.min(PERIOD, RESPONSE_BYTES - at));
        }
        return response;
    }

    @ParameterizedTest
    @EnumSource(WaitMode.class)
    void responsesOfMoreWritesThanTheSendQueueHoldsArriveWhole(WaitMode mode) {
        Limits limits = new Limits(64, RESPONSE_BYTES, 4, 2);
        ServerConfig config = ServerConfig.builder().backend(RdmaBackend.NAME)
                .bind(new InetSocketAddress(TestEnvironment.address(), 0)).serviceName("large").limits(limits)
                .waitMode(mode).properties(TestEnvironment.rdmaProperties())
                .bootstrapTimeout(TestEnvironment.duration(5)).build();
        Arena responses = Arena.ofShared();
        MemorySegment[] expected = {response(responses, 1), response(responses, 2), response(responses, 3)};
        try (responses; OflServer server = Ofl.serve(config, (request, response) -> {
            long n = response.capacity();
            MemorySegment.copy(expected[(int) request.generation() - 1], 0, response.buffer(), 0, n);
            // A first part shorter than a piece, so that pieces start inside ranges; then piece by
            // piece, each commit posting its writes while the earlier ones may still be in flight.
            long first = Math.min(n, 12_345);
            response.commit(first);
            for (long at = first; at < n; at += PIECE) {
                response.commit(Math.min(PIECE, n - at));
            }
            return 0;
        }); Arena arena = Arena.ofShared();
                OflClient client = Ofl.connect(ClientConfig.builder().backend(RdmaBackend.NAME)
                        .server(server.localAddress()).serviceName("large").limits(limits)
                        .waitMode(WaitMode.BUSY_POLL).connectTimeout(TestEnvironment.duration(5))
                        .properties(TestEnvironment.rdmaProperties()).build())) {
            // Gaps between the ranges stay untouched.
            long span = RESPONSE_BYTES + 3 * 4096L;
            MemorySegment memory = arena.allocate(2 * span, 4096);
            Region region = client.registerRegion(memory);
            ResponseRanges[] ranges = {new ResponseRanges(), new ResponseRanges()};
            long[] starts = new long[LENGTHS.length];
            long at = 0;
            for (int r = 0; r < LENGTHS.length; r++) {
                starts[r] = at;
                ranges[0].add(region, at, LENGTHS[r]);
                ranges[1].add(region, span + at, LENGTHS[r]);
                at += LENGTHS[r] + 4096;
            }
            memory.fill((byte) 0x5A);
            // Both in flight: the second response is staged as soon as the first is posted.
            long[] tickets = {client.submit(1, 1, 0, ranges[0]), client.submit(1, 2, 0, ranges[1])};
            Completion completion = new Completion();
            for (int g = 0; g < 2; g++) {
                assertEquals(OflStatus.OK, client.await(tickets[g], client.clock().nanoTime() + TestEnvironment.nanos(90),
                        completion), completion::toString);
                assertEquals(RESPONSE_BYTES, completion.responseLength());
            }
            for (int g = 0; g < 2; g++) {
                long responseAt = 0;
                for (int r = 0; r < LENGTHS.length; r++) {
                    long start = g * span + starts[r];
                    assertEquals(-1L, memory.asSlice(start, LENGTHS[r]).mismatch(
                            expected[g].asSlice(responseAt, LENGTHS[r])),
                            "response " + (g + 1) + ": the first wrong byte of range " + r);
                    responseAt += LENGTHS[r];
                    assertEquals((byte) 0x5A, memory.get(ValueLayout.JAVA_BYTE, start + LENGTHS[r]),
                            "response " + (g + 1) + ": the byte after range " + r);
                }
            }
            // The connection goes on: the next response, of a few pieces, lands too.
            long small = 3 * 65_536 + 17;
            assertEquals(OflStatus.OK, client.call(1, 3, 0, new ResponseRanges().add(region, 0, small),
                    TestEnvironment.nanos(60), completion), completion::toString);
            assertEquals(small, completion.responseLength());
            assertEquals(-1L, memory.asSlice(0, small).mismatch(expected[2].asSlice(0, small)));
            assertFalse(client.isBroken());
        }
    }
}
