package dev.ofl.testing;

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
 * The {@code "fake"} backend: the ofl protocol engine of every backend, over a data path that
 * moves inside the process. The bootstrap and liveness use a loopback TCP connection, as RDMA's
 * do; requests, response bytes and completions never touch a socket. Clients and servers must
 * live in one JVM. Faults are injected per service name through {@link FakeFaults}.
 *
 * <p>For tests only: it copies and allocates per request.
 */
public final class FakeBackend implements OflBackend {
    /** The name configurations use. */
    public static final String NAME = "fake";

    /** Creates the backend; called by the service loader. */
    public FakeBackend() {
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
        return new ClientSession(config, FakeClientTransport::new);
    }

    @Override
    public OflServer serve(ServerConfig config, OflHandler handler) {
        StagingPool pool = new StagingPool(config.stagingBudgetBytes(), StagingPool.Memory.offHeap(), config.clock());
        return BootstrapServer.start(config, NAME, handler,
                (serverConfig, channel, id) -> new FakeServerTransport(serverConfig, channel, pool),
                server -> pool.close());
    }
}
