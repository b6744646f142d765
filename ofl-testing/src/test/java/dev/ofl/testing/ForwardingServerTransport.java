package dev.ofl.testing;

import dev.ofl.api.spi.RangeCursor;
import dev.ofl.api.spi.ServerTransport;
import dev.ofl.api.spi.StagingPool;
import dev.ofl.api.wire.Bootstrap;
import dev.ofl.api.wire.ProtocolException;
import java.io.IOException;
import java.lang.foreign.MemorySegment;

/** A server transport that hands every call to a fake one; tests override the calls they watch or bend. */
class ForwardingServerTransport implements ServerTransport {
    final FakeServerTransport fake;

    ForwardingServerTransport(FakeServerTransport fake) {
        this.fake = fake;
    }

    @Override
    public boolean parksVirtualThreads() {
        return fake.parksVirtualThreads();
    }

    @Override
    public int kind() {
        return fake.kind();
    }

    @Override
    public long receiveBytes(Bootstrap.Endpoint hello) {
        return fake.receiveBytes(hello);
    }

    @Override
    public Bootstrap.Endpoint accept(Bootstrap.Endpoint hello) {
        return fake.accept(hello);
    }

    @Override
    public boolean reclaimStaging(long deadlineNs) throws IOException {
        return fake.reclaimStaging(deadlineNs);
    }

    @Override
    public void start() throws IOException {
        fake.start();
    }

    @Override
    public int receiveSlots() {
        return fake.receiveSlots();
    }

    @Override
    public int pieceBytes() {
        return fake.pieceBytes();
    }

    @Override
    public StagingPool staging() {
        return fake.staging();
    }

    @Override
    public int nextRequest() throws IOException {
        return fake.nextRequest();
    }

    @Override
    public MemorySegment message(int slot) {
        return fake.message(slot);
    }

    @Override
    public boolean completeRequest(int slot, long length) throws ProtocolException {
        return fake.completeRequest(slot, length);
    }

    @Override
    public void releaseRequest(int slot) {
        fake.releaseRequest(slot);
    }

    @Override
    public void sendPiece(long sequence, long stagingOffset, long from, long to, RangeCursor ranges,
            long releaseOffset, long releaseBytes) throws IOException {
        fake.sendPiece(sequence, stagingOffset, from, to, ranges, releaseOffset, releaseBytes);
    }

    @Override
    public void sendEnd(long sequence, long stagingOffset, long from, long to, int wireStatus, int handlerStatus,
            long responseLength, RangeCursor ranges, long releaseOffset, long releaseBytes) throws IOException {
        fake.sendEnd(sequence, stagingOffset, from, to, wireStatus, handlerStatus, responseLength, ranges,
                releaseOffset, releaseBytes);
    }

    @Override
    public void breakConnection() {
        fake.breakConnection();
    }

    @Override
    public boolean close() {
        return fake.close();
    }
}
