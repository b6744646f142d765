package dev.ofl.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/** Validation and defaults of {@link ServerConfig} and {@link ClientConfig}. */
class ConfigTest {
    private static final InetSocketAddress LOOPBACK = new InetSocketAddress("127.0.0.1", 4000);

    private static ServerConfig.Builder server() {
        return ServerConfig.builder().bind(LOOPBACK).serviceName("svc");
    }

    private static ClientConfig.Builder client() {
        return ClientConfig.builder().server(LOOPBACK).serviceName("svc");
    }

    private static String serverRefusal(Consumer<ServerConfig.Builder> change) {
        ServerConfig.Builder builder = server();
        change.accept(builder);
        return assertThrows(IllegalArgumentException.class, builder::build).getMessage();
    }

    private static String clientRefusal(Consumer<ClientConfig.Builder> change) {
        ClientConfig.Builder builder = client();
        change.accept(builder);
        return assertThrows(IllegalArgumentException.class, builder::build).getMessage();
    }

    @Test
    void wildcardBindIsRefused() throws UnknownHostException {
        for (String wildcard : new String[] {"0.0.0.0", "::", "0:0:0:0:0:0:0:0"}) {
            InetSocketAddress bind = new InetSocketAddress(InetAddress.getByName(wildcard), 0);
            String message = serverRefusal(b -> b.bind(bind));
            assertTrue(message.contains("wildcard"), message);
        }
        assertTrue(serverRefusal(b -> b.bind(new InetSocketAddress(0))).contains("wildcard"), "port-only address");
    }

    @Test
    void serverSettingsAreValidated() {
        assertTrue(serverRefusal(b -> b.bind(null)).contains("bind"));
        assertTrue(serverRefusal(b -> b.bind(InetSocketAddress.createUnresolved("no.such.host", 1))).contains("unresolved"));
        assertTrue(serverRefusal(b -> b.serviceName(null)).contains("serviceName"));
        assertTrue(serverRefusal(b -> b.serviceName("")).contains("serviceName"));
        assertTrue(serverRefusal(b -> b.serviceName("s".repeat(65))).contains("65 bytes"));
        assertTrue(serverRefusal(b -> b.serviceName("é".repeat(33))).contains("66 bytes"), "bytes of UTF-8, not chars");
        assertTrue(serverRefusal(b -> b.serviceName("a\tb")).contains("control"));
        assertTrue(serverRefusal(b -> b.maxConnections(0)).contains("maxConnections"));
        assertTrue(serverRefusal(b -> b.bootstrapTimeout(Duration.ZERO)).contains("bootstrapTimeout"));
        assertTrue(serverRefusal(b -> b.bootstrapTimeout(Duration.ofMillis(-1))).contains("bootstrapTimeout"));
        assertTrue(serverRefusal(b -> b.bootstrapTimeout(null)).contains("bootstrapTimeout"));
        assertTrue(serverRefusal(b -> b.drainTimeout(Duration.ZERO)).contains("drainTimeout"));
        assertThrows(NullPointerException.class, () -> server().limits(null).build());
        assertThrows(NullPointerException.class, () -> server().waitMode(null).build());
        assertThrows(NullPointerException.class, () -> server().connectionThreads(null).build());
        assertEquals("s".repeat(64), server().serviceName("s".repeat(64)).build().serviceName());
    }

