package dev.ofl.verbs.rdma;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

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
import java.lang.foreign.Arena;
import java.lang.foreign.ValueLayout;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The rdma backend's JFR facts: each {@code dev.ofl.Connect} names the device, port and GID chosen
 * for the bound address and the queue pair made, and per-request events carry the backend.
 */
@Timeout(60)
class RdmaJfrEventsTest {
    private static final long SECOND_NS = 1_000_000_000L;

    @TempDir
    Path directory;

    @Test
    void connectEventsNameTheGidAndQueuePairOfEachConnection() throws Exception {
        List<Integer> queuePairs = new ArrayList<>();
        Recording recording = new Recording();
        recording.enable("dev.ofl.Connect");
        recording.enable("dev.ofl.Call").withoutThreshold();
        recording.enable("dev.ofl.Handler").withoutThreshold();
        recording.start();
        try (OflServer server = Ofl.serve(ServerConfig.builder().backend(RdmaBackend.NAME)
                .bind(new InetSocketAddress("127.0.0.1", 0)).serviceName("jfr").build(), (request, response) -> {
                    response.write(request.payload());
                    return 0;
                });
                Arena arena = Arena.ofShared()) {
            OflClient client = Ofl.connect(ClientConfig.builder().backend(RdmaBackend.NAME)
                    .server(server.localAddress()).serviceName("jfr").build());
            try {
                Region region = client.registerRegion(arena.allocate(64));
                queuePairs.add(queuePair(client));
                client.reconnect();
                queuePairs.add(queuePair(client));
                client.requestPayload().set(ValueLayout.JAVA_LONG_UNALIGNED, 0, 5L);
                assertEquals(OflStatus.OK, client.call(1, 3, 8, new ResponseRanges().add(region, 0, 8),
                        10 * SECOND_NS, new Completion()));
            } finally {
                client.close();
            }
        }
        recording.stop();
        Path file = directory.resolve("rdma.jfr");
        recording.dump(file);
        recording.close();
        List<RecordedEvent> events = RecordingFile.readAllEvents(file);

        List<RecordedEvent> connects = events.stream()
                .filter(e -> e.getEventType().getName().equals("dev.ofl.Connect")).toList();
        assertEquals(2, connects.size(), connects::toString);
        for (int i = 0; i < 2; i++) {
            RecordedEvent connect = connects.get(i);
            assertEquals("rdma", connect.getString("backend"));
            assertEquals(i == 1, connect.getBoolean("reconnect"));
            String path = connect.getString("path");
            // The GID table entry for 127.0.0.1, as the probe prints it.
            assertTrue(path.matches(".+ port \\d+ GID\\[\\d+\\] ::ffff:127\\.0\\.0\\.1, RoCE v2.*, qp "
                    + queuePairs.get(i)), path);
        }
        RecordedEvent call = events.stream().filter(e -> e.getEventType().getName().equals("dev.ofl.Call"))
                .findFirst().orElseThrow();
        assertEquals("rdma", call.getString("backend"));
        assertEquals("OK", call.getString("status"));
        assertEquals(8, call.getLong("responseBytes"));
        RecordedEvent handled = events.stream().filter(e -> e.getEventType().getName().equals("dev.ofl.Handler"))
                .findFirst().orElseThrow();
        assertEquals("rdma", handled.getString("backend"));
        assertEquals(3, handled.getLong("generation"));
    }

    private static int queuePair(OflClient client) {
        return ((RdmaClientTransport) ((ClientSession) client).transport()).link().qp.qpNumber();
    }
}
