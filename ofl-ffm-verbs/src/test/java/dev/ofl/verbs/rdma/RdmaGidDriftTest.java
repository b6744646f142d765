package dev.ofl.verbs.rdma;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

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
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.ValueLayout;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A GID table renumbered while client and server run (users of two-node setups see the right
 * index differ between nodes and change within minutes): the next connection of each side must
 * use the index the address has now. softverbs renumbers through {@code SOFTVERBS_GID_GAP_FILE},
 * which the surefire configuration points at {@link #GAP}.
 */
@Timeout(60)
class RdmaGidDriftTest {
    private static final Path GAP = Path.of(System.getenv().getOrDefault("SOFTVERBS_GID_GAP_FILE", ""));

    @AfterEach
    void restoreTheTable() throws IOException {
        Files.writeString(GAP, "0\n");
    }

    private static int gidIndex(OflClient client) {
        return ((RdmaClientTransport) ((ClientSession) client).transport()).link().gid.index();
    }

    private static long echo(OflClient client, Region region, long value) {
        client.requestPayload().set(ValueLayout.JAVA_LONG_UNALIGNED, 0, value);
        assertEquals(OflStatus.OK, client.call(1, 0, 8, new ResponseRanges().add(region, 0, 8), 10_000_000_000L,
                new Completion()));
        return region.segment().get(ValueLayout.JAVA_LONG_UNALIGNED, 0);
    }

    @Test
    void reconnectAfterTheTableIsRenumberedUsesTheNewIndexOnBothSides() throws IOException {
        assertNotNull(System.getenv("SOFTVERBS_GID_GAP_FILE"), "the surefire configuration sets SOFTVERBS_GID_GAP_FILE");
        Files.writeString(GAP, "0\n");
        try (OflServer server = Ofl.serve(ServerConfig.builder().backend(RdmaBackend.NAME)
                .bind(new InetSocketAddress("127.0.0.1", 0)).serviceName("gid-drift").build(), (request, response) -> {
                    response.write(request.payload());
                    return 0;
                });
             Arena arena = Arena.ofShared()) {
            OflClient client = Ofl.connect(ClientConfig.builder().backend(RdmaBackend.NAME)
                    .server(server.localAddress()).serviceName("gid-drift").build());
            try {
                Region region = client.registerRegion(arena.allocate(64));
                int before = gidIndex(client);
                assertEquals(11L, echo(client, region, 11L));

                // Three entries appear in front of the address, as when addresses are added.
                Files.writeString(GAP, "3\n");
                client.reconnect();
                assertEquals(before + 3, gidIndex(client), "the client's new connection uses the new index");
                // The server accepted that connection on a queue pair built with its own new index.
                assertEquals(22L, echo(client, region, 22L));

                Files.writeString(GAP, "1\n");
                client.reconnect();
                assertEquals(before + 1, gidIndex(client));
                assertEquals(33L, echo(client, region, 33L));
            } finally {
                client.close();
            }
        }
    }
}
