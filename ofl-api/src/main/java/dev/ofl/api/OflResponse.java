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
 */
public interface OflResponse {
    /**
     * The connection's response staging area, the same segment for every request (so that handing
     * it out allocates nothing). It is at least {@link #capacity()} bytes long (it has the
     * negotiated maximum response size); only bytes up to {@link #capacity()} can be committed.
     *
     * @return the buffer; bytes before {@link #committed()} must not be changed
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
