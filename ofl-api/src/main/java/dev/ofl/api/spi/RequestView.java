package dev.ofl.api.spi;

import dev.ofl.api.OflRequest;
import dev.ofl.api.wire.MessageHeader;
import java.lang.foreign.MemorySegment;

/**
 * The {@link OflRequest} a server connection hands its handler, reused for every request. The
 * payload view of each receive slot is kept while the payload length and the slot's memory
 * repeat, so steady traffic allocates nothing. Not thread-safe: one connection thread.
 */
public final class RequestView implements OflRequest {
    private final MemorySegment[] payloadViews;
    /** The message each view was cut from. */
    private final MemorySegment[] viewSources;
    private int op;
    private long generation;
    private long sequence;
    private long capacity;
    private MemorySegment payload;

    /**
     * Creates a view for a connection with the given number of receive slots.
     *
     * @param slots how many receive buffers requests may arrive in
     */
    public RequestView(int slots) {
        this.payloadViews = new MemorySegment[slots];
        this.viewSources = new MemorySegment[slots];
    }

    /**
     * Points the view at a checked request.
     *
     * @param slot the receive slot it arrived in
     * @param message the slot's buffer, with the header at offset zero
     * @param header the checked header, wrapped on {@code message}
     * @param responseCapacity the checked sum of its range lengths
     */
    public void set(int slot, MemorySegment message, MessageHeader header, long responseCapacity) {
        op = header.op();
        generation = header.generation();
        sequence = header.sequence();
        capacity = responseCapacity;
        long length = header.payloadLength();
        MemorySegment view = payloadViews[slot];
        // The same segment object too: a slot's memory may be replaced (a TCP receive buffer that
        // grew, freeing the old one; an RDMA payload read into borrowed memory).
        if (view == null || view.byteSize() != length || viewSources[slot] != message) {
            view = message.asSlice(MessageHeader.LENGTH, length).asReadOnly();
            payloadViews[slot] = view;
            viewSources[slot] = message;
        }
        payload = view;
    }

    @Override
    public int op() {
        return op;
    }

    @Override
    public long generation() {
        return generation;
    }

    @Override
    public long sequence() {
        return sequence;
    }

    @Override
    public MemorySegment payload() {
        return payload;
    }

    @Override
    public long responseCapacity() {
        return capacity;
    }
}
