package dev.ofl.tcp;

import dev.ofl.api.ClientConfig;
import dev.ofl.api.OflClient;
import dev.ofl.api.OflHandler;
import dev.ofl.api.OflServer;
import dev.ofl.api.ServerConfig;
import dev.ofl.api.spi.BootstrapServer;
import dev.ofl.api.spi.ClientSession;
import dev.ofl.api.spi.OflBackend;
import dev.ofl.api.spi.StagingPool;
import java.util.Map;
import java.util.Optional;

/**
 * The {@code "tcp"} backend, found by {@link dev.ofl.api.Ofl} through the service loader. Always
 * available. Its properties:
 * <ul>
 * <li>{@value #BLOCKING_SPIN_MICROS} (server, {@code BLOCKING} mode; default
 *     {@value #DEFAULT_BLOCKING_SPIN_MICROS}, 0 to 10,000): how long a connection keeps reading
 *     without blocking after its last message before its virtual thread parks in a blocking read:
 *     a request that follows its response within that time is read without a park and a wake-up
 *     by the JDK's poller. Connections on platform threads
 *     ({@link dev.ofl.api.ConnectionThreads#PLATFORM}) block in the kernel at once and do not
 *     spin.</li>
 * <li>{@value #DIRECT_SOCKET_CALLS} (client and server, {@code BUSY_POLL} mode; default
 *     {@code true}): whether a busy-polling connection reads and writes with direct
 *     {@code recv}/{@code send} calls on its socket (Linux, native access enabled for this module)
 *     rather than through Java NIO, which costs a round trip about a tenth more. Where direct
 *     calls are unavailable the connection uses NIO and the log says why, once per process.</li>
 * </ul>
 */
public final class TcpBackend implements OflBackend {
    /** The name configurations use. */
    public static final String NAME = "tcp";
    /** The server's spin before parking, in microseconds. */
    public static final String BLOCKING_SPIN_MICROS = "tcp.blockingSpinMicros";
    /** The default of {@value #BLOCKING_SPIN_MICROS}. */
    public static final int DEFAULT_BLOCKING_SPIN_MICROS = 50;
    /** Whether busy-polling connections use direct socket calls: {@code true} or {@code false}. */
    public static final String DIRECT_SOCKET_CALLS = "tcp.directSocketCalls";

    /** Creates the backend; called by the service loader. */
    public TcpBackend() {
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public Optional<String> unavailabilityCause() {
        return Optional.empty();
    }

    @Override
    public OflClient connect(ClientConfig config) {
        boolean direct = directSocketCalls(config.properties());
        return new ClientSession(config, (clientConfig, slots, slotBytes) -> new TcpClientTransport(clientConfig,
                slots, slotBytes, direct));
    }

    @Override
    public OflServer serve(ServerConfig config, OflHandler handler) {
        long spinNs = blockingSpinMicros(config.properties()) * 1_000L;
        boolean direct = directSocketCalls(config.properties());
        StagingPool pool = new StagingPool(config.stagingBudgetBytes(), StagingPool.Memory.offHeap(), config.clock());
        return BootstrapServer.start(config, NAME, handler,
                (serverConfig, channel, id) -> new TcpServerTransport(serverConfig, channel, pool, spinNs,
                        direct),
                server -> pool.close());
    }

    private static int blockingSpinMicros(Map<String, String> properties) {
        for (String key : properties.keySet()) {
            if (key.startsWith(NAME + ".") && !key.equals(BLOCKING_SPIN_MICROS) && !key.equals(DIRECT_SOCKET_CALLS)) {
                throw new IllegalArgumentException("unknown TCP property '" + key + "'; known: " + BLOCKING_SPIN_MICROS
                        + ", " + DIRECT_SOCKET_CALLS);
            }
        }
        String value = properties.getOrDefault(BLOCKING_SPIN_MICROS, Integer.toString(DEFAULT_BLOCKING_SPIN_MICROS));
        int n;
        try {
            n = Integer.parseInt(value.strip());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(BLOCKING_SPIN_MICROS + " = '" + value + "' is not a number", e);
        }
        if (n < 0 || n > 10_000) {
            throw new IllegalArgumentException(BLOCKING_SPIN_MICROS + " = " + n + " is outside 0..10000");
        }
        return n;
    }

    private static boolean directSocketCalls(Map<String, String> properties) {
        String value = properties.getOrDefault(DIRECT_SOCKET_CALLS, "true").strip();
        if (!value.equals("true") && !value.equals("false")) {
            throw new IllegalArgumentException(DIRECT_SOCKET_CALLS + " = '" + value + "' is neither true nor false");
        }
        return value.equals("true");
    }
}
