package dev.ofl.tcp;

import dev.ofl.api.ClientConfig;
import dev.ofl.api.Completion;
import dev.ofl.api.Limits;
import dev.ofl.api.Ofl;
import dev.ofl.api.OflClient;
import dev.ofl.api.OflServer;
import dev.ofl.api.OflStatus;
import dev.ofl.api.ResponseRanges;
import dev.ofl.api.ServerConfig;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * The TCP reading of {@code ServerStatistics.undeliveredResponses} (PROTOCOL.md §6): a response
 * counts as undelivered when writing it fails because the client is gone, as it is after the
 * client's timeout closed the socket. It is counted once, and the request still counts once.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class TcpUndeliveredResponseTest {
    private static final String SERVICE = "undelivered";
    private static final int RESPONSE_BYTES = 16 << 20;
    private static final byte SENTINEL = 0x3C;

    @Test
    void aResponseCutOffByTheClientsTimeoutIsCountedOnceAsUndelivered() throws Exception {
        CountDownLatch entered = new CountDownLatch(1);
        CountDownLatch clientTimedOut = new CountDownLatch(1);
        CountDownLatch handlerDone = new CountDownLatch(1);
        ServerConfig config = ServerConfig.builder().backend(TcpBackend.NAME)
                .bind(new InetSocketAddress("127.0.0.1", 0)).serviceName(SERVICE).build();
        try (OflServer server = Ofl.serve(config, (request, response) -> {
            try {
                entered.countDown();
                if (!clientTimedOut.await(30, TimeUnit.SECONDS)) {
                    return 1;
                }
                // Many pieces: the client's closed socket resets the connection at the first one.
                response.buffer().fill((byte) 0x11);
                for (long done = 0; done < response.capacity(); done += 512 << 10) {
                    response.commit(Math.min(512 << 10, response.capacity() - done));
                }
                return 0;
            } finally {
                handlerDone.countDown();
            }
        });
             Arena arena = Arena.ofShared();
             OflClient client = Ofl.connect(ClientConfig.builder().backend(TcpBackend.NAME)
                     .server(server.localAddress()).serviceName(SERVICE)
                     .limits(new Limits(1024, RESPONSE_BYTES, 16, 1))
                     .connectTimeout(Duration.ofSeconds(10)).build())) {
            MemorySegment memory = arena.allocate(RESPONSE_BYTES);
            memory.fill(SENTINEL);
            long ticket = client.submit(1, 0, 0, ResponseRanges.of(client.registerRegion(memory)));
            assertTrue(entered.await(10, TimeUnit.SECONDS), "the handler never ran");
            assertEquals(OflStatus.TIMED_OUT, client.await(ticket, client.clock().nanoTime() + 10_000_000L,
                    new Completion()));
            clientTimedOut.countDown();
            assertTrue(handlerDone.await(30, TimeUnit.SECONDS), "the handler never finished");

            long deadlineNs = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (server.connectionCount() != 0) {
                if (System.nanoTime() - deadlineNs > 0) {
                    fail("the server kept the connection of the timed-out client");
                }
                LockSupport.parkNanos(1_000_000L);
            }
            assertEquals(1, server.statistics().undeliveredResponses(), server.statistics()::toString);
            assertEquals(1, server.statistics().requests(), server.statistics()::toString);
            assertEquals(0, server.statistics().protocolViolations(), server.statistics()::toString);
            assertEquals(0, server.statistics().handlerFailures(), server.statistics()::toString);
            for (long i = 0; i < RESPONSE_BYTES; i += 4096) {
                assertEquals(SENTINEL, memory.get(ValueLayout.JAVA_BYTE, i), "a late byte landed at offset " + i);
            }
        }
    }
}
