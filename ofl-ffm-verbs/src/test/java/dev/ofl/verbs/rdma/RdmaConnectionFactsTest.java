package dev.ofl.verbs.rdma;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
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
import dev.ofl.api.spi.ClientSession;
import dev.ofl.verbs.MemoryRegion;
import dev.ofl.verbs.ffm.ibv_access_flags;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetSocketAddress;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Facts of a live RDMA connection that the conformance suite cannot see through the API: the
 * access flags of every registration, and a new queue pair with a new PSN on each reconnect.
 */
@Timeout(60)
class RdmaConnectionFactsTest {
    private static final long SECOND_NS = 1_000_000_000L;

    private static OflServer echoServer() {
        return Ofl.serve(ServerConfig.builder().backend(RdmaBackend.NAME).bind(new InetSocketAddress("127.0.0.1", 0))
                .serviceName("facts").build(), (request, response) -> {
                    response.write(request.payload());
                    return 0;
                });
    }

    private static OflClient connect(OflServer server) {
        return Ofl.connect(ClientConfig.builder().backend(RdmaBackend.NAME).server(server.localAddress())
                .serviceName("facts").build());
    }

    private static Link link(OflClient client) {
        return ((RdmaClientTransport) ((ClientSession) client).transport()).link();
    }

    @Test
    void noRegistrationAsksForRelaxedOrderingAndOnlyRemoteTargetsAreRemotelyAccessible() {
        try (OflServer server = echoServer(); Arena arena = Arena.ofShared()) {
            OflClient client = connect(server);
            try {
                MemorySegment memory = arena.allocate(4096);
                client.registerRegion(memory);
                List<MemoryRegion> registrations = link(client).registrations();
                // Send slots, announcements of payloads the server reads, completion ring, the caller's region.
                assertEquals(4, registrations.size(), registrations::toString);
                long payload = client.requestPayload().address();
                int remotelyWritable = 0;
                int remotelyReadable = 0;
                for (MemoryRegion mr : registrations) {
                    int flags = mr.accessFlags();
                    assertEquals(0, flags & ibv_access_flags.IBV_ACCESS_RELAXED_ORDERING, mr::toString);
                    assertTrue((flags & ibv_access_flags.IBV_ACCESS_LOCAL_WRITE) != 0, mr::toString);
                    if ((flags & ibv_access_flags.IBV_ACCESS_REMOTE_WRITE) != 0) {
                        remotelyWritable++;
                    }
                    // Remotely readable: the send slots only (the server reads large payloads there).
                    if ((flags & ibv_access_flags.IBV_ACCESS_REMOTE_READ) != 0) {
                        remotelyReadable++;
                        assertEquals(0, flags & ibv_access_flags.IBV_ACCESS_REMOTE_WRITE, "send slots: " + mr);
                    }
                    // The caller's payload area is copied into a slot at submit: never registered itself.
                    assertFalse(mr.address() <= payload && payload < mr.address() + mr.length(),
                            "the payload area is not device memory: " + mr);
                }
                assertEquals(1, remotelyReadable, "only the send slots may be read remotely");
                assertEquals(2, remotelyWritable, "only the ring and the caller's region take remote writes");
                IllegalArgumentException refused = assertThrows(IllegalArgumentException.class,
                        () -> link(client).register(arena.allocate(4096), ibv_access_flags.IBV_ACCESS_LOCAL_WRITE
                                | ibv_access_flags.IBV_ACCESS_RELAXED_ORDERING));
                assertTrue(refused.getMessage().contains("RELAXED_ORDERING"), refused.getMessage());
            } finally {
                client.close();
            }
        }
    }

    @Test
    void reconnectMakesANewQueuePairWithANewPsnAndKeepsWorking() {
        try (OflServer server = echoServer(); Arena arena = Arena.ofShared()) {
            OflClient client = connect(server);
            try {
                Region region = client.registerRegion(arena.allocate(64));
                Link first = link(client);
                int qpn = first.qp.qpNumber();
                int psn = first.psn;
                client.reconnect();
                Link second = link(client);
                assertNotEquals(qpn, second.qp.qpNumber(), "a reconnect must not reuse the queue pair number");
                assertNotEquals(psn, second.psn, "a reconnect must start a new packet sequence");
                assertFalse(client.isBroken());
                client.requestPayload().set(ValueLayout.JAVA_LONG_UNALIGNED, 0, 77L);
                assertEquals(OflStatus.OK, client.call(1, 0, 8, new ResponseRanges().add(region, 0, 8), 10 * SECOND_NS,
                        new Completion()));
                assertEquals(77L, region.segment().get(ValueLayout.JAVA_LONG_UNALIGNED, 0));
            } finally {
                client.close();
            }
        }
    }
}
