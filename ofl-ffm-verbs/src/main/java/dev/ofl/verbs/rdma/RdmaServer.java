package dev.ofl.verbs.rdma;

import dev.ofl.api.Limits;
import dev.ofl.api.OflHandler;
import dev.ofl.api.OflServer;
import dev.ofl.api.ServerConfig;
import dev.ofl.api.ServerStatistics;
import dev.ofl.api.spi.BootstrapServer;
import dev.ofl.api.OflException;
import dev.ofl.verbs.VerbsException;
import java.net.InetSocketAddress;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The RDMA server: the shared bootstrap server, with one RC queue pair per connection on the
 * device that carries the bound address. Owns the device (context and PD) until closed, after
 * every connection.
 */
final class RdmaServer implements OflServer {
    private static final Logger LOG = LoggerFactory.getLogger(RdmaServer.class);
    private final BootstrapServer server;
    private final RdmaDevice device;

    private RdmaServer(BootstrapServer server, RdmaDevice device) {
        this.server = server;
        this.device = device;
    }

    static RdmaServer start(ServerConfig config, OflHandler handler) {
        RdmaSettings settings = RdmaSettings.from(config.properties());
        RdmaDevice device;
        try {
            device = RdmaDevice.open(config.bind().getAddress(), settings);
        } catch (VerbsException e) {
            throw new OflException("cannot use RDMA on " + config.bind().getAddress().getHostAddress() + ": "
                    + e.getMessage(), e);
        }
        try {
            return new RdmaServer(BootstrapServer.start(config, RdmaBackend.NAME,
                    (server, channel, id) -> new RdmaServerConnection(server, device, settings, handler, channel, id)),
                    device);
        } catch (RuntimeException e) {
            device.close();
            throw e;
        }
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
        return RdmaBackend.NAME;
    }

    /**
     * Drains, then releases the device. A connection whose handler outlived the drain still uses
     * the device, so then the device is left open (and logged) rather than destroyed under it.
     */
    @Override
    public void close() {
        server.close();
        if (server.allConnectionsEnded()) {
            device.close();
        } else {
            LOG.error("a handler outlived the drain timeout on {}; its RDMA device is left open so that its "
                    + "queue pair is not destroyed under it", server.localAddress());
        }
    }
}
