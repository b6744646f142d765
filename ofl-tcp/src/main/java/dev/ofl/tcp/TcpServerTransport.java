package dev.ofl.tcp;

import dev.ofl.api.IdleStrategy;
import dev.ofl.api.Limits;
import dev.ofl.api.OflException;
import dev.ofl.api.RefusalCode;
import dev.ofl.api.ServerConfig;
import dev.ofl.api.WaitMode;
import dev.ofl.api.spi.BootstrapIo;
import dev.ofl.api.spi.RangeCursor;
import dev.ofl.api.spi.ServerMemory;
import dev.ofl.api.spi.ServerTransport;
import dev.ofl.api.spi.StagingPool;
import dev.ofl.api.wire.Bootstrap;
import dev.ofl.api.wire.MessageHeader;
import dev.ofl.api.wire.MessageType;
import dev.ofl.api.wire.TransportKind;
import java.io.EOFException;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.SocketChannel;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One server connection's TCP transport: requests are read into one receive buffer; response
 * pieces go out as DATA messages and the completion as a RESPONSE message, small ones copied next
 * to their headers and written in one system call.
 *
 * <p>Memory: the transmit buffer and the receive buffer belong to confined arenas of the
 * connection's thread, allocated by {@link #accept} and freed by {@link #close()}. The receive
 * buffer starts at {@value #INITIAL_RX_BYTES} bytes and grows (to a power of two, at most the
 * negotiated largest request) only when a longer request arrives, so a client that sends no request
 * costs {@value #INITIAL_RX_BYTES} + {@value #TX_BYTES} bytes. Response bytes are written from the
 * server's {@link StagingPool}, and their blocks returned to it once written to the socket.
 */
final class TcpServerTransport implements ServerTransport {
    /**
     * Pieces travel once this many bytes are committed: each costs system calls on both sides, so
     * fewer, larger writes reach the socket's throughput (measured on loopback: 16 KiB pieces gave
     * about 60% of a plain C peer's MB/s on 12 MiB responses, 512 KiB about 100%).
     */
    private static final int PIECE_BYTES = 512 << 10;
    /**
     * Pieces up to this size are copied next to their headers and written in one system call; of
     * larger ones, this many bytes travel with each header.
     */
    private static final int COPY_BYTES = 8 << 10;
    /** A DATA header, a piece of up to COPY_BYTES, and the RESPONSE header. */
    private static final int TX_BYTES = COPY_BYTES + 2 * MessageHeader.LENGTH;
    /** The most one blocking write takes: the piece size, so that throughput stays as measured. */
    private static final int WRITE_CHUNK_BYTES = PIECE_BYTES;
    /** The receive buffer before any request needs more: a header, a small payload and ranges. */
    private static final int INITIAL_RX_BYTES = 4096;

    private final ServerConfig config;
    private final SocketChannel channel;
    private final IdleStrategy idle;
    /**
     * Bytes read and written so far ({@link #progress()}): written by the connection's thread with
     * release stores, read by the listener.
     */
    private final AtomicLong moved = new AtomicLong();
    private final MessageHeader out = new MessageHeader();
    private final MessageHeader peek = new MessageHeader();
    private final StagingPool pool;
    private Arena arena;
    private Arena rxArena;
    private long largestRequest;
    private MemorySegment rx;
    private ByteBuffer rxBuffer;
    /** Bytes received into {@link #rx}: the current message first, then any of the next ones. */
    private int rxEnd;
    /** The current message's length once it is complete; its bytes are dropped by the next request. */
    private int consumed;
    private MemorySegment staging;
    /** This connection's own view of the pool's memory (position and limit are per thread). */
    private ByteBuffer stagingBuffer;
    private MemorySegment tx;
    private ByteBuffer txBuffer;
    private long committedBytes;
    /** BLOCKING mode: how long to read without blocking before a read may park the thread. */
    private final long spinNs;
    private final boolean directSocketCalls;
    /**
     * BUSY_POLL: the connection's reads and writes go through direct calls on this duplicate of
     * the socket's descriptor, owned and closed by the connection's thread; else null. Volatile:
     * a break from another thread must see it to end the socket (closing the channel alone would
     * leave the duplicate holding it open).
     */
    private volatile NativeSocket socket;
    /** Set by {@link #breakConnection()} before it looks at {@link #socket}; read after each direct call. */
    private volatile boolean broken;

    TcpServerTransport(ServerConfig config, SocketChannel channel, StagingPool pool, long spinNs) {
        this(config, channel, pool, spinNs, true);
    }

    TcpServerTransport(ServerConfig config, SocketChannel channel, StagingPool pool, long spinNs,
            boolean directSocketCalls) {
        this.config = config;
        this.directSocketCalls = directSocketCalls;
        this.spinNs = config.waitMode() == WaitMode.BLOCKING ? spinNs : 0;
        this.channel = channel;
        this.idle = config.idleStrategy();
        this.pool = pool;
    }

    @Override
    public int kind() {
        return TransportKind.TCP;
    }

    /** In blocking mode the connection only ever waits in socket reads and writes, which park a virtual thread. */
    @Override
    public boolean parksVirtualThreads() {
        return config.waitMode() == WaitMode.BLOCKING;
    }

    /** The transmit buffer and the first receive buffer; the latter grows only as longer requests arrive. */
    @Override
    public long receiveBytes(Bootstrap.Endpoint hello) {
        return TX_BYTES + initialReceiveBytes(hello.limits());
    }

    private static int initialReceiveBytes(Limits limits) {
        return (int) Math.min(INITIAL_RX_BYTES, MessageHeader.requestLength(limits.maxRequestBytes(), limits.maxRanges()));
    }

    @Override
    public Bootstrap.Endpoint accept(Bootstrap.Endpoint hello) {
        Limits limits = hello.limits();
        largestRequest = MessageHeader.requestLength(limits.maxRequestBytes(), limits.maxRanges());
        int rxBytes = initialReceiveBytes(limits);
        Arena a = Arena.ofConfined();
        try {
            tx = a.allocate(TX_BYTES, 64);
            txBuffer = tx.asByteBuffer();
        } catch (RuntimeException | OutOfMemoryError e) {
            a.close();
            throw new OflException("cannot allocate the connection's transmit buffer of " + TX_BYTES + " bytes: " + e, e);
        }
        arena = a;
        account(TX_BYTES);
        try {
            growReceive(rxBytes);
        } catch (RuntimeException | OutOfMemoryError e) {
            close();
            throw new OflException("cannot allocate the connection's receive buffer of " + rxBytes + " bytes: " + e, e);
        }
        return Bootstrap.Endpoint.tcp(RefusalCode.ACCEPTED, config.serviceName(), limits, "");
    }

    @Override
    public void start() throws IOException {
        if (config.waitMode() == WaitMode.BUSY_POLL) {
            channel.configureBlocking(false);
            if (directSocketCalls) {
                socket = NativeSocket.forBusyPoll(channel);
                if (socket != null && broken) {
                    // A break that looked before the socket was published could not shut it down.
                    closeSocket();
                    throw new ClosedChannelException();
                }
            }
        }
    }

    /** Whether the connection reads and writes through direct socket calls; for tests. */
    boolean usesDirectSocketCalls() {
        return socket != null;
    }

    /** The duplicate descriptor's number, or -1 without one; for tests. */
    int directDescriptor() {
        NativeSocket direct = socket;
        return direct != null ? direct.descriptor() : -1;
    }

    @Override
    public int receiveSlots() {
        return 1;
    }

    @Override
    public int pieceBytes() {
        return PIECE_BYTES;
    }

    @Override
    public StagingPool staging() {
        return pool;
    }

    /**
     * Receive and transmit memory this connection holds now.
     *
     * @return bytes
     */
    long committedBytes() {
        return committedBytes;
    }

    private void account(long bytes) {
        committedBytes += bytes;
        ServerMemory.receive(bytes);
    }

    /** Replaces the receive buffer by one of {@code size} bytes, keeping what was read into it. */
    private void growReceive(int size) {
        Arena a = Arena.ofConfined();
        MemorySegment grown;
        try {
            grown = a.allocate(size, 64);
        } catch (RuntimeException | Error e) {
            a.close();
            throw e;
        }
        if (rx != null) {
            MemorySegment.copy(rx, 0, grown, 0, rxEnd);
            account(-rx.byteSize());
            rxArena.close();
        }
        rxArena = a;
        rx = grown;
        rxBuffer = grown.asByteBuffer();
        account(size);
    }

    @Override
    public int nextRequest() throws IOException {
        // A pipelining client's next request may already be (partly) here: move it to the front.
        int left = rxEnd - consumed;
        if (left > 0 && consumed > 0) {
            MemorySegment.copy(rx, consumed, rx, 0, left);
        }
        rxEnd = left;
        consumed = 0;
        fill(MessageHeader.LENGTH);
        // Grown now, before the session takes the message: the header is not checked yet, so a
        // length beyond the negotiated largest request grows nothing (the check refuses it).
        long described = MessageHeader.requestLength(0, 0);
        long payload = peek.wrap(rx, 0).payloadLength();
        if (payload <= largestRequest) {
            described = MessageHeader.requestLength((int) payload, peek.rangeCount());
        }
        if (described > rx.byteSize() && described <= largestRequest) {
            growReceive((int) Math.min(Long.highestOneBit(described - 1) << 1, largestRequest));
        }
        return 0;
    }

    @Override
    public MemorySegment message(int slot) {
        return rx;
    }

    @Override
    public boolean completeRequest(int slot, long length) throws IOException {
        fill((int) length);
        consumed = (int) length;
        return true;
    }

    @Override
    public void releaseRequest(int slot) {
    }

    /**
     * Reads until the receive buffer holds at least {@code length} bytes of the current message.
     * Each read takes whatever has arrived, up to the buffer's end, so that a small request's
     * header and body usually come in one system call.
     */
    private void fill(int length) throws IOException {
        if (rxEnd >= length) {
            return;
        }
        rxBuffer.limit(rxBuffer.capacity()).position(rxEnd);
        if (spinNs > 0 && Thread.currentThread().isVirtual()) {
            spin(length);
        }
        idle.reset();
        while (rxBuffer.position() < length) {
            NativeSocket direct = socket;
            int n;
            if (direct != null) {
                n = direct.read(rx.address(), rxBuffer);
                // The kernel still hands out what it held when the socket was shut down: nothing read
                // after a break may reach the handler, as nothing does through a closed channel.
                if (broken) {
                    throw new ClosedChannelException();
                }
            } else {
                n = channel.read(rxBuffer);
            }
            if (n < 0) {
                rxEnd = rxBuffer.position();
                if (rxEnd == 0) {
                    throw new EOFException("the client closed the connection");
                }
                throw new EOFException("the client closed the connection in the middle of a request ("
                        + rxEnd + " of " + length + " bytes)");
            }
            moved(n);
            idle.idle(n);
        }
        rxEnd = rxBuffer.position();
    }

    /**
     * BLOCKING mode on a virtual thread: reads without blocking for at most {@link #spinNs}, so
     * that a request that follows soon is read without parking the virtual thread (a park costs a
     * hand-off through the JDK's poller). Bounded by the machine's clock, not the server's: a cost
     * bound, not a deadline. Once the thread has parked in a read, the JDK keeps the socket
     * non-blocking underneath, so switching modes here makes no system call. A platform thread
     * does not spin: the kernel wakes it straight from its read, and a spin would only take CPU
     * from the peer (on a loaded 2-core host a 64-byte echo's p50 was 17–20 µs without it against
     * 20–29 µs with 50 µs of it).
     */
    private void spin(int length) throws IOException {
        channel.configureBlocking(false);
        try {
            long until = System.nanoTime() + spinNs;
            while (rxBuffer.position() < length && System.nanoTime() - until < 0) {
                int n = channel.read(rxBuffer);
                if (n < 0) {
                    return; // the blocking loop reads the end of stream again and reports it
                }
                moved(n);
                // Let the other virtual threads on this carrier run between reads.
                Thread.yield();
            }
        } finally {
            channel.configureBlocking(true);
        }
    }

    /** Writes all of {@code buffer}, a view of native memory whose index 0 is at {@code base}. */
    private void writeFully(long base, ByteBuffer buffer) throws IOException {
        NativeSocket direct = socket;
        idle.reset();
        while (buffer.hasRemaining()) {
            if (direct != null && broken) {
                throw new ClosedChannelException();
            }
            int n;
            if (direct != null) {
                n = direct.write(base, buffer);
            } else {
                // A blocking write on a platform thread returns only when all of it is written: in
                // chunks, each one shows that the client still reads (the send timeout bounds a
                // stall, not a size). On a virtual thread the JDK returns partial writes anyway.
                int limit = buffer.limit();
                buffer.limit(buffer.position() + Math.min(buffer.remaining(), WRITE_CHUNK_BYTES));
                try {
                    n = channel.write(buffer);
                } finally {
                    buffer.limit(limit);
                }
            }
            moved(n);
            idle.idle(n);
        }
    }

    private void moved(int bytes) {
        if (bytes > 0) {
            moved.setRelease(moved.getPlain() + bytes);
        }
    }

    @Override
    public long progress() {
        return moved.getAcquire();
    }

    @Override
    public void sendPiece(long sequence, long stagingOffset, long from, long to, RangeCursor ranges,
            long releaseOffset, long releaseBytes) throws IOException {
        try {
            send(sequence, stagingOffset, from, to, false, 0, 0, 0);
        } finally {
            // Written or failed, the socket no longer reads these bytes.
            pool.release(releaseOffset, releaseBytes);
        }
    }

    @Override
    public void sendEnd(long sequence, long stagingOffset, long from, long to, int wireStatus, int handlerStatus,
            long responseLength, RangeCursor ranges, long releaseOffset, long releaseBytes) throws IOException {
        try {
            send(sequence, stagingOffset, from, to, true, wireStatus, handlerStatus, responseLength);
        } finally {
            pool.release(releaseOffset, releaseBytes);
        }
    }

    /** The pool's memory, taken once a response first needs it (the pool allocates it then). */
    private void bindStaging() {
        staging = pool.memory();
        // A ByteBuffer addresses at most 2 GiB: larger budgets are written through slices.
        stagingBuffer = staging.byteSize() <= Integer.MAX_VALUE ? staging.asByteBuffer() : null;
    }

    /*
     * A DATA header never travels alone: a write of its 64 bytes would leave as a segment of its
     * own, and such segments between large ones slowed 12 MiB responses on loopback by a third or
     * more (a C server that wrote 32 bytes before each 512 KiB piece, against one that wrote the
     * piece whole). So the first COPY_BYTES of a piece are copied next to its header, and the last
     * ones of the last piece before the RESPONSE header; a piece of at most COPY_BYTES goes out
     * whole with both headers in one write. The rest of a piece is written straight from the
     * staging memory. A response whose last piece was sent before the handler returned (its
     * length a multiple of the piece size) ends with the RESPONSE header alone: one small write
     * at the end of the stream, not one between every two pieces. No gathering write: for arena
     * memory it allocates per buffer.
     */
    private void send(long sequence, long stagingOffset, long from, long to, boolean last, int status,
            int handlerStatus, long responseLength) throws IOException {
        long piece = to - from;
        if (piece > 0 && staging == null) {
            bindStaging();
        }
        int at = 0;
        if (piece > 0) {
            out.wrap(tx, 0).reset(MessageType.DATA, sequence)
                    .payloadLength((int) piece)
                    .responseOffset(from);
            int head = (int) Math.min(piece, COPY_BYTES);
            MemorySegment.copy(staging, stagingOffset + from, tx, MessageHeader.LENGTH, head);
            at = MessageHeader.LENGTH + head;
            if (piece > head) {
                int tail = last ? (int) Math.min(COPY_BYTES, piece - head) : 0;
                txBuffer.limit(at).position(0);
                writeFully(tx.address(), txBuffer);
                writeStaging(stagingOffset + from + head, stagingOffset + to - tail);
                MemorySegment.copy(staging, stagingOffset + to - tail, tx, 0, tail);
                at = tail;
            }
        }
        if (last) {
            out.wrap(tx, at).reset(MessageType.RESPONSE, sequence)
                    .status(status)
                    .handlerStatus(handlerStatus)
                    .responseLength(responseLength);
            at += MessageHeader.LENGTH;
        }
        if (at > 0) {
            txBuffer.limit(at).position(0);
            writeFully(tx.address(), txBuffer);
        }
    }

    /** Writes the staging bytes from offset {@code start} up to {@code end}, if any. */
    private void writeStaging(long start, long end) throws IOException {
        if (end <= start) {
            return;
        }
        if (stagingBuffer != null) {
            stagingBuffer.limit((int) end).position((int) start);
            writeFully(staging.address(), stagingBuffer);
        } else {
            MemorySegment slice = staging.asSlice(start, end - start);
            writeFully(slice.address(), slice.asByteBuffer());
        }
    }

    @Override
    public void breakConnection() {
        broken = true;
        NativeSocket direct = socket;
        if (direct != null) {
            // The connection thread's duplicate descriptor keeps the socket open after the channel
            // closes (and the channel may be closed already): end the stream on the socket itself,
            // so that the client sees the close and the connection's reads see the end.
            direct.shutdown();
        }
        BootstrapIo.closeQuietly(channel);
    }

    private void closeSocket() {
        NativeSocket direct = socket;
        if (direct != null) {
            socket = null;
            direct.close();
        }
    }

    @Override
    public boolean close() {
        breakConnection();
        closeSocket();
        if (arena != null) {
            arena.close();
            arena = null;
        }
        if (rxArena != null) {
            rxArena.close();
            rxArena = null;
            rx = null;
        }
        account(-committedBytes);
        return true;
    }
}