    @Test
    void serverDefaultsAreAsDocumented() {
        Map<String, String> properties = new HashMap<>(Map.of("k", "v"));
        ServerConfig config = server().properties(properties).build();
        properties.put("k", "changed");
        assertEquals("tcp", config.backend());
        assertEquals(Limits.SERVER_DEFAULTS, config.limits());
        assertEquals(64, config.maxConnections());
        assertEquals(Duration.ofSeconds(2), config.bootstrapTimeout());
        assertEquals(Duration.ofSeconds(60), config.idleTimeout());
        assertEquals(16, config.maxConnectionsPerAddress());
        assertEquals(256, config.maxPendingHandshakes());
        assertEquals(16, config.maxPendingPerAddress());
        assertEquals(Duration.ofSeconds(5), config.drainTimeout());
        assertEquals(WaitMode.BLOCKING, config.waitMode());
        assertEquals(ConnectionThreads.VIRTUAL, config.connectionThreads());
        assertEquals(ConnectionThreads.PLATFORM,
                server().connectionThreads(ConnectionThreads.PLATFORM).build().connectionThreads());
        assertEquals(Map.of("k", "v"), config.properties(), "properties are copied");
        assertThrows(UnsupportedOperationException.class, () -> config.properties().put("x", "y"));
        assertEquals(64L << 20, config.stagingBudgetBytes());
        assertEquals(32L << 20, config.stagingShareBytes(), "half the budget: one connection cannot hold all of it");
        assertEquals(Duration.ofSeconds(5), config.sendTimeout());
        assertFalse(config.zeroStaging());
        assertEquals(64L << 20, config.receiveBudgetBytes());
    }

    @Test
    void theStagingShareIsAtLeastTheLargestResponseAndAtMostTheBudget() {
        Limits large = new Limits(1024, 48 << 20, 16, 8);
        ServerConfig config = server().limits(large).build();
        assertEquals(64L << 20, config.stagingBudgetBytes());
        assertEquals(48L << 20, config.stagingShareBytes(), "half the budget would not stage the largest response");
        assertEquals(10L << 20, server().limits(new Limits(1024, 1 << 20, 16, 8)).stagingBudgetBytes(20 << 20).build()
                .stagingShareBytes());
        assertTrue(serverRefusal(b -> b.stagingShareBytes((32 << 20) - 1)).contains("stagingShareBytes"));
        assertTrue(serverRefusal(b -> b.stagingShareBytes((64L << 20) + 1)).contains("at most the staging budget"));
        assertEquals(64L << 20, server().stagingShareBytes(64L << 20).build().stagingShareBytes());
        assertTrue(serverRefusal(b -> b.sendTimeout(Duration.ZERO)).contains("sendTimeout"));
        assertTrue(serverRefusal(b -> b.receiveBudgetBytes(0)).contains("receiveBudgetBytes"));
    }

    @Test
    void clientSettingsAreValidated() {
        assertTrue(clientRefusal(b -> b.server(null)).contains("server"));
        assertTrue(clientRefusal(b -> b.server(InetSocketAddress.createUnresolved("no.such.host", 1))).contains("unresolved"));
        assertTrue(clientRefusal(b -> b.serviceName(null)).contains("serviceName"));
        assertTrue(clientRefusal(b -> b.serviceName("s".repeat(65))).contains("65 bytes"));
        assertTrue(clientRefusal(b -> b.serviceName("a\u0000b")).contains("control"));
        assertTrue(clientRefusal(b -> b.connectTimeout(Duration.ZERO)).contains("connectTimeout"));
        assertTrue(clientRefusal(b -> b.connectTimeout(Duration.ofSeconds(-1))).contains("connectTimeout"));
        assertTrue(clientRefusal(b -> b.connectTimeout(null)).contains("connectTimeout"));
        assertThrows(NullPointerException.class, () -> client().backend(null).build());
        assertThrows(NullPointerException.class, () -> client().limits(null).build());
        assertThrows(NullPointerException.class, () -> client().waitMode(null).build());
        assertThrows(NullPointerException.class, () -> client().idleStrategy(null).build());
        assertThrows(NullPointerException.class, () -> client().clock(null).build());
        assertThrows(NullPointerException.class, () -> client().properties(null).build());
    }

    @Test
    void clientDefaultsAreAsDocumented() {
        ClientConfig config = client().build();
        assertEquals("tcp", config.backend());
        assertEquals(Limits.CLIENT_DEFAULTS, config.limits());
        assertEquals(WaitMode.BUSY_POLL, config.waitMode());
        assertEquals(IdleStrategy.BUSY_SPIN, config.idleStrategy());
        assertEquals(NanoClock.SYSTEM, config.clock());
        assertEquals(Duration.ofSeconds(5), config.connectTimeout());
        assertEquals(null, config.localAddress());
        assertEquals(Map.of(), config.properties());
    }
}
