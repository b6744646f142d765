package dev.ofl.micrometer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.ofl.api.ClientConfig;
import dev.ofl.api.Completion;
import dev.ofl.api.Limits;
import dev.ofl.api.Ofl;
import dev.ofl.api.OflClient;
import dev.ofl.api.OflHandler;
import dev.ofl.api.OflServer;
import dev.ofl.api.OflStatus;
import dev.ofl.api.Region;
import dev.ofl.api.ResponseRanges;
import dev.ofl.api.ServerConfig;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.lang.foreign.Arena;
import java.lang.foreign.ValueLayout;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The meters of a real TCP client and server read the same numbers as their statistics. */
@Timeout(60)
class OflMetricsTest {
    private static final long SECOND_NS = TimeUnit.SECONDS.toNanos(1);
    private static final Limits LIMITS = new Limits(1024, 1 << 20, 4, 4);
    private static final String SERVICE = "metrics";
    private static final int ECHO = 1;
    private static final int BLOCK = 2;
    private static final int REFUSE = 3;

    private final CountDownLatch unblock = new CountDownLatch(1);
    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private Arena arena;
    private OflServer server;

    @BeforeEach
    void setUp() {
        arena = Arena.ofShared();
        OflHandler handler = (request, response) -> switch (request.op()) {
            case ECHO -> {
                response.write(request.payload());
                yield 0;
            }
            case BLOCK -> {
                unblock.await(30, TimeUnit.SECONDS);
                yield 0;
            }
            default -> 5;
        };
        server = Ofl.serve(ServerConfig.builder().bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))
                .serviceName(SERVICE).limits(LIMITS).build(), handler);
    }

    @AfterEach
    void tearDown() {
        unblock.countDown();
        server.close();
        arena.close();
        registry.close();
    }

    private double counter(String name, String... tags) {
        FunctionCounter counter = registry.find(name).tags(tags).functionCounter();
        if (counter == null) {
            throw new AssertionError("no counter " + name + " " + List.of(tags) + " among " + registry.getMetersAsString());
        }
        return counter.count();
    }

    private static int call(OflClient client, Region region, int op) {
        client.requestPayload().set(ValueLayout.JAVA_LONG_UNALIGNED, 0, 42);
        return client.call(op, 0, 8, new ResponseRanges().add(region, 0, 8), 10 * SECOND_NS, new Completion());
    }

    @Test
    void clientMetersFollowItsStatistics() {
        try (OflClient client = Ofl.connect(ClientConfig.builder().server(server.localAddress()).serviceName(SERVICE)
                .limits(LIMITS).build())) {
            new OflClientMetrics(client, SERVICE, Tags.of("replica", "a")).bindTo(registry);
            assertEquals(0, counter("ofl.client.calls"));

            Region region = client.registerRegion(arena.allocate(64));
            assertEquals(OflStatus.OK, call(client, region, ECHO));
            assertEquals(OflStatus.OK, call(client, region, ECHO));
            assertEquals(OflStatus.REFUSED, call(client, region, REFUSE));
            long ticket = client.submit(BLOCK, 0, 0, new ResponseRanges().add(region, 0, 8));
            assertEquals(OflStatus.TIMED_OUT, client.await(ticket, client.clock().nanoTime(), new Completion()));
            unblock.countDown();
            client.reconnect();

            assertEquals(4, counter("ofl.client.calls", "backend", "tcp", "service", SERVICE, "replica", "a"));
            assertEquals(2, counter("ofl.client.responses", "status", "ok"));
            assertEquals(1, counter("ofl.client.responses", "status", "refused"));
            assertEquals(0, counter("ofl.client.responses", "status", "handler_failed"));
            assertEquals(1, counter("ofl.client.timeouts"));
            assertEquals(1, counter("ofl.client.breaks", "cause", "timeout"));
            for (String cause : List.of("peer_loss", "transport_failure", "protocol_error", "interrupt", "freed_region",
                    "link_failure")) {
                assertEquals(0, counter("ofl.client.breaks", "cause", cause), cause);
            }
            assertEquals(1, counter("ofl.client.reconnects"));
            // Every meter carries the same three tags besides its own.
            for (Meter meter : registry.getMeters()) {
                List<Tag> tags = meter.getId().getTags();
                assertEquals("tcp", meter.getId().getTag("backend"), meter.getId()::toString);
                assertEquals(SERVICE, meter.getId().getTag("service"), meter.getId()::toString);
                assertEquals("a", meter.getId().getTag("replica"), tags::toString);
            }
            assertEquals(13, registry.getMeters().size(), registry::getMetersAsString);
        }
    }

    @Test
    void serverMetersFollowItsStatistics() throws InterruptedException {
        new OflServerMetrics(server, SERVICE).bindTo(registry);
        try (OflClient client = Ofl.connect(ClientConfig.builder().server(server.localAddress()).serviceName(SERVICE)
                .limits(LIMITS).build())) {
            Region region = client.registerRegion(arena.allocate(64));
            assertEquals(OflStatus.OK, call(client, region, ECHO));
            assertEquals(OflStatus.REFUSED, call(client, region, REFUSE));
            assertEquals(1.0, registry.get("ofl.server.connections.open").gauge().value());
            assertThrows(RuntimeException.class, () -> Ofl.connect(ClientConfig.builder()
                    .server(server.localAddress()).serviceName("another").limits(LIMITS).build()));
        }
        // The handler counts its request before the client sees the response; the refusal is
        // counted before the refused client's connect returns.
        assertEquals(1, counter("ofl.server.connections", "outcome", "accepted", "backend", "tcp",
                "service", SERVICE));
        assertEquals(1, counter("ofl.server.connections", "outcome", "refused"));
        assertEquals(2, counter("ofl.server.requests"));
        assertEquals(1, counter("ofl.server.refusals"));
        assertEquals(0, counter("ofl.server.handler.failures"));
        assertEquals(0, counter("ofl.server.protocol.violations"));
        assertEquals(0, counter("ofl.server.responses.undelivered"));
        assertEquals(0, counter("ofl.server.responses.busy"));
        assertEquals(0, counter("ofl.server.send.timeouts"));
        assertEquals(0, counter("ofl.server.link.failures"));
        Gauge open = registry.get("ofl.server.connections.open").gauge();
        long deadlineNs = System.nanoTime() + 30 * SECOND_NS;
        while (open.value() != 0 && System.nanoTime() - deadlineNs < 0) {
            Thread.sleep(5);
        }
        assertEquals(0.0, open.value(), "the closed client's connection is released");
        assertEquals(11, registry.getMeters().size(), registry::getMetersAsString);
    }

    @Test
    void theServiceTagIsRequired() {
        assertThrows(NullPointerException.class, () -> new OflServerMetrics(server, null));
        assertThrows(NullPointerException.class, () -> new OflServerMetrics(null, SERVICE));
    }
}
