package dev.ofl.api;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;

/**
 * Everything a server needs. Immutable; build with {@link #builder()}.
 *
 * <table>
 * <caption>Settings and defaults</caption>
 * <tr><th>setting</th><th>default</th><th>meaning</th></tr>
 * <tr><td>backend</td><td>{@code "tcp"}</td><td>{@code "tcp"} or {@code "rdma"}</td></tr>
 * <tr><td>bind</td><td>(required)</td><td>an explicit local address; a wildcard is refused; port 0 picks one</td></tr>
 * <tr><td>serviceName</td><td>(required)</td><td>clients must name the same</td></tr>
 * <tr><td>limits</td><td>{@link Limits#SERVER_DEFAULTS}</td><td>the most a client may propose</td></tr>
 * <tr><td>maxConnections</td><td>64</td><td>further clients are refused with a reason</td></tr>
 * <tr><td>bootstrapTimeout</td><td>2 s</td><td>a client whose HELLO has not arrived whole by then is dropped
 * without an answer</td></tr>
 * <tr><td>drainTimeout</td><td>5 s</td><td>how long {@code close()} lets running handlers finish</td></tr>
 * <tr><td>waitMode</td><td>{@link WaitMode#BLOCKING}</td><td>how connection threads wait for requests</td></tr>
 * <tr><td>idleStrategy</td><td>{@link IdleStrategy#BUSY_SPIN}</td><td>between empty polls in busy-poll mode</td></tr>
 * <tr><td>clock</td><td>{@link NanoClock#SYSTEM}</td><td>the server's deadlines and log intervals</td></tr>
 * <tr><td>properties</td><td>empty</td><td>backend-specific settings</td></tr>
 * <tr><td>authentication</td><td>{@link PeerKeys#NONE} (off)</td><td>pre-shared keys a client must prove
 * before anything is allocated for it; see {@link Builder#authenticationKey}</td></tr>
 * <tr><td>idleTimeout</td><td>60 s</td><td>an accepted connection with no request for this long is closed
 * (between requests only)</td></tr>
 * <tr><td>maxConnectionsPerAddress</td><td>16</td><td>accepted connections from one source (an IPv4 address
 * or an IPv6 /64); further ones are refused with SERVER_BUSY unless one of the source's connections that
 * never sent a request gives way</td></tr>
 * <tr><td>maxPendingHandshakes</td><td>256</td><td>sockets still sending their HELLO or authentication proof;
 * beyond it the oldest is refused with SERVER_BUSY</td></tr>
 * <tr><td>maxPendingPerAddress</td><td>16</td><td>such sockets from one source; beyond it the source's
 * oldest is refused with SERVER_BUSY</td></tr>
 * <tr><td>handlerErrorListener</td><td>(the server's log)</td><td>told about every exception a handler
 * throws; see {@link HandlerErrorListener}</td></tr>
 * <tr><td>stagingBudgetBytes</td><td>the larger of 64 MiB and the limits' {@code maxResponseBytes}</td><td>response
 * staging memory shared by all connections, committed when the first response needs it; over RDMA
 * it also holds request payloads the server reads from its clients while their handlers run</td></tr>
 * <tr><td>stagingTimeout</td><td>1 s</td><td>how long a response waits for staging before it is answered
 * {@code BUSY}</td></tr>
 * <tr><td>connectionThreads</td><td>{@link ConnectionThreads#VIRTUAL}</td><td>in blocking mode, a virtual
 * thread per connection (cheap when idle) or a platform thread (over TCP, faster wake-ups)</td></tr>
 * <tr><td>stagingShareBytes</td><td>the larger of half the staging budget and the limits'
 * {@code maxResponseBytes}</td><td>the most staging one connection may hold at once, so that no
 * single connection holds the whole pool (a client with several connections may)</td></tr>
 * <tr><td>sendTimeout</td><td>5 s</td><td>the longest a transfer with a client (a response going out, the
 * rest of a request coming in) may go without any of its bytes moving; a connection whose peer stops
 * reading is broken after it and its staging returned</td></tr>
 * <tr><td>zeroStaging</td><td>{@code false}</td><td>clear each response's staging before its handler runs, so
 * that bytes a handler commits without writing are zeros rather than an earlier response's</td></tr>
 * <tr><td>receiveBudgetBytes</td><td>64 MiB</td><td>the most receive memory (buffers, RDMA receive slots) all
 * connections together commit when accepted, beyond the first MiB of each; a HELLO beyond it is refused
 * with SERVER_BUSY</td></tr>
 * <tr><td>failureReasons</td><td>{@code true}</td><td>tell a client why its request ended
 * {@code HANDLER_FAILED}: the exception's class name and message, at most 256 bytes, placed at the
 * start of the request's ranges (to clients that offer to take it; docs/PROTOCOL.md 4.6)</td></tr>
 * </table>
 *
 * <p>The bootstrap timeout bounds the wait for a client's HELLO (its first byte to its last): a
 * client sends it as soon as it connected, so a short bound costs honest clients nothing and frees
 * the slot of a silent or trickling one sooner.
 *
 * @param backend the backend's name, stored in lower case: names match without regard to case, and
 * {@link Ofl} checks it against the backends present when connecting or serving
 * @param bind the explicit address to listen on
 * @param serviceName the service clients must name
 * @param limits the maxima accepted from clients
 * @param maxConnections the most concurrent connections
 * @param bootstrapTimeout bound on a client's bootstrap
 * @param drainTimeout bound on {@code close()} waiting for handlers
 * @param waitMode how connection threads wait
 * @param idleStrategy what busy polling does between empty polls
 * @param properties backend-specific settings
 * @param clock the clock of the server's deadlines and log intervals
 * @param authentication the keys clients must prove, or {@link PeerKeys#NONE}; its
 * {@code toString} shows key ids only
 * @param idleTimeout how long an accepted connection may wait for its next request
 * @param maxConnectionsPerAddress the most concurrent accepted connections from one source address
 * @param maxPendingHandshakes the most sockets whose HELLO is still arriving
 * @param maxPendingPerAddress the most sockets from one source address whose HELLO is still arriving
 * @param handlerErrorListener told about handler failures, or {@code null} for the server's own
 * log (the first failure of each kind with its stack trace, repeats counted)
 * @param stagingBudgetBytes the most response staging memory all connections share (over RDMA, with
 * the request payloads the server reads); at least the limits' {@code maxResponseBytes}, so that
 * every response a client may ask for can be staged
 * @param stagingTimeout how long a response waits for staging memory before the request is
 * answered with the wire status {@code BUSY} without running the handler
 * @param connectionThreads which kind of thread serves each connection in blocking mode
 * @param stagingShareBytes the most staging one connection may hold at once; at least the limits'
 * {@code maxResponseBytes} and at most the staging budget
 * @param sendTimeout the longest a transfer with a client may go without any of its bytes moving
 * (TCP: written into or read from the socket; RDMA: a completion taken) before the connection is
 * broken
 * @param zeroStaging whether each response's staging is cleared before its handler runs
 * @param receiveBudgetBytes the most receive memory all accepted connections together commit for
 * their requests when accepted, beyond the first MiB of each (docs/PROTOCOL.md 13)
 * @param failureReasons whether a client that offers to take them is told why a handler failed
 */
