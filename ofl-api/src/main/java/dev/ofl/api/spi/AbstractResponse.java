package dev.ofl.api.spi;

import dev.ofl.api.OflConnectionException;
import dev.ofl.api.OflHandler;
import dev.ofl.api.OflRequest;
import dev.ofl.api.OflResponse;
import dev.ofl.api.wire.WireStatus;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@link OflResponse} a server connection hands its handler: one staging area per connection,
 * committed bytes sent as pieces once the backend's flush size is pending, the rest with the end
 * of the response. A backend supplies how a piece and the end travel. Not thread-safe: one connection
 * thread.
 */
public abstract class AbstractResponse implements OflResponse {
    private static final Logger LOG = LoggerFactory.getLogger(AbstractResponse.class);

    private final MemorySegment staging;
    private final int flushBytes;
    private int handlerStatus;
    /** Set when sending a piece failed: only then does a connection exception end the connection. */
    private boolean transportFailed;
    private long capacity;
    private long committed;
    private long flushed;

    /**
     * Creates the response over a staging area.
     *
     * @param staging the connection's staging area, at least the negotiated maximum response size
     * @param flushBytes committed bytes wait until this many are pending, so that small commits do
     *     not each cost a send; larger means fewer, bigger sends, smaller means earlier first bytes
     */
    protected AbstractResponse(MemorySegment staging, int flushBytes) {
        this.staging = staging;
        this.flushBytes = flushBytes;
    }

    /**
     * Sends committed bytes as one piece.
     *
     * @param from the piece's first byte, in the response stream and the staging area
     * @param to the end of the piece (exclusive)
     * @throws IOException if the connection failed
     */
    protected abstract void sendPiece(long from, long to) throws IOException;

    /**
     * Sends the last piece, if any, and the completion.
     *
     * @param from the last piece's first byte ({@code from == to} when there is none)
     * @param to its end (exclusive): also the response length when {@code wireStatus} is OK
     * @param wireStatus a {@link WireStatus} value
     * @param handlerStatus the handler's status for a refusal, else zero
     * @throws IOException if the connection failed
     */
    protected abstract void sendEnd(long from, long to, int wireStatus, int handlerStatus) throws IOException;

    /**
     * Starts a request's response.
     *
     * @param responseCapacity the checked sum of its range lengths
     */
    public final void begin(long responseCapacity) {
        capacity = responseCapacity;
        committed = 0;
        flushed = 0;
    }

    /**
     * Runs the handler on a request, into this response.
     *
     * @param handler the application's handler
     * @param request the checked request
     * @return the outcome, a {@link WireStatus} value: OK, REFUSED (the handler returned non-zero)
     *     or HANDLER_FAILED (it threw; logged here)
     * @throws OflConnectionException if sending a piece of this response failed (an exception the
     *     handler throws for its own reasons is a handler failure, not a broken connection)
     */
    public final int run(OflHandler handler, OflRequest request) {
        handlerStatus = 0;
        transportFailed = false;
        try {
            handlerStatus = handler.handle(request, this);
            if (transportFailed) {
                throw new OflConnectionException("the handler returned after sending a piece failed");
            }
            return handlerStatus == 0 ? WireStatus.OK : WireStatus.REFUSED;
        } catch (OflConnectionException e) {
            if (transportFailed) {
                throw e;
            }
            // The handler's own failure (for example a downstream ofl connection): not ours.
            LOG.warn("handler failed (op {}, sequence {}): {}", request.op(), request.sequence(), e.toString(), e);
            return WireStatus.HANDLER_FAILED;
        } catch (Exception e) {
            LOG.warn("handler failed (op {}, sequence {}): {}", request.op(), request.sequence(), e.toString(), e);
            return WireStatus.HANDLER_FAILED;
        }
    }

    /**
     * Ends the response: with OK, sends what was not yet sent and the completion; otherwise drops
     * what was not sent (a refusal carries no data) and sends the completion.
     *
     * @param wireStatus the outcome {@link #run} returned
     * @throws IOException if the connection failed
     */
    public final void finish(int wireStatus) throws IOException {
        if (wireStatus != WireStatus.OK) {
            committed = flushed;
        }
        sendEnd(flushed, committed, wireStatus, wireStatus == WireStatus.REFUSED ? handlerStatus : 0);
        flushed = committed;
    }

    /**
     * The staging area.
     *
     * @return the connection's whole staging area
     */
    protected final MemorySegment staging() {
        return staging;
    }

    @Override
    public final MemorySegment buffer() {
        return staging;
    }

    @Override
    public final long capacity() {
        return capacity;
    }

    @Override
    public final long committed() {
        return committed;
    }

    @Override
    public final void commit(long length) {
        if (length < 0 || length > capacity - committed) {
            throw new IllegalArgumentException("committing " + length + " bytes after " + committed
                    + " exceeds the client's capacity of " + capacity + " bytes");
        }
        committed += length;
        if (committed - flushed >= flushBytes) {
            try {
                sendPiece(flushed, committed);
            } catch (IOException e) {
                transportFailed = true;
                throw new OflConnectionException("sending a response piece failed: " + e, e);
            } catch (OflConnectionException e) {
                transportFailed = true;
                throw e;
            }
            flushed = committed;
        }
    }
}
