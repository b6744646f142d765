package dev.ofl.verbs.rdma;

import dev.ofl.api.OflException;
import dev.ofl.api.OflHandler;
import dev.ofl.api.OflServer;
import dev.ofl.api.ServerConfig;
import dev.ofl.api.spi.BootstrapServer;
import dev.ofl.verbs.VerbsException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Starts the RDMA server: the shared bootstrap server, with one RC queue pair per connection on
 * the device that carries the bound address. The device (context and PD) is shared by the
 * connections and released after the last of them.
 */
final class RdmaServer {
    private static final Logger LOG = LoggerFactory.getLogger(RdmaServer.class);

    private RdmaServer() {
    }

    static OflServer start(ServerConfig config, OflHandler handler) {
        RdmaSettings settings = RdmaSettings.from(config.properties());
        RdmaDevice device;
        try {
            device = RdmaDevice.open(config.bind().getAddress(), settings);
        } catch (VerbsException e) {
            throw new OflException("cannot use RDMA on " + config.bind().getAddress().getHostAddress() + ": "
                    + e.getMessage(), e);
        }
        try {
            return BootstrapServer.start(config, RdmaBackend.NAME,
                    (server, channel, id) -> new RdmaServerConnection(server, device, settings, handler, channel, id),
                    server -> release(server, device));
        } catch (RuntimeException e) {
            device.close();
            throw e;
        }
    }

    /**
     * Releases the device after a drain. A connection whose handler outlived the drain still uses
     * it, so then the device is left open (and logged) rather than destroyed under that queue pair.
     */
    private static void release(BootstrapServer server, RdmaDevice device) {
        if (server.allConnectionsEnded()) {
            device.close();
        } else {
            LOG.error("a handler outlived the drain timeout on {}; its RDMA device is left open so that its "
                    + "queue pair is not destroyed under it", server.localAddress());
        }
    }
}
