package dev.ofl.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.fail;

import dev.ofl.api.ClientConfig;
import dev.ofl.api.Ofl;
import dev.ofl.api.OflClient;
import dev.ofl.api.OflHandler;
import dev.ofl.api.OflServer;
import dev.ofl.api.ServerConfig;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetSocketAddress;
import java.nio.ByteOrder;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;

/**
 * One test's servers, clients and memory, started only through {@link Ofl#serve} and
 * {@link Ofl#connect} for the {@link TransportUnderTest}, and closed in reverse order by
 * {@link #close()}. Region memory comes from one shared arena, filled with {@link #SENTINEL} so that
 * every byte a response must not touch can be checked. Used by one test at a time.
 */
final class Fixture {
    /** The service name both ends use. */
    static final String SERVICE = "ofl-conformance";
    /** Bound on every wait that should end promptly in a correct backend. */
    static final long WAIT_SECONDS = 30;
    /** The timeout of calls that must succeed. */
    static final long CALL_TIMEOUT_NS = TimeUnit.SECONDS.toNanos(WAIT_SECONDS);
    /** What region memory holds before any response lands. */
    static final byte SENTINEL = (byte) 0xA5;
    /** How test payloads carry numbers. */
    static final ValueLayout.OfInt INT_LE = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    private final TransportUnderTest transport;
    private final Deque<AutoCloseable> resources = new ArrayDeque<>();
    private final Arena arena = Arena.ofShared();

    Fixture(TransportUnderTest transport) {
        this.transport = transport;
    }

    TransportUnderTest transport() {
        return transport;
    }

    String backend() {
        return transport.backend();
    }

    /** A server configuration for the backend on its explicit address, port 0. */
    ServerConfig.Builder serverBuilder() {
        return ServerConfig.builder()
                .backend(backend())
                .bind(new InetSocketAddress(transport.bindAddress(), 0))
                .serviceName(SERVICE)
                .idleStrategy(transport.idleStrategy())
                // The same bound as the client's connect: a slow first connection (a cold JVM on a
                // loaded or emulated machine) must not be dropped by the server's 5 s default.
                .bootstrapTimeout(Duration.ofSeconds(WAIT_SECONDS))
                .properties(transport.serverProperties());
    }

    /** A client configuration for the backend, connecting from the explicit address. */
    ClientConfig.Builder clientBuilder(InetSocketAddress server) {
        return ClientConfig.builder()
                .backend(backend())
                .server(server)
                .localAddress(transport.bindAddress())
                .serviceName(SERVICE)
                .idleStrategy(transport.idleStrategy())
                .connectTimeout(Duration.ofSeconds(WAIT_SECONDS))
                .properties(transport.clientProperties());
    }

    /** Starts a server with the defaults changed by {@code settings}; closed with the fixture. */
    OflServer serve(Consumer<ServerConfig.Builder> settings, OflHandler handler) {
        ServerConfig.Builder builder = serverBuilder();
        settings.accept(builder);
        OflServer server = own(Ofl.serve(builder.build(), handler));
        assertEquals(backend(), server.backend(), "the backend serving");
        return server;
    }

    /** Connects a client with the defaults changed by {@code settings}; closed with the fixture. */
    OflClient connect(OflServer server, Consumer<ClientConfig.Builder> settings) {
        ClientConfig.Builder builder = clientBuilder(server.localAddress());
        settings.accept(builder);
        OflClient client = own(Ofl.connect(builder.build()));
        assertEquals(backend(), client.backend(), "the backend connecting");
        assertFalse(client.isBroken(), "a new client is not broken");
        return client;
    }

    /** Closes {@code resource} with the fixture, before what was owned earlier. */
    <T extends AutoCloseable> T own(T resource) {
        resources.push(resource);
        return resource;
    }

    /** Native memory, 64-byte aligned, filled with {@link #SENTINEL}; freed with the fixture. */
    MemorySegment allocate(long bytes) {
        return arena.allocate(bytes, 64).fill(SENTINEL);
    }

    /** A deadline {@link #CALL_TIMEOUT_NS} from now on the client's clock. */
    static long deadline(OflClient client) {
        return client.clock().nanoTime() + CALL_TIMEOUT_NS;
    }

    /** Waits, bounded by {@link #CALL_TIMEOUT_NS}, for a condition a correct backend reaches promptly. */
    static void awaitCondition(BooleanSupplier condition, String what) {
        long deadlineNs = System.nanoTime() + CALL_TIMEOUT_NS;
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadlineNs >= 0) {
                fail("timed out waiting for " + what);
            }
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
        }
    }

    /**
     * A thread pool for work the test runs beside its own thread (a client's single thread may
     * change hands; other threads may watch memory). Shut down with the fixture, interrupting
     * what still runs, bounded by {@link #WAIT_SECONDS}.
     */
    ExecutorService threads(int count) {
        ExecutorService threads = Executors.newFixedThreadPool(count);
        own(() -> {
            threads.shutdownNow();
            if (!threads.awaitTermination(WAIT_SECONDS, TimeUnit.SECONDS)) {
                throw new IllegalStateException("a test thread did not end within " + WAIT_SECONDS + " s");
            }
        });
        return threads;
    }

    /** The result of work on another thread, bounded by {@link #WAIT_SECONDS}; its failure is rethrown as is. */
    static <T> T within(Future<T> work, String what) throws InterruptedException {
        try {
            return work.get(WAIT_SECONDS, TimeUnit.SECONDS);
        } catch (TimeoutException e) {
            work.cancel(true);
            throw new AssertionError(what + " did not finish within " + WAIT_SECONDS + " s", e);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof Error error) {
                throw error;
            }
            if (e.getCause() instanceof RuntimeException failure) {
                throw failure;
            }
            throw new AssertionError(what + " failed", e.getCause());
        }
    }

    /** Closes clients and servers, last owned first, then frees the memory; reports the first failure. */
    void close() throws Exception {
        Exception first = null;
        while (!resources.isEmpty()) {
            try {
                resources.pop().close();
            } catch (Exception e) {
                if (first == null) {
                    first = e;
                } else {
                    first.addSuppressed(e);
                }
            }
        }
        arena.close();
        if (first != null) {
            throw first;
        }
    }
}
