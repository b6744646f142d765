package dev.ofl.tcp;

import dev.ofl.api.ClientConfig;
import dev.ofl.api.OflClient;
import dev.ofl.api.OflHandler;
import dev.ofl.api.OflServer;
import dev.ofl.api.ServerConfig;
import dev.ofl.api.spi.BootstrapServer;
import dev.ofl.api.spi.ClientSession;
import dev.ofl.api.spi.OflBackend;
import dev.ofl.api.spi.StagingPool;
import java.util.Optional;

/**
 * The {@code "tcp"} backend, found by {@link dev.ofl.api.Ofl} through the service loader. Always
 * available. It takes no backend-specific properties.
 */
public final class TcpBackend implements OflBackend {
    /** The name configurations use. */
    public static final String NAME = "tcp";

    /** Creates the backend; called by the service loader. */
    public TcpBackend() {
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public Optional<String> unavailabilityCause() {
        return Optional.empty();
    }

    @Override
    public OflClient connect(ClientConfig config) {
        return new ClientSession(config, TcpClientTransport::new);
    }

    @Override
    public OflServer serve(ServerConfig config, OflHandler handler) {
        StagingPool pool = new StagingPool(config.stagingBudgetBytes(), StagingPool.Memory.offHeap(), config.clock());
        return BootstrapServer.start(config, NAME, handler,
                (serverConfig, channel, id) -> new TcpServerTransport(serverConfig, channel, pool),
                server -> pool.close());
    }
}
