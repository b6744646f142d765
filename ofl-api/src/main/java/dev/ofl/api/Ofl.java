package dev.ofl.api;

import dev.ofl.api.spi.OflBackend;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.ServiceLoader;
import java.util.Set;

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
 *
 * <p>Backend names are matched without regard to case ({@code "RDMA"} finds {@code "rdma"}). A
 * name that no backend on the class or module path carries fails with the names that are there,
 * the closest of them (or of the known names {@code "tcp"} and {@code "rdma"}), the artifact that
 * provides it, and, because a merged ("shaded", "fat") jar that keeps only one
 * {@code META-INF/services/dev.ofl.api.spi.OflBackend} file loses the other backends, how to
 * merge those files.
 */
public final class Ofl {
    /** The backends this project ships; {@link #artifactOf(String)} names the artifact of each. */
    private static final List<String> KNOWN = List.of("tcp", "rdma");

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
     * @return empty if it is present and available; otherwise why not, with the fix (for an
     *     unknown name, the names found and the closest one)
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
            if (backend.name().equalsIgnoreCase(name.strip())) {
                return Optional.of(backend);
            }
        }
        return Optional.empty();
    }

    static String missing(String name) {
        List<String> found = backends();
        StringBuilder message = new StringBuilder("no ofl backend named '").append(name)
                .append("' is on the class or module path (found: ").append(found).append(')');
        Set<String> candidates = new LinkedHashSet<>(found);
        candidates.addAll(KNOWN);
        closest(name, candidates).ifPresent(c -> message.append("; did you mean '").append(c).append("'?"));
        String known = name.strip().toLowerCase(Locale.ROOT);
        if (KNOWN.contains(known) && !found.contains(known)) {
            message.append(" Fix: add the dependency dev.ofl:").append(artifactOf(known)).append(" for \"")
                    .append(known).append("\". If it is already a dependency and the application runs from a ")
                    .append("merged (shaded) jar, that jar kept only one META-INF/services/")
                    .append(OflBackend.class.getName()).append(" file: merge the service files ")
                    .append("(maven-shade-plugin's ServicesResourceTransformer, Gradle shadow's mergeServiceFiles())");
        } else {
            message.append(" Fix: name one of ").append(found.isEmpty() ? KNOWN : found)
                    .append(" (dev.ofl:ofl-tcp provides \"tcp\", dev.ofl:ofl-ffm-verbs \"rdma\"); a backend that is a ")
                    .append("dependency but not found was lost by a merged (shaded) jar that kept one ")
                    .append("META-INF/services/").append(OflBackend.class.getName()).append(" file: merge them");
        }
        return message.toString();
    }

    private static String artifactOf(String known) {
        return known.equals("tcp") ? "ofl-tcp" : "ofl-ffm-verbs";
    }

    /**
     * Picks the candidate nearest to a misspelt name, if one is near enough to be a likely typo:
     * at most two edits away, and fewer edits than the name has characters.
     */
    static Optional<String> closest(String name, Iterable<String> candidates) {
        String wanted = name.strip().toLowerCase(Locale.ROOT);
        String best = null;
        int bestDistance = Integer.MAX_VALUE;
        for (String candidate : candidates) {
            int distance = editDistance(wanted, candidate.toLowerCase(Locale.ROOT));
            if (distance < bestDistance) {
                best = candidate;
                bestDistance = distance;
            }
        }
        if (best == null || bestDistance == 0 || bestDistance > 2 || bestDistance >= wanted.length()) {
            return Optional.empty();
        }
        return Optional.of(best);
    }

    /** Levenshtein distance: insertions, deletions and substitutions each cost one. */
    private static int editDistance(String a, String b) {
        int[] previous = new int[b.length() + 1];
        int[] current = new int[b.length() + 1];
        for (int j = 0; j <= b.length(); j++) {
            previous[j] = j;
        }
        for (int i = 1; i <= a.length(); i++) {
            current[0] = i;
            for (int j = 1; j <= b.length(); j++) {
                int substitution = previous[j - 1] + (a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1);
                current[j] = Math.min(substitution, Math.min(previous[j], current[j - 1]) + 1);
            }
            int[] swap = previous;
            previous = current;
            current = swap;
        }
        return previous[b.length()];
    }
}
