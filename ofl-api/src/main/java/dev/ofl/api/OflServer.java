package dev.ofl.api;

import java.net.InetSocketAddress;

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

    /** Drains and stops the server. Idempotent. */
    @Override
    void close();
}
