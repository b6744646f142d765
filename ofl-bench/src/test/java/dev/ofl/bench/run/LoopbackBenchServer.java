package dev.ofl.bench.run;

import dev.ofl.api.Limits;
import dev.ofl.api.Ofl;
import dev.ofl.api.OflHandler;
import dev.ofl.api.OflServer;
import dev.ofl.api.ServerConfig;
import dev.ofl.api.WaitMode;
import java.net.InetAddress;
import java.net.InetSocketAddress;

/** A TCP server in the test's JVM that {@code ofl-bench client} talks to as to {@code ofl-bench server}. */
final class LoopbackBenchServer {
    private LoopbackBenchServer() {
    }

    /** A BLOCKING server on an ephemeral loopback port, with the bench's service name and limits fit for small cases. */
    static OflServer blocking(OflHandler handler) {
        return Ofl.serve(ServerConfig.builder()
                .backend("tcp")
                .bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))
                .serviceName(BenchServer.SERVICE)
                .limits(new Limits(4096, 1 << 20, 1, 1))
                .waitMode(WaitMode.BLOCKING)
                .build(), handler);
    }

    /** The base port to give {@code client --port}: busy and blocking name different ports of one base. */
    static int basePort(OflServer server) {
        return server.localAddress().getPort() - BenchServer.port(0, "tcp", WaitMode.BLOCKING);
    }
}
