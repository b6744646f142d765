package dev.ofl.api;

import dev.ofl.api.spi.OflBackend;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.ServiceLoader;

/**
 * The entry point: builds clients and servers for the backend a configuration names.
 *
 * <pre>{@code
 * try (OflServer server = Ofl.serve(ServerConfig.builder()
 *         .bind(new InetSocketAddress("127.0.0.1", 0)).serviceName("lookup").build(),
 *         (request, response) -> { response.write(request.payload()); return 0; });
 *      OflClient client = Ofl.connect(ClientConfig.builder()
 *         .server(server.localAddress()).serviceName("lookup").build())) {
 *     ...
 * }
 * }</pre>
 *
 * <p>A backend that cannot run is never silently replaced by another: asking for {@code "rdma"}
 * on a machine without RDMA fails with the reason and the fix.
 */
public final class Ofl {
    private Ofl() {
    }

    /**
     * Connects a client through the configured backend.
     *
     * @param config the client's settings
     * @return a connected client
     * @throws OflException if the backend is unknown or unavailable (with the cause), or the
     *     connection cannot be made or is refused
     */
    public static OflClient connect(ClientConfig config) {
        return available(config.backend()).connect(config);
    }

    /**
     * Starts a server through the configured backend.
     *
     * @param config the server's settings
     * @param handler the application logic, shared by all connections
     * @return a running server
     * @throws OflException if the backend is unknown or unavailable, or the server cannot start
     */
    public static OflServer serve(ServerConfig config, OflHandler handler) {
        return available(config.backend()).serve(config, handler);
    }

    /**
     * Lists the backends on the class or module path.
     *
     * @return their names, in service-loader order
     */
    public static List<String> backends() {
        List<String> names = new ArrayList<>();
        for (OflBackend backend : ServiceLoader.load(OflBackend.class, Ofl.class.getClassLoader())) {
            names.add(backend.name());
        }
        return names;
    }

    /**
     * Says whether a backend can run here.
     *
     * @param name the backend's name
     * @return empty if it is present and available; otherwise why not, with the fix
     */
    public static Optional<String> unavailabilityCause(String name) {
        Optional<OflBackend> backend = find(name);
        if (backend.isEmpty()) {
            return Optional.of(missing(name));
        }
        return backend.get().unavailabilityCause();
    }

    private static OflBackend available(String name) {
        OflBackend backend = find(name).orElseThrow(() -> new OflException(missing(name)));
        Optional<String> cause = backend.unavailabilityCause();
        if (cause.isPresent()) {
            throw new OflException("the " + name + " backend cannot run here: " + cause.get());
        }
        return backend;
    }

    private static Optional<OflBackend> find(String name) {
        for (OflBackend backend : ServiceLoader.load(OflBackend.class, Ofl.class.getClassLoader())) {
            if (backend.name().equals(name)) {
                return Optional.of(backend);
            }
        }
        return Optional.empty();
    }

    private static String missing(String name) {
        return "no ofl backend named '" + name + "' is on the class or module path (found: " + backends()
                + "); add the matching dependency: ofl-tcp for \"tcp\", ofl-ffm-verbs for \"rdma\"";
    }
}
