package dev.ofl.tcp;

import dev.ofl.api.Limits;
import dev.ofl.api.OflHandler;
import dev.ofl.api.OflServer;
import dev.ofl.api.ServerConfig;
import dev.ofl.api.ServerStatistics;
import dev.ofl.api.spi.BootstrapServer;
import java.net.InetSocketAddress;

/** The TCP server: the shared bootstrap server, with the data path on each connection's socket. */
final class TcpServer implements OflServer {
    private final BootstrapServer server;

    private TcpServer(BootstrapServer server) {
        this.server = server;
    }

    static TcpServer start(ServerConfig config, OflHandler handler) {
        return new TcpServer(BootstrapServer.start(config, TcpBackend.NAME,
                (server, channel, id) -> new TcpServerConnection(server, handler, channel, id)));
    }

    @Override
    public InetSocketAddress localAddress() {
        return server.localAddress();
    }

    @Override
    public int connectionCount() {
        return server.connectionCount();
    }

    @Override
    public Limits limits() {
        return server.config().limits();
    }

    @Override
    public ServerStatistics statistics() {
        return server.counters().snapshot();
    }

    @Override
    public String backend() {
        return TcpBackend.NAME;
    }

    @Override
    public void close() {
        server.close();
    }
}
