package dev.ofl.api;

import java.net.InetSocketAddress;
import java.time.Duration;

/**
 * A running server: accepts connections on an explicitly bound address and runs the
 * {@link OflHandler} for each request. Handlers run concurrently on different connections; on one
 * connection, requests are handled one at a time in submission order.
 *
 * <p>Thread-safe. {@link #close()} drains: it stops accepting, lets running handlers finish (up to
 * the configured drain timeout) and closes every connection.
 */
public interface OflServer extends AutoCloseable {

    /**
     * The address the server listens on, with the actual port when port 0 was configured.
     *
     * @return the bound address
     */
    InetSocketAddress localAddress();

    /**
     * How many client connections are open now.
     *
     * @return the count
     */
    int connectionCount();

    /**
     * The maxima this server accepts from clients.
     *
     * @return the server's limits
     */
    Limits limits();

    /**
     * Counters since the server started: connections, requests and their outcomes, protocol
     * violations, and responses the client's side did not accept.
     *
     * @return a snapshot
     */
    ServerStatistics statistics();

    /**
     * The backend serving connections.
     *
     * @return the backend's name
     */
    String backend();

    /**
     * Waits until the server has stopped: {@link #close()} has returned, on whatever thread called
     * it. The server's threads are daemon threads (a library should not keep the JVM alive behind
     * its user's back; the JVM may exit without draining), so a {@code main} that only serves must
     * wait here, and should close the server from a shutdown hook so that a SIGTERM drains:
     *
     * <pre>{@code
     * OflServer server = Ofl.serve(config, handler);
     * Runtime.getRuntime().addShutdownHook(new Thread(server::close));
     * server.awaitTermination();
     * }</pre>
     *
     * @throws InterruptedException if the waiting thread is interrupted; the server keeps running
     */
    void awaitTermination() throws InterruptedException;

    /**
     * Waits at most {@code timeout} until the server has stopped, as {@link #awaitTermination()}.
     *
     * @param timeout how long to wait; zero or negative only reads the state
     * @return {@code true} if {@link #close()} has returned, {@code false} if the time ran out first
     * @throws InterruptedException if the waiting thread is interrupted; the server keeps running
     */
    boolean awaitTermination(Duration timeout) throws InterruptedException;

    /** Drains and stops the server. Idempotent. */
    @Override
    void close();
}