public record ServerConfig(String backend, InetSocketAddress bind, String serviceName, Limits limits,
        int maxConnections, Duration bootstrapTimeout, Duration drainTimeout, WaitMode waitMode,
        IdleStrategy idleStrategy, Map<String, String> properties, NanoClock clock, PeerKeys authentication,
        Duration idleTimeout, int maxConnectionsPerAddress, int maxPendingHandshakes, int maxPendingPerAddress,
        HandlerErrorListener handlerErrorListener, long stagingBudgetBytes, Duration stagingTimeout,
        ConnectionThreads connectionThreads, long stagingShareBytes, Duration sendTimeout, boolean zeroStaging,
        long receiveBudgetBytes, boolean failureReasons) {
    /** The staging budget when none is set and the limits ask for no more: 64 MiB. */
    public static final long DEFAULT_STAGING_BUDGET_BYTES = 64L << 20;
    /** The receive budget when none is set: 64 MiB. */
    public static final long DEFAULT_RECEIVE_BUDGET_BYTES = 64L << 20;
    /** The largest staging budget: 64 GiB. */
    public static final long MAX_STAGING_BUDGET_BYTES = 64L << 30;

    /**
     * Validates the settings.
     *
     * @throws IllegalArgumentException naming a missing or invalid setting, including a wildcard
     *     bind address
     */
    public ServerConfig {
        Objects.requireNonNull(backend, "backend");
        if (backend.isBlank()) {
            throw new IllegalArgumentException("backend must name a backend, such as \"tcp\" or \"rdma\"; was blank");
        }
        backend = backend.strip().toLowerCase(Locale.ROOT);
        if (bind == null) {
            throw new IllegalArgumentException("bind address must be set to an explicit local address");
        }
        if (bind.isUnresolved()) {
            throw new IllegalArgumentException("bind address " + bind + " is unresolved");
        }
        if (bind.getAddress().isAnyLocalAddress()) {
            throw new IllegalArgumentException("bind address " + bind.getAddress().getHostAddress()
                    + " is a wildcard; bind the intended direct-link address explicitly");
        }
        ServiceName.check(serviceName);
        Objects.requireNonNull(limits, "limits");
        atLeastOne("maxConnections", maxConnections);
        positive("bootstrapTimeout", bootstrapTimeout);
        positive("drainTimeout", drainTimeout);
        Objects.requireNonNull(waitMode, "waitMode");
        Objects.requireNonNull(idleStrategy, "idleStrategy");
        properties = Map.copyOf(properties);
        Objects.requireNonNull(clock, "clock");
        Objects.requireNonNull(authentication, "authentication");
        positive("idleTimeout", idleTimeout);
        atLeastOne("maxConnectionsPerAddress", maxConnectionsPerAddress);
        atLeastOne("maxPendingHandshakes", maxPendingHandshakes);
        atLeastOne("maxPendingPerAddress", maxPendingPerAddress);
        if (stagingBudgetBytes < Math.max(1, limits.maxResponseBytes())
                || stagingBudgetBytes > MAX_STAGING_BUDGET_BYTES) {
            throw new IllegalArgumentException("stagingBudgetBytes " + stagingBudgetBytes + " must be at least the "
                    + "limits' maxResponseBytes (" + limits.maxResponseBytes() + ", and at least 1) and at most "
                    + MAX_STAGING_BUDGET_BYTES + ": raise the budget or lower maxResponseBytes");
        }
        positive("stagingTimeout", stagingTimeout);
        Objects.requireNonNull(connectionThreads, "connectionThreads");
        if (stagingShareBytes < Math.max(1, limits.maxResponseBytes()) || stagingShareBytes > stagingBudgetBytes) {
            throw new IllegalArgumentException("stagingShareBytes " + stagingShareBytes + " must be at least the "
                    + "limits' maxResponseBytes (" + limits.maxResponseBytes() + ", and at least 1), so that every "
                    + "response a client may ask for can be staged, and at most the staging budget ("
                    + stagingBudgetBytes + ")");
        }
        positive("sendTimeout", sendTimeout);
        if (receiveBudgetBytes < 1) {
            throw new IllegalArgumentException("receiveBudgetBytes must be at least 1, was " + receiveBudgetBytes);
        }
    }

    private static void atLeastOne(String name, int value) {
        if (value < 1) {
            throw new IllegalArgumentException(name + " must be at least 1, was " + value);
        }
    }

    private static void positive(String name, Duration value) {
        if (value == null || value.isNegative() || value.isZero()) {
            throw new IllegalArgumentException(name + " must be positive, was " + value);
        }
    }

    /**
     * Starts a builder with every default.
     *
     * @return a new builder
     */
    public static Builder builder() {
        return new Builder();
    }

    /** Builds a {@link ServerConfig}. Not thread-safe. */
    public static final class Builder {
        private static final String KEY_FILE = "authentication.keyFile.";
        private static final java.util.Set<String> SETTING_NAMES = java.util.Set.of("backend", "bind", "serviceName",
                "waitMode", "idleStrategy", "connectionThreads", "bootstrapTimeout", "drainTimeout", "idleTimeout",
                "stagingTimeout", "sendTimeout", "maxConnections", "maxConnectionsPerAddress", "maxPendingHandshakes",
                "maxPendingPerAddress", "stagingBudgetBytes", "stagingShareBytes", "receiveBudgetBytes",
                "zeroStaging", "failureReasons", KEY_FILE + "<id>");

        private String backend = "tcp";
        private InetSocketAddress bind;
        private String serviceName;
        private Limits limits = Limits.SERVER_DEFAULTS;
        private int maxConnections = 64;
        private Duration bootstrapTimeout = Duration.ofSeconds(2);
        private Duration drainTimeout = Duration.ofSeconds(5);
        private WaitMode waitMode = WaitMode.BLOCKING;
        private IdleStrategy idleStrategy = IdleStrategy.BUSY_SPIN;
        private Map<String, String> properties = Map.of();
        private NanoClock clock = NanoClock.SYSTEM;
        private PeerKeys authentication = PeerKeys.NONE;
        private Duration idleTimeout = Duration.ofSeconds(60);
        private int maxConnectionsPerAddress = 16;
        private int maxPendingHandshakes = 256;
        private int maxPendingPerAddress = 16;
        private HandlerErrorListener handlerErrorListener;
        private long stagingBudgetBytes = -1;
        private Duration stagingTimeout = Duration.ofSeconds(1);
        private ConnectionThreads connectionThreads = ConnectionThreads.VIRTUAL;
        private long stagingShareBytes = -1;
        private Duration sendTimeout = Duration.ofSeconds(5);
        private boolean zeroStaging;
        private boolean failureReasons = true;
        private long receiveBudgetBytes = DEFAULT_RECEIVE_BUDGET_BYTES;

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
         * Sets the address to listen on.
         *
         * @param bind an explicit local address; port 0 picks a free port
         * @return this builder
         */
        public Builder bind(InetSocketAddress bind) {
            this.bind = bind;
            return this;
        }

        /**
         * Sets the service name.
         *
         * @param serviceName 1 to 64 bytes of UTF-8
         * @return this builder
         */
        public Builder serviceName(String serviceName) {
            this.serviceName = serviceName;
            return this;
        }

        /**
         * Sets the maxima accepted from clients.
         *
         * @param limits the maxima
         * @return this builder
         */
        public Builder limits(Limits limits) {
            this.limits = limits;
            return this;
        }

        /**
         * Caps concurrent connections.
         *
         * @param maxConnections at least one
         * @return this builder
         */
        public Builder maxConnections(int maxConnections) {
            this.maxConnections = maxConnections;
            return this;
        }

        /**
         * Bounds a client's bootstrap.
         *
         * @param bootstrapTimeout a positive duration
         * @return this builder
         */
        public Builder bootstrapTimeout(Duration bootstrapTimeout) {
            this.bootstrapTimeout = bootstrapTimeout;
            return this;
        }

        /**
         * Bounds how long {@code close()} waits for running handlers.
         *
         * @param drainTimeout a positive duration
         * @return this builder
         */
        public Builder drainTimeout(Duration drainTimeout) {
            this.drainTimeout = drainTimeout;
            return this;
        }

        /**
         * Sets how connection threads wait for requests.
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
         * Sets the clock of the server's deadlines and log intervals; tests inject their own.
         * It must advance with real time: socket waits are bounded by what it measures.
         *
         * @param clock a monotonic nanosecond clock
         * @return this builder
         */
        public Builder clock(NanoClock clock) {
            this.clock = clock;
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
         * Adds a pre-shared key that clients may prove, and makes peer authentication required:
         * a client that offers no key, or a key the server does not hold, or a wrong proof is
         * refused before the server allocates anything for it or reveals its transport
         * parameters (docs/PROTOCOL.md 3.8). Call once per key: several keys, each under its own
         * id, let keys be rotated (add the new key, move the clients to it, drop the old key).
         *
         * <p>Load keys from a file only the service's user can read, for example
         * {@code Files.readAllBytes(Path.of("/etc/ofl/lookup-7.key"))} for a file made with
         * {@code head -c 32 /dev/urandom}, or from a secret store; never from a command line
         * (other users can read it) or source code. The key is copied: overwrite your array
         * ({@code Arrays.fill(key, (byte) 0)}) once the configuration is built. Keys are never
         * logged; logs and refusal texts name the key id only.
         *
         * @param keyId the key's id, which clients send in the clear to say which key they prove
         * @param key at least {@value PeerKeys#MIN_KEY_BYTES} random bytes, the same as the client's
         * @return this builder
         * @throws IllegalArgumentException if the key is too short or the id is already used
         */
        public Builder authenticationKey(int keyId, byte[] key) {
            this.authentication = authentication.with(keyId, key);
            return this;
        }

        /**
         * Sets the response staging budget: memory shared by every connection, from which each
         * response borrows its capacity while it is being sent. Unset, it is the larger of
         * {@value ServerConfig#DEFAULT_STAGING_BUDGET_BYTES} bytes and the limits' {@code maxResponseBytes}.
         *
         * @param stagingBudgetBytes at least the limits' {@code maxResponseBytes} (and 1), at most
         *     {@value ServerConfig#MAX_STAGING_BUDGET_BYTES}
         * @return this builder
         */
        public Builder stagingBudgetBytes(long stagingBudgetBytes) {
            this.stagingBudgetBytes = stagingBudgetBytes;
            return this;
        }

        /**
         * Closes accepted connections that sent no request for this long; the client sees its
         * connection closed, as if the server had restarted, and reconnects.
         *
         * @param idleTimeout a positive duration
         * @return this builder
         */
        public Builder idleTimeout(Duration idleTimeout) {
            this.idleTimeout = idleTimeout;
            return this;
        }

        /**
         * Caps the accepted connections from one source: an IPv4 address, or an IPv6 address's
         * /64 prefix (docs/PROTOCOL.md 3.4.1). Well below {@code maxConnections}, so that one host
         * cannot take every place.
         *
         * @param maxConnectionsPerAddress at least one; above {@code maxConnections} it has no effect
         * @return this builder
         */
        public Builder maxConnectionsPerAddress(int maxConnectionsPerAddress) {
            this.maxConnectionsPerAddress = maxConnectionsPerAddress;
            return this;
        }

        /**
         * Caps the sockets whose HELLO (or authentication proof) is still arriving, from all
         * sources together; beyond it the oldest gives way.
         *
         * @param maxPendingHandshakes at least one
         * @return this builder
         */
        public Builder maxPendingHandshakes(int maxPendingHandshakes) {
            this.maxPendingHandshakes = maxPendingHandshakes;
            return this;
        }

        /**
         * Caps the sockets from one source whose HELLO (or authentication proof) is still
         * arriving; beyond it the source's oldest gives way, so that sockets sharing a client's
         * address cannot keep it out.
         *
         * @param maxPendingPerAddress at least one
         * @return this builder
         */
        public Builder maxPendingPerAddress(int maxPendingPerAddress) {
            this.maxPendingPerAddress = maxPendingPerAddress;
            return this;
        }

        /**
         * Replaces the server's log of handler failures with a listener, for example to count
         * them in the application's metrics or to fail a test.
         *
         * @param handlerErrorListener a thread-safe listener, called on connection threads
         * @return this builder
         */
        public Builder handlerErrorListener(HandlerErrorListener handlerErrorListener) {
            this.handlerErrorListener = Objects.requireNonNull(handlerErrorListener, "handlerErrorListener");
            return this;
        }

        /**
         * Bounds how long a response waits for staging memory; past it the request is answered
         * {@code BUSY} and its handler does not run.
         *
         * @param stagingTimeout a positive duration
         * @return this builder
         */
        public Builder stagingTimeout(Duration stagingTimeout) {
            this.stagingTimeout = stagingTimeout;
            return this;
        }

        /**
         * Chooses which kind of thread serves each connection in blocking mode: virtual threads
         * (the default) make idle connections cheap; platform threads allocate nothing per request
         * and, over TCP, wake faster (see {@link ConnectionThreads#PLATFORM}). Busy polling always
         * uses platform threads.
         *
         * @param connectionThreads virtual or platform
         * @return this builder
         */
        public Builder connectionThreads(ConnectionThreads connectionThreads) {
            this.connectionThreads = connectionThreads;
            return this;
        }

        /**
         * Caps the staging one connection may hold at once: a response that would take its
         * connection past it waits, as for free memory, until the connection's earlier responses
         * give theirs back. Unset, it is the larger of half the staging budget and the limits'
         * {@code maxResponseBytes}: a client that stops reading, or pipelines large responses,
         * leaves half the pool to the others (when the budget is at least twice the largest
         * response).
         *
         * @param stagingShareBytes at least the limits' {@code maxResponseBytes} (and 1), at most
         *     the staging budget
         * @return this builder
         */
        public Builder stagingShareBytes(long stagingShareBytes) {
            this.stagingShareBytes = stagingShareBytes;
            return this;
        }

        /**
         * Bounds how long a transfer with a client (a response going out, the rest of a request
         * coming in) may go without any of its bytes moving: written into or read from the socket
         * (TCP, in writes of at most 512 KiB), or a completion taken (RDMA). A slow client whose
         * bytes still move is not broken; one that stops reading (or is stopped, or deadlocked)
         * is, once it has passed, its staging returned and the event counted in
         * {@link ServerStatistics#sendTimeouts()}. While other responses wait for staging, a
         * response stalled for half the staging timeout is broken sooner. Checked by the listener
         * about every 50 ms.
         *
         * @param sendTimeout a positive duration
         * @return this builder
         */
        public Builder sendTimeout(Duration sendTimeout) {
            this.sendTimeout = sendTimeout;
            return this;
        }

        /**
         * Clears each response's staging (its whole capacity) before the handler runs. Off by
         * default: staging holds whatever an earlier response left there, and a handler that
         * commits bytes it did not write sends them ({@link OflResponse#buffer()}). Clearing costs
         * a pass over the capacity per response.
         *
         * @param zeroStaging whether to clear
         * @return this builder
         */
        public Builder zeroStaging(boolean zeroStaging) {
            this.zeroStaging = zeroStaging;
            return this;
        }

        /**
         * Whether a client is told why its request ended {@code HANDLER_FAILED}: the exception's
         * class name and message, control characters escaped, at most 256 bytes, written at the
         * start of the request's ranges and shown by {@link Completion#failureReason()}. Only
         * clients that offer to take it get one (every ofl client does; older peers are
         * unaffected), and only when the request has ranges and no piece of its response was sent
         * before the handler threw. Turn it off when exception messages may carry what clients
         * must not see; the server's log and {@link HandlerErrorListener} see every failure either
         * way.
         *
         * @param failureReasons {@code true} (the default) to send reasons
         * @return this builder
         */
        public Builder failureReasons(boolean failureReasons) {
            this.failureReasons = failureReasons;
            return this;
        }

        /**
         * Caps the receive memory all accepted connections together commit when accepted: receive
         * buffers, and over RDMA the registered receive slots, whose size follows the client's
         * proposed limits (docs/PROTOCOL.md 13). The first MiB of each connection is not counted,
         * so clients that commit little (every ofl client: TCP, and RDMA with payload read) never
         * meet it. A HELLO whose connection would take the total past it is refused with
         * SERVER_BUSY, naming the budget.
         *
         * @param receiveBudgetBytes at least 1
         * @return this builder
         */
        public Builder receiveBudgetBytes(long receiveBudgetBytes) {
            this.receiveBudgetBytes = receiveBudgetBytes;
            return this;
        }

        /**
         * Applies settings given as text, for configuration read from a file, the environment or a
         * framework (Spring's {@code @ConfigurationProperties} into a {@code Map}, HOCON, YAML). Each
         * name sets what the builder method of that name sets; a value is checked for its form here
         * and for its range by {@link #build()}, exactly as one set in code. Names:
         *
         * <table>
         * <caption>Server settings as text</caption>
         * <tr><th>name</th><th>value</th></tr>
         * <tr><td>backend, serviceName</td><td>text</td></tr>
         * <tr><td>bind</td><td>{@code host:port}, IPv6 in brackets: {@code [fd00::1]:7000}</td></tr>
         * <tr><td>waitMode</td><td>{@code blocking} or {@code busy-poll}</td></tr>
         * <tr><td>idleStrategy</td><td>{@code busy-spin} or {@code yield}</td></tr>
         * <tr><td>connectionThreads</td><td>{@code virtual} or {@code platform}</td></tr>
         * <tr><td>bootstrapTimeout, drainTimeout, idleTimeout, stagingTimeout, sendTimeout</td><td>a
         * duration: {@code 250ms}, {@code 5s}, {@code 1.5s}, {@code PT5S}</td></tr>
         * <tr><td>maxConnections, maxConnectionsPerAddress, maxPendingHandshakes,
         * maxPendingPerAddress</td><td>a whole number</td></tr>
         * <tr><td>stagingBudgetBytes, stagingShareBytes, receiveBudgetBytes</td><td>bytes: {@code 4096},
         * {@code 256KiB}, {@code 64MiB}</td></tr>
         * <tr><td>zeroStaging, failureReasons</td><td>{@code true} or {@code false}</td></tr>
         * <tr><td>limits.maxRequestBytes, limits.maxResponseBytes</td><td>bytes</td></tr>
         * <tr><td>limits.maxRanges, limits.maxInFlight</td><td>a whole number</td></tr>
         * <tr><td>authentication.keyFile.<i>id</i></td><td>a key file, read with
         * {@link PeerKeys#readKeyFile}'s checks, added under that key id; one entry per key</td></tr>
         * <tr><td>properties.<i>name</i></td><td>a backend property, added to {@link #properties}</td></tr>
         * </table>
         *
         * <p>The clock and the handler-error listener are set in code. An unknown name is refused
         * with the list of known ones, so that a misspelt setting fails at start-up instead of being
         * ignored.
         *
         * @param settings names and values; applied in name order, later calls override earlier ones
         *     (keys add up)
         * @return this builder
         * @throws IllegalArgumentException naming the setting, its value and the forms accepted
         */
        public Builder settings(Map<String, String> settings) {
            Map<String, String> backendProperties = new java.util.TreeMap<>(properties);
            for (Map.Entry<String, String> e : new java.util.TreeMap<>(settings).entrySet()) {
                String name = e.getKey();
                String value = e.getValue();
                Limits grouped = Settings.group(name, value, limits, backendProperties, SETTING_NAMES);
                if (grouped != null) {
                    limits = grouped;
                    continue;
                }
                if (name.startsWith(KEY_FILE)) {
                    int keyId = Settings.integer(name + " (the key id after \"" + KEY_FILE + "\")",
                            name.substring(KEY_FILE.length()));
                    byte[] key = Settings.keyFile(name, value);
                    try {
                        authenticationKey(keyId, key);
                    } finally {
                        java.util.Arrays.fill(key, (byte) 0);
                    }
                    continue;
                }
                switch (name) {
                    case "backend" -> backend = Settings.text(name, value);
                    case "bind" -> bind = Settings.socketAddress(name, value);
                    case "serviceName" -> serviceName = Settings.text(name, value);
                    case "waitMode" -> waitMode = Settings.constant(name, value, WaitMode.class);
                    case "idleStrategy" -> idleStrategy = Settings.idleStrategy(name, value);
                    case "connectionThreads" -> connectionThreads = Settings.constant(name, value,
                            ConnectionThreads.class);
                    case "bootstrapTimeout" -> bootstrapTimeout = Settings.duration(name, value);
                    case "drainTimeout" -> drainTimeout = Settings.duration(name, value);
                    case "idleTimeout" -> idleTimeout = Settings.duration(name, value);
                    case "stagingTimeout" -> stagingTimeout = Settings.duration(name, value);
                    case "sendTimeout" -> sendTimeout = Settings.duration(name, value);
                    case "maxConnections" -> maxConnections = Settings.integer(name, value);
                    case "maxConnectionsPerAddress" -> maxConnectionsPerAddress = Settings.integer(name, value);
                    case "maxPendingHandshakes" -> maxPendingHandshakes = Settings.integer(name, value);
                    case "maxPendingPerAddress" -> maxPendingPerAddress = Settings.integer(name, value);
                    case "stagingBudgetBytes" -> stagingBudgetBytes = Settings.bytes(name, value);
                    case "stagingShareBytes" -> stagingShareBytes = Settings.bytes(name, value);
                    case "receiveBudgetBytes" -> receiveBudgetBytes = Settings.bytes(name, value);
                    case "zeroStaging" -> zeroStaging = Settings.bool(name, value);
                    case "failureReasons" -> failureReasons = Settings.bool(name, value);
                    default -> throw Settings.unknown(name, SETTING_NAMES);
                }
            }
            properties = backendProperties;
            return this;
        }

        /**
         * Applies the settings among {@code properties} whose names start with {@code prefix}, the
         * prefix removed (other entries are left alone): {@code settings(props, "ofl.server.")}
         * reads {@code ofl.server.bind=10.0.0.1:7000}. See {@link #settings(Map)}.
         *
         * @param properties for example a properties file's contents, or {@link System#getProperties()}
         * @param prefix what each name starts with, such as {@code "ofl.server."}
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
        public ServerConfig build() {
            long budget = stagingBudgetBytes >= 0 || limits == null ? stagingBudgetBytes
                    : Math.max(DEFAULT_STAGING_BUDGET_BYTES, limits.maxResponseBytes());
            long share = stagingShareBytes >= 0 || limits == null ? stagingShareBytes
                    : Math.min(budget, Math.max(budget / 2, limits.maxResponseBytes()));
            return new ServerConfig(backend, bind, serviceName, limits, maxConnections, bootstrapTimeout,
                    drainTimeout, waitMode, idleStrategy, properties, clock, authentication, idleTimeout,
                    maxConnectionsPerAddress, maxPendingHandshakes, maxPendingPerAddress, handlerErrorListener,
                    budget, stagingTimeout, connectionThreads, share, sendTimeout, zeroStaging, receiveBudgetBytes,
                    failureReasons);
        }
    }
}
