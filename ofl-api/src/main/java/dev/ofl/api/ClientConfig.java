package dev.ofl.api;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;

/**
 * Everything a client needs to connect. Immutable; build with {@link #builder()}.
 *
 * <table>
 * <caption>Settings and defaults</caption>
 * <tr><th>setting</th><th>default</th><th>meaning</th></tr>
 * <tr><td>backend</td><td>{@code "tcp"}</td><td>{@code "tcp"} or {@code "rdma"}; never silently replaced</td></tr>
 * <tr><td>server</td><td>(required)</td><td>the server's bound address and port</td></tr>
 * <tr><td>localAddress</td><td>none (chosen by routing)</td><td>local IP to connect from; RDMA finds its GID from it</td></tr>
 * <tr><td>serviceName</td><td>(required)</td><td>must equal the server's</td></tr>
 * <tr><td>limits</td><td>{@link Limits#CLIENT_DEFAULTS}</td><td>proposed to the server, which may refuse</td></tr>
 * <tr><td>waitMode</td><td>{@link WaitMode#BUSY_POLL}</td><td>how {@code await} waits</td></tr>
 * <tr><td>idleStrategy</td><td>{@link IdleStrategy#BUSY_SPIN}</td><td>between empty polls in busy-poll mode</td></tr>
 * <tr><td>clock</td><td>{@link NanoClock#SYSTEM}</td><td>what deadlines are measured on</td></tr>
 * <tr><td>connectTimeout</td><td>5 s</td><td>TCP connect plus bootstrap</td></tr>
 * <tr><td>properties</td><td>empty</td><td>backend-specific settings, documented by each backend</td></tr>
 * <tr><td>authentication</td><td>{@link PeerKeys#NONE} (off)</td><td>a pre-shared key both ends prove; see
 * {@link Builder#authenticationKey}</td></tr>
 * </table>
 *
 * @param backend the backend's name, stored in lower case: names match without regard to case, and
 * {@link Ofl} checks it against the backends present when connecting or serving
 * @param server the server's address
 * @param localAddress the local address to bind before connecting, or {@code null}
 * @param serviceName the service both ends must name
 * @param limits the proposed limits
 * @param waitMode how {@code await} waits
 * @param idleStrategy what busy polling does between empty polls
 * @param clock the deadline clock
 * @param connectTimeout bound on connect plus bootstrap
 * @param properties backend-specific settings
 * @param authentication the key this client proves and requires the server to prove, or
 * {@link PeerKeys#NONE}; its {@code toString} shows the key id only
 */
