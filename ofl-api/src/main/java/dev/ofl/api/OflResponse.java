package dev.ofl.api;

import java.lang.foreign.MemorySegment;

/**
 * Where a handler writes its response. The response is one stream of bytes, laid across the
 * client's ranges in order. Two ways to produce it, freely mixed:
 * <ul>
 * <li><b>In place:</b> write into {@link #buffer()} (for RDMA, registered memory the NIC sends from)
 * at offsets from {@link #committed()} on, then {@link #commit(long)} the new bytes.</li>
 * <li><b>Copy:</b> {@link #write(MemorySegment)} copies bytes into the buffer and commits them.</li>
 * </ul>
 * Committed bytes may be sent at once as a piece, so a handler that streams rows lets them travel
 * while it prepares the next. Valid only during {@link OflHandler#handle}; not thread-safe.
 *
 * <p><b>Staging lifetime.</b> The buffer is an extent of the server's staging pool
 * ({@link ServerConfig#stagingBudgetBytes()}, shared by every connection), borrowed for this
 * response before the handler was called: {@link #capacity()} bytes rounded up to 4,096-byte
 * blocks. As pieces are sent (TCP: written to the socket; RDMA: their WRITEs completed), the
 * blocks wholly before the end of each piece go back to the pool, and may be lent to another
 * response at once; the rest goes back after the handler returned and the completion was sent.
 * A request whose capacity could not be staged within {@link ServerConfig#stagingTimeout()} never
 * reaches the handler (the client sees {@link OflStatus#BUSY}).
 *
 * <p><b>Staging holds other responses' bytes.</b> The pool is not cleared between borrowers: until
 * the handler writes it, the buffer holds whatever an earlier response, of this or another
 * client, left there. Every byte committed is sent, so a handler must write each byte it commits;
 * one that commits more than it wrote (a short read into the buffer, an off-by-one length) sends
 * another client's data. {@link ServerConfig.Builder#zeroStaging(boolean)} clears the extent
 * before each handler runs, at the cost of a pass over the capacity per response.
 */
public interface OflResponse {
    /**
     * This response's staging extent: at least {@link #capacity()} bytes (the capacity rounded up
     * to whole 4,096-byte blocks); only bytes up to {@link #capacity()} can be committed. Write at
     * offsets from {@link #committed()} on, during {@link OflHandler#handle} only. A connection
     * that gets the same extent as for its previous response gets the same segment object, so
     * steady traffic allocates nothing; otherwise a new view of the pool is made.
     *
     * @return the buffer; bytes before {@link #committed()} may already be back in the pool and
     *     lent to another response: they must be neither read nor changed, and the segment must not
     *     be kept after {@code handle} returns; bytes not yet written hold an earlier response's
     *     (zeros with {@link ServerConfig#zeroStaging()})
     */
    MemorySegment buffer();

    /**
     * The response capacity: the sum of the client's range lengths for this request.
     *
     * @return the most bytes that can be committed
     */
    long capacity();

    /**
     * How many bytes are committed so far.
     *
     * @return the committed length
     */
    long committed();

    /**
     * Commits the next {@code length} bytes of {@link #buffer()}, from {@link #committed()} on.
     *
     * @param length bytes to publish, zero or more
     * @throws IllegalArgumentException if the total would exceed {@link #capacity()}
     * @throws OflConnectionException if the connection broke while sending
     */
    void commit(long length);

    /**
     * Copies bytes to the end of the response and commits them.
     *
     * @param source the bytes to append
     * @throws IllegalArgumentException if the total would exceed {@link #capacity()}
     * @throws OflConnectionException if the connection broke while sending
     */
    default void write(MemorySegment source) {
        long at = committed();
        if (source.byteSize() > capacity() - at) {
            throw new IllegalArgumentException("response of " + (at + source.byteSize())
                    + " bytes exceeds the client's capacity of " + capacity() + " bytes");
        }
        MemorySegment.copy(source, 0, buffer(), at, source.byteSize());
        commit(source.byteSize());
    }
}
