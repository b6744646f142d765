package dev.ofl.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ofl.api.ClientConfig;
import dev.ofl.api.ClientStatistics;
import dev.ofl.api.Completion;
import dev.ofl.api.Ofl;
import dev.ofl.api.OflClient;
import dev.ofl.api.OflConnectionException;
import dev.ofl.api.OflServer;
import dev.ofl.api.OflStatus;
import dev.ofl.api.Region;
import dev.ofl.api.ResponseRanges;
import dev.ofl.api.ServerConfig;
import java.lang.foreign.Arena;
import java.lang.foreign.ValueLayout;
import java.net.InetSocketAddress;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Every client counter moves when, and only when, its event happens. */
@Timeout(60)
class ClientStatisticsTest {
    private static final AtomicInteger SERVICES = new AtomicInteger();
    private static final long SECOND_NS = 1_000_000_000L;
    private static final int OP_ECHO = 1;
    private static final int OP_REFUSE = 2;
    private static final int OP_THROW = 3;

    private static OflServer serve(String service) {
        return Ofl.serve(ServerConfig.builder().backend(FakeBackend.NAME).bind(new InetSocketAddress("127.0.0.1", 0))
                .serviceName(service).build(), (request, response) -> switch (request.op()) {
                    case OP_REFUSE -> 7;
                    case OP_THROW -> throw new IllegalStateException("injected by ClientStatisticsTest");
                    default -> {
                        response.write(request.payload());
                        yield 0;
                    }
                });
    }

    private static int call(OflClient client, Region region, int op, long timeoutNs) {
        client.requestPayload().set(ValueLayout.JAVA_LONG_UNALIGNED, 0, op);
        return client.call(op, 0, 8, new ResponseRanges().add(region, 0, 8), timeoutNs, new Completion());
    }

    private static ClientStatistics stats(long calls, long ok, long refused, long failed, long timeouts, long peer,
            long transport, long protocol, long interrupts, long reconnects) {
        return new ClientStatistics(calls, ok, refused, failed, timeouts, peer, transport, protocol, interrupts,
                reconnects, 0, 0);
    }

    @Test
    void eachCounterMovesWithItsEvent() {
        String service = "client-stats-" + SERVICES.incrementAndGet();
        FakeFaults faults = FakeFaults.of(service);
        OflServer server = serve(service);
        try (Arena arena = Arena.ofShared();
             OflClient client = Ofl.connect(ClientConfig.builder().backend(FakeBackend.NAME)
                     .server(server.localAddress()).serviceName(service).build())) {
            Region region = client.registerRegion(arena.allocate(64));
            assertEquals(stats(0, 0, 0, 0, 0, 0, 0, 0, 0, 0), client.statistics());

            assertEquals(OflStatus.OK, call(client, region, OP_ECHO, 5 * SECOND_NS));
            assertEquals(OflStatus.REFUSED, call(client, region, OP_REFUSE, 5 * SECOND_NS));
            assertEquals(OflStatus.HANDLER_FAILED, call(client, region, OP_THROW, 5 * SECOND_NS));
            assertEquals(stats(3, 1, 1, 1, 0, 0, 0, 0, 0, 0), client.statistics());

            faults.dropResponses(1);
            assertEquals(OflStatus.TIMED_OUT, call(client, region, OP_ECHO, 100_000_000L));
            assertEquals(stats(4, 1, 1, 1, 1, 0, 0, 0, 0, 0), client.statistics());
            assertThrows(OflConnectionException.class, () -> call(client, region, OP_ECHO, SECOND_NS));
            assertEquals(stats(4, 1, 1, 1, 1, 0, 0, 0, 0, 0), client.statistics(),
                    "a call on a broken client is no new break and no call");

            client.reconnect();
            faults.failPosts(1);
            assertThrows(OflConnectionException.class, () -> call(client, region, OP_ECHO, SECOND_NS));
            assertEquals(stats(4, 1, 1, 1, 1, 0, 1, 0, 0, 1), client.statistics());

            client.reconnect();
            faults.corruptNextResponse(FakeFaults.HeaderField.STATUS, 99);
            assertThrows(OflConnectionException.class, () -> call(client, region, OP_ECHO, 5 * SECOND_NS));
            assertEquals(stats(5, 1, 1, 1, 1, 0, 1, 1, 0, 2), client.statistics());

            client.reconnect();
            faults.stallRequests(true);
            client.requestPayload().set(ValueLayout.JAVA_LONG_UNALIGNED, 0, 1);
            long ticket = client.submit(OP_ECHO, 0, 8, new ResponseRanges().add(region, 0, 8));
            Thread.currentThread().interrupt();
            try {
                assertThrows(OflConnectionException.class,
                        () -> client.await(ticket, client.clock().nanoTime() + 30 * SECOND_NS, new Completion()));
            } finally {
                Thread.interrupted();
                faults.stallRequests(false);
            }
            assertEquals(stats(6, 1, 1, 1, 1, 0, 1, 1, 1, 3), client.statistics());

            client.reconnect();
            assertEquals(OflStatus.OK, call(client, region, OP_ECHO, 5 * SECOND_NS));
            server.close();
            long deadlineNs = System.nanoTime() + 30 * SECOND_NS;
            while (!client.isBroken() && System.nanoTime() - deadlineNs < 0) {
                Thread.onSpinWait();
                Thread.yield();
            }
            assertTrue(client.isBroken(), "the client never noticed the server leave");
            assertThrows(OflConnectionException.class, () -> call(client, region, OP_ECHO, SECOND_NS));
            ClientStatistics last = client.statistics();
            assertEquals(stats(7, 2, 1, 1, 1, 1, 1, 1, 1, 4), last);
            assertEquals(5, last.brokenConnections());
        } finally {
            server.close();
            faults.clear();
        }
    }
}
