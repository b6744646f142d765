package dev.ofl.api;

import java.lang.foreign.MemorySegment;

/**
 * One request as a handler sees it. A view over the connection's receive buffer (over RDMA, a
 * payload above the server's inline limit is in the server's staging pool, which other
 * connections use next), valid only during {@link OflHandler#handle}; copy anything that must
 * outlive the call.
 */
public interface OflRequest {
    /**
     * The operation code the client sent.
     *
     * @return the op
     */
    int op();

    /**
     * The generation value the client sent.
     *
     * @return the generation
     */
    long generation();

    /**
     * The request's sequence number on its connection: zero for the first request of each
     * connection, one more for each next request.
     *
     * @return the sequence
     */
    long sequence();

    /**
     * The request payload, read-only.
     *
     * @return a segment of exactly the payload's length
     */
    MemorySegment payload();

    /**
     * The most response bytes the client's ranges can take.
     *
     * @return the response capacity in bytes
     */
    long responseCapacity();
}
