package dev.ofl.api.spi;

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
import dev.ofl.api.wire.ProtocolException;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The part of a server every backend shares: a TCP listener on the explicit bind address, one
 * platform thread per connection, the connection cap, the HELLO/WELCOME exchange, and draining on
 * close. A backend supplies what runs on each connection after the bootstrap, and what to release
 * once every connection has ended.
 *
 * <p>Thread-safe.
 */
public final class BootstrapServer implements OflServer {
    private static final Logger LOG = LoggerFactory.getLogger(BootstrapServer.class);
    /** Sockets beyond the cap get a thread only to be told SERVER_BUSY; past this many more, none. */
    private static final int REFUSAL_HEADROOM = 16;
    private static final long LINGER_NS = 200_000_000L;
    private static final int SOCKET_BUFFER_BYTES = 4 << 20;

    /** One accepted socket's life on its own thread. */
    interface Connection {
        /** Runs the connection until it ends; never throws. */
        void run();

        /** Closes the connection at once if no handler is running; used when draining. */
        void closeIfIdle();

        /** Closes the connection at once. */
        void forceClose();
    }

    private final ServerConfig config;
    private final String backend;
    private final ServerSocketChannel acceptor;
    private final InetSocketAddress localAddress;
    private final Thread acceptThread;
    private final OflHandler handler;
    private final ServerTransport.Factory transports;
    private final HandlerErrors handlerErrors;
    private final Consumer<BootstrapServer> afterClose;
    private final AtomicBoolean afterCloseRan = new AtomicBoolean();
    /** Every accepted connection with the thread that runs it, until that thread ends. */
    private final Map<Connection, Thread> running = new ConcurrentHashMap<>();
    private final AtomicInteger sockets = new AtomicInteger();
    private final AtomicInteger admitted = new AtomicInteger();
    private final AtomicLong connectionIds = new AtomicLong();
    private final ServerCounters counters = new ServerCounters();
    private volatile boolean closing;
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
        this.localAddress = (InetSocketAddress) acceptor.getLocalAddress();
        this.acceptThread = Thread.ofPlatform().name("ofl-" + backend + "-accept-" + localAddress.getPort())
                .daemon().unstarted(this::acceptLoop);
    }

    /**
     * Binds the configured address and starts accepting.
     *
     * @param config the server's settings
     * @param backend the backend's name, for thread names and logs
     * @param handler the application logic
     * @param transports makes each connection's transport
     * @param afterClose releases what the backend shares across connections: runs once, after
     *     {@link #close()} began and the last connection thread ended
     * @return the running server
     * @throws OflException if the address cannot be bound, with the fix
     */
    public static BootstrapServer start(ServerConfig config, String backend, OflHandler handler,
            ServerTransport.Factory transports, Consumer<BootstrapServer> afterClose) {
        ServerSocketChannel acceptor = null;
        try {
            acceptor = ServerSocketChannel.open();
            acceptor.setOption(StandardSocketOptions.SO_REUSEADDR, true);
            acceptor.bind(config.bind(), 128);
            BootstrapServer server = new BootstrapServer(config, backend, acceptor, handler, transports,
                    afterClose);
            server.acceptThread.start();
            LOG.info("ofl {} server '{}' listening on {}", backend, config.serviceName(), server.localAddress);
            return server;
        } catch (IOException e) {
            BootstrapIo.closeQuietly(acceptor);
            throw new OflException("cannot listen on " + config.bind() + ": " + e
                    + "; is the address configured on a local interface and the port free?", e);
        }
    }

    private void acceptLoop() {
        while (!closing) {
            SocketChannel channel;
            try {
                channel = acceptor.accept();
            } catch (ClosedChannelException e) {
                return;
            } catch (IOException e) {
                if (!closing) {
                    LOG.warn("accept on {} failed: {}", localAddress, e.toString());
                }
                continue;
            }
            if (sockets.incrementAndGet() > config.maxConnections() + REFUSAL_HEADROOM || closing) {
                sockets.decrementAndGet();
                LOG.warn("dropping a connection from {}: {} sockets open, the cap is {}", remote(channel),
                        sockets.get(), config.maxConnections());
                BootstrapIo.closeQuietly(channel);
                continue;
            }
            if (closing) {
                sockets.decrementAndGet();
                BootstrapIo.closeQuietly(channel);
                return;
            }
            long id = connectionIds.incrementAndGet();
            Connection connection;
            try {
                connection = new ServerSession(this, handler, channel, transports.create(config, channel, id), id);
            } catch (RuntimeException e) {
                sockets.decrementAndGet();
                LOG.warn("dropping a connection from {}: {}", remote(channel), e.toString());
                BootstrapIo.closeQuietly(channel);
                continue;
            }
            Thread thread = Thread.ofPlatform().name("ofl-" + backend + "-conn-" + id).daemon()
                    .unstarted(() -> {
                        try {
                            connection.run();
                        } finally {
                            BootstrapIo.closeQuietly(channel);
                            sockets.decrementAndGet();
                            running.remove(connection);
                            if (closing) {
                                runAfterCloseOnce();
                            }
                        }
                    });
            running.put(connection, thread);
            thread.start();
        }
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
     * Runs the server side of the bootstrap up to the decision: reads the HELLO within the bootstrap
     * timeout, applies {@link HelloCheck}, shutdown and the connection cap, and sends a refusing
     * WELCOME when any fails. On acceptance the caller sets up its transport, sends its WELCOME
     * with {@link #welcome}, and must call {@link #release()} when the connection ends.
     *
     * @param channel the accepted socket
     * @param transport the backend's {@link dev.ofl.api.wire.TransportKind}
     * @param connectionId for logs
     * @return the accepted HELLO, or {@code null} if the client was refused (the refusal was sent)
     * @throws IOException if the socket fails or the bootstrap times out
     * @throws ProtocolException if the HELLO is malformed (a MALFORMED refusal was sent; the caller counts the
     *     protocol violation)
     */
    public Bootstrap.Endpoint acceptHello(SocketChannel channel, int transport, long connectionId)
            throws IOException, ProtocolException {
        long deadlineNs = config.clock().nanoTime() + config.bootstrapTimeout().toNanos();
        channel.configureBlocking(true);
        channel.setOption(StandardSocketOptions.TCP_NODELAY, true);
        channel.setOption(StandardSocketOptions.SO_KEEPALIVE, true);
        channel.setOption(StandardSocketOptions.SO_SNDBUF, SOCKET_BUFFER_BYTES);
        channel.setOption(StandardSocketOptions.SO_RCVBUF, SOCKET_BUFFER_BYTES);
        Bootstrap.Endpoint hello;
        try {
            Bootstrap.Frame frame = Bootstrap.decodeFrame(
                    BootstrapIo.readFully(channel, Bootstrap.FRAME_LENGTH, deadlineNs, config.clock()), Bootstrap.HELLO);
            byte[] body = BootstrapIo.readFully(channel, frame.bodyLength(), deadlineNs, config.clock());
            HelloCheck version = HelloCheck.version(frame.version());
            if (!version.accepted()) {
                refuse(channel, connectionId, version.code(), version.reason());
                return null;
            }
            hello = Bootstrap.decodeBody(body);
        } catch (ProtocolException e) {
            // Counted once, by the session that ends on this exception.
            refuse(channel, connectionId, RefusalCode.MALFORMED, "malformed HELLO: " + e.getMessage());
            throw e;
        }
        HelloCheck check = HelloCheck.body(hello, transport, config.serviceName(), config.limits());
        if (!check.accepted()) {
            refuse(channel, connectionId, check.code(), check.reason());
            return null;
        }
        if (closing) {
            refuse(channel, connectionId, RefusalCode.SHUTTING_DOWN, "the server is shutting down");
            return null;
        }
        if (admitted.incrementAndGet() > config.maxConnections()) {
            admitted.decrementAndGet();
            refuse(channel, connectionId, RefusalCode.SERVER_BUSY, "the server is at its cap of "
                    + config.maxConnections() + " connections");
            return null;
        }
        return hello;
    }

    /**
     * Sends the accepting WELCOME.
     *
     * @param channel the socket
     * @param welcome the server's endpoint, with status {@link RefusalCode#ACCEPTED}
     * @throws IOException if writing fails
     */
    public void welcome(SocketChannel channel, Bootstrap.Endpoint welcome) throws IOException {
        BootstrapIo.writeFully(channel, Bootstrap.encode(Bootstrap.WELCOME, welcome));
        counters.connectionAccepted();
    }

    /**
     * Sends a refusing WELCOME carrying the server's maxima and the reason, then half-closes and
     * drains briefly, so that closing does not reset the connection before the client reads it.
     *
     * @param channel the socket
     * @param connectionId for logs
     * @param code why
     * @param reason a sentence naming the values involved
     */
    public void refuse(SocketChannel channel, long connectionId, RefusalCode code, String reason) {
        LOG.warn("refusing connection {} from {}: {} ({})", connectionId, remote(channel), reason, code);
        counters.connectionRefused();
        try {
            BootstrapIo.writeFully(channel, Bootstrap.encode(Bootstrap.WELCOME,
                    Bootstrap.Endpoint.tcp(code, config.serviceName(), config.limits(), reason)));
            channel.shutdownOutput();
            BootstrapIo.drain(channel, config.clock().nanoTime() + LINGER_NS, config.clock());
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

    /** Gives back the place in the connection cap that an accepted HELLO took. */
    public void release() {
        admitted.decrementAndGet();
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
        return admitted.get();
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
     * for running handlers, then closes the rest and runs the backend's after-close action.
     * Idempotent.
     */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        closing = true;
        BootstrapIo.closeQuietly(acceptor);
        for (Connection connection : running.keySet()) {
            connection.closeIfIdle();
        }
        joinAll(config.clock().nanoTime() + config.drainTimeout().toNanos());
        for (Connection connection : running.keySet()) {
            connection.forceClose();
        }
        joinAll(config.clock().nanoTime() + 1_000_000_000L);
        try {
            acceptThread.join(1000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (running.isEmpty()) {
            LOG.info("ofl {} server on {} closed", backend, localAddress);
        } else {
            LOG.warn("ofl {} server on {} closed with {} connection(s) whose handler outlived the drain; what "
                    + "they share is released when the last of them ends", backend, localAddress, running.size());
        }
        runAfterCloseOnce();
    }

    /** The after-close action runs once, when closing and no connection thread is left. */
    private void runAfterCloseOnce() {
        if (running.isEmpty() && afterCloseRan.compareAndSet(false, true)) {
            afterClose.accept(this);
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
