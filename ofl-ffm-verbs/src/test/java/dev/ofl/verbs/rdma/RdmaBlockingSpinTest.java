package dev.ofl.verbs.rdma;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ofl.api.ClientConfig;
import dev.ofl.api.Completion;
import dev.ofl.api.Ofl;
import dev.ofl.api.OflClient;
import dev.ofl.api.OflStatus;
import dev.ofl.api.Region;
import dev.ofl.api.ResponseRanges;
import dev.ofl.api.ServerConfig;
import dev.ofl.api.WaitMode;
import dev.ofl.verbs.ffm.ibv_cq;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetSocketAddress;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code rdma.blockingSpinMicros}: a BLOCKING server connection polls its queue for that long
 * before it arms the completion channel and parks, so that a request following its response
 * within the spin is taken without a completion event. Without the spin, every wait for the next
 * request arms the queue, and the request's arrival raises an event; the server's queue counts
 * the events its connection acknowledged.
 */
@Timeout(120)
class RdmaBlockingSpinTest {
    private static final String SERVICE = "blocking-spin";
    private static final int CALLS = 100;

    /**
     * Serves with the given spin and makes {@link #CALLS} calls from a busy-polling client, each a
     * millisecond after the last one's response (so that a single poll before parking does not
     * find it); returns the completion events the server's connection acknowledged meanwhile.
     */
    private static int eventsAcknowledgedByTheServer(int spinMicros) throws InterruptedException {
        Map<String, String> properties = new TreeMap<>(TestEnvironment.rdmaProperties());
        properties.put(RdmaSettings.BLOCKING_SPIN_MICROS, Integer.toString(spinMicros));
        ServerConfig config = ServerConfig.builder().backend(RdmaBackend.NAME)
                .bind(new InetSocketAddress(TestEnvironment.address(), 0)).serviceName(SERVICE)
                .waitMode(WaitMode.BLOCKING).properties(properties).build();
        try (WatchedRdmaServer watched = new WatchedRdmaServer(config, WatchedRdmaServer.ECHO);
                Arena arena = Arena.ofShared();
                OflClient client = Ofl.connect(ClientConfig.builder().backend(RdmaBackend.NAME)
                        .server(watched.server.localAddress()).serviceName(SERVICE).waitMode(WaitMode.BUSY_POLL)
                        .properties(TestEnvironment.rdmaProperties()).build())) {
            MemorySegment answer = arena.allocate(8, 8);
            Region region = client.registerRegion(answer);
            Completion completion = new Completion();
            for (int i = 0; i < CALLS; i++) {
                Thread.sleep(1);
                client.requestPayload().set(ValueLayout.JAVA_LONG_UNALIGNED, 0, i);
                assertEquals(OflStatus.OK, client.call(1, 0, 8, new ResponseRanges().add(region, 0, 8),
                        TestEnvironment.nanos(30), completion), completion::toString);
                assertEquals(i, answer.get(ValueLayout.JAVA_LONG_UNALIGNED, 0));
            }
            // Read while the connection still serves: the queue goes with it.
            return ibv_cq.comp_events_completed(watched.onlyConnection().link().cq.address());
        }
    }

    @Test
    void withoutASpinEveryRequestIsWaitedForWithAnEvent() throws InterruptedException {
        int events = eventsAcknowledgedByTheServer(0);
        // Each wait parks on an armed queue, and the request's completion raises an event; the last
        // may still be unacknowledged when the calls end.
        assertTrue(events >= CALLS - 1, "events acknowledged by the server without a spin: " + events);
    }

    @Test
    void aSpinTakesTheRequestsThatFollowWithoutAnEvent() throws InterruptedException {
        // The longest spin, 10 ms: the client's next request follows its response far sooner, so
        // only waits that outlast the spin (before the first request, a stall of the machine) take
        // an event. Half the calls is a bound no loaded machine comes near.
        int events = eventsAcknowledgedByTheServer(10_000);
        assertTrue(events < CALLS / 2, "events acknowledged by the server with a 10 ms spin: " + events);
    }
}
