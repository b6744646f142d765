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
        private static final java.util.Set<String> SETTING_NAMES = java.util.Set.of("backend", "server",
                "localAddress", "serviceName", "waitMode", "idleStrategy", "connectTimeout", "authentication.keyId",
                "authentication.keyFile");

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
         * Applies settings given as text, for configuration read from a file, the environment or a
         * framework (Spring's {@code @ConfigurationProperties} into a {@code Map}, HOCON, YAML). Each
         * name sets what the builder method of that name sets; a value is checked for its form here
         * and for its range by {@link #build()}, exactly as one set in code. Names:
         *
         * <table>
         * <caption>Client settings as text</caption>
         * <tr><th>name</th><th>value</th></tr>
         * <tr><td>backend, serviceName</td><td>text</td></tr>
         * <tr><td>server</td><td>{@code host:port}, IPv6 in brackets: {@code [fd00::2]:7000}</td></tr>
         * <tr><td>localAddress</td><td>an IP address</td></tr>
         * <tr><td>waitMode</td><td>{@code busy-poll} or {@code blocking}</td></tr>
         * <tr><td>idleStrategy</td><td>{@code busy-spin} or {@code yield}</td></tr>
         * <tr><td>connectTimeout</td><td>a duration: {@code 250ms}, {@code 5s}, {@code 1.5s}, {@code PT5S}</td></tr>
         * <tr><td>limits.maxRequestBytes, limits.maxResponseBytes</td><td>bytes: {@code 4096}, {@code 256KiB},
         * {@code 16MiB}</td></tr>
         * <tr><td>limits.maxRanges, limits.maxInFlight</td><td>a whole number</td></tr>
         * <tr><td>authentication.keyId, authentication.keyFile</td><td>both or neither: the key's id, and a
         * file read with {@link PeerKeys#readKeyFile}'s checks</td></tr>
         * <tr><td>properties.<i>name</i></td><td>a backend property, added to {@link #properties}</td></tr>
         * </table>
         *
         * <p>The clock and other strategies are set in code. An unknown name is refused with the list
         * of known ones, so that a misspelt setting fails at start-up instead of being ignored.
         *
         * @param settings names and values; applied in name order, later calls override earlier ones
         * @return this builder
         * @throws IllegalArgumentException naming the setting, its value and the forms accepted
         */
        public Builder settings(Map<String, String> settings) {
            Integer keyId = null;
            String keyFile = null;
            Map<String, String> backendProperties = new java.util.TreeMap<>(properties);
            for (Map.Entry<String, String> e : new java.util.TreeMap<>(settings).entrySet()) {
                String name = e.getKey();
                String value = e.getValue();
                Limits grouped = Settings.group(name, value, limits, backendProperties, SETTING_NAMES);
                if (grouped != null) {
                    limits = grouped;
                    continue;
                }
                switch (name) {
                    case "backend" -> backend = Settings.text(name, value);
                    case "server" -> server = Settings.socketAddress(name, value);
                    case "localAddress" -> localAddress = Settings.address(name, value);
                    case "serviceName" -> serviceName = Settings.text(name, value);
                    case "waitMode" -> waitMode = Settings.constant(name, value, WaitMode.class);
                    case "idleStrategy" -> idleStrategy = Settings.idleStrategy(name, value);
                    case "connectTimeout" -> connectTimeout = Settings.duration(name, value);
                    case "authentication.keyId" -> keyId = Settings.integer(name, value);
                    case "authentication.keyFile" -> keyFile = Settings.text(name, value);
                    default -> throw Settings.unknown(name, SETTING_NAMES);
                }
            }
            if ((keyId == null) != (keyFile == null)) {
                throw new IllegalArgumentException("settings \"authentication.keyId\" and \"authentication.keyFile\" "
                        + "go together: set both, or neither for no authentication");
            }
            if (keyId != null) {
                byte[] key = Settings.keyFile("authentication.keyFile", keyFile);
                try {
                    authenticationKey(keyId, key);
                } finally {
                    java.util.Arrays.fill(key, (byte) 0);
                }
            }
            properties = backendProperties;
            return this;
        }

        /**
         * Applies the settings among {@code properties} whose names start with {@code prefix}, the
         * prefix removed (other entries are left alone): {@code settings(props, "ofl.client.")}
         * reads {@code ofl.client.server=10.0.0.2:7000}. See {@link #settings(Map)}.
         *
         * @param properties for example a properties file's contents, or {@link System#getProperties()}
         * @param prefix what each name starts with, such as {@code "ofl.client."}
         * @return this builder
         * @throws IllegalArgumentException naming the setting, its value and the forms accepted
         */
        public Builder settings(java.util.Properties properties, String prefix) {
            return settings(Settings.withPrefix(properties, prefix));
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
