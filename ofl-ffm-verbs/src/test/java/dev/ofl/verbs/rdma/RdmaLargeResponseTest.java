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
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A response of more RDMA WRITEs than the server's send queue holds (256): 17 MiB in 64 KiB
 * pieces, cut again at the client's range boundaries. The server must signal some of its writes
 * along the way and wait for the queue to drain rather than overflow it or wait for a completion
 * that never comes; every byte arrives where its range says, and the next response on the connection too.
 */
@Timeout(120)
class RdmaLargeResponseTest {
    private static final int RESPONSE_BYTES = 17 << 20;
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

    @Test
    void aResponseOfMoreWritesThanTheSendQueueHoldsArrivesWhole() {
        Limits limits = new Limits(64, RESPONSE_BYTES, 4, 2);
        ServerConfig config = ServerConfig.builder().backend(RdmaBackend.NAME)
                .bind(new InetSocketAddress(TestEnvironment.address(), 0)).serviceName("large").limits(limits)
                .waitMode(WaitMode.BUSY_POLL).properties(TestEnvironment.rdmaProperties())
                .bootstrapTimeout(TestEnvironment.duration(5)).build();
        Arena responses = Arena.ofShared();
        MemorySegment[] expected = {response(responses, 1), response(responses, 2)};
        try (responses; OflServer server = Ofl.serve(config, (request, response) -> {
            long n = response.capacity();
            MemorySegment.copy(expected[(int) request.generation() - 1], 0, response.buffer(), 0, n);
            // Committed in uneven parts, so that pieces start inside ranges and writes follow as they come.
            long first = n / 5 + 1;
            response.commit(first);
            response.commit(n - first);
            return 0;
        }); Arena arena = Arena.ofShared();
                OflClient client = Ofl.connect(ClientConfig.builder().backend(RdmaBackend.NAME)
                        .server(server.localAddress()).serviceName("large").limits(limits)
                        .waitMode(WaitMode.BUSY_POLL).connectTimeout(TestEnvironment.duration(5))
                        .properties(TestEnvironment.rdmaProperties()).build())) {
            // Gaps between the ranges stay untouched.
            MemorySegment memory = arena.allocate(RESPONSE_BYTES + 3 * 4096L, 4096);
            Region region = client.registerRegion(memory);
            ResponseRanges ranges = new ResponseRanges();
            long[] starts = new long[LENGTHS.length];
            long at = 0;
            for (int r = 0; r < LENGTHS.length; r++) {
                starts[r] = at;
                ranges.add(region, at, LENGTHS[r]);
                at += LENGTHS[r] + 4096;
            }
            memory.fill((byte) 0x5A);
            Completion completion = new Completion();
            assertEquals(OflStatus.OK, client.call(1, 1, 0, ranges, TestEnvironment.nanos(60), completion),
                    completion::toString);
            assertEquals(RESPONSE_BYTES, completion.responseLength());
            long responseAt = 0;
            for (int r = 0; r < LENGTHS.length; r++) {
                assertEquals(-1L, memory.asSlice(starts[r], LENGTHS[r]).mismatch(
                        expected[0].asSlice(responseAt, LENGTHS[r])), "the first wrong byte of range " + r);
                responseAt += LENGTHS[r];
                assertEquals((byte) 0x5A, memory.get(ValueLayout.JAVA_BYTE, starts[r] + LENGTHS[r]),
                        "the byte after range " + r);
            }
            // The connection goes on: the next response, of a few pieces, lands too.
            long small = 3 * 65_536 + 17;
            assertEquals(OflStatus.OK, client.call(1, 2, 0, new ResponseRanges().add(region, 0, small),
                    TestEnvironment.nanos(60), completion), completion::toString);
            assertEquals(small, completion.responseLength());
            assertEquals(-1L, memory.asSlice(0, small).mismatch(expected[1].asSlice(0, small)));
            assertFalse(client.isBroken());
        }
    }
}
