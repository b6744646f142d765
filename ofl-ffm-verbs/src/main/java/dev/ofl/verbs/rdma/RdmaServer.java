package dev.ofl.verbs.rdma;

import dev.ofl.api.OflException;
import dev.ofl.api.OflHandler;
import dev.ofl.api.OflServer;
import dev.ofl.api.ServerConfig;
import dev.ofl.api.spi.BootstrapServer;
import dev.ofl.api.spi.StagingPool;
import dev.ofl.verbs.VerbsException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Starts the RDMA server: the shared bootstrap server, with one RC queue pair per connection on
 * the device that carries the bound address. The device (context and PD) is shared by the
 * connections and released after the last of them ended, even one whose handler outlived the
 * drain: no queue pair is destroyed under a running connection. The response staging pool is one
 * registration in the device's protection domain, shared by every connection of the server, and
 * deregistered before the device closes.
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
        RegisteredStaging memory = new RegisteredStaging(device);
        StagingPool pool = new StagingPool(config.stagingBudgetBytes(), memory, config.clock());
        try {
            return BootstrapServer.start(config, RdmaBackend.NAME, handler,
                    (serverConfig, channel, id) -> new RdmaServerTransport(device, settings, serverConfig, channel,
                            pool, memory),
                    server -> {
                        pool.close();
                        if (pool.pinned()) {
                            LOG.error("the RDMA device of {} stays open: a connection's teardown failed, so the "
                                    + "staging memory stays registered", config.bind());
                        } else {
                            device.close();
                        }
                    });
        } catch (RuntimeException e) {
            device.close();
            throw e;
        }
    }
}
