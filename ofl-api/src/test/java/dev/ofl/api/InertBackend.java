package dev.ofl.api;

import dev.ofl.api.spi.OflBackend;
import java.util.Optional;

/**
 * A backend that is found by name but never connects: reaching it proves that {@link Ofl} matched
 * the name. Registered through this module's test {@code META-INF/services}.
 */
public final class InertBackend implements OflBackend {
    /** The name it is registered under. */
    static final String NAME = "inert";

    /** Creates it; the service loader calls this. */
    public InertBackend() {
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
        throw new Reached(config.backend());
    }

    @Override
    public OflServer serve(ServerConfig config, OflHandler handler) {
        throw new Reached(config.backend());
    }

    /** Thrown instead of connecting or serving, carrying the backend name the config held. */
    static final class Reached extends RuntimeException {
        private static final long serialVersionUID = 1L;

        Reached(String configured) {
            super(configured);
        }
    }
}
