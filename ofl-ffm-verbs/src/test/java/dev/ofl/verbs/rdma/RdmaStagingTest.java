package dev.ofl.verbs.rdma;

import static org.junit.jupiter.api.Assertions.assertEquals;

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
import dev.ofl.api.spi.ServerMemory;
import dev.ofl.api.wire.MessageHeader;
import dev.ofl.conformance.Conditions;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetSocketAddress;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The RDMA server's memory: a HELLO commits its receive slots and completion headers and no
 * staging; the staging pool is one registration for the whole server, whatever the number of
 * connections; responses pipelined eight deep, staged while the previous completion may still be
 * in flight, arrive intact; and the pool is freed when the server closes.
 */
@Timeout(120)
class RdmaStagingTest {
    private static final long SECOND_NS = 1_000_000_000L;
    private static final int RESPONSE_BYTES = 100 << 10;
    private static final long BUDGET = 1 << 20;

    @Test
    void helloCommitsReceiveSlotsOnlyAndOnePoolServesEveryConnection() {
        long receiveBefore = ServerMemory.receiveBytes();
        long stagingBefore = ServerMemory.stagingBytes();
        ServerConfig config = ServerConfig.builder().backend(RdmaBackend.NAME)
                .bind(new InetSocketAddress("127.0.0.1", 0)).serviceName("staging").stagingBudgetBytes(BUDGET)
                .limits(new Limits(1 << 20, RESPONSE_BYTES, 16, 64)).build();
        Limits limits = new Limits(64, RESPONSE_BYTES, 1, 8);
        try (OflServer server = Ofl.serve(config, (request, response) -> {
            long n = response.capacity();
            response.buffer().asSlice(0, n).fill((byte) request.generation());
            response.commit(n / 2);
            response.commit(n - n / 2);
            return 0;
        }); Arena arena = Arena.ofShared()) {
            OflClient first = Ofl.connect(ClientConfig.builder().backend(RdmaBackend.NAME).server(server.localAddress())
                    .serviceName("staging").limits(limits).build());
            OflClient second = Ofl.connect(ClientConfig.builder().backend(RdmaBackend.NAME)
                    .server(server.localAddress()).serviceName("staging").limits(limits).build());
            try {
                Conditions.await(() -> server.connectionCount() == 2, "two connections");
                long slot = (MessageHeader.requestLength(64, 1) + 63) & ~63L;
                long perHello = 8 * slot + 256 * MessageHeader.LENGTH;
                Conditions.await(() -> ServerMemory.receiveBytes() - receiveBefore == 2 * perHello,
                        "each HELLO to commit its 8 receive slots and 256 completion headers (" + perHello + " B)");
                assertEquals(stagingBefore, ServerMemory.stagingBytes(), "no staging before a request");
                for (OflClient client : new OflClient[] {first, second}) {
                    pipeline(client, arena.allocate(8L * RESPONSE_BYTES, 4096));
                }
                assertEquals(stagingBefore + BUDGET, ServerMemory.stagingBytes(),
                        "one pool of the budget for both connections, not one per connection");
            } finally {
                first.close();
                second.close();
            }
        }
        assertEquals(stagingBefore, ServerMemory.stagingBytes(), "the pool is deregistered and freed at close");
        Conditions.await(() -> ServerMemory.receiveBytes() <= receiveBefore, "the receive slots to be freed");
    }

    /** Keeps eight requests in flight and checks every response's first and last byte. */
    private static void pipeline(OflClient client, MemorySegment memory) {
        Region region = client.registerRegion(memory);
        ResponseRanges[] ranges = new ResponseRanges[8];
        for (int i = 0; i < 8; i++) {
            ranges[i] = new ResponseRanges().add(region, (long) i * RESPONSE_BYTES, RESPONSE_BYTES);
        }
        long[] tickets = new long[8];
        Completion completion = new Completion();
        int requests = 400;
        for (int submitted = 0, completed = 0; completed < requests;) {
            if (submitted < requests && submitted - completed < 8) {
                tickets[submitted % 8] = client.submit(1, submitted + 1, 0, ranges[submitted % 8]);
                submitted++;
                continue;
            }
            int slot = completed % 8;
            assertEquals(OflStatus.OK, client.await(tickets[slot], System.nanoTime() + 10 * SECOND_NS, completion));
            assertEquals(RESPONSE_BYTES, completion.responseLength());
            byte expected = (byte) (completed + 1);
            assertEquals(expected, memory.get(ValueLayout.JAVA_BYTE, (long) slot * RESPONSE_BYTES));
            assertEquals(expected, memory.get(ValueLayout.JAVA_BYTE, (long) (slot + 1) * RESPONSE_BYTES - 1));
            completed++;
        }
    }
}
