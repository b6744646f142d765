package dev.ofl.verbs.rdma;

import dev.ofl.api.ClientConfig;
import dev.ofl.api.Completion;
import dev.ofl.api.Ofl;
import dev.ofl.api.OflClient;
import dev.ofl.api.OflServer;
import dev.ofl.api.OflStatus;
import dev.ofl.api.Region;
import dev.ofl.api.ResponseRanges;
import dev.ofl.api.ServerConfig;
import dev.ofl.api.spi.ClientSession;
import dev.ofl.verbs.ffm.ibv_qp_state;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetSocketAddress;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The RDMA half of the late-write guarantee, shown at the verbs level: after a client timeout the
 * server's response writes are really posted, the client's queue pair (in ERR) rejects them, the
 * server sees them fail, and not one byte lands in the caller's ranges. Waits, address and backend
 * properties come from {@link TestEnvironment}.
 */
class LateWriteTest {
    private static final byte SENTINEL = 0x5A;
    private static final int RESPONSE_BYTES = 256 << 10;

    @Test
    void lateWritesArePostedRejectedAndNeverLand() {
        // The backstop: two minutes on the build host, scaled like every other wait.
        assertTimeoutPreemptively(TestEnvironment.duration(120), this::lateWrites);
    }

    private void lateWrites() throws Exception {
        CountDownLatch entered = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        CountDownLatch lateWritePosted = new CountDownLatch(1);
        AtomicBoolean lateWriteReturned = new AtomicBoolean();
        ServerConfig serverConfig = ServerConfig.builder().backend(RdmaBackend.NAME)
                .bind(new InetSocketAddress(TestEnvironment.address(), 0)).serviceName("late-write")
                .bootstrapTimeout(TestEnvironment.duration(5))
                .properties(TestEnvironment.rdmaProperties()).build();
        try (OflServer server = Ofl.serve(serverConfig, (request, response) -> {
            if (request.op() == 2) {
                entered.countDown();
                assertTrue(release.await(TestEnvironment.seconds(60), TimeUnit.SECONDS),
                        "the test never released the handler");
                response.buffer().fill((byte) 0x11);
                // Larger than the flush threshold: the pieces are posted from inside commit().
                response.commit(response.capacity());
                lateWriteReturned.set(true);
                lateWritePosted.countDown();
                return 0;
            }
            response.write(request.payload());
            return 0;
        });
             Arena arena = Arena.ofShared()) {
            OflClient client = Ofl.connect(ClientConfig.builder().backend(RdmaBackend.NAME)
                    .server(server.localAddress()).serviceName("late-write")
                    .connectTimeout(TestEnvironment.duration(5))
                    .properties(TestEnvironment.rdmaProperties()).build());
            try {
                MemorySegment memory = arena.allocate(RESPONSE_BYTES);
                memory.fill(SENTINEL);
                Region region = client.registerRegion(memory);
                Completion completion = new Completion();
                long ticket = client.submit(2, 0, 0, ResponseRanges.of(region));
                assertTrue(entered.await(TestEnvironment.seconds(30), TimeUnit.SECONDS), "the handler never ran");
                int status = client.await(ticket, client.clock().nanoTime() + 50_000_000L, completion);

                assertEquals(OflStatus.TIMED_OUT, status);
                assertTrue(client.isBroken());
                assertEquals(ibv_qp_state.IBV_QPS_ERR, ((RdmaClientTransport) ((ClientSession) client).transport()).queuePairState(),
                        "the client's queue pair must be in ERR when await returns");

                long releasedNs = System.nanoTime();
                release.countDown();
                assertTrue(lateWritePosted.await(TestEnvironment.seconds(30), TimeUnit.SECONDS),
                        "the late response was never written");
                assertTrue(lateWriteReturned.get());
                long deadlineNs = System.nanoTime() + TestEnvironment.nanos(60);
                while (server.statistics().undeliveredResponses() == 0 && System.nanoTime() - deadlineNs < 0) {
                    Thread.onSpinWait();
                    Thread.yield();
                }
                assertEquals(1, server.statistics().undeliveredResponses(),
                        "the server must see its late writes rejected by the client's queue pair");
                // How long the transport's retries took to report the dead peer: a figure for the
                // operations guide on each stack (softverbs, rxe, a NIC), not a threshold.
                System.out.println("LateWriteTest: the server saw its late write fail "
                        + TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - releasedNs)
                        + " ms after the handler was released " + TestEnvironment.rdmaProperties());
                for (long i = 0; i < RESPONSE_BYTES; i++) {
                    if (memory.get(ValueLayout.JAVA_BYTE, i) != SENTINEL) {
                        throw new AssertionError("a late byte landed at offset " + i);
                    }
                }

                client.reconnect();
                client.requestPayload().set(ValueLayout.JAVA_LONG, 0, 0x0102030405060708L);
                ResponseRanges eight = new ResponseRanges().add(region, 0, 8);
                assertEquals(OflStatus.OK, client.call(1, 0, 8, eight, TestEnvironment.nanos(10), completion));
                assertEquals(0x0102030405060708L, memory.get(ValueLayout.JAVA_LONG, 0));
            } finally {
                client.close();
            }
        }
    }
}
