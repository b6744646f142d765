package dev.ofl.verbs.rdma;

import dev.ofl.api.OflException;
import dev.ofl.api.OflHandler;
import dev.ofl.api.OflServer;
import dev.ofl.api.ServerConfig;
import dev.ofl.api.spi.BootstrapServer;
import dev.ofl.api.spi.StagingPool;
import dev.ofl.verbs.VerbsException;
import java.util.function.Consumer;
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
        return start(config, handler, CompletionPoller.shared(), pool -> { }, transport -> { });
    }

    /**
     * Starts the server as the backend does, on {@code poller}, and shows its staging pool to
     * {@code staging} before it serves and each connection's transport to {@code connections} as
     * it is made: for tests that watch a server built the one way servers are built.
     */
    static BootstrapServer start(ServerConfig config, OflHandler handler, CompletionPoller poller,
            Consumer<StagingPool> staging, Consumer<RdmaServerTransport> connections) {
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
            staging.accept(pool);
            return BootstrapServer.start(config, RdmaBackend.NAME, handler,
                    (serverConfig, channel, id) -> {
                        RdmaServerTransport transport = new RdmaServerTransport(device, settings, serverConfig,
                                channel, pool, memory, poller);
                        connections.accept(transport);
                        return transport;
                    },
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
