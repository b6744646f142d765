package dev.ofl.api.spi;

import dev.ofl.api.ClientConfig;
import dev.ofl.api.OflClient;
import dev.ofl.api.OflHandler;
import dev.ofl.api.OflServer;
import dev.ofl.api.ServerConfig;
import java.util.Optional;

/**
 * A transport backend, found through {@link java.util.ServiceLoader}. Implementations must have a
 * public no-argument constructor and be cheap to construct: probing native availability happens
 * lazily, once, in {@link #unavailabilityCause()}.
 */
public interface OflBackend {
    /**
     * The name configurations use to pick this backend.
     *
     * @return a short lower-case name, for example {@code "tcp"}
     */
    String name();

    /**
     * Why this backend cannot run here, if it cannot.
     *
     * @return empty when available; otherwise a message that names the cause and the fix
     */
    Optional<String> unavailabilityCause();

    /**
     * Connects a client.
     *
     * @param config the client's settings, naming this backend
     * @return a connected client
     * @throws dev.ofl.api.OflException if the connection cannot be made or is refused
     */
    OflClient connect(ClientConfig config);

    /**
     * Starts a server.
     *
     * @param config the server's settings, naming this backend
     * @param handler the application logic
     * @return a running server
     * @throws dev.ofl.api.OflException if the server cannot be started
     */
    OflServer serve(ServerConfig config, OflHandler handler);
}
