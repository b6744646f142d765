package dev.ofl.example;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ofl.api.ClientConfig;
import dev.ofl.api.Ofl;
import dev.ofl.api.OflClientPool;
import dev.ofl.api.OflServer;
import dev.ofl.api.ServerConfig;
import dev.ofl.api.WaitMode;
import dev.ofl.softverbs.Softverbs;
import dev.ofl.testing.FakeFaults;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The example runs as a user would run it: two servers over a mapped table, a pooled and pipelined
 * client on several threads; every row checked, every lookup either served or answered locally.
 */
@Timeout(120)
class EngramExampleTest {
    private static final int ROWS = 4096;
    private static final int ROWS_PER_LOOKUP = 16;
    private static final int IN_FLIGHT = 4;

    @TempDir
    Path dir;

    private Arena arena;
    private EngramTable table;
    private final List<OflServer> servers = new ArrayList<>();

    @BeforeEach
    void table() throws IOException {
        Path file = dir.resolve("rows.bin");
        EngramTable.write(file, ROWS);
        arena = Arena.ofShared();
        table = EngramTable.map(file, arena);
    }

    @AfterEach
    void stop() {
        servers.forEach(OflServer::close);
        arena.close();
    }

    private List<InetSocketAddress> serve(String backend, String service, int count) {
        List<InetSocketAddress> addresses = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            OflServer server = Ofl.serve(ServerConfig.builder().backend(backend)
                    .bind(new InetSocketAddress("127.0.0.1", 0)).serviceName(service).build(), new EngramServer(table));
            servers.add(server);
            addresses.add(server.localAddress());
        }
        return addresses;
    }

    private EngramClient.Report lookups(String backend, String service, Duration timeout, int threads, int batches)
            throws Exception {
        List<InetSocketAddress> addresses = serve(backend, service, 2);
        ClientConfig template = ClientConfig.builder().backend(backend).server(addresses.getFirst())
                .localAddress(addresses.getFirst().getAddress()).serviceName(service).waitMode(WaitMode.BLOCKING)
                .build();
        try (OflClientPool pool = OflClientPool.builder(template)
                .regionBytes(EngramClient.regionBytes(ROWS_PER_LOOKUP, IN_FLIGHT)).maxLeasesPerServer(threads)
                .backoff(Duration.ofMillis(1), Duration.ofMillis(50)).build()) {
            EngramClient client = new EngramClient(pool, addresses, table, ROWS_PER_LOOKUP, IN_FLIGHT, timeout);
            return EngramClient.run(client, threads, batches);
        }
    }

    @Test
    void theTableHoldsTheRowsItWasWrittenWith() {
        assertEquals(ROWS, table.count());
        assertEquals(EngramTable.expectedByte(4095, 255), table.rows().get(java.lang.foreign.ValueLayout.JAVA_BYTE,
                4095L * EngramTable.ROW_BYTES + 255));
    }

    @Test
    void overTcpEveryLookupIsServedExactly() throws Exception {
        EngramClient.Report report = lookups("tcp", "engram-tcp", Duration.ofSeconds(10), 4, 100);
        assertEquals(4L * 100 * IN_FLIGHT, report.lookups(), report.toString());
        assertEquals(report.lookups(), report.served(), report.toString());
        assertEquals(0, report.fallbacks(), report.toString());
        assertEquals(0, report.mismatchedRows(), report.toString());
    }

    /** Responses dropped now and then: those lookups time out and are answered locally, exactly. */
    @Test
    void lookupsThatTimeOutAreAnsweredFromTheLocalCopy() throws Exception {
        String service = "engram-fake-" + System.nanoTime();
        FakeFaults faults = FakeFaults.of(service);
        Thread dropper = Thread.ofPlatform().daemon().start(() -> {
            while (!Thread.currentThread().isInterrupted()) {
                faults.dropResponses(1);
                try {
                    Thread.sleep(5);
                } catch (InterruptedException e) {
                    return;
                }
            }
        });
        EngramClient.Report report;
        try {
            report = lookups("fake", service, Duration.ofMillis(20), 2, 150);
        } finally {
            dropper.interrupt();
            dropper.join();
            faults.clear();
        }
        assertEquals(2L * 150 * IN_FLIGHT, report.lookups(), report.toString());
        assertTrue(report.fallbacks() > 0, "some responses were dropped: " + report);
        assertEquals(report.lookups(), report.served() + report.fallbacks(), report.toString());
        assertEquals(0, report.mismatchedRows(), report.toString());
    }

    /** Over RDMA too, with softverbs taken from its jar as a consumer's build would. */
    @Test
    void overRdmaEveryLookupIsServedExactly() throws Exception {
        Softverbs.use();
        EngramClient.Report report = lookups("rdma", "engram-rdma", Duration.ofSeconds(10), 2, 50);
        assertEquals(2L * 50 * IN_FLIGHT, report.lookups(), report.toString());
        assertEquals(report.lookups(), report.served(), report.toString());
        assertEquals(0, report.mismatchedRows(), report.toString());
    }
}
