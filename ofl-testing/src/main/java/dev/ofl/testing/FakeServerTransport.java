package dev.ofl.testing;

import dev.ofl.api.Limits;
import dev.ofl.api.RefusalCode;
import dev.ofl.api.ServerConfig;
import dev.ofl.api.spi.LivenessWatcher;
import dev.ofl.api.spi.RangeCursor;
import dev.ofl.api.spi.ServerTransport;
import dev.ofl.api.spi.StagingPool;
import dev.ofl.api.wire.Bootstrap;
import dev.ofl.api.wire.MessageChecks;
import dev.ofl.api.wire.MessageHeader;
import dev.ofl.api.wire.MessageType;
import dev.ofl.api.wire.ProtocolException;
import dev.ofl.api.wire.TransportKind;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.channels.SocketChannel;
import java.util.concurrent.locks.LockSupport;

/**
 * The fake server transport: takes requests from the {@link FakeLink}, writes response pieces
 * into the client's memory cut at range boundaries (as RDMA WRITEs would be), then queues the
 * completion header, with the faults of its service applied.
 *
 * <p>Memory: the receive slots belong to a confined arena of the connection's thread, allocated
 * by {@link #accept} and freed by {@link #close()}; response bytes come from the server's
 * {@link StagingPool}, whose blocks go back once written into the client's memory.
 */
final class FakeServerTransport implements ServerTransport {
    private static final int PIECE_BYTES = 16 << 10;
    private static final int WAIT_MS = 50;
    /** How often a stalled delivery looks whether it was unstalled or broken. */
    private static final long STALL_LOOK_NS = 1_000_000L;

    private final ServerConfig config;
    private final SocketChannel channel;
    private final MessageHeader out = new MessageHeader();
    private FakeLink link;
    private Arena arena;
    private MemorySegment[] slots;
    private final StagingPool pool;
    private int nextSlot;
    private int requestLength;
    private volatile boolean closing;
    /** Whether this connection's client takes nothing; {@code null} until its first send. */
    private Boolean stalled;

    FakeServerTransport(ServerConfig config, SocketChannel channel, StagingPool pool) {
        this.config = config;
        this.channel = channel;
        this.pool = pool;
    }

    @Override
    public int kind() {
        return TransportKind.IN_PROCESS;
    }

    @Override
    public long receiveBytes(Bootstrap.Endpoint hello) {
        Limits limits = hello.limits();
        return limits.maxInFlight() * MessageHeader.requestLength(limits.maxRequestBytes(), limits.maxRanges());
    }

    @Override
    public Bootstrap.Endpoint accept(Bootstrap.Endpoint hello) {
        FakeLink found = FakeLink.find(hello.qpn());
        if (found == null) {
            throw new IllegalStateException("no fake link " + hello.qpn() + " in this process: the fake backend "
                    + "connects clients and servers of one JVM only");
        }
        Limits limits = hello.limits();
        Arena a = Arena.ofConfined();
        try {
            slots = new MemorySegment[limits.maxInFlight()];
            long slotBytes = MessageHeader.requestLength(limits.maxRequestBytes(), limits.maxRanges());
            if (found.faults.takeFailedServerSetup()) {
                throw new OutOfMemoryError("cannot allocate " + slots.length + " receive slots of " + slotBytes
                        + " bytes: injected by FakeFaults.failServerSetups");
            }
            for (int i = 0; i < slots.length; i++) {
                slots[i] = a.allocate(slotBytes, 64);
            }
        } catch (RuntimeException | Error e) {
            a.close();
            throw e;
        }
        arena = a;
        link = found;
        return new Bootstrap.Endpoint(RefusalCode.ACCEPTED, TransportKind.IN_PROCESS, config.serviceName(), limits,
                found.id, 0, null, 0, 0, 0, "", null);
    }

    @Override
    public void start() throws IOException {
        FakeLink l = link;
        LivenessWatcher.shared().watch(channel, l::loseClient);
    }

    @Override
    public int receiveSlots() {
        return slots.length;
    }

    @Override
    public int pieceBytes() {
        return PIECE_BYTES;
    }

