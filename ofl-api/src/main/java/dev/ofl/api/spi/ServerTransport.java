package dev.ofl.api.spi;

import dev.ofl.api.ServerConfig;
import dev.ofl.api.wire.Bootstrap;
import dev.ofl.api.wire.ProtocolException;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.channels.SocketChannel;

/**
 * What a backend does for one accepted server connection: takes request bytes in and moves
 * response bytes out, and nothing else. {@link ServerSession} owns the protocol above it (the
 * HELLO decision, request checks, the handler and its outcome, pieces cut at range boundaries,
 * completion, refusal, drain).
 *
 * <h2>Contract</h2>
 * <ul>
 * <li><b>Threading.</b> Every method is called by the connection's thread, except
 *     {@link #breakConnection()}, which the server may call from any thread while closing, and
 *     which a transport may also call itself from the process's {@link LivenessWatcher}.</li>
 * <li><b>Blocking.</b> {@link #nextRequest()} blocks until a request arrives, the peer leaves or
 *     the connection is broken; {@link #completeRequest} until the whole request is in;
 *     {@link #sendPiece} and {@link #sendEnd} until the piece is written to the socket or posted
 *     to the device (not until it completes). Nothing else blocks.</li>
 * <li><b>Failure.</b> A failed connection is reported by throwing {@link IOException} (an
 *     {@link java.io.EOFException} when the peer left between requests) or
 *     {@link dev.ofl.api.OflConnectionException}, with a sentence naming the cause; a peer that
 *     breaks the protocol, by {@link ProtocolException}.</li>
 * <li><b>Break.</b> After {@link #breakConnection()} returns, nothing more is read from or written
 *     to the peer, and every blocked call returns by throwing. Idempotent; never throws.</li>
 * <li><b>Memory.</b> The transport owns its receive memory, allocated in {@link #accept} (as
 *     little as the backend allows: a HELLO that sends no request should cost at most 64 KiB) and
 *     freed by {@link #close()} unless a device might still use it. Response bytes are staged in
 *     the server-wide {@link StagingPool} of {@link #staging()}: the session borrows an extent per
 *     response and hands its blocks to the transport with each {@link #sendPiece} and
 *     {@link #sendEnd} (their {@code releaseOffset} and {@code releaseBytes}); the transport
 *     returns them to the pool once nothing reads them any more: after the socket write (TCP), or
 *     when the RDMA WRITEs posted so far have completed. It takes them even when the call throws,
 *     and returns every block it still holds in {@link #close()} when that returns {@code true};
 *     when it returns {@code false}, it {@linkplain StagingPool#pin() pins} the pool.</li>
 * </ul>
 */
public interface ServerTransport {
    /** Makes the transport for an accepted socket; a backend's part of {@link OflBackend#serve}. */
    @FunctionalInterface
    interface Factory {
        /**
         * Creates a transport; it allocates nothing until {@link ServerTransport#accept}.
         *
         * @param config the server's settings
         * @param channel the accepted socket; in blocking mode before any method of the transport is called
         * @param id a number unique within the server, for logs
         * @return the transport
         */
        ServerTransport create(ServerConfig config, SocketChannel channel, long id);
    }

    /**
     * The kind the HELLO must name.
     *
     * @return a {@link dev.ofl.api.wire.TransportKind} value
     */
    int kind();

    /**
     * Whether every call of this transport that blocks does so in JDK socket or channel I/O, or by
     * parking the thread until another thread unparks it (RDMA in BLOCKING mode), which frees a
     * virtual thread's carrier, rather than in a native call or a spin.
     * The server then runs the connection on a virtual thread (unless its configuration asks for
     * platform threads, {@link dev.ofl.api.ConnectionThreads#PLATFORM}), so that an idle connection costs
     * no platform thread. The default is {@code false}: a platform thread per connection.
     *
     * @return {@code true} if the connection may run on a virtual thread
     */
    default boolean parksVirtualThreads() {
        return false;
    }

    /**
     * The receive memory {@link #accept} would commit for a HELLO (buffers, receive slots, ring
     * headers), counted against the server's receive budget before anything is allocated.
     *
     * @param hello the HELLO about to be accepted
     * @return bytes
     */
    long receiveBytes(Bootstrap.Endpoint hello);

    /**
     * Sets up the connection for an accepted HELLO: receive memory, queue pair; no staging.
     *
     * @param hello the accepted HELLO, whose limits are the negotiated ones
     * @return this side's endpoint for the accepting WELCOME
     * @throws RuntimeException if the resources cannot be had; nothing of them stays allocated
     */
    Bootstrap.Endpoint accept(Bootstrap.Endpoint hello);

    /**
     * Starts the data path, once the WELCOME was sent.
     *
     * @throws IOException if the socket cannot be set up for it
     */
    void start() throws IOException;

    /**
     * How many requests may wait in receive slots at once.
     *
     * @return at least one
     */
    int receiveSlots();

    /**
     * Committed response bytes are sent as a piece once this many are pending.
     *
     * @return the piece size, in bytes
     */
    int pieceBytes();

    /**
     * The server-wide staging pool this transport sends response bytes from; the same object for
     * every connection of a server.
     *
     * @return the pool
     */
    StagingPool staging();

    /**
     * Waits for the next request.
     *
     * @return the receive slot holding at least its 64-byte header
     * @throws java.io.EOFException if the peer left between requests
     * @throws IOException if the connection failed or was broken
     * @throws ProtocolException if what arrived cannot be a request
     */
    int nextRequest() throws IOException, ProtocolException;

    /**
     * The memory of a request: its receive slot, or once {@link #completeRequest} returned
     * {@code true}, wherever the whole request is.
     *
     * @param slot a slot {@link #nextRequest()} returned
     * @return the request's memory, its header at offset zero
     */
    MemorySegment message(int slot);

