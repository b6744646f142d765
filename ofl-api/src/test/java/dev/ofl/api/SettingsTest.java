package dev.ofl.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Properties;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Configuration given as text: every name reaches its setting, and every mistake is named. */
class SettingsTest {
    @TempDir
    Path dir;

    private Path keyFile(String name, String permissions) throws IOException {
        byte[] key = new byte[32];
        new SecureRandom().nextBytes(key);
        Path file = dir.resolve(name);
        Files.write(file, key);
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString(permissions));
        return file;
    }

    @Test
    void everyClientSettingReachesTheConfiguration() throws IOException {
        Path key = keyFile("client.key", "rw-------");
        Map<String, String> text = new HashMap<>();
        text.put("backend", "RDMA");
        text.put("server", "127.0.0.2:7000");
        text.put("localAddress", "127.0.0.3");
        text.put("serviceName", "engram");
        text.put("waitMode", "blocking");
        text.put("idleStrategy", "yield");
        text.put("connectTimeout", "1.5s");
        text.put("limits.maxRequestBytes", "64KiB");
        text.put("limits.maxResponseBytes", "4MiB");
        text.put("limits.maxRanges", "4");
        text.put("limits.maxInFlight", "2");
        text.put("authentication.keyId", "7");
        text.put("authentication.keyFile", key.toString());
        text.put("properties.rdma.device", "mlx5_0");

        ClientConfig config = ClientConfig.builder().settings(text).build();

        assertEquals("rdma", config.backend());
        assertEquals(new InetSocketAddress(InetAddress.getByName("127.0.0.2"), 7000), config.server());
        assertEquals(InetAddress.getByName("127.0.0.3"), config.localAddress());
        assertEquals("engram", config.serviceName());
        assertEquals(WaitMode.BLOCKING, config.waitMode());
        assertSame(IdleStrategy.YIELD, config.idleStrategy());
        assertEquals(Duration.ofMillis(1500), config.connectTimeout());
        assertEquals(new Limits(64 << 10, 4 << 20, 4, 2), config.limits());
        assertEquals(java.util.Set.of(7), config.authentication().keyIds());
        assertEquals(Map.of("rdma.device", "mlx5_0"), config.properties());
    }

    @Test
    void everyServerSettingReachesTheConfiguration() throws IOException {
        Map<String, String> text = new HashMap<>();
        text.put("backend", "tcp");
        text.put("bind", "[::1]:7001");
        text.put("serviceName", "engram");
        text.put("waitMode", "busy-poll");
        text.put("idleStrategy", "busy_spin");
        text.put("connectionThreads", "PLATFORM");
        text.put("bootstrapTimeout", "PT3S");
        text.put("drainTimeout", "250ms");
        text.put("idleTimeout", "2m");
        text.put("stagingTimeout", "500ms");
        text.put("sendTimeout", "7s");
        text.put("maxConnections", "12");
        text.put("maxConnectionsPerAddress", "3");
        text.put("maxPendingHandshakes", "20");
        text.put("maxPendingPerAddress", "4");
        text.put("limits.maxResponseBytes", "8MiB");
        text.put("stagingBudgetBytes", "32MiB");
        text.put("stagingShareBytes", "16MiB");
        text.put("receiveBudgetBytes", "48MiB");
        text.put("zeroStaging", "true");
        text.put("authentication.keyFile.1", keyFile("old.key", "rw-------").toString());
        text.put("authentication.keyFile.2", keyFile("new.key", "r--------").toString());
        text.put("properties.tcp.receiveBufferBytes", "1048576");

        ServerConfig config = ServerConfig.builder().settings(text).build();

        assertEquals(new InetSocketAddress(InetAddress.getByName("::1"), 7001), config.bind());
        assertEquals(WaitMode.BUSY_POLL, config.waitMode());
        assertSame(IdleStrategy.BUSY_SPIN, config.idleStrategy());
        assertEquals(ConnectionThreads.PLATFORM, config.connectionThreads());
        assertEquals(Duration.ofSeconds(3), config.bootstrapTimeout());
        assertEquals(Duration.ofMillis(250), config.drainTimeout());
        assertEquals(Duration.ofMinutes(2), config.idleTimeout());
        assertEquals(Duration.ofMillis(500), config.stagingTimeout());
        assertEquals(Duration.ofSeconds(7), config.sendTimeout());
        assertEquals(12, config.maxConnections());
        assertEquals(3, config.maxConnectionsPerAddress());
        assertEquals(20, config.maxPendingHandshakes());
        assertEquals(4, config.maxPendingPerAddress());
        assertEquals(8 << 20, config.limits().maxResponseBytes());
        assertEquals(Limits.SERVER_DEFAULTS.maxRequestBytes(), config.limits().maxRequestBytes(), "untouched");
        assertEquals(32L << 20, config.stagingBudgetBytes());
        assertEquals(16L << 20, config.stagingShareBytes());
        assertEquals(48L << 20, config.receiveBudgetBytes());
        assertTrue(config.zeroStaging());
        assertEquals(java.util.Set.of(1, 2), config.authentication().keyIds());
        assertEquals(Map.of("tcp.receiveBufferBytes", "1048576"), config.properties());
    }

    @Test
    void aMisspeltNameIsRefusedWithTheNamesThatExist() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> ClientConfig.builder().settings(Map.of("conectTimeout", "5s")));
        assertTrue(e.getMessage().contains("unknown setting \"conectTimeout\""), e.getMessage());
        assertTrue(e.getMessage().contains("connectTimeout"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class,
                () -> ServerConfig.builder().settings(Map.of("limits.maxInflight", "4")));
        assertTrue(e.getMessage().contains("unknown setting \"limits.maxInflight\""), e.getMessage());
        assertTrue(e.getMessage().contains("maxInFlight"), e.getMessage());
    }

    @Test
    void aValueOfTheWrongFormIsRefusedNamingTheSettingAndTheForms() {
        Map<String, String> wrong = Map.of(
                "connectTimeout", "five seconds",
                "waitMode", "busy",
                "server", "localhost",
                "idleStrategy", "backoff");
        for (Map.Entry<String, String> e : wrong.entrySet()) {
            IllegalArgumentException refused = assertThrows(IllegalArgumentException.class,
                    () -> ClientConfig.builder().settings(Map.of(e.getKey(), e.getValue())), e.toString());
            assertTrue(refused.getMessage().startsWith("setting \"" + e.getKey() + "\" = \"" + e.getValue()
                    + "\" is not "), refused.getMessage());
        }
        Map<String, String> serverWrong = Map.of(
                "zeroStaging", "ture",
                "stagingBudgetBytes", "64XB",
                "maxConnections", "many",
                "bind", "127.0.0.1:70000",
                "drainTimeout", "5");
        for (Map.Entry<String, String> e : serverWrong.entrySet()) {
            IllegalArgumentException refused = assertThrows(IllegalArgumentException.class,
                    () -> ServerConfig.builder().settings(Map.of(e.getKey(), e.getValue())), e.toString());
            assertTrue(refused.getMessage().startsWith("setting \"" + e.getKey() + "\" = \"" + e.getValue()
                    + "\" is not "), refused.getMessage());
        }
        IllegalArgumentException limit = assertThrows(IllegalArgumentException.class,
                () -> ClientConfig.builder().settings(Map.of("limits.maxRanges", "17")));
        assertTrue(limit.getMessage().startsWith("setting \"limits.maxRanges\": maxRanges = 17 is outside"),
                limit.getMessage());
    }

    @Test
    void rangesAreCheckedByBuildAsForValuesSetInCode() {
        ServerConfig.Builder fromText = ServerConfig.builder().settings(Map.of("bind", "127.0.0.1:0",
                "serviceName", "engram", "maxConnections", "0"));
        ServerConfig.Builder inCode = ServerConfig.builder().bind(new InetSocketAddress("127.0.0.1", 0))
                .serviceName("engram").maxConnections(0);
        String textMessage = assertThrows(IllegalArgumentException.class, fromText::build).getMessage();
        String codeMessage = assertThrows(IllegalArgumentException.class, inCode::build).getMessage();
        assertEquals(codeMessage, textMessage);
    }

    @Test
    void keyFilesAreReadWithTheKeyFileChecks() throws IOException {
        Path open = keyFile("open.key", "rw-r--r--");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> ClientConfig.builder()
                .settings(Map.of("authentication.keyId", "1", "authentication.keyFile", open.toString())));
        assertTrue(e.getMessage().startsWith("setting \"authentication.keyFile\": "), e.getMessage());
        assertTrue(e.getMessage().contains("chmod"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> ClientConfig.builder()
                .settings(Map.of("authentication.keyId", "1")));
        assertTrue(e.getMessage().contains("go together"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> ServerConfig.builder()
                .settings(Map.of("authentication.keyFile.one", open.toString())));
        assertTrue(e.getMessage().contains("is not a whole number"), e.getMessage());
    }

    @Test
    void propertiesUnderAPrefixAreTakenAndTheRestLeftAlone() {
        Properties file = new Properties();
        file.setProperty("ofl.client.server", "127.0.0.1:7000");
        file.setProperty("ofl.client.serviceName", "engram");
        file.setProperty("ofl.client.connectTimeout", "250ms");
        file.setProperty("ofl.server.bind", "127.0.0.1:7000");
        file.setProperty("logging.level", "INFO");

        ClientConfig config = ClientConfig.builder().settings(file, "ofl.client.").build();

        assertEquals(Duration.ofMillis(250), config.connectTimeout());
        assertEquals("engram", config.serviceName());
        assertFalse(config.properties().containsKey("logging.level"));
    }

    @Test
    void durationsAndByteCountsReadEveryDocumentedForm() {
        assertEquals(Duration.ofNanos(1500), Settings.duration("d", "1.5us"));
        assertEquals(Duration.ofMillis(250), Settings.duration("d", "250 ms"));
        assertEquals(Duration.ofSeconds(5), Settings.duration("d", "PT5S"));
        assertEquals(Duration.ofHours(1), Settings.duration("d", "1h"));
        assertEquals(4096, Settings.bytes("b", "4096"));
        assertEquals(256 << 10, Settings.bytes("b", "256KiB"));
        assertEquals(16L << 20, Settings.bytes("b", "16M"));
        assertEquals(1L << 30, Settings.bytes("b", "1 GiB"));
        assertThrows(IllegalArgumentException.class, () -> Settings.bytes("b", "-1"));
        assertThrows(IllegalArgumentException.class, () -> Settings.bytes("b", "99999999999GiB"));
        assertThrows(IllegalArgumentException.class, () -> Settings.duration("d", ""));
    }
}
