package dev.ofl.verbs.rdma;

import dev.ofl.api.ClientConfig;
import dev.ofl.api.OflClient;
import dev.ofl.api.OflHandler;
import dev.ofl.api.OflServer;
import dev.ofl.api.ServerConfig;
import dev.ofl.api.spi.ClientSession;
import dev.ofl.api.spi.OflBackend;
import dev.ofl.verbs.RdmaAvailability;
import dev.ofl.verbs.RdmaUnavailableException;
import java.util.Optional;

/**
 * The {@code "rdma"} backend, found by {@link dev.ofl.api.Ofl} through the service loader. Available
 * when libibverbs loads (property {@code ofl.verbs.library} or environment
 * {@code OFL_VERBS_LIBRARY} names another library, such as softverbs) and lists a device; otherwise
 * {@link #unavailabilityCause()} says why and names the fix. Backend properties are listed in the
 * package documentation.
 */
public final class RdmaBackend implements OflBackend {
    /** The name configurations use. */
    public static final String NAME = "rdma";

    /** Creates the backend; called by the service loader. Probes nothing until asked. */
    public RdmaBackend() {
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public Optional<String> unavailabilityCause() {
        RdmaUnavailableException cause = RdmaAvailability.unavailabilityCause();
        return cause == null ? Optional.empty() : Optional.of(cause.getMessage());
    }

    @Override
    public OflClient connect(ClientConfig config) {
        return new ClientSession(config, RdmaClientTransport::new);
    }

    @Override
    public OflServer serve(ServerConfig config, OflHandler handler) {
        return RdmaServer.start(config, handler);
    }
}
