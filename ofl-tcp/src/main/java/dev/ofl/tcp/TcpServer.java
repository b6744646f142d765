package dev.ofl.tcp;

import dev.ofl.api.Limits;
import dev.ofl.api.OflException;
import dev.ofl.api.OflHandler;
import dev.ofl.api.OflServer;
import dev.ofl.api.ServerConfig;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The TCP server: one acceptor thread and one platform thread per connection, so that handlers
 * run concurrently across connections and in order within one.
 */
final class TcpServer implements OflServer {
    private static final Logger LOG = LoggerFactory.getLogger(TcpServer.class);
    /** Sockets beyond the cap get a thread only to be told SERVER_BUSY; past this many more, none. */
    private static final int REFUSAL_HEADROOM = 16;

    private final ServerConfig config;
    private final OflHandler handler;
    private final ServerSocketChannel acceptor;
    private final InetSocketAddress localAddress;
    private final Thread acceptThread;
    private final Set<TcpServerConnection> connections = ConcurrentHashMap.newKeySet();
    private final AtomicInteger sockets = new AtomicInteger();
    private final AtomicInteger accepted = new AtomicInteger();
    private final AtomicLong connectionIds = new AtomicLong();
    private volatile boolean closing;
    private boolean closed;

    private TcpServer(ServerConfig config, OflHandler handler, ServerSocketChannel acceptor) throws IOException {
        this.config = config;
        this.handler = handler;
        this.acceptor = acceptor;
        this.localAddress = (InetSocketAddress) acceptor.getLocalAddress();
        this.acceptThread = Thread.ofPlatform().name("ofl-tcp-accept-" + localAddress.getPort()).daemon()
                .unstarted(this::acceptLoop);
    }

    static TcpServer start(ServerConfig config, OflHandler handler) {
        ServerSocketChannel acceptor = null;
        try {
            acceptor = ServerSocketChannel.open();
            acceptor.setOption(StandardSocketOptions.SO_REUSEADDR, true);
            acceptor.bind(config.bind(), 128);
            TcpServer server = new TcpServer(config, handler, acceptor);
            server.acceptThread.start();
            LOG.info("ofl tcp server '{}' listening on {}", config.serviceName(), server.localAddress);
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
            TcpServerConnection connection = new TcpServerConnection(this, channel, connectionIds.incrementAndGet());
            connections.add(connection);
            Thread.ofPlatform().name("ofl-tcp-conn-" + connection.id()).daemon().start(connection);
        }
    }

    static String remote(SocketChannel channel) {
        try {
            return String.valueOf(channel.getRemoteAddress());
        } catch (IOException e) {
            return "?";
        }
    }

    ServerConfig config() {
        return config;
    }

    OflHandler handler() {
        return handler;
    }

    boolean closing() {
        return closing;
    }

    /** Counts an accepted connection against the cap; false if it would exceed it. */
    boolean admit() {
        if (accepted.incrementAndGet() > config.maxConnections()) {
            accepted.decrementAndGet();
            return false;
        }
        return true;
    }

    void ended(TcpServerConnection connection, boolean wasAdmitted) {
        if (connections.remove(connection)) {
            sockets.decrementAndGet();
            if (wasAdmitted) {
                accepted.decrementAndGet();
            }
        }
    }

    @Override
    public InetSocketAddress localAddress() {
        return localAddress;
    }

    @Override
    public int connectionCount() {
        return accepted.get();
    }

    @Override
    public Limits limits() {
        return config.limits();
    }

    @Override
    public String backend() {
        return TcpBackend.NAME;
    }

    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        closing = true;
        BootstrapIo.closeQuietly(acceptor);
        for (TcpServerConnection connection : connections) {
            connection.closeIfIdle();
        }
        long deadlineNs = System.nanoTime() + config.drainTimeout().toNanos();
        for (TcpServerConnection connection : connections) {
            connection.join(deadlineNs);
        }
        for (TcpServerConnection connection : connections) {
            connection.forceClose();
        }
        long forcedNs = System.nanoTime() + 1_000_000_000L;
        for (TcpServerConnection connection : connections) {
            connection.join(forcedNs);
        }
        try {
            acceptThread.join(1000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        LOG.info("ofl tcp server on {} closed", localAddress);
    }
}
