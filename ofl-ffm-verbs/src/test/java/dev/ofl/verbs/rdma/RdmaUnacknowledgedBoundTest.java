package dev.ofl.verbs.rdma;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ofl.api.Limits;
import dev.ofl.api.Ofl;
import dev.ofl.api.OflServer;
import dev.ofl.api.ServerConfig;
import dev.ofl.conformance.Conditions;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A response posted just after its client left, to a queue pair that no longer answers, must not
 * hold the connection for as long as the provider keeps retrying: past a bound after the loss, the
 * server breaks its own queue pair. The server's clock here runs ahead whenever the test says, so
 * the bound passes at once, while the ACK timeout is set to minutes so that the provider's own
 * retries cannot end the connection first.
 */
@Timeout(120)
class RdmaUnacknowledgedBoundTest {
    private static final String SERVICE = "unacknowledged-bound";

    /**
     * The client sends a request and leaves (socket closed, queue pair destroyed) while its handler
     * runs; the response's writes are then never acknowledged. While the bound has not passed on
     * the server's clock, the connection waits for them parked, not spinning (its thread wakes to
     * look at the clock again every few milliseconds); once it has, the connection ends, the
     * response counts as undelivered, and the log says that the queue pair was broken and names
     * the lost peer and the flushed write.
     */
    @Test
    void aResponseToALostClientIsBrokenOffOnceTheBoundPasses() throws Exception {
        AtomicLong skew = new AtomicLong();
        AtomicReference<Thread> connection = new AtomicReference<>();
        AtomicLong connectionReads = new AtomicLong();
        // The liveness watcher reads the server's clock when it reports the client lost.
        AtomicLong lossReports = new AtomicLong();
        Map<String, String> properties = new HashMap<>(TestEnvironment.rdmaProperties());
        // 4.096 us x 2^22: about 17 s per try, seven tries: minutes before the provider gives up.
        properties.put(RdmaSettings.TIMEOUT, "22");
        Limits limits = new Limits(1024, 4096, 1, 1);
        CountDownLatch entered = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        ServerConfig config = ServerConfig.builder().backend(RdmaBackend.NAME)
                .bind(new InetSocketAddress(TestEnvironment.address(), 0)).serviceName(SERVICE).limits(limits)
                .bootstrapTimeout(TestEnvironment.duration(5)).properties(properties)
                // The clock runs ahead by the skew; no idle timeout may end the connection instead.
                .clock(() -> {
                    if (Thread.currentThread() == connection.get()) {
                        connectionReads.incrementAndGet();
                    } else if (Thread.currentThread().getName().equals("ofl-liveness")) {
                        lossReports.incrementAndGet();
                    }
                    return System.nanoTime() + skew.get();
                }).idleTimeout(Duration.ofDays(365)).build();
        String log;
        StderrCapture stderr = StderrCapture.start();
        try (stderr; OflServer server = Ofl.serve(config, (request, response) -> {
            // The handler runs on the connection's thread.
            connection.set(Thread.currentThread());
            entered.countDown();
            if (!release.await(TestEnvironment.seconds(30), TimeUnit.SECONDS)) {
                return 99;
            }
            response.write(request.payload());
            return 0;
        })) {
            VerbsPeer client = VerbsPeer.client(server.localAddress(), SERVICE, limits,
                    RdmaSettings.RNR_RETRY_BOUNDED);
            try (client) {
                client.postSend(client.request(0, 8, new long[] {client.receive.address() + 4096}, new int[] {64},
                        new int[] {client.receiveMr.rkey()}));
                assertTrue(entered.await(TestEnvironment.seconds(20), TimeUnit.SECONDS), "the handler never ran");
            }
            release.countDown();
            // A few reads while the response is posted; then a few per look at the unacknowledged
            // writes, made only while the client is known lost and the queue pair not broken.
            Conditions.await(() -> connectionReads.get() > 40 || server.connectionCount() == 0,
                    "the connection to wait for its response's writes");
            assertEquals(1, server.connectionCount(), "the connection ended before the bound passed");
            // Between looks the thread parks: a wait that returned at once whenever the peer was
            // known lost kept a core busy for the whole bound, and was never seen parked. (Before
            // the loss is reported it parks for the writes' completions, which proves nothing.)
            Thread thread = connection.get();
            Conditions.await(() -> lossReports.get() > 0, "the liveness watcher to report the client lost");
            Conditions.await(() -> thread.getState() == Thread.State.TIMED_WAITING,
                    "the connection's thread to park while it waits for the lost client's acknowledgement");
            assertEquals(1, server.connectionCount(), "the connection ended before the bound passed");
            assertEquals(0, server.statistics().undeliveredResponses());
            // Each look moves the server's clock 10 s on: the bound (2 x 2 minutes + 0.5 s) passes
            // within a few dozen looks, the provider's retries do not.
            Conditions.await(() -> {
                skew.addAndGet(TimeUnit.SECONDS.toNanos(10));
                return server.connectionCount() == 0;
            }, "the connection whose response the lost client never acknowledges to end");
            assertEquals(1, server.statistics().undeliveredResponses());
            log = stderr.text();
        } finally {
            release.countDown();
        }
        Matcher said = Pattern.compile("a response stayed unacknowledged (\\d+) ms after the client left; breaking "
                + "the queue pair").matcher(log);
        assertTrue(said.find(), "the server must say that it broke the queue pair:\n" + log);
        // Not before the bound, twice the provider's retries plus half a second; and the figure is in
        // milliseconds (the test's clock runs ahead 10 s per look, far less than a day in all).
        long boundMs = (2 * RdmaSettings.from(properties).retryExhaustionNs() + 500_000_000L) / 1_000_000;
        long saidMs = Long.parseLong(said.group(1));
        assertTrue(saidMs >= boundMs && saidMs < boundMs + TimeUnit.DAYS.toMillis(1),
                "unacknowledged for " + saidMs + " ms, the bound being " + boundMs + " ms");
        assertTrue(log.contains("broke while a response was being delivered: the peer closed the bootstrap "
                + "connection (IBV_WC_WR_FLUSH_ERR on "), "the failure must name the lost peer and the flushed write:\n"
                + log);
    }
}
