package dev.ofl.verbs.rdma;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import dev.ofl.api.ClientConfig;
import dev.ofl.api.Completion;
import dev.ofl.api.Ofl;
import dev.ofl.api.OflClient;
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
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * What wakes a parked BLOCKING connection when no completion will: its server runs on a
 * {@link CompletionPoller} of its own that never sweeps, so a connection woken here was woken by
 * whoever changed what it waits for. A client that leaves an idle connection is noticed (the
 * liveness watcher wakes it), and a closing server drains an idle connection without waiting out
 * its drain timeout.
 */
@Timeout(180)
class RdmaWakeUpTest {
    private static final String SERVICE = "wake-up";

    /** A server whose connections run on a poller of their own, which never sweeps. */
    private static WatchedRdmaServer serve(ServerConfig config) {
        return new WatchedRdmaServer(config, WatchedRdmaServer.ECHO, new CompletionPoller(TimeUnit.HOURS.toNanos(1)));
    }

    private static ServerConfig config() {
        return ServerConfig.builder().backend(RdmaBackend.NAME)
                .bind(new InetSocketAddress(TestEnvironment.address(), 0)).serviceName(SERVICE)
                .waitMode(WaitMode.BLOCKING).drainTimeout(TestEnvironment.duration(600))
                .properties(TestEnvironment.rdmaProperties()).build();
    }

    private static OflClient connect(WatchedRdmaServer watched) {
        return Ofl.connect(ClientConfig.builder().backend(RdmaBackend.NAME).server(watched.server.localAddress())
                .serviceName(SERVICE).connectTimeout(TestEnvironment.duration(5))
                .properties(TestEnvironment.rdmaProperties()).build());
    }

    /** One echo, so that the connection is serving and then parks waiting for the next request. */
    private static void echo(OflClient client, Arena arena) {
        MemorySegment memory = arena.allocate(8, 8);
        Region region = client.registerRegion(memory);
        client.requestPayload().set(ValueLayout.JAVA_LONG_UNALIGNED, 0, 77L);
        Completion completion = new Completion();
        assertEquals(OflStatus.OK, client.call(1, 0, 8, new ResponseRanges().add(region, 0, 8),
                TestEnvironment.nanos(10), completion), completion::toString);
        assertEquals(77L, memory.get(ValueLayout.JAVA_LONG_UNALIGNED, 0));
    }

    @Test
    void aClientThatLeavesAnIdleConnectionIsNoticedWithoutACompletion() {
        try (WatchedRdmaServer watched = serve(config()); Arena arena = Arena.ofShared()) {
            OflClient client = connect(watched);
            echo(client, arena);
            client.close();
            // Nothing completes on the server's queue pair: only the liveness watcher's wake-up ends its park.
            Conditions.await(() -> watched.server.connectionCount() == 0, "the server to end the connection its client left");
        }
    }

    @Test
    void aClosingServerDrainsAnIdleConnectionWithoutWaitingOutTheDrainTimeout() {
        WatchedRdmaServer watched = serve(config());
        try (Arena arena = Arena.ofShared(); OflClient client = connect(watched)) {
            echo(client, arena);
            // The drain timeout is ten minutes: only the drain's wake-up ends the idle connection sooner.
            assertTimeoutPreemptively(TestEnvironment.duration(60), watched::close,
                    "close() of a server whose only connection is idle");
            assertEquals(0, watched.server.connectionCount());
        }
    }
}