public record ClientConfig(String backend, InetSocketAddress server, InetAddress localAddress, String serviceName,
        Limits limits, WaitMode waitMode, IdleStrategy idleStrategy, NanoClock clock, Duration connectTimeout,
        Map<String, String> properties, PeerKeys authentication) {

    /**
     * Validates the settings.
     *
     * @throws IllegalArgumentException naming a missing or invalid setting
     */
    public ClientConfig {
        Objects.requireNonNull(backend, "backend");
        if (backend.isBlank()) {
            throw new IllegalArgumentException("backend must name a backend, such as \"tcp\" or \"rdma\"; was blank");
        }
        backend = backend.strip().toLowerCase(Locale.ROOT);
        if (server == null) {
            throw new IllegalArgumentException("server address must be set");
        }
        if (server.isUnresolved()) {
            throw new IllegalArgumentException("server address " + server + " is unresolved");
        }
        ServiceName.check(serviceName);
        Objects.requireNonNull(limits, "limits");
        Objects.requireNonNull(waitMode, "waitMode");
        Objects.requireNonNull(idleStrategy, "idleStrategy");
        Objects.requireNonNull(clock, "clock");
        if (connectTimeout == null || connectTimeout.isNegative() || connectTimeout.isZero()) {
            throw new IllegalArgumentException("connectTimeout must be positive, was " + connectTimeout);
        }
        properties = Map.copyOf(properties);
        Objects.requireNonNull(authentication, "authentication");
    }

    /**
     * Starts a builder with every default.
     *
     * @return a new builder
     */
    public static Builder builder() {
        return new Builder();
    }

    /** Builds a {@link ClientConfig}. Not thread-safe. */
    public static final class Builder {
        private String backend = "tcp";
        private InetSocketAddress server;
        private InetAddress localAddress;
        private String serviceName;
        private Limits limits = Limits.CLIENT_DEFAULTS;
        private WaitMode waitMode = WaitMode.BUSY_POLL;
        private IdleStrategy idleStrategy = IdleStrategy.BUSY_SPIN;
        private NanoClock clock = NanoClock.SYSTEM;
        private Duration connectTimeout = Duration.ofSeconds(5);
        private Map<String, String> properties = Map.of();
        private PeerKeys authentication = PeerKeys.NONE;

        private Builder() {
        }

        /**
         * Names the backend.
         *
         * @param backend {@code "tcp"} or {@code "rdma"}
         * @return this builder
         */
        public Builder backend(String backend) {
            this.backend = backend;
            return this;
        }

        /**
         * Sets the server's address.
         *
         * @param server a resolved address and port
         * @return this builder
         */
        public Builder server(InetSocketAddress server) {
            this.server = server;
            return this;
        }

        /**
         * Sets the local address to connect from.
         *
         * @param localAddress a local IP address, or {@code null} to let routing choose
         * @return this builder
         */
        public Builder localAddress(InetAddress localAddress) {
            this.localAddress = localAddress;
            return this;
        }

        /**
         * Sets the service name.
         *
         * @param serviceName 1 to 64 bytes of UTF-8; must equal the server's
         * @return this builder
         */
        public Builder serviceName(String serviceName) {
            this.serviceName = serviceName;
            return this;
        }

        /**
         * Sets the limits to propose.
         *
         * @param limits the limits
         * @return this builder
         */
        public Builder limits(Limits limits) {
            this.limits = limits;
            return this;
        }

        /**
         * Sets how {@code await} waits.
         *
         * @param waitMode busy poll or blocking
         * @return this builder
         */
        public Builder waitMode(WaitMode waitMode) {
            this.waitMode = waitMode;
            return this;
        }

        /**
         * Sets what busy polling does between empty polls.
         *
         * @param idleStrategy the strategy
         * @return this builder
         */
        public Builder idleStrategy(IdleStrategy idleStrategy) {
            this.idleStrategy = idleStrategy;
            return this;
        }

        /**
         * Sets the deadline clock.
         *
         * @param clock the clock
         * @return this builder
         */
        public Builder clock(NanoClock clock) {
            this.clock = clock;
            return this;
        }

        /**
         * Bounds connect plus bootstrap.
         *
         * @param connectTimeout a positive duration
         * @return this builder
         */
        public Builder connectTimeout(Duration connectTimeout) {
            this.connectTimeout = connectTimeout;
            return this;
        }

        /**
         * Sets backend-specific properties.
         *
         * @param properties names and values, as documented by the backend
         * @return this builder
         */
        public Builder properties(Map<String, String> properties) {
            this.properties = properties;
            return this;
        }

        /**
         * Sets the pre-shared key this client proves, and makes peer authentication required
         * both ways: the client offers the key in its HELLO, answers the server's challenge, and
         * refuses a server that accepts without proving the same key over the whole exchange
         * (docs/PROTOCOL.md 3.8). A second call replaces the key: a client proves one key.
         *
         * <p>Load the key from a file only the application's user can read, for example
         * {@code Files.readAllBytes(Path.of("/etc/ofl/lookup-7.key"))} for a file made with
         * {@code head -c 32 /dev/urandom}, or from a secret store; never from a command line
         * (other users can read it) or source code. The key is copied: overwrite your array
         * ({@code Arrays.fill(key, (byte) 0)}) once the configuration is built. The key is never
         * logged; messages name the key id only.
         *
         * @param keyId the key's id, sent in the clear so that the server can pick the key
         * @param key at least {@value PeerKeys#MIN_KEY_BYTES} random bytes, the same as the server's
         *     key of that id
         * @return this builder
         * @throws IllegalArgumentException if the key is too short
         */
        public Builder authenticationKey(int keyId, byte[] key) {
            this.authentication = PeerKeys.NONE.with(keyId, key);
            return this;
        }

        /**
         * Builds and validates the configuration.
         *
         * @return the configuration
         * @throws IllegalArgumentException naming a missing or invalid setting
         */
        public ClientConfig build() {
            return new ClientConfig(backend, server, localAddress, serviceName, limits, waitMode, idleStrategy,
                    clock, connectTimeout, properties, authentication);
        }
    }
}
