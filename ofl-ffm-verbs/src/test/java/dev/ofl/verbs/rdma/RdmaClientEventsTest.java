package dev.ofl.verbs.rdma;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
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
import dev.ofl.api.WaitMode;
import dev.ofl.api.spi.ClientSession;
import dev.ofl.verbs.ffm.ibv_cq;
import java.lang.foreign.Arena;
import java.lang.foreign.ValueLayout;
import java.net.InetSocketAddress;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A BLOCKING client acknowledges every completion event it takes before it waits again: libibverbs
 * cannot destroy a queue with events unacknowledged, and their count would only grow.
 */
@Timeout(120)
class RdmaClientEventsTest {
    private static final int CALLS = 5;

    /** The events a BLOCKING client takes while it waits are all acknowledged by the time its call returns. */
    @Test
    void everyEventTakenWhileWaitingIsAcknowledged() {
        ServerConfig config = ServerConfig.builder().backend(RdmaBackend.NAME)
                .bind(new InetSocketAddress(TestEnvironment.address(), 0)).serviceName("events")
                .properties(TestEnvironment.rdmaProperties()).build();
        try (OflServer server = Ofl.serve(config, (request, response) -> {
            // Slow, so that the client parks on its completion channel and takes an event.
            try {
                Thread.sleep(50);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            response.write(request.payload());
            return 0;
        }); Arena arena = Arena.ofShared(); OflClient client = Ofl.connect(ClientConfig.builder()
                .backend(RdmaBackend.NAME).server(server.localAddress()).serviceName("events")
                .waitMode(WaitMode.BLOCKING).properties(TestEnvironment.rdmaProperties()).build())) {
            Region region = client.registerRegion(arena.allocate(8, 8));
            Completion completion = new Completion();
            for (int i = 0; i < CALLS; i++) {
                client.requestPayload().set(ValueLayout.JAVA_LONG_UNALIGNED, 0, i);
                assertEquals(OflStatus.OK, client.call(1, 0, 8, new ResponseRanges().add(region, 0, 8),
                        TestEnvironment.nanos(30), completion), completion::toString);
            }
            Link link = ((RdmaClientTransport) ((ClientSession) client).transport()).link();
            // libibverbs counts acknowledgements in the queue itself: the client did park and take
            // events (a client that never waited would pass the check below with nothing to show).
            int acknowledged = ibv_cq.comp_events_completed(link.cq.address());
            assertTrue(acknowledged >= 1, "events acknowledged by the queue: " + acknowledged);
            // The queue refuses to acknowledge more events than it handed out and left unacknowledged.
            assertThrows(IllegalArgumentException.class, () -> link.cq.acknowledgeEvents(1),
                    "an event taken by the waiting client is still unacknowledged");
        }
    }
}
