package dev.ofl.verbs.rdma;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ofl.api.Limits;
import dev.ofl.api.Ofl;
import dev.ofl.api.OflServer;
import dev.ofl.api.ServerConfig;
import dev.ofl.conformance.Conditions;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A broken RDMA connection writes nothing more: once the server has broken it (here when its
 * drain timeout passed), a handler that outlived the drain and answers afterwards reaches no byte
 * of the client's memory, even of a client that did not notice the break and whose queue pair
 * still accepts writes.
 */
@Timeout(120)
class RdmaBreakTest {
    private static final String SERVICE = "rdma-break";
    private static final long RANGE_OFFSET = 4096;

    /**
     * The client, built by hand, never looks at its bootstrap socket: its queue pair stays ready
     * and its range registered. The handler answers only after the server's close() broke the
     * connection and returned; the response's bytes must not land in the range.
     */
    @Test
    void aResponseFinishedAfterTheBreakLandsNowhere() throws Exception {
        Limits limits = new Limits(1024, 4096, 1, 1);
        CountDownLatch entered = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        ServerConfig config = ServerConfig.builder().backend(RdmaBackend.NAME)
                .bind(new InetSocketAddress(TestEnvironment.address(), 0)).serviceName(SERVICE).limits(limits)
                .bootstrapTimeout(TestEnvironment.duration(5)).drainTimeout(Duration.ofMillis(100))
                .properties(TestEnvironment.rdmaProperties()).build();
        OflServer server = Ofl.serve(config, (request, response) -> {
            entered.countDown();
            if (!release.await(TestEnvironment.seconds(60), TimeUnit.SECONDS)) {
                return 99;
            }
            response.buffer().fill((byte) 0x77);
            response.commit(response.capacity());
            return 0;
        });
        try (VerbsPeer client = VerbsPeer.client(server.localAddress(), SERVICE, limits,
                RdmaSettings.RNR_RETRY_BOUNDED)) {
            MemorySegment range = client.receive.asSlice(RANGE_OFFSET, 4096);
            client.postSend(client.request(0, 8, new long[] {range.address()}, new int[] {4096},
                    new int[] {client.receiveMr.rkey()}));
            assertTrue(entered.await(TestEnvironment.seconds(20), TimeUnit.SECONDS), "the handler never ran");
            // Returns once the drain timeout passed and the connection was broken; the handler still waits.
            server.close();
            release.countDown();
            Conditions.await(() -> server.connectionCount() == 0, "the connection to end");
            for (long at = 0; at < range.byteSize(); at++) {
                assertEquals(0, range.get(ValueLayout.JAVA_BYTE, at),
                        "byte " + at + " of the range was written after the break");
            }
        } finally {
            release.countDown();
            server.close();
        }
    }
}
