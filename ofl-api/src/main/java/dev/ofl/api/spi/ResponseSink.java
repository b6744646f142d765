package dev.ofl.api.spi;

import dev.ofl.api.wire.MessageHeader;
import dev.ofl.api.wire.ProtocolException;

/**
 * Where a {@link ClientTransport} hands what arrives for the oldest outstanding request; the
 * {@link ClientSession} checks it against the protocol. Called only on the thread that called
 * {@link ClientTransport#poll} or {@link ClientTransport#send}.
 */
public interface ResponseSink {
    /**
     * The wire sequence of the oldest request whose response has not completed.
     *
     * @return its sequence on this connection, or {@code -1} when none is outstanding
     */
    long receivingSequence();

    /**
     * Checks a DATA header for the receiving request (transports that carry pieces in band).
     *
     * @param header the header, read into the transport's own memory
     * @return the piece's length: exactly that many bytes follow and go through {@link #cursor()}
     * @throws ProtocolException naming the field that fails
     */
    long piece(MessageHeader header) throws ProtocolException;

    /**
     * Where the receiving request's next response byte goes: {@link RangeCursor#key()} is the
     * region's {@link dev.ofl.api.Region#id()}, {@link RangeCursor#position()} the offset in it.
     *
     * @return the cursor over the receiving request's ranges; advance it past what was placed
     */
    RangeCursor cursor();

    /**
     * Checks a RESPONSE header for the receiving request and completes it.
     *
     * @param header the header, in memory the peer can no longer change
     * @throws ProtocolException naming the field that fails
     */
    void complete(MessageHeader header) throws ProtocolException;
}
