package dev.ofl.verbs.rdma;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ofl.api.ClientConfig;
import dev.ofl.api.Ofl;
import dev.ofl.api.OflClient;
import dev.ofl.api.OflServer;
import dev.ofl.api.Region;
import dev.ofl.api.ServerConfig;
import dev.ofl.api.spi.ClientSession;
import dev.ofl.conformance.Conditions;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The client transport's own steps of ending a connection each tell the server at once, by
 * closing the bootstrap socket, rather than leaving it to a later step: the session calls them
 * in varying orders (a timed-out call breaks the connection long before the client closes). And
 * what a connection registered goes with it, and the client's send slots with the client.
 */
@Timeout(120)
class RdmaClientTeardownTest {
    private static final String SERVICE = "client-teardown";

    /**
     * A client whose transport released everything frees its send slots on close: the transport
     * says so (it keeps them only when a queue pair that might still read them was not destroyed).
     */
    @Test
    void closingAClientFreesItsSendSlots() {
        try (OflServer server = serve()) {
            OflClient client = connect(server);
            MemorySegment payload = client.requestPayload();
            assertTrue(payload.scope().isAlive());
            client.close();
            assertFalse(payload.scope().isAlive(), "the send slots are freed once the transport released everything");
        }
    }

    /** Breaking the connection ends the server's side of it while the client is still open. */
    @Test
    void breakConnectionEndsTheServersSideAtOnce() {
        try (OflServer server = serve(); OflClient client = connect(server)) {
            Conditions.await(() -> server.connectionCount() == 1, "the connection");
            transport(client).breakConnection();
            Conditions.await(() -> server.connectionCount() == 0, "the server to end the broken connection");
        }
    }

    /** Disconnecting without breaking first also ends the server's side: it closes the socket itself. */
    @Test
    void disconnectEndsTheServersSide() {
        try (OflServer server = serve(); OflClient client = connect(server)) {
            Conditions.await(() -> server.connectionCount() == 1, "the connection");
            transport(client).disconnect();
            Conditions.await(() -> server.connectionCount() == 0, "the server to end the disconnected connection");
        }
    }

    /**
     * A disconnected transport hands out no key of the connection it left: the registration is
     * gone with it, so a range named by the old key would reach nothing or the wrong memory.
     */
    @Test
    void aDisconnectedTransportHandsOutNoKeyOfTheOldConnection() {
        try (OflServer server = serve(); Arena arena = Arena.ofShared(); OflClient client = connect(server)) {
            Region region = client.registerRegion(arena.allocate(4096, 4096));
            RdmaClientTransport transport = transport(client);
            transport.rangeKey(region); // registered while connected: no exception
            transport.disconnect();
            assertThrows(IllegalArgumentException.class, () -> transport.rangeKey(region),
                    "the key of a registration the disconnect released");
        }
    }

    private static OflServer serve() {
        return Ofl.serve(ServerConfig.builder().backend(RdmaBackend.NAME).bind(new InetSocketAddress("127.0.0.1", 0))
                .serviceName(SERVICE).build(), (request, response) -> 0);
    }

    private static OflClient connect(OflServer server) {
        return Ofl.connect(ClientConfig.builder().backend(RdmaBackend.NAME).server(server.localAddress())
                .serviceName(SERVICE).connectTimeout(TestEnvironment.duration(10)).build());
    }

    private static RdmaClientTransport transport(OflClient client) {
        return (RdmaClientTransport) ((ClientSession) client).transport();
    }
}