    @Override
    public StagingPool staging() {
        return pool;
    }

    @Override
    public int nextRequest() throws IOException {
        while (true) {
            if (closing) {
                throw new IOException("the server is closing");
            }
            String loss = link.serverLoss();
            if (loss != null) {
                throw new java.io.EOFException(loss);
            }
            byte[] message;
            try {
                message = link.takeRequest(WAIT_MS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IOException("interrupted", e);
            }
            if (message != null) {
                int slot = nextSlot;
                nextSlot = (nextSlot + 1) % slots.length;
                requestLength = message.length;
                MemorySegment target = slots[slot];
                if (message.length > target.byteSize()) {
                    throw new IOException("a request of " + message.length + " bytes exceeds the receive slot");
                }
                MemorySegment.copy(message, 0, target, ValueLayout.JAVA_BYTE, 0, message.length);
                return slot;
            }
        }
    }

    @Override
    public MemorySegment message(int slot) {
        return slots[slot];
    }

    @Override
    public boolean completeRequest(int slot, long length) throws ProtocolException {
        MessageChecks.checkRequestByteLength(requestLength, length);
        return !link.faults.takeRefusedRequestMemory();
    }

    @Override
    public void releaseRequest(int slot) {
    }

    @Override
    public void sendPiece(long sequence, long stagingOffset, long from, long to, RangeCursor ranges,
            long releaseOffset, long releaseBytes) throws IOException {
        try {
            write(stagingOffset, from, to, ranges);
        } finally {
            // Copied into the client's memory, or failed: nothing reads these bytes any more.
            pool.release(releaseOffset, releaseBytes);
        }
    }

    /**
     * On a connection whose client takes nothing ({@link FakeFaults#stallDeliveries}), waits until
     * the connection is broken; decided at the connection's first send.
     */
    private void awaitDelivery() throws IOException {
        if (stalled == null) {
            stalled = link.faults.takeStalledDeliveries();
        }
        while (stalled) {
            if (closing) {
                throw new IOException("the connection was broken while its client took nothing");
            }
            LockSupport.parkNanos(STALL_LOOK_NS);
        }
    }

    private void write(long stagingOffset, long from, long to, RangeCursor ranges) throws IOException {
        awaitDelivery();
        if (link.faults.takeBreakBeforePiece()) {
            link.breakServer();
            throw new IOException("the connection broke in the middle of a response: injected by "
                    + "FakeFaults.breakAfterPieces");
        }
        long at = from;
        while (at < to) {
            long chunk = ranges.chunk(to - at);
            if (!link.write(pool.memory(), stagingOffset + at, ranges.key(), ranges.position(), chunk)) {
                throw new IOException("a response write was not accepted: the client's side of the link is broken");
            }
            ranges.advance(chunk);
            at += chunk;
        }
    }

    @Override
    public void sendEnd(long sequence, long stagingOffset, long from, long to, int wireStatus, int handlerStatus,
            long responseLength, RangeCursor ranges, long releaseOffset, long releaseBytes) throws IOException {
        try {
            if (to > from) {
                write(stagingOffset, from, to, ranges);
            }
        } finally {
            pool.release(releaseOffset, releaseBytes);
        }
        byte[] completion = new byte[MessageHeader.LENGTH];
        out.wrap(MemorySegment.ofArray(completion), 0).reset(MessageType.RESPONSE, sequence)
                .status(wireStatus)
                .handlerStatus(handlerStatus)
                .responseLength(responseLength);
        link.faults.corrupt(out);
        awaitDelivery();
        if (link.faults.takeDrop()) {
            return;
        }
        if (!link.complete(completion, System.nanoTime() + link.faults.responseDelayNs())) {
            throw new IOException("the completion was not accepted: the client's side of the link is broken");
        }
    }

    @Override
    public void breakConnection() {
        closing = true;
        FakeLink l = link;
        if (l != null) {
            l.breakServer();
        }
    }

    @Override
    public boolean close() {
        if (arena != null) {
            arena.close();
            arena = null;
        }
        return true;
    }
}
