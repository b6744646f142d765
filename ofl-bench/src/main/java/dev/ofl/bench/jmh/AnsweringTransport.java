package dev.ofl.bench.jmh;

import dev.ofl.api.Region;
import dev.ofl.api.spi.ClientTransport;
import dev.ofl.api.spi.ResponseSink;
import dev.ofl.api.wire.MessageHeader;
import dev.ofl.api.wire.MessageType;
import dev.ofl.api.wire.ProtocolException;
import dev.ofl.api.wire.WireStatus;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.List;

/**
 * A client transport with no peer: it answers every request at the next poll with an OK response
 * of a fixed length, in the calling thread, as an RDMA completion would (the length from the
 * header). What is measured over it is the client session's own cost.
 */
final class AnsweringTransport implements ClientTransport {
    private final long responseBytes;
    private final MemorySegment response = Arena.ofAuto().allocate(MessageHeader.LENGTH, 64);
    private final MessageHeader header = new MessageHeader();
    private final MessageHeader sent = new MessageHeader();
    private long pendingSequence = -1;

    AnsweringTransport(long responseBytes) {
        this.responseBytes = responseBytes;
    }

    @Override
    public void connect(List<Region> regions, long deadlineNs) {
    }

    @Override
    public void register(Region region) {
    }

    @Override
    public long rangeAddress(Region region, long offset) {
        return region.segment().address() + offset;
    }

    @Override
    public int rangeKey(Region region) {
        return 0;
    }

    @Override
    public void send(int slot, MemorySegment message, long length, ResponseSink sink) {
        pendingSequence = sent.wrap(message, 0).sequence();
    }

    @Override
    public int poll(ResponseSink sink) throws ProtocolException {
        if (pendingSequence < 0) {
            return 0;
        }
        header.wrap(response, 0).reset(MessageType.RESPONSE, pendingSequence).status(WireStatus.OK)
                .responseLength(responseBytes);
        pendingSequence = -1;
        sink.complete(header);
        return 1;
    }

    @Override
    public int awaitProgress(ResponseSink sink, long deadlineNs, long nowNs) throws ProtocolException {
        return poll(sink);
    }

    @Override
    public boolean countsPlacedBytes() {
        return false;
    }

    @Override
    public boolean failureReasons() {
        return false;
    }

    @Override
    public String lossReason() {
        return null;
    }

    @Override
    public void breakConnection() {
    }

    @Override
    public void disconnect() {
    }

    @Override
    public boolean close() {
        return true;
    }

    @Override
    public String backend() {
        return "answering";
    }
}
