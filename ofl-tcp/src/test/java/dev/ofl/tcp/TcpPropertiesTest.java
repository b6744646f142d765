package dev.ofl.tcp;

import static org.junit.jupiter.api.Assertions.assertEquals;
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
import dev.ofl.api.WaitMode;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The backend's spin property: its values, its bounds, and names it does not know. */
class TcpPropertiesTest {
    private static ServerConfig.Builder server(Map<String, String> properties) {
        return ServerConfig.builder().backend(TcpBackend.NAME)
                .bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0)).serviceName("properties")
                .waitMode(WaitMode.BLOCKING).properties(properties);
    }

    @Test
    void unknownAndOutOfRangePropertiesAreRefusedNamingTheKey() {
        IllegalArgumentException unknown = assertThrows(IllegalArgumentException.class,
                () -> Ofl.serve(server(Map.of("tcp.spin", "5")).build(), (request, response) -> 0));
        assertEquals("unknown TCP property 'tcp.spin'; known: tcp.blockingSpinMicros, tcp.directSocketCalls",
                unknown.getMessage());
        IllegalArgumentException range = assertThrows(IllegalArgumentException.class,
                () -> Ofl.serve(server(Map.of(TcpBackend.BLOCKING_SPIN_MICROS, "10001")).build(), (request, response) -> 0));
        assertEquals("tcp.blockingSpinMicros = 10001 is outside 0..10000", range.getMessage());
        IllegalArgumentException negative = assertThrows(IllegalArgumentException.class,
                () -> Ofl.serve(server(Map.of(TcpBackend.BLOCKING_SPIN_MICROS, "-1")).build(), (request, response) -> 0));
        assertEquals("tcp.blockingSpinMicros = -1 is outside 0..10000", negative.getMessage());
        IllegalArgumentException word = assertThrows(IllegalArgumentException.class,
                () -> Ofl.serve(server(Map.of(TcpBackend.BLOCKING_SPIN_MICROS, "fifty")).build(), (request, response) -> 0));
        assertEquals("tcp.blockingSpinMicros = 'fifty' is not a number", word.getMessage());
    }

    /** Without a spin, and with the longest allowed: every byte of every echo arrives. */
    @Test
    void requestsAreServedWithAndWithoutTheSpin() {
        for (String spin : new String[] {"0", "10000"}) {
            try (Arena arena = Arena.ofConfined();
                    OflServer server = Ofl.serve(server(Map.of(TcpBackend.BLOCKING_SPIN_MICROS, spin)).build(),
                            (request, response) -> {
                                response.write(request.payload());
                                return 0;
                            });
                    OflClient client = Ofl.connect(ClientConfig.builder().backend(TcpBackend.NAME)
                            .server(server.localAddress()).serviceName("properties").build())) {
                MemorySegment memory = arena.allocate(8);
                Region region = client.registerRegion(memory);
                for (long i = 1; i <= 3; i++) {
                    client.requestPayload().set(ValueLayout.JAVA_LONG_UNALIGNED, 0, i * 0x0101_0101_0101L);
                    int status = client.call(0, 0, 8, new ResponseRanges().add(region, 0, 8), 10_000_000_000L,
                            new Completion());
                    assertEquals(OflStatus.OK, status, "spin " + spin);
                    assertEquals(i * 0x0101_0101_0101L, memory.get(ValueLayout.JAVA_LONG_UNALIGNED, 0), "spin " + spin);
                }
            }
        }
    }

    /**
     * Every timeout set to the longest Duration there is (far past the 292 years nanoseconds
     * count): the server starts, a client connects and is served, and both close. The conversions
     * saturate rather than throw.
     */
    @Test
    @Timeout(value = 60, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void timeoutsBeyondTheRangeOfNanosecondsMeanForEver() throws Exception {
        Duration forever = Duration.ofSeconds(Long.MAX_VALUE, 999_999_999);
        OflServer server = Ofl.serve(server(Map.of()).bootstrapTimeout(forever).drainTimeout(forever)
                .idleTimeout(forever).stagingTimeout(forever).sendTimeout(forever).build(), (request, response) -> {
                    response.write(request.payload());
                    return 0;
                });
        try (Arena arena = Arena.ofConfined();
                OflClient client = Ofl.connect(ClientConfig.builder().backend(TcpBackend.NAME)
                        .server(server.localAddress()).serviceName("properties").connectTimeout(forever).build())) {
            MemorySegment memory = arena.allocate(8);
            Region region = client.registerRegion(memory);
            client.requestPayload().set(ValueLayout.JAVA_LONG_UNALIGNED, 0, 42);
            assertEquals(OflStatus.OK, client.call(0, 0, 8, new ResponseRanges().add(region, 0, 8), 10_000_000_000L,
                    new Completion()));
            assertEquals(42, memory.get(ValueLayout.JAVA_LONG_UNALIGNED, 0));
            client.reconnect();
            assertEquals(OflStatus.OK, client.call(0, 0, 8, new ResponseRanges().add(region, 0, 8), 10_000_000_000L,
                    new Completion()), "after a reconnect, which reads the connect timeout again");
        } finally {
            server.close();
        }
        assertTrue(server.awaitTermination(forever), "an idle server closes without waiting out its drain timeout");
    }
}
