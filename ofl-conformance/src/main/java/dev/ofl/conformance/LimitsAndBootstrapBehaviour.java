package dev.ofl.conformance;

import static dev.ofl.conformance.ResponseChecks.assertEchoWorks;
import static dev.ofl.conformance.TestHandlers.echo;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ofl.api.Limits;
import dev.ofl.api.Ofl;
import dev.ofl.api.OflClient;
import dev.ofl.api.OflException;
import dev.ofl.api.OflRefusedException;
import dev.ofl.api.OflServer;
import dev.ofl.api.RefusalCode;
import dev.ofl.api.ServerConfig;
import dev.ofl.api.ServerStatistics;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Limits and bootstrap: the bootstrap refuses another service, limits above the server's maxima
 * and clients beyond the connection cap, each with its code; configurations refuse wildcard
 * addresses; IPv6 is served or refused as the backend documents; and a backend that is unknown or
 * cannot run fails by name, never replaced by another.
 */
abstract class LimitsAndBootstrapBehaviour extends ConformanceBehaviour {
    LimitsAndBootstrapBehaviour(TransportUnderTest transport) {
        super(transport);
    }

    /** A client naming another service is refused with SERVICE_MISMATCH, and the server keeps serving. */
    @Test
    void serviceNameMismatchIsRefused() {
        OflServer server = fixture.serve(b -> { }, echo());
        OflRefusedException refused = assertThrows(OflRefusedException.class,
                () -> fixture.connect(server, b -> b.serviceName("another-service")));
        assertEquals(RefusalCode.SERVICE_MISMATCH, refused.code(), refused::getMessage);
        assertTrue(refused.getMessage().contains("another-service"), () -> "message names the service: " + refused);
        assertServerStillServes(server);
    }

    /** Proposed limits above the server's maxima are refused with LIMITS_EXCEEDED naming the field. */
    @Test
    void limitsAboveTheServerMaximaAreRefused() {
        OflServer server = fixture.serve(b -> b.limits(new Limits(1 << 20, 4 << 20, 8, 4)), echo());
        assertEquals(new Limits(1 << 20, 4 << 20, 8, 4), server.limits());
        Map<String, Limits> proposals = Map.of(
                "maxRequestBytes", new Limits(2 << 20, 1 << 20, 8, 4),
                "maxResponseBytes", new Limits(1024, 8 << 20, 8, 4),
                "maxRanges", new Limits(1024, 1 << 20, 9, 4),
                "maxInFlight", new Limits(1024, 1 << 20, 8, 5));
        for (Map.Entry<String, Limits> proposal : proposals.entrySet()) {
            OflRefusedException refused = assertThrows(OflRefusedException.class,
                    () -> fixture.connect(server, b -> b.limits(proposal.getValue())), proposal.getKey());
            assertEquals(RefusalCode.LIMITS_EXCEEDED, refused.code(), refused::getMessage);
            assertTrue(refused.getMessage().contains(proposal.getKey()),
                    () -> "message names " + proposal.getKey() + ": " + refused.getMessage());
        }
        OflClient exact = fixture.connect(server, b -> b.limits(new Limits(1 << 20, 4 << 20, 8, 4)));
        assertEquals(new Limits(1 << 20, 4 << 20, 8, 4), exact.limits(), "limits equal to the maxima are accepted");
        assertEchoWorks(exact, fixture.allocate(256), null, "a client proposing exactly the maxima");
    }

    /** A server at its connection cap refuses the next client with SERVER_BUSY. */
    @Test
    void connectionCapRefusesWithServerBusy() {
        OflServer server = fixture.serve(b -> b.maxConnections(1), echo());
        OflClient first = fixture.connect(server, b -> { });
        OflRefusedException refused = assertThrows(OflRefusedException.class, () -> fixture.connect(server, b -> { }));
        assertEquals(RefusalCode.SERVER_BUSY, refused.code(), refused::getMessage);
        assertEchoWorks(first, fixture.allocate(256), null, "the connected client at the cap");
    }

