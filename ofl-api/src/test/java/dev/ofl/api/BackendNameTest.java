package dev.ofl.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetSocketAddress;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** Backend names: matched without regard to case, and a clear refusal with a suggestion otherwise. */
class BackendNameTest {
    private static final InetSocketAddress LOOPBACK = new InetSocketAddress("127.0.0.1", 4000);

    private static ClientConfig client(String backend) {
        return ClientConfig.builder().backend(backend).server(LOOPBACK).serviceName("svc").build();
    }

    private static ServerConfig server(String backend) {
        return ServerConfig.builder().backend(backend).bind(LOOPBACK).serviceName("svc").build();
    }

    @Test
    void theTestBackendIsOnTheClassPath() {
        // Other modules' test backends (ofl-testing's "fake") may share the class path, as under PIT.
        assertTrue(Ofl.backends().contains(InertBackend.NAME), Ofl.backends()::toString);
        assertEquals(Optional.empty(), Ofl.unavailabilityCause(InertBackend.NAME));
    }

    @Test
    void namesMatchWithoutRegardToCase() {
        assertEquals("inert", client(" INERT ").backend(), "the config stores the name in lower case");
        assertEquals("inert", server("Inert").backend());
        InertBackend.Reached connected = assertThrows(InertBackend.Reached.class, () -> Ofl.connect(client("INERT")));
        assertEquals("inert", connected.getMessage());
        assertThrows(InertBackend.Reached.class, () -> Ofl.serve(server("iNeRt"), (request, response) -> 0));
        assertEquals(Optional.empty(), Ofl.unavailabilityCause("INERT"));
    }

    @Test
    void aBlankNameIsRefusedByTheBuilder() {
        String message = assertThrows(IllegalArgumentException.class, () -> client("  ")).getMessage();
        assertTrue(message.contains("backend") && message.contains("\"tcp\""), message);
        assertThrows(IllegalArgumentException.class, () -> server(""));
    }

    @Test
    void aMisspeltNameSuggestsTheClosestPresentName() {
        OflException e = assertThrows(OflException.class, () -> Ofl.connect(client("inret")));
        assertTrue(e.getMessage().contains("no ofl backend named 'inret'"), e::getMessage);
        assertTrue(e.getMessage().contains("found: " + Ofl.backends()), e::getMessage);
        assertTrue(e.getMessage().contains("did you mean 'inert'?"), e::getMessage);
        OflException served = assertThrows(OflException.class, () -> Ofl.serve(server("inrt"), (q, r) -> 0));
        assertTrue(served.getMessage().contains("did you mean 'inert'?"), served::getMessage);
    }

    @Test
    void aMisspeltKnownNameSuggestsIt() {
        String cause = Ofl.unavailabilityCause("rmda").orElseThrow();
        assertTrue(cause.contains("did you mean 'rdma'?"), cause);
        assertTrue(cause.contains("name one of " + Ofl.backends()), cause);
    }

    @Test
    void aFarOffNameSuggestsNothing() {
        String cause = Ofl.unavailabilityCause("infiniband").orElseThrow();
        assertFalse(cause.contains("did you mean"), cause);
        assertTrue(cause.contains("name one of " + Ofl.backends()), cause);
        assertTrue(cause.contains("merged (shaded) jar"), cause);
    }

    @Test
    void aKnownBackendThatIsAbsentNamesItsArtifactAndMergedServiceFiles() {
        OflException e = assertThrows(OflException.class, () -> Ofl.connect(client("RDMA")));
        assertTrue(e.getMessage().contains("dev.ofl:ofl-ffm-verbs"), e::getMessage);
        assertTrue(e.getMessage().contains("META-INF/services/dev.ofl.api.spi.OflBackend"), e::getMessage);
        assertTrue(e.getMessage().contains("ServicesResourceTransformer"), e::getMessage);
        assertTrue(Ofl.unavailabilityCause("tcp").orElseThrow().contains("dev.ofl:ofl-tcp"));
    }

    @Test
    void closestNeedsFewerEditsThanTheNameHasCharacters() {
        assertEquals(Optional.of("tcp"), Ofl.closest("tpc", List.of("tcp", "rdma")));
        assertEquals(Optional.of("rdma"), Ofl.closest("rdm", List.of("tcp", "rdma")));
        assertEquals(Optional.empty(), Ofl.closest("x", List.of("tcp", "rdma")), "one letter is no typo of three");
        assertEquals(Optional.empty(), Ofl.closest("udp", List.of()));
    }
}
