package dev.ofl.verbs.rdma;

import dev.ofl.api.ClientConfig;
import dev.ofl.api.Completion;
import dev.ofl.api.Ofl;
import dev.ofl.api.OflClient;
import dev.ofl.api.OflServer;
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

/**
 * The late-write scenario of {@link LateWriteTest} in a JVM of its own, so that
 * {@link LateWriteRxeModeTest} can start it with an environment this JVM cannot change (softverbs
 * reads {@code SOFTVERBS_RETRY7} from the process environment). Server and client run here with
 * the default RDMA settings; the results go to standard output, one fact a line:
 *
 * <pre>
 *   RETRY7 value         the SOFTVERBS_RETRY7 this process sees ("unset" if none)
 *   AWAIT status state   the client's await status and its queue pair state after the timeout
 *   UNDELIVERED n        the server's undelivered responses once its late write failed (or 60 s)
 *   CLEAN | LANDED i     whether any late byte reached the client's memory (first offset if so)
 *   FAILED exception     anything thrown, with its causes
 * </pre>
 */
public final class LateWritePeer {
    private static final byte SENTINEL = 0x5A;
    private static final int RESPONSE_BYTES = 256 << 10;

    private LateWritePeer() {
    }

    /**
     * Runs the scenario once.
     *
     * @param args none
     */
    public static void main(String[] args) {
        String retry7 = System.getenv("SOFTVERBS_RETRY7");
        System.out.println("RETRY7 " + (retry7 == null ? "unset" : retry7));
        try {
            run();
        } catch (Throwable e) {
            StringBuilder line = new StringBuilder("FAILED");
            for (Throwable t = e; t != null; t = t.getCause()) {
                line.append(" | ").append(t);
            }
            System.out.println(line.toString().replace('\n', ' '));
        }
        System.out.flush();
        System.exit(0);
    }

    private static void run() throws Exception {
        CountDownLatch entered = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        ServerConfig serverConfig = ServerConfig.builder().backend(RdmaBackend.NAME)
                .bind(new InetSocketAddress("127.0.0.1", 0)).serviceName("late-write-rxe").build();
        try (OflServer server = Ofl.serve(serverConfig, (request, response) -> {
            entered.countDown();
            if (!release.await(60, TimeUnit.SECONDS)) {
                throw new IllegalStateException("never released");
            }
            response.buffer().fill((byte) 0x11);
            response.commit(response.capacity());
            return 0;
        });
             Arena arena = Arena.ofShared();
             OflClient client = Ofl.connect(ClientConfig.builder().backend(RdmaBackend.NAME)
                     .server(server.localAddress()).serviceName("late-write-rxe").build())) {
            MemorySegment memory = arena.allocate(RESPONSE_BYTES);
            memory.fill(SENTINEL);
            Region region = client.registerRegion(memory);
            long ticket = client.submit(2, 0, 0, ResponseRanges.of(region));
            if (!entered.await(30, TimeUnit.SECONDS)) {
                throw new IllegalStateException("the handler never ran");
            }
            int status = client.await(ticket, client.clock().nanoTime() + 50_000_000L, new Completion());
            RdmaClientTransport transport = (RdmaClientTransport) ((ClientSession) client).transport();
            System.out.println("AWAIT " + status + " " + ibv_qp_state.name(transport.queuePairState()));
            release.countDown();
            long deadlineNs = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (server.statistics().undeliveredResponses() == 0 && System.nanoTime() - deadlineNs < 0) {
                Thread.onSpinWait();
                Thread.yield();
            }
            System.out.println("UNDELIVERED " + server.statistics().undeliveredResponses());
            for (long i = 0; i < RESPONSE_BYTES; i++) {
                if (memory.get(ValueLayout.JAVA_BYTE, i) != SENTINEL) {
                    System.out.println("LANDED " + i);
                    return;
                }
            }
            System.out.println("CLEAN");
        }
    }
}