    /** A wildcard bind address (IPv4 and IPv6) is refused when the configuration is built. */
    @Test
    void wildcardBindIsRefused() throws UnknownHostException {
        for (String wildcard : new String[] {"0.0.0.0", "::"}) {
            InetSocketAddress bind = new InetSocketAddress(InetAddress.getByName(wildcard), 0);
            IllegalArgumentException refused = assertThrows(IllegalArgumentException.class,
                    () -> ServerConfig.builder().backend(fixture.backend()).bind(bind).serviceName(Fixture.SERVICE).build(),
                    wildcard);
            assertTrue(refused.getMessage().contains("wildcard"), refused::getMessage);
        }
    }

    /**
     * An IPv6 loopback bind does what the backend documents: a backend that serves IPv6 echoes
     * over {@code ::1}; one that refuses IPv6 (RDMA finds its RoCE v2 GID from an IPv4 address)
     * fails to start with an {@link OflException} that names the address and IPv4, and serves on
     * no other address instead.
     */
    @Test
    void ipv6BindIsServedOrRefusedAsDocumented() throws UnknownHostException {
        InetAddress loopback = InetAddress.getByName("::1");
        ServerConfig config = fixture.serverBuilder().bind(new InetSocketAddress(loopback, 0)).build();
        if (fixture.transport().servesIpv6()) {
            OflServer server = fixture.own(Ofl.serve(config, echo()));
            assertEquals(loopback, server.localAddress().getAddress(), "the bound address");
            OflClient client = fixture.own(Ofl.connect(fixture.clientBuilder(server.localAddress())
                    .localAddress(loopback).build()));
            assertEchoWorks(client, fixture.allocate(256), null, "an echo over the IPv6 loopback");
        } else {
            OflException refused = assertThrows(OflException.class, () -> fixture.own(Ofl.serve(config, echo())),
                    "a server bound to ::1 on a backend that refuses IPv6");
            assertTrue(refused.getMessage().contains("IPv4"), () -> "the message names IPv4: " + refused.getMessage());
            assertTrue(refused.getMessage().contains(loopback.getHostAddress()),
                    () -> "the message names the address: " + refused.getMessage());
        }
    }

    /**
     * Asking for a backend that is not on the path, or that cannot run here, fails on both ends
     * with an {@link OflException} naming it (and the reason it cannot run); no other backend
     * serves or connects in its place.
     */
    @Test
    void unknownOrUnavailableBackendFailsNamingIt() {
        OflServer server = fixture.serve(b -> { }, echo());
        Set<String> names = new LinkedHashSet<>(List.of("no-such-backend", "tcp", "rdma"));
        names.addAll(Ofl.backends());
        names.remove(fixture.backend());
        List<String> checked = new ArrayList<>();
        for (String name : names) {
            Optional<String> cause = Ofl.unavailabilityCause(name);
            if (cause.isEmpty()) {
                continue;
            }
            checked.add(name);
            OflException serveFailure = assertThrows(OflException.class,
                    () -> fixture.own(Ofl.serve(fixture.serverBuilder().backend(name).build(), echo())),
                    "serving with backend " + name);
            assertTrue(serveFailure.getMessage().contains(name) && serveFailure.getMessage().contains(cause.get()),
                    () -> "the message names " + name + " and why: " + serveFailure.getMessage());
            OflException connectFailure = assertThrows(OflException.class,
                    () -> fixture.own(Ofl.connect(fixture.clientBuilder(server.localAddress()).backend(name).build())),
                    "connecting with backend " + name);
            assertTrue(connectFailure.getMessage().contains(name) && connectFailure.getMessage().contains(cause.get()),
                    () -> "the message names " + name + " and why: " + connectFailure.getMessage());
        }
        assertTrue(checked.contains("no-such-backend"), "an unknown backend is unavailable: " + checked);
        assertEquals(new ServerStatistics(0, 0, 0, 0, 0, 0, 0, 0, 0, 0), server.statistics(),
                "no client reached the server through another backend");
    }

    private void assertServerStillServes(OflServer server) {
        OflClient client = fixture.connect(server, b -> { });
        assertEchoWorks(client, fixture.allocate(256), null, "a well-behaved client after a refusal");
    }
}
