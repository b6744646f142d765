package dev.ofl.verbs.rdma;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.ofl.api.OflHandler;
import dev.ofl.api.ServerConfig;
import dev.ofl.api.spi.BootstrapServer;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * An RDMA server built as the backend builds one ({@link RdmaServer}), whose connections'
 * transports a test can look at while it serves.
 */
final class WatchedRdmaServer implements AutoCloseable {
    /** Answers each request with its payload. */
    static final OflHandler ECHO = (request, response) -> {
        response.write(request.payload());
        return 0;
    };

    final BootstrapServer server;
    /** The server's connections' transports, in the order they were made. */
    final List<RdmaServerTransport> transports = new CopyOnWriteArrayList<>();

    /** Starts the server on the shared completion poller, as the backend does. */
    WatchedRdmaServer(ServerConfig config, OflHandler handler) {
        this(config, handler, CompletionPoller.shared());
    }

    WatchedRdmaServer(ServerConfig config, OflHandler handler, CompletionPoller poller) {
        server = RdmaServer.start(config, handler, poller, staging -> { }, transports::add);
    }

    /** The transport of the server's one connection, which the test expects to be its only one. */
    RdmaServerTransport onlyConnection() {
        assertEquals(1, transports.size(), "connections");
        return transports.get(0);
    }

    @Override
    public void close() {
        server.close();
    }
}
