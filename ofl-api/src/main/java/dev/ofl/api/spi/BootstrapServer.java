package dev.ofl.api.spi;

import dev.ofl.api.ConnectionThreads;
import dev.ofl.api.HandlerErrorListener;
import dev.ofl.api.Limits;
import dev.ofl.api.OflException;
import dev.ofl.api.OflHandler;
import dev.ofl.api.OflRequest;
import dev.ofl.api.OflServer;
import dev.ofl.api.RefusalCode;
import dev.ofl.api.ServerConfig;
import dev.ofl.api.ServerStatistics;
import dev.ofl.api.wire.Bootstrap;
import dev.ofl.api.wire.HelloCheck;
import dev.ofl.api.wire.PeerText;
import dev.ofl.api.wire.ProtocolException;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.time.Duration;
import java.util.Arrays;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The part of a server every backend shares: a TCP listener on the explicit bind address whose
 * one thread reads pending HELLOs on non-blocking I/O ({@link Admission}), the connection caps (in
 * total and per source address), the HELLO decision and WELCOME, the idle timeout, and draining
 * on close. A backend supplies what runs on each connection after the bootstrap, and what to
 * release once every connection has ended.
 *
 * <p>Threads: a socket gets a thread only once its whole HELLO arrived; that thread decides on it
 * (and lingers at most 200 ms over a refusal) and then serves it. It is a virtual thread if the
 * transport only blocks in JDK socket I/O or by parking ({@link ServerTransport#parksVirtualThreads()},
 * TCP and RDMA in blocking mode) and the configuration asks for virtual threads
 * ({@link ServerConfig#connectionThreads()}, the default), so that an idle connection costs no
 * platform thread; otherwise a platform thread. Threads deciding on a
 * HELLO are bounded by the pending-handshake caps: a socket keeps its pending place until decided.
 *
 * <p>Thread-safe.
 */
public final class BootstrapServer implements OflServer {
    private static final Logger LOG = LoggerFactory.getLogger(BootstrapServer.class);
    private static final int SOCKET_BUFFER_BYTES = 4 << 20;
    /** The longest between two looks for idle connections. */
    private static final long IDLE_SWEEP_NS = 1_000_000_000L;
    /**
     * How long a HELLO decided on at the total cap, with no connection to give way, waits for a
     * place given back before it is refused: connections that come and go at once (a reconnect
     * storm) free their places within milliseconds.
     */
    private static final long ROOM_WAIT_NS = 250_000_000L;
    /**
     * Receive memory of each connection that the receive budget does not count: an ofl client's
     * connection commits tens of kilobytes (TCP 12 KiB; RDMA with payload read about 52 KB), so
     * only connections whose limits make the server register whole-request receive slots meet the
     * budget, and filling it keeps out only more of those.
     */
    public static final long UNCOUNTED_RECEIVE_BYTES = 1 << 20;
    /** Between two looks for stalled transfers: a send timeout is kept to within this. */
    static final long STALL_CHECK_NS = 50_000_000L;

    /** One socket's life once its HELLO arrived: the decision, then, if accepted, the connection. */
    interface Connection extends ConnectionCaps.Holder {
        /**
         * Decides on the HELLO and answers a refusal; never throws.
         *
         * @return {@code true} if accepted: {@link #run()} must follow, on the same thread;
         *     {@code false} if refused or failed, and everything was released
         */
        boolean admit();

        /**
         * Releases everything without deciding on the HELLO (the socket is closed, nothing is
         * answered): for a connection whose thread could not be started. Never throws.
         */
        void abandon();

        /** Whether {@link #admit()} and {@link #run()} may run on a virtual thread. */
        boolean parksVirtualThreads();

        /** Serves an admitted connection until it ends and releases it; never throws. */
        void run();

        /** Closes the connection at once if no handler is running; used when draining. */
        void closeIfIdle();

        /**
         * Closes the connection if it has been serving and took no request for the idle timeout.
         * Called only by the listener's thread.
         *
         * @param nowNs the server clock's time
         * @param idleTimeoutNs the idle timeout
         */
        void closeIfIdleFor(long nowNs, long idleTimeoutNs);

        /**
         * Breaks the connection if it has waited on its peer mid-transfer (a response going out,
         * the rest of a request coming in) for the send timeout, or a response of it has for
         * {@code pressedNs} while other responses wait for staging. Called only by the listener's
         * thread, about every {@link #STALL_CHECK_NS}.
         *
         * @param nowNs the server clock's time
         * @param sendTimeoutNs the send timeout
         * @param pressedNs the bound on a stalled response while staging is scarce; at most
         *     {@code sendTimeoutNs}
         */
        void closeIfStalled(long nowNs, long sendTimeoutNs, long pressedNs);

        /** Closes the connection at once. */
        void forceClose();
    }

    private final ServerConfig config;
    private final String backend;
    private final ServerSocketChannel acceptor;
    private final InetSocketAddress localAddress;
    private final Thread admissionThread;
    private final Admission admission;
    private final OflHandler handler;
    private final ServerTransport.Factory transports;
    private final HandlerErrors handlerErrors;
    private final Consumer<BootstrapServer> afterClose;
    private final AtomicBoolean afterCloseRan = new AtomicBoolean();
    /** Counted down when the after-close action has returned (or thrown), on whichever thread ran it. */
    private final CountDownLatch afterCloseDone = new CountDownLatch(1);
    /** Every connection whose HELLO arrived, with the thread that runs it, until that thread ends. */
    private final Map<Connection, Thread> running = new ConcurrentHashMap<>();
    /** Places in the connection caps, taken by accepted HELLOs. */
    private final ConnectionCaps caps;
    private final AtomicLong connectionIds = new AtomicLong();
    /** Receive memory of the accepted connections, against {@link ServerConfig#receiveBudgetBytes()}. */
    private final AtomicLong receiveCommitted = new AtomicLong();
    private final ServerCounters counters = new ServerCounters();
    private final PeerAuthentication authentication;
    /** Clients that proved a key and were admitted, until their WELCOME is sent or they are refused. */
    private final Map<SocketChannel, PeerAuthentication.Proven> proven = new ConcurrentHashMap<>();
    private final RepeatedLog repeated;
    /** The config's timeouts, converted once (saturated: a Duration may exceed 292 years). */
    private final long idleTimeoutNs;
    private final long bootstrapTimeoutNs;
    private final long sendTimeoutNs;
    private final long stagingTimeoutNs;
    /** Responses waiting for staging now: while any does, stalled responses are broken sooner. */
    private final AtomicInteger stagingWaiters = new AtomicInteger();
    private long nextIdleSweepNs;
    private long nextStallCheckNs;
    private volatile boolean closing;
    /** Opened when {@link #close()} returns, for {@link #awaitTermination}. */
    private final CountDownLatch terminated = new CountDownLatch(1);
    private boolean closed;

    private BootstrapServer(ServerConfig config, String backend, ServerSocketChannel acceptor, OflHandler handler,
            ServerTransport.Factory transports, Consumer<BootstrapServer> afterClose) throws IOException {
        this.afterClose = afterClose;
        this.config = config;
        this.backend = backend;
        this.acceptor = acceptor;
        this.handler = handler;
        this.transports = transports;
        this.handlerErrors = new HandlerErrors(config.clock());
        this.authentication = new PeerAuthentication(config.authentication());
        this.localAddress = (InetSocketAddress) acceptor.getLocalAddress();
        this.repeated = new RepeatedLog(LOG, config.clock());
        this.idleTimeoutNs = TimeUnit.NANOSECONDS.convert(config.idleTimeout());
        this.bootstrapTimeoutNs = TimeUnit.NANOSECONDS.convert(config.bootstrapTimeout());
        this.sendTimeoutNs = TimeUnit.NANOSECONDS.convert(config.sendTimeout());
        this.stagingTimeoutNs = TimeUnit.NANOSECONDS.convert(config.stagingTimeout());
        this.nextIdleSweepNs = config.clock().nanoTime();
        // A connection that sent no request for the bootstrap timeout may give way (3.4.1).
        this.caps = new ConnectionCaps(config.maxConnections(), config.maxConnectionsPerAddress(), bootstrapTimeoutNs,
                config.clock(), running.keySet());
        this.admission = new Admission(this, acceptor, repeated);
        this.admissionThread = Thread.ofPlatform().name("ofl-" + backend + "-accept-" + localAddress.getPort())
                .daemon().unstarted(admission);
    }

    /**
     * Binds the configured address and starts accepting.
     *
     * @param config the server's settings
     * @param backend the backend's name, for thread names and logs
     * @param handler the application logic
     * @param transports makes each connection's transport
     * @param afterClose releases what the backend shares across connections: runs once, after
     *     {@link #close()} began and the last connection thread ended; {@link #close()} returns
     *     after it unless a connection thread still ran when it stopped waiting for them (a
     *     handler past the drain timeout, or {@code close()} interrupted)
     * @return the running server
     * @throws OflException if the address cannot be bound, with the fix
     */
    public static BootstrapServer start(ServerConfig config, String backend, OflHandler handler,
            ServerTransport.Factory transports, Consumer<BootstrapServer> afterClose) {
        ServerSocketChannel acceptor = null;
        try {
            acceptor = SocketFamily.listening(config.bind().getAddress());
            acceptor.setOption(StandardSocketOptions.SO_REUSEADDR, true);
            // A storm of reconnecting sockets must not overflow the backlog: a dropped SYN costs an honest
            // client a second or more before it retries.
            acceptor.bind(config.bind(), 1024);
            BootstrapServer server = new BootstrapServer(config, backend, acceptor, handler, transports,
                    afterClose);
            server.admissionThread.start();
            LOG.info("ofl {} server '{}' listening on {}", backend, config.serviceName(), server.localAddress);
            return server;
        } catch (IOException e) {
            BootstrapIo.closeQuietly(acceptor);
            throw new OflException("cannot listen on " + config.bind() + ": " + e
                    + "; is the address configured on a local interface and the port free?", e);
        }
    }

    /**
     * Why a socket from this source is refused before its HELLO is read: the server is at a cap
     * and no connection may give way to it. Called by the listener's thread; the decision on the
     * HELLO checks the caps again.
     *
     * @return the reason, or {@code null} if it may send its HELLO
     */
    String busyReason(InetAddress source) {
        return caps.busyReason(source);
    }

    /**
     * Takes a socket whose whole HELLO arrived from the listener: a thread decides on it and
     * serves it, a virtual thread if the transport only blocks in JDK socket I/O or by parking and
     * the configuration asks for virtual threads, else a platform thread.
     *
     * @param channel the socket, no longer registered with the listener's selector
     * @param source its source address, which holds a pending place until the decision
     * @param handshake the HELLO as it arrived, frame and body, with the authentication exchange
     */
    void helloArrived(SocketChannel channel, InetAddress source, Handshake handshake) {
        long id = connectionIds.incrementAndGet();
        Connection connection;
        try {
            connection = new ServerSession(this, handler, channel, transports.create(config, channel, id), id,
                    handshake);
        } catch (RuntimeException e) {
            admission.handshakeDecided(source);
            BootstrapIo.closeQuietly(channel);
            repeated.warn("connection setup failed", "dropping connection " + id + " from "
                    + source.getHostAddress() + ": " + e);
            return;
        }
        boolean virtual = connection.parksVirtualThreads() && config.connectionThreads() == ConnectionThreads.VIRTUAL;
        Thread.Builder builder = virtual ? Thread.ofVirtual() : Thread.ofPlatform().daemon();
        Thread thread = builder.name("ofl-" + backend + "-conn-" + id)
                .unstarted(() -> admitAndServe(connection, source));
        running.put(connection, thread);
        try {
            thread.start();
        } catch (RuntimeException | OutOfMemoryError e) {
            // Out of threads (a platform thread per connection): nothing runs this connection, so
            // its pending place, its resources and its entry among the running go back here.
            running.remove(connection);
            admission.handshakeDecided(source);
            connection.abandon();
            repeated.warn("connection setup failed", "dropping connection " + id + " from "
                    + source.getHostAddress() + ": its thread could not start: " + e);
            if (closing) {
                runAfterCloseOnce();
            }
        }
    }

    private void admitAndServe(Connection connection, InetAddress source) {
        boolean accepted;
        try {
            accepted = connection.admit();
        } finally {
            admission.handshakeDecided(source);
        }
        if (accepted) {
            serve(connection);
        } else {
            ended(connection);
        }
    }

    /**
     * Makes an accepted socket ready for the bootstrap and the data path: blocking, no Nagle,
     * keep-alive, large buffers.
     *
     * @param channel the socket the listener handed over
     * @throws IOException if the socket refuses a setting (typically: it is closed already)
     */
    public void prepare(SocketChannel channel) throws IOException {
        channel.configureBlocking(true);
        channel.setOption(StandardSocketOptions.TCP_NODELAY, true);
        channel.setOption(StandardSocketOptions.SO_KEEPALIVE, true);
        channel.setOption(StandardSocketOptions.SO_SNDBUF, SOCKET_BUFFER_BYTES);
        channel.setOption(StandardSocketOptions.SO_RCVBUF, SOCKET_BUFFER_BYTES);
    }

    private void serve(Connection connection) {
        try {
            connection.run();
        } finally {
            ended(connection);
        }
    }

    private void ended(Connection connection) {
        running.remove(connection);
        if (closing) {
            runAfterCloseOnce();
        }
    }

    /**
     * The listener's periodic work: breaks connections whose transfer stalled for the send
     * timeout, and closes connections idle for the idle timeout.
     *
     * @param nowNs the server clock's time
     */
    void tick(long nowNs) {
        if (nowNs - nextStallCheckNs >= 0) {
            nextStallCheckNs = nowNs + STALL_CHECK_NS;
            // While responses wait for staging, one whose client stopped reading gives its staging
            // back sooner: within half the staging timeout, so that the waiters get theirs in time.
            long pressedNs = stagingWaiters.get() > 0 ? Math.min(sendTimeoutNs, stagingTimeoutNs / 2) : sendTimeoutNs;
            for (Connection connection : running.keySet()) {
                connection.closeIfStalled(nowNs, sendTimeoutNs, pressedNs);
            }
        }
        if (nowNs - nextIdleSweepNs < 0) {
            return;
        }
        nextIdleSweepNs = nowNs + Math.min(IDLE_SWEEP_NS, idleTimeoutNs / 4);
        for (Connection connection : running.keySet()) {
            connection.closeIfIdleFor(nowNs, idleTimeoutNs);
        }
    }

    /**
     * The listener's thread failed (its selector): nothing more is accepted, which must be loud.
     *
     * @param failure what failed
     */
    void listenerFailed(Exception failure) {
        LOG.error("the listener of the ofl {} server on {} failed; no connection is accepted any more; close and "
                + "restart the server", backend, localAddress, failure);
    }

    /**
     * Logs at WARN an event a peer can repeat at will: the first of its cause in full, then a count
     * per interval.
     *
     * @param cause a fixed text naming the kind of event
     * @param message the line, peer-controlled text escaped
     */
    void warnRepeated(String cause, String message) {
        repeated.warn(cause, message);
    }

    /**
     * Logs at INFO an event a peer can repeat at will, like {@link #warnRepeated}.
     *
     * @param cause a fixed text naming the kind of event
     * @param message the line, peer-controlled text escaped
     */
    void infoRepeated(String cause, String message) {
        repeated.info(cause, message);
    }

    /**
     * Handshakes whose HELLO is still arriving or being decided on, for tests and monitoring.
     *
     * @return the count
     */
    public int pendingHandshakes() {
        return admission.pendingHandshakes();
    }

    /**
     * Describes a socket's peer for logs.
     *
     * @param channel the socket
     * @return its remote address, or {@code "?"}
     */
    public static String remote(SocketChannel channel) {
        try {
            return String.valueOf(channel.getRemoteAddress());
        } catch (IOException e) {
            return "?";
        }
    }

    /**
     * The challenge the listener sends a HELLO that offers one of the server's keys.
     *
     * @param hello the whole HELLO, frame and body
     * @return the AUTH_CHALLENGE to send, or {@code null} when none is due
     * @see PeerAuthentication#challengeFor
     */
    byte[] challengeFor(byte[] hello) {
        return authentication.challengeFor(hello);
    }

    /**
     * Runs the server side of the bootstrap up to the decision, on what the listener read:
     * decodes the HELLO, authenticates the client when the server holds keys
     * ({@link PeerAuthentication}; the listener read its proof, within the bootstrap timeout
     * counted from the accept), then {@link #decide decides}. Reads nothing from the socket. A
     * malformed HELLO is answered MALFORMED and logged once here.
     *
     * @param channel the socket, blocking
     * @param handshake what the listener read
     * @param transport the backend's {@link dev.ofl.api.wire.TransportKind}
     * @param connectionId for logs
     * @return the accepted HELLO, or {@code null} if the client was refused (the refusal was sent)
     * @throws ProtocolException if the HELLO, the authentication offer or the client's proof is
     *     malformed (a MALFORMED refusal was sent and logged; the caller counts the protocol
     *     violation, once)
     */
    Bootstrap.Endpoint acceptHello(SocketChannel channel, Handshake handshake, int transport, long connectionId)
            throws ProtocolException {
        byte[] helloMessage = handshake.hello();
        Bootstrap.Endpoint hello;
        try {
            Bootstrap.Frame frame = Bootstrap.decodeFrame(
                    Arrays.copyOf(helloMessage, Math.min(helloMessage.length, Bootstrap.FRAME_LENGTH)), Bootstrap.HELLO);
            HelloCheck version = HelloCheck.version(frame.version());
            if (!version.accepted()) {
                // Its body follows another version's rules: not read, drained by the refusal's linger.
                refuse(channel, connectionId, version.code(), version.reason());
                return null;
            }
            hello = Bootstrap.decodeBody(Arrays.copyOfRange(helloMessage, Bootstrap.FRAME_LENGTH, helloMessage.length));
        } catch (ProtocolException e) {
            refuse(channel, connectionId, RefusalCode.MALFORMED, "malformed HELLO: " + e.getMessage());
            throw e;
        }
        PeerAuthentication.Outcome authenticated;
        try {
            authenticated = authentication.authenticate(helloMessage, hello, handshake.challenge(), handshake.proof());
        } catch (ProtocolException e) {
            refuse(channel, connectionId, RefusalCode.MALFORMED, "malformed authentication: " + e.getMessage());
            throw e;
        }
        if (!authenticated.accepted()) {
            refuse(channel, connectionId, authenticated.refusal(), authenticated.reason());
            return null;
        }
        Bootstrap.Endpoint decided = decide(channel, authenticated.hello(), transport, connectionId);
        if (decided != null && authenticated.proven() != null) {
            proven.put(channel, authenticated.proven());
        }
        return decided;
    }

    /**
     * Decides on a decoded HELLO: {@link HelloCheck}, shutdown, then the connection caps (in total
     * and per source address), and sends a refusing WELCOME when any fails. On acceptance the
     * caller sets up its transport, sends its WELCOME with {@link #welcome}, and must call
     * {@link #release} when the connection ends.
     *
     * @param channel the socket, blocking
     * @param hello the decoded HELLO
     * @param transport the backend's {@link dev.ofl.api.wire.TransportKind}
     * @param connectionId for logs
     * @return the accepted HELLO, or {@code null} if the client was refused (the refusal was sent)
     */
    public Bootstrap.Endpoint decide(SocketChannel channel, Bootstrap.Endpoint hello, int transport,
            long connectionId) {
        HelloCheck check = HelloCheck.body(hello, transport, config.serviceName(), config.limits());
        if (!check.accepted()) {
            refuse(channel, connectionId, check.code(), check.reason());
            return null;
        }
        if (closing) {
            refuse(channel, connectionId, RefusalCode.SHUTTING_DOWN, "the server is shutting down");
            return null;
        }
        InetAddress source = source(channel);
        int taken = caps.acquire(source, ROOM_WAIT_NS);
        if (taken != SourceCounts.TAKEN) {
            refuse(channel, connectionId, RefusalCode.SERVER_BUSY, caps.reason(taken, source));
            return null;
        }
        return hello;
    }

    /**
     * A socket's source address, the key of the per-address caps. Read it while the socket is
     * open: a closed socket no longer tells it.
     *
     * @param channel a connected socket
     * @return its remote address, or the wildcard address if the socket is already closed
     */
    public static InetAddress source(SocketChannel channel) {
        try {
            if (channel.getRemoteAddress() instanceof InetSocketAddress remote) {
                return remote.getAddress();
            }
        } catch (IOException e) {
            // Closed under us: counted under one address that no peer has.
        }
        return new InetSocketAddress(0).getAddress();
    }

    /**
     * Sends the accepting WELCOME; to a client that proved a key, sealed with the server's proof
     * of the same key over the whole exchange.
     *
     * @param channel the socket
     * @param welcome the server's endpoint, with status {@link RefusalCode#ACCEPTED}
     * @throws IOException if writing fails
     */
    public void welcome(SocketChannel channel, Bootstrap.Endpoint welcome) throws IOException {
        PeerAuthentication.Proven client = proven.remove(channel);
        BootstrapIo.writeFully(channel, client == null ? Bootstrap.encode(Bootstrap.WELCOME, welcome)
                : client.seal(welcome));
        counters.connectionAccepted();
    }

    /**
     * Sends a refusing WELCOME carrying the server's maxima and the reason (control characters
     * escaped), then half-closes and drains for at most 200 ms, so that closing does not reset the
     * connection before the client reads it. Logged at WARN, repeats of a refusal code counted and
     * summarised rather than logged each.
     *
     * @param channel the socket
     * @param connectionId for logs
     * @param code why
     * @param reason a sentence naming the values involved
     */
    public void refuse(SocketChannel channel, long connectionId, RefusalCode code, String reason) {
        proven.remove(channel);
        // The reason may carry what the peer sent: escaped for the log and for the wire alike.
        String text = PeerText.escape(reason);
        repeated.warn("refused: " + code, "refusing connection " + connectionId + " from " + remote(channel) + ": "
                + text + " (" + code + ")");
        counters.connectionRefused();
        try {
            BootstrapIo.writeFully(channel, Bootstrap.encode(Bootstrap.WELCOME,
                    Bootstrap.Endpoint.tcp(code, config.serviceName(), config.limits(), text)));
            channel.shutdownOutput();
            BootstrapIo.drain(channel, config.clock().nanoTime() + Admission.LINGER_NS, config.clock());
        } catch (IOException e) {
            LOG.debug("could not send the refusal to {}: {}", remote(channel), e.toString());
        }
    }

    /**
     * Reports a handler that threw to the configured {@link dev.ofl.api.HandlerErrorListener}, or
     * without one through the handler-error log: the first of each distinct failure with its stack
     * trace, repeats counted. A listener that throws is logged the same way and harms nothing.
     *
     * @param request the request the handler failed on
     * @param failure what it threw
     */
    void handlerFailed(OflRequest request, Exception failure) {
        HandlerErrorListener listener = config.handlerErrorListener();
        if (listener == null) {
            handlerErrors.record(request, failure);
            return;
        }
        try {
            listener.handlerFailed(request, failure);
        } catch (RuntimeException listenerFailure) {
            listenerFailure.addSuppressed(failure);
            handlerErrors.record(request, listenerFailure);
        }
    }

    /**
     * Marks a response that waits for staging; {@link #stagingWaitEnds()} must follow.
     */
    void stagingWaitBegins() {
        stagingWaiters.incrementAndGet();
    }

    /** Marks the end of a wait {@link #stagingWaitBegins()} began. */
    void stagingWaitEnds() {
        stagingWaiters.decrementAndGet();
    }

    /**
     * Counts a connection's receive memory beyond {@link #UNCOUNTED_RECEIVE_BYTES} against the
     * server's receive budget ({@link ServerConfig#receiveBudgetBytes()}), before the transport
     * allocates it.
     *
     * @param bytes what the transport would commit
     * @param limits the connection's limits, for the refusal's text
     * @return {@code null} if counted; otherwise the refusal's reason, and nothing was counted
     */
    String takeReceive(long bytes, Limits limits) {
        long counted = counted(bytes);
        long budget = config.receiveBudgetBytes();
        while (counted > 0) {
            long taken = receiveCommitted.get();
            if (counted > budget - taken) {
                return "the server's receive memory budget of " + budget + " bytes has " + Math.max(0, budget - taken)
                        + " left, and a connection with " + limits + " commits " + bytes + " bytes of receive memory, "
                        + counted + " of them beyond the first " + UNCOUNTED_RECEIVE_BYTES + " (docs/PROTOCOL.md 13): "
                        + "propose smaller limits (maxInFlight, maxRequestBytes) or the payload-read offer, or retry later";
            }
            if (receiveCommitted.compareAndSet(taken, taken + counted)) {
                return null;
            }
        }
        return null;
    }

    /**
     * Gives back what {@link #takeReceive} counted for the same bytes.
     *
     * @param bytes what was passed to {@code takeReceive}; zero does nothing
     */
    void giveReceive(long bytes) {
        long counted = counted(bytes);
        if (counted > 0) {
            receiveCommitted.addAndGet(-counted);
        }
    }

    private static long counted(long bytes) {
        return Math.max(0, bytes - UNCOUNTED_RECEIVE_BYTES);
    }

    /**
     * Receive memory the server's connections have counted against its receive budget.
     *
     * @return bytes
     */
    public long receiveCommittedBytes() {
        return receiveCommitted.get();
    }

    /**
     * Gives back the place in the connection caps that an accepted HELLO took.
     *
     * @param source the connection's source address, as {@link #source} gave it while the
     *     socket was open
     */
    public void release(InetAddress source) {
        caps.release(source);
    }

    /**
     * Forgets what the server kept for sealing a connection's WELCOME, for a connection that ends
     * without a WELCOME or a refusal (its setup failed unexpectedly).
     *
     * @param channel the connection's socket
     */
    public void forget(SocketChannel channel) {
        proven.remove(channel);
    }

    /**
     * The counters connections update.
     *
     * @return the server's counters
     */
    public ServerCounters counters() {
        return counters;
    }

    /**
     * Whether {@link #close()} has begun.
     *
     * @return {@code true} once closing
     */
    public boolean closing() {
        return closing;
    }

    /**
     * The server's settings.
     *
     * @return the configuration
     */
    public ServerConfig config() {
        return config;
    }

    @Override
    public InetSocketAddress localAddress() {
        return localAddress;
    }

    @Override
    public int connectionCount() {
        return caps.total();
    }

    @Override
    public Limits limits() {
        return config.limits();
    }

    @Override
    public ServerStatistics statistics() {
        return counters.snapshot();
    }

    @Override
    public String backend() {
        return backend;
    }

    /**
     * Drains and stops: stops accepting, closes idle connections, waits up to the drain timeout
     * for running handlers, then closes the rest and runs the backend's after-close action, or
     * waits for the last connection thread to finish running it. Idempotent.
     */
    @Override
    public void close() {
        try {
            if (drainAndStop()) {
                // Outside the lock: the last connection thread may be running the action meanwhile.
                awaitAfterClose();
            }
        } finally {
            // Also when the backend's after-close action failed: nothing of the server runs any more.
            terminated.countDown();
        }
    }

    /** Drains and stops; returns whether close() must then wait for the after-close action, which another thread may run. */
    private synchronized boolean drainAndStop() {
        if (closed) {
            return false;
        }
        closed = true;
        closing = true;
        // Closed here, not only by the listener's thread: from now on new connections are refused
        // by the kernel, whatever the listener is doing.
        BootstrapIo.closeQuietly(acceptor);
        admission.wakeup();
        try {
            admissionThread.join(1000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        for (Connection connection : running.keySet()) {
            connection.closeIfIdle();
        }
        joinAll(config.clock().nanoTime() + TimeUnit.NANOSECONDS.convert(config.drainTimeout()));
        for (Connection connection : running.keySet()) {
            connection.forceClose();
        }
        joinAll(config.clock().nanoTime() + 1_000_000_000L);
        if (running.isEmpty()) {
            LOG.info("ofl {} server on {} closed", backend, localAddress);
        } else {
            LOG.warn("ofl {} server on {} closed with {} connection(s) whose handler outlived the drain; what "
                    + "they share is released when the last of them ends", backend, localAddress, running.size());
        }
        runAfterCloseOnce();
        // The last connection thread may have taken the action over while this one waited for the
        // listener: what the connections shared is released before close() returns.
        return running.isEmpty();
    }

    private void awaitAfterClose() {
        boolean interrupted = false;
        while (true) {
            try {
                afterCloseDone.await();
                break;
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public void awaitTermination() throws InterruptedException {
        terminated.await();
    }

    @Override
    public boolean awaitTermination(Duration timeout) throws InterruptedException {
        // Saturated: longer than about 292 years is as good as for ever.
        return terminated.await(TimeUnit.NANOSECONDS.convert(timeout), TimeUnit.NANOSECONDS);
    }

    /** The after-close action runs once, when closing and no connection thread is left. */
    private void runAfterCloseOnce() {
        if (running.isEmpty() && afterCloseRan.compareAndSet(false, true)) {
            try {
                afterClose.accept(this);
            } finally {
                afterCloseDone.countDown();
            }
        }
    }

    private void joinAll(long deadlineNs) {
        for (Thread thread : running.values()) {
            long remainingMs = (deadlineNs - config.clock().nanoTime()) / 1_000_000;
            if (remainingMs <= 0) {
                return;
            }
            try {
                thread.join(remainingMs);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }
}
