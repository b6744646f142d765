package dev.ofl.verbs.rdma;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ofl.api.ClientConfig;
import dev.ofl.api.Completion;
import dev.ofl.api.Limits;
import dev.ofl.api.Ofl;
import dev.ofl.api.OflClient;
import dev.ofl.api.OflStatus;
import dev.ofl.api.Region;
import dev.ofl.api.ResponseRanges;
import dev.ofl.api.ServerConfig;
import dev.ofl.api.spi.ClientSession;
import dev.ofl.verbs.QueuePairAttributes;
import dev.ofl.verbs.ffm.ibv_qp_state;
import java.lang.foreign.Arena;
import java.lang.foreign.ValueLayout;
import java.net.InetSocketAddress;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * What the queue pairs of a live connection run with, read back from the device with
 * {@code ibv_query_qp}: the {@code rdma.*} properties (and the {@code ofl.test.rdma.*} ones the test
 * environment passes on), the RNR settings, and that a server's receives are posted before its
 * WELCOME, so that a client for which receiver-not-ready is fatal never meets it. The path MTU
 * between two processes is {@link RdmaPathMtuTest}'s.
 */
@Timeout(120)
class RdmaQueuePairTest {
    private static final String SERVICE = "queue-pair";
    private static final Limits LIMITS = new Limits(4096, 64 << 10, 4, 16);
    /** The RNR NAK timer both sides ask for: 12 = 0.64 ms (RtrParameters.roce). */
    private static final int MIN_RNR_TIMER = 12;

    /** An echo server whose connections' queue pairs the test can query. */
    private static WatchedRdmaServer serve(Map<String, String> properties) {
        return new WatchedRdmaServer(ServerConfig.builder().backend(RdmaBackend.NAME)
                .bind(new InetSocketAddress(TestEnvironment.address(), 0)).serviceName(SERVICE).limits(LIMITS)
                .bootstrapTimeout(TestEnvironment.duration(5)).properties(properties).build(), WatchedRdmaServer.ECHO);
    }

    private static QueuePairAttributes onlyConnection(WatchedRdmaServer server) {
        return server.onlyConnection().link().qp.queryAttributes();
    }

    private static OflClient connect(InetSocketAddress server, Map<String, String> properties) {
        return Ofl.connect(ClientConfig.builder().backend(RdmaBackend.NAME).server(server).serviceName(SERVICE)
                .limits(LIMITS).connectTimeout(TestEnvironment.duration(5)).properties(properties).build());
    }

    private static Link link(OflClient client) {
        return ((RdmaClientTransport) ((ClientSession) client).transport()).link();
    }

    private static void echo(OflClient client, Region region, long value) {
        client.requestPayload().set(ValueLayout.JAVA_LONG_UNALIGNED, 0, value);
        Completion completion = new Completion();
        assertEquals(OflStatus.OK, client.call(1, 0, 8, new ResponseRanges().add(region, 0, 8),
                TestEnvironment.nanos(10), completion), completion::toString);
        assertEquals(value, region.segment().get(ValueLayout.JAVA_LONG_UNALIGNED, 0));
    }

    /** Both queue pairs of one connection, checked against the settings and each other. */
    private static void assertConnected(QueuePairAttributes client, Link clientLink, QueuePairAttributes server,
            RdmaSettings settings) {
        assertEquals(ibv_qp_state.IBV_QPS_RTS, client.state(), client::toString);
        assertEquals(ibv_qp_state.IBV_QPS_RTS, server.state(), server::toString);
        assertEquals(settings.timeout(), client.timeout(), "the client's ACK timeout: " + client);
        assertEquals(settings.timeout(), server.timeout(), "the server's ACK timeout: " + server);
        assertEquals(settings.retryCount(), client.retryCount(), "the client's retry_cnt: " + client);
        assertEquals(settings.retryCount(), server.retryCount(), "the server's retry_cnt: " + server);
        assertEquals(RdmaSettings.RNR_RETRY_FOREVER, client.rnrRetry(), "the client waits out a busy server");
        assertEquals(RdmaSettings.RNR_RETRY_BOUNDED, server.rnrRetry(), "a broken client cannot hold the server");
        assertEquals(MIN_RNR_TIMER, client.minRnrTimer(), client::toString);
        assertEquals(MIN_RNR_TIMER, server.minRnrTimer(), server::toString);
        assertEquals(clientLink.qp.qpNumber(), server.destQpNumber(), "the server's peer is this client");
        assertEquals(client.pathMtu(), server.pathMtu(), "both ends run one path MTU");
        assertEquals(clientLink.psn, server.receivePsn(), "the server expects the client's first PSN");
        assertEquals(clientLink.psn, client.sendPsn(), "nothing was sent yet");
    }

