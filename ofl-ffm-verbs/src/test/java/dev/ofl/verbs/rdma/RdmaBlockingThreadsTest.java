package dev.ofl.verbs.rdma;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ofl.api.ClientConfig;
import dev.ofl.api.Completion;
import dev.ofl.api.ConnectionThreads;
import dev.ofl.api.Limits;
import dev.ofl.api.Ofl;
import dev.ofl.api.OflClient;
import dev.ofl.api.OflRequest;
import dev.ofl.api.OflResponse;
import dev.ofl.api.OflServer;
import dev.ofl.api.OflStatus;
import dev.ofl.api.Region;
import dev.ofl.api.ResponseRanges;
import dev.ofl.api.ServerConfig;
import dev.ofl.api.WaitMode;
import dev.ofl.conformance.Conditions;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * In BLOCKING mode an RDMA server connection runs on a virtual thread that parks between
 * completions (the process's {@link CompletionPoller} wakes it): idle connections add no platform
 * thread, each still answers a request, and a parked connection still ends when its client leaves
 * or stays idle past the idle timeout. With platform connection threads the same park and wake-up
 * serve a platform thread.
 */
@Timeout(180)
class RdmaBlockingThreadsTest {
    private static final int CONNECTIONS = 64;
    private static final String SERVICE = "blocking-threads";
    private static final Limits SMALL = new Limits(64, 64, 1, 1);

    @Test
    void idleBlockingConnectionsAddNoPlatformThreadAndEachStillAnswers() {
        try (OflServer server = Ofl.serve(config().maxConnections(CONNECTIONS)
                .maxConnectionsPerAddress(CONNECTIONS).build(), RdmaBlockingThreadsTest::echo);
                Arena arena = Arena.ofShared()) {
            List<OflClient> clients = new ArrayList<>();
            try {
                // The first connection starts what every process has once: the poller, the liveness watcher and
                // virtual threads' carriers.
                clients.add(connect(server));
                Conditions.await(() -> server.connectionCount() == 1, "the first connection");
                // Registered once the WELCOME is out, so just after the count moved.
                Conditions.await(() -> CompletionPoller.shared().registrations() >= 1, "the first registration");
                int registrationsBefore = CompletionPoller.shared().registrations();
                Set<String> oflThreadsBefore = oflPlatformThreads();
                int threadsBefore = Thread.getAllStackTraces().size();
                for (int i = 1; i < CONNECTIONS; i++) {
                    clients.add(connect(server));
                }
                Conditions.await(() -> server.connectionCount() == CONNECTIONS, CONNECTIONS + " connections");
                Conditions.await(() -> CompletionPoller.shared().registrations() == registrationsBefore + CONNECTIONS - 1,
                        "every BLOCKING connection to wait through the poller");
                assertEquals(oflThreadsBefore, oflPlatformThreads(),
                        "no platform thread of ofl per connection (connections run on virtual threads)");
                int carriers = Runtime.getRuntime().availableProcessors();
                int grown = Thread.getAllStackTraces().size() - threadsBefore;
                assertTrue(grown <= carriers, () -> grown + " platform threads were added for " + (CONNECTIONS - 1)
                        + " idle connections; at most the " + carriers + " carriers of virtual threads may be");

                for (int i = 0; i < CONNECTIONS; i++) {
                    OflClient client = clients.get(i);
                    MemorySegment memory = arena.allocate(64, 64);
                    client.requestPayload().set(ValueLayout.JAVA_LONG_UNALIGNED, 0, 1000L + i);
                    Completion completion = new Completion();
                    int status = client.call(1, 0, 8, ResponseRanges.of(client.registerRegion(memory)),
                            TestEnvironment.nanos(10), completion);
                    assertEquals(OflStatus.OK, status, "connection " + i + ": " + completion);
                    assertEquals(1000L + i, memory.get(ValueLayout.JAVA_LONG_UNALIGNED, 0), "connection " + i);
                }

                // Clients that leave wake their parked server threads (the liveness watcher unparks them).
                for (int i = CONNECTIONS / 2; i < CONNECTIONS; i++) {
                    clients.get(i).close();
                }
                Conditions.await(() -> server.connectionCount() == CONNECTIONS / 2, "the server to see half leave");
                Conditions.await(() -> CompletionPoller.shared().registrations() == registrationsBefore
                        + CONNECTIONS / 2 - 1, "the poller to release the connections that ended");
            } finally {
                for (OflClient client : clients) {
                    client.close();
                }
            }
        }
    }

    @Test
    void aParkedConnectionEndsAtTheIdleTimeoutAndAtClose() {
        try (OflServer server = Ofl.serve(config().idleTimeout(Duration.ofMillis(300)).build(),
                RdmaBlockingThreadsTest::echo); OflClient idle = connect(server)) {
            // Accepted (the WELCOME came), then closed by the listener's idle sweep, which must wake the parked thread.
            Conditions.await(() -> server.connectionCount() == 0, "the idle timeout to close a parked BLOCKING "
                    + "connection");
            assertEquals(1, server.statistics().connectionsAccepted(), "the connection had been accepted");
            Conditions.await(idle::isBroken, "the client to learn that the server closed its connection");
        }
        OflServer server = Ofl.serve(config().build(), RdmaBlockingThreadsTest::echo);
        try (OflClient client = connect(server)) {
            Conditions.await(() -> server.connectionCount() == 1, "a connection");
            server.close();
            assertEquals(0, server.connectionCount(), "close drains the parked connection");
            Conditions.await(client::isBroken, "the client to see the connection end");
        } finally {
            server.close();
        }
    }

    /**
     * With {@link ConnectionThreads#PLATFORM} the connection's handler runs on a platform thread of
     * its own, which parks between completions like a virtual one: the poller still wakes it for
     * every request, and its client's departure still ends it.
     */
    @Test
    void platformConnectionThreadsParkAndWakeAlike() {
        AtomicInteger virtualCalls = new AtomicInteger();
        Set<String> handlerThreads = ConcurrentHashMap.newKeySet();
        try (OflServer server = Ofl.serve(config().connectionThreads(ConnectionThreads.PLATFORM).build(),
                (request, response) -> {
                    if (Thread.currentThread().isVirtual()) {
                        virtualCalls.incrementAndGet();
                    }
                    handlerThreads.add(Thread.currentThread().getName());
                    return echo(request, response);
                });
                Arena arena = Arena.ofShared()) {
            OflClient client = connect(server);
            try {
                MemorySegment memory = arena.allocate(64, 64);
                Region region = client.registerRegion(memory);
                for (long i = 1; i <= 5; i++) {
                    client.requestPayload().set(ValueLayout.JAVA_LONG_UNALIGNED, 0, 77L * i);
                    Completion completion = new Completion();
                    int status = client.call(1, 0, 8, ResponseRanges.of(region), TestEnvironment.nanos(10), completion);
                    assertEquals(OflStatus.OK, status, "request " + i + ": " + completion);
                    assertEquals(77L * i, memory.get(ValueLayout.JAVA_LONG_UNALIGNED, 0), "request " + i);
                }
                assertEquals(0, virtualCalls.get(), "handler calls on a virtual thread");
                assertEquals(1, handlerThreads.size(), "one connection thread: " + handlerThreads);
                String name = handlerThreads.iterator().next();
                assertTrue(name.startsWith("ofl-rdma-conn-"), name);
                assertTrue(oflPlatformThreads().contains(name), "the connection thread " + name
                        + " is a live platform thread while connected");
                // Idle, it parks in the poller's registration (not in a native wait, which shows RUNNABLE).
                Conditions.await(() -> parksInThePoller(name), name + " to park through the completion poller");
            } finally {
                client.close();
            }
            Conditions.await(() -> server.connectionCount() == 0, "the parked platform thread to end when its client left");
        }
    }

    private static ServerConfig.Builder config() {
        return ServerConfig.builder().backend(RdmaBackend.NAME)
                .bind(new InetSocketAddress(TestEnvironment.address(), 0)).serviceName(SERVICE)
                .properties(TestEnvironment.rdmaProperties()).waitMode(WaitMode.BLOCKING);
    }

    private static OflClient connect(OflServer server) {
        return Ofl.connect(ClientConfig.builder().backend(RdmaBackend.NAME).server(server.localAddress())
                .serviceName(SERVICE).limits(SMALL).waitMode(WaitMode.BLOCKING)
                .properties(TestEnvironment.rdmaProperties()).connectTimeout(TestEnvironment.duration(10)).build());
    }

    private static int echo(OflRequest request, OflResponse response) {
        response.write(request.payload());
        return 0;
    }

    /** Whether the live thread of this name is parked in a {@link CompletionPoller} registration. */
    private static boolean parksInThePoller(String name) {
        for (Map.Entry<Thread, StackTraceElement[]> e : Thread.getAllStackTraces().entrySet()) {
            if (e.getKey().getName().equals(name) && e.getKey().getState() != Thread.State.RUNNABLE) {
                for (StackTraceElement frame : e.getValue()) {
                    if (frame.getClassName().startsWith(CompletionPoller.class.getName())) {
                        return true;
                    }
                }
            }
        }
        return false;
    }

    /** This process's platform threads of ofl, by name; {@link Thread#getAllStackTraces()} omits virtual threads. */
    private static Set<String> oflPlatformThreads() {
        Set<String> names = new TreeSet<>();
        for (Thread thread : Thread.getAllStackTraces().keySet()) {
            if (thread.getName().startsWith("ofl-")) {
                names.add(thread.getName());
            }
        }
        return names;
    }
}