    /**
     * Makes sure the whole request, of the length its checked header describes, is in memory:
     * from then on {@link #message(int)} returns it whole (it may be other memory than before the
     * call, which the transport borrowed for this request and keeps until {@link #releaseRequest}).
     *
     * @param slot the request's slot
     * @param length the message length the header describes
     * @return {@code false} if the transport could not get memory for the request within the
     *     server's staging timeout: the session answers it BUSY without running the handler
     * @throws IOException if the connection failed
     * @throws ProtocolException if the bytes received disagree with the header
     */
    boolean completeRequest(int slot, long length) throws IOException, ProtocolException;

    /**
     * Gives a receive slot, and any memory borrowed for its request, back once the request's
     * payload is no longer needed.
     *
     * @param slot the request's slot
     */
    void releaseRequest(int slot);

    /**
     * Sends committed staging bytes as one piece.
     *
     * @param sequence the request's sequence
     * @param stagingOffset where the response's first byte is in the pool's memory
     * @param from the piece's first byte in the response stream (at {@code stagingOffset + from})
     * @param to the end of the piece (exclusive)
     * @param ranges the request's ranges, positioned at {@code from}; a transport that places by
     *     range advances it past the piece, cutting it at range boundaries
     * @param releaseOffset the first pool byte to return once this piece and everything before it
     *     no longer needs the memory; block-aligned
     * @param releaseBytes how many (whole blocks; zero: none)
     * @throws IOException if the connection failed
     */
    void sendPiece(long sequence, long stagingOffset, long from, long to, RangeCursor ranges, long releaseOffset,
            long releaseBytes) throws IOException;

    /**
     * Sends the last piece, if any, and the completion.
     *
     * @param sequence the request's sequence
     * @param stagingOffset where the response's first byte is in the pool's memory
     * @param from the last piece's first byte ({@code from == to} when there is none)
     * @param to its end (exclusive)
     * @param wireStatus a {@link dev.ofl.api.wire.WireStatus} value
     * @param handlerStatus the handler's status for a refusal, else zero
     * @param responseLength the response length the completion announces
     * @param ranges the request's ranges, positioned at {@code from}
     * @param releaseOffset the first pool byte to return once the last piece was sent; block-aligned
     * @param releaseBytes how many (whole blocks; zero: none): the rest of the response's extent
     * @throws IOException if the connection failed
     */
    void sendEnd(long sequence, long stagingOffset, long from, long to, int wireStatus, int handlerStatus,
            long responseLength, RangeCursor ranges, long releaseOffset, long releaseBytes) throws IOException;

    /**
     * Waits until this connection gives back some of the staging its earlier responses still hold,
     * when a response finds no staging free: blocks whose writes complete only as the
     * connection's own thread sees them (RDMA) would otherwise stay held while the thread waits for
     * others to return some. Bounded as the transport bounds a delivery (RDMA: the writes
     * complete, or fail once the queue pair's retries run out), which may outlast the deadline.
     *
     * @param deadlineNs on the server's clock: when the response stops waiting
     * @return {@code true} if it gave some back (the caller tries again), {@code false} if it holds
     *     none that it could give back by waiting (a transport whose sends return their blocks
     *     before they return never does)
     * @throws IOException if a delivery failed
     */
    default boolean reclaimStaging(long deadlineNs) throws IOException {
        return false;
    }

    /**
     * Whether a response already handed over may still fail to reach the client (RDMA: a posted
     * write has not completed). A connection that fails then counts an undelivered response.
     *
     * @return {@code true} while sent bytes are not known to be delivered
     */
    default boolean delivering() {
        return false;
    }

    /**
     * Waits until what was sent has been delivered, or has failed (bounded like any delivery):
     * called before the connection ends while the server drains, so that a response already sent
     * is not cut off. A transport whose sends complete before they return does nothing.
     *
     * @throws IOException if a delivery failed
     */
    default void flush() throws IOException {
    }

    /**
     * Ends an idle connection while the server drains, once what was sent is delivered (bounded
     * like any delivery); callable from any thread. A transport whose sends complete before they
     * return breaks the connection at once.
     */
    default void closeWhenDelivered() {
        breakConnection();
    }

    /**
     * A count that grows whenever this connection's bytes move: sent, received, or acknowledged by
     * the client's device. The server reads it from another thread, now and then, to tell a slow
     * transfer (bytes still move) from a stalled one (nothing moved for the send timeout); only
     * its changes matter. The default never changes: a whole transfer must then end within the
     * send timeout.
     *
     * @return the count, read without a lock
     */
    default long progress() {
        return 0;
    }

    /**
     * Whether the connection's thread waits now on the server's own resources, not on its peer:
     * for staging to read a request's payload into (RDMA). A transfer timed meanwhile is not
     * stalled by the client. Read from another thread.
     *
     * @return {@code true} while such a wait lasts
     */
    default boolean waitingOnServer() {
        return false;
    }

    /**
     * Whether the connection ended because the local device reported that its link failed (a port
     * that went down, a fatal device error) rather than because of the client: the server counts
     * it as a {@linkplain dev.ofl.api.ServerStatistics#linkFailures() link failure}. Read after the
     * connection ended. A transport without device events never tells.
     *
     * @return {@code true} for a link failure; {@code false} by default
     */
    default boolean linkFailed() {
        return false;
    }

    /** Ends the connection at once. Idempotent; never throws; callable from any thread. */
    void breakConnection();

    /**
     * Releases everything, after the connection ended.
     *
     * @return {@code false} if a device might still use the memory, which is then left allocated
     */
    boolean close();
}