    @Test
    void theRdmaPropertiesAreWhatBothQueuePairsRunWith() {
        Map<String, String> properties = new HashMap<>(TestEnvironment.rdmaProperties());
        properties.put(RdmaSettings.TIMEOUT, "17");
        properties.put(RdmaSettings.RETRY_COUNT, "3");
        RdmaSettings settings = RdmaSettings.from(properties);
        try (WatchedRdmaServer server = serve(properties); Arena arena = Arena.ofShared();
                OflClient client = connect(server.server.localAddress(), properties)) {
            Link clientLink = link(client);
            QueuePairAttributes mine = clientLink.qp.queryAttributes();
            assertEquals(17, mine.timeout(), "rdma.timeout reached the queue pair");
            assertEquals(3, mine.retryCount(), "rdma.retryCount reached the queue pair");
            assertConnected(mine, clientLink, onlyConnection(server), settings);
            echo(client, client.registerRegion(arena.allocate(64)), 5);
        }
    }

    @Test
    void theTestEnvironmentsPropertiesOrTheDefaultsAreWhatTheQueuePairsRunWith() {
        Map<String, String> properties = TestEnvironment.rdmaProperties();
        RdmaSettings settings = RdmaSettings.from(properties);
        try (WatchedRdmaServer server = serve(properties);
                OflClient client = connect(server.server.localAddress(), properties)) {
            Link clientLink = link(client);
            assertConnected(clientLink.qp.queryAttributes(), clientLink, onlyConnection(server), settings);
            if (properties.isEmpty()) {
                assertEquals(14, settings.timeout(), "the default ACK timeout");
                assertEquals(RdmaSettings.DEFAULT_RETRY_COUNT, settings.retryCount(), "the default retry count");
            }
        }
    }

    /**
     * With an RNR retry count of 0 on the client, a SEND that finds no receive posted fails the
     * connection at once (IBV_WC_RNR_RETRY_EXC_ERR). Every request slot is filled the moment the
     * WELCOME is read: each must find its receive already posted.
     */
    @Test
    void theServersReceivesArePostedBeforeItsWelcomeSoNoFirstSendMeetsReceiverNotReady() {
        int saved = RdmaClientTransport.rnrRetry;
        RdmaClientTransport.rnrRetry = 0;
        try (WatchedRdmaServer server = serve(TestEnvironment.rdmaProperties()); Arena arena = Arena.ofShared();
                OflClient client = connect(server.server.localAddress(), TestEnvironment.rdmaProperties())) {
            assertEquals(0, link(client).qp.queryAttributes().rnrRetry(), "receiver-not-ready is fatal here");
            Region region = client.registerRegion(arena.allocate(8L * LIMITS.maxInFlight()));
            long[] tickets = new long[LIMITS.maxInFlight()];
            for (int i = 0; i < tickets.length; i++) {
                client.requestPayload().set(ValueLayout.JAVA_LONG_UNALIGNED, 0, 1000L + i);
                tickets[i] = client.submit(1, 0, 8, new ResponseRanges().add(region, 8L * i, 8));
                assertTrue(tickets[i] >= 0, "slot " + i + " was free");
            }
            Completion completion = new Completion();
            for (int i = 0; i < tickets.length; i++) {
                assertEquals(OflStatus.OK, client.await(tickets[i], client.clock().nanoTime()
                        + TestEnvironment.nanos(10), completion), completion::toString);
                assertEquals(1000L + i, region.segment().get(ValueLayout.JAVA_LONG_UNALIGNED, 8L * i));
            }
            assertFalse(client.isBroken());
            assertEquals(ibv_qp_state.IBV_QPS_RTS, link(client).qp.queryAttributes().state());
        } finally {
            RdmaClientTransport.rnrRetry = saved;
        }
    }
}
