package dev.ofl.tcp;

import dev.ofl.api.ClientConfig;
import dev.ofl.api.IdleStrategy;
import dev.ofl.api.NanoClock;
import dev.ofl.api.OflConnectionException;
import dev.ofl.api.RefusalCode;
import dev.ofl.api.Region;
import dev.ofl.api.WaitMode;
import dev.ofl.api.spi.BootstrapIo;
import dev.ofl.api.spi.ClientBootstrap;
import dev.ofl.api.spi.ClientTransport;
import dev.ofl.api.spi.RangeCursor;
import dev.ofl.api.spi.ResponseSink;
import dev.ofl.api.wire.Bootstrap;
import dev.ofl.api.wire.MessageHeader;
import dev.ofl.api.wire.MessageType;
import dev.ofl.api.wire.ProtocolException;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The TCP client transport: requests are written from the session's send slots; responses are
 * parsed from a small receive buffer, and large DATA pieces are read from the socket straight into
 * the caller's ranges.
 *
 * <p>Memory: the receive buffer belongs to an arena owned by the transport and freed by
 * {@link #close()}; nothing else of the socket's lifetime touches native memory.
 */
final class TcpClientTransport implements ClientTransport {
    private static final Logger LOG = LoggerFactory.getLogger(TcpClientTransport.class);

    /** Receive buffer for headers and small pieces; pieces this large or more bypass it. */
    private static final int RX_BYTES = 64 << 10;
    private static final int DIRECT_READ_BYTES = 16 << 10;
    /** The largest segment MemorySegment.asByteBuffer views (the JDK's array size bound, not Integer.MAX_VALUE). */
    private static final int MAX_REGION_BYTES = Integer.MAX_VALUE - 8;
    /** The action form of select() skips the selected-key set, whose insertions allocate. */
    private static final Consumer<SelectionKey> IGNORE_KEY = selected -> { };

    private final ClientConfig config;
    /** How long a send may stall while the server reads nothing: the connect timeout, converted once (saturated). */
    private final long stallLimitNs;
    private final NanoClock clock;
    private final IdleStrategy idle;
    private final WaitMode waitMode;
    private final boolean directSocketCalls;
    private final Arena arena;
    private final ByteBuffer[] slotBuffers;
    /** Why the socket ended or failed under a read or write, or {@code null}; see {@link #lossReason()}. */
    private volatile String loss;
    /** Whether the current connection's server sends failure reasons; set by connect. */
    private boolean failureReasons;
    /** Set by {@link #breakConnection()}: what fails after it failed because of it, not of the server. */
    private volatile boolean closedHere;
    private final MemorySegment rx;
    private final ByteBuffer rxBuffer;
    private final MessageHeader header = new MessageHeader();
    private MemorySegment[] regionSegments = new MemorySegment[4];
    private ByteBuffer[] regionBuffers = new ByteBuffer[4];

    private SocketChannel channel;
    /** BUSY_POLL: reads and writes through direct calls on the socket's own descriptor; else null. */
    private NativeSocket socket;
    private String path = "";
    private Selector selector;
    private SelectionKey key;
    private int rxStart;
    private int rxEnd;
    private long pieceRemaining;

    TcpClientTransport(ClientConfig config, MemorySegment slots, long slotBytes) {
        this(config, slots, slotBytes, true);
    }

    TcpClientTransport(ClientConfig config, MemorySegment slots, long slotBytes, boolean directSocketCalls) {
        this.config = config;
        this.stallLimitNs = TimeUnit.NANOSECONDS.convert(config.connectTimeout());
        this.directSocketCalls = directSocketCalls;
        this.clock = config.clock();
        this.idle = config.idleStrategy();
        this.waitMode = config.waitMode();
        this.slotBuffers = new ByteBuffer[(int) (slots.byteSize() / slotBytes)];
        for (int i = 0; i < slotBuffers.length; i++) {
            slotBuffers[i] = slots.asSlice(i * slotBytes, slotBytes).asByteBuffer();
        }
        this.arena = Arena.ofShared();
        this.rx = arena.allocate(RX_BYTES, 64);
        this.rxBuffer = rx.asByteBuffer();
    }

    @Override
    public void connect(List<Region> regions, long deadlineNs) {
        InetSocketAddress server = config.server();
        SocketChannel ch = null;
        Selector sel = null;
        try {
            ch = ClientBootstrap.open(config);
            failureReasons = ClientBootstrap.failureReasons(ClientBootstrap.exchange(ch, server,
                    Bootstrap.Endpoint.tcp(RefusalCode.ACCEPTED, config.serviceName(), config.limits(), ""), deadlineNs,
                    clock, config.authentication()));
            ch.configureBlocking(false);
            if (waitMode == WaitMode.BUSY_POLL && directSocketCalls) {
                socket = NativeSocket.forBusyPoll(ch);
            }
            sel = Selector.open();
            key = ch.register(sel, SelectionKey.OP_READ);
            selector = sel;
            channel = ch;
            rxStart = 0;
            rxEnd = 0;
            pieceRemaining = 0;
            loss = null;
            closedHere = false;
            // The server's logs and dev.ofl.Handler events name the client by this address.
            path = "from " + ch.getLocalAddress();
            LOG.debug("connected to {} as {}", server, ch.getLocalAddress());
        } catch (IOException e) {
            closeSocket();
            BootstrapIo.closeQuietly(ch);
            BootstrapIo.closeQuietly(sel);
            throw new OflConnectionException("cannot connect to " + server + ": " + e
                    + "; is an ofl server running and bound to exactly that address and port?", e);
        } catch (RuntimeException e) {
            closeSocket();
            BootstrapIo.closeQuietly(ch);
            BootstrapIo.closeQuietly(sel);
            throw e;
        }
    }

    @Override
    public void register(Region region) {
        if (region.byteSize() > MAX_REGION_BYTES) {
            throw new IllegalArgumentException("the TCP backend registers regions of at most " + MAX_REGION_BYTES
                    + " bytes; split " + region.byteSize() + " bytes into several regions");
        }
        if (region.id() >= regionBuffers.length) {
            regionBuffers = Arrays.copyOf(regionBuffers, Math.max(region.id() + 1, regionBuffers.length * 2));
            regionSegments = Arrays.copyOf(regionSegments, regionBuffers.length);
        }
        regionSegments[region.id()] = region.segment();
        regionBuffers[region.id()] = region.segment().asByteBuffer();
    }

    /** The server needs only the ranges' lengths: it streams the response in order. */
    @Override
    public long rangeAddress(Region region, long offset) {
        return 0;
    }

    @Override
    public int rangeKey(Region region) {
        return 0;
    }

    @Override
    public boolean countsPlacedBytes() {
        return true;
    }

    /** A request is written to the socket whole before {@link #send} returns. */
    @Override
    public boolean sendCopiesMessage() {
        return true;
    }

    @Override
    public void send(int slot, MemorySegment message, long length, ResponseSink sink) throws ProtocolException {
        ByteBuffer out = slotBuffers[slot];
        out.limit((int) length).position(0);
        try {
            write(message.address(), out, sink);
        } catch (IOException e) {
            String failure = "sending a request failed: " + (e instanceof ServerStalled ? e.getMessage() : e);
            if (!(e instanceof ServerStalled)) {
                // A server that stopped reading is there still: a transport failure, not a loss.
                lost(failure);
            }
            throw new OflConnectionException(failure, e);
        }
    }

    /** The server read nothing of a request for the stall limit: it is alive, but not reading. */
    private static final class ServerStalled extends IOException {
        private static final long serialVersionUID = 1L;

        ServerStalled(String message) {
            super(message);
        }
    }

    /** Writes {@code out}, a view of native memory whose index 0 is at {@code base}. */
    private void write(long base, ByteBuffer out, ResponseSink sink) throws IOException, ProtocolException {
        long stallStartNs = 0;
        idle.reset();
        while (out.hasRemaining()) {
            if ((socket != null ? socket.write(base, out) : channel.write(out)) > 0) {
                stallStartNs = 0;
                continue;
            }
            // Keep reading while the send stalls: the server may be blocked writing an earlier
            // response that only our reading can drain.
            int work = read(sink);
            if (work > 0) {
                stallStartNs = 0;
                idle.reset();
                continue;
            }
            long now = clock.nanoTime();
            if (stallStartNs == 0) {
                stallStartNs = now;
            } else if (now - stallStartNs > stallLimitNs) {
                throw new ServerStalled("the server has not read for " + config.connectTimeout()
                        + " (connectTimeout) while a request was being sent");
            }
            if (waitMode == WaitMode.BLOCKING) {
                key.interestOps(SelectionKey.OP_WRITE | SelectionKey.OP_READ);
                selector.select(IGNORE_KEY, 1);
                key.interestOps(SelectionKey.OP_READ);
            } else {
                idle.idle(work);
            }
        }
    }

    @Override
    public int awaitProgress(ResponseSink sink, long deadlineNs, long nowNs) throws ProtocolException {
        long timeoutMs = Math.max(1, (deadlineNs - nowNs + 999_999) / 1_000_000);
        int ready;
        try {
            ready = selector.select(IGNORE_KEY, timeoutMs);
        } catch (IOException e) {
            throw new OflConnectionException("waiting for the server failed: " + e, e);
        }
        // Read what woke us at once: the session then needs no second system call to find it.
        return ready > 0 ? poll(sink) : 0;
    }

    @Override
    public int poll(ResponseSink sink) throws ProtocolException {
        try {
            return read(sink);
        } catch (IOException e) {
            String failure = "the connection to the server failed: " + e;
            lost(failure);
            throw new OflConnectionException(failure, e);
        }
    }

    /**
     * Records that the socket ended or failed under us, unless this side closed it: then the server
     * is gone (closed, died, reset, unreachable).
     */
    private void lost(String failure) {
        if (!closedHere) {
            loss = failure;
        }
    }

    /** Reads what the socket has and processes it; returns how many things progressed. */
    private int read(ResponseSink sink) throws IOException, ProtocolException {
        int work = 0;
        if (pieceRemaining >= DIRECT_READ_BYTES && rxStart == rxEnd) {
            int n = readIntoRanges(sink.cursor());
            if (n < 0) {
                throw new IOException("the server closed the connection");
            }
            return n > 0 ? 1 : 0;
        }
        if (rxStart == rxEnd) {
            rxStart = 0;
            rxEnd = 0;
        } else if (RX_BYTES - rxEnd < MessageHeader.LENGTH) {
            MemorySegment.copy(rx, rxStart, rx, 0, rxEnd - rxStart);
            rxEnd -= rxStart;
            rxStart = 0;
        }
        rxBuffer.limit(RX_BYTES).position(rxEnd);
        int n = receive(rx.address(), rxBuffer);
        if (n < 0) {
            throw new IOException("the server closed the connection");
        }
        if (n > 0) {
            rxEnd += n;
            work++;
        }
        while (rxEnd > rxStart) {
            if (pieceRemaining > 0) {
                place(sink.cursor(), Math.min(pieceRemaining, rxEnd - rxStart));
                continue;
            }
            if (rxEnd - rxStart < MessageHeader.LENGTH) {
                break;
            }
            header.wrap(rx, rxStart);
            if (header.type() == MessageType.DATA) {
                pieceRemaining = sink.piece(header);
            } else {
                sink.complete(header);
            }
            rxStart += MessageHeader.LENGTH;
            work++;
            if (pieceRemaining >= DIRECT_READ_BYTES && rxStart == rxEnd) {
                break;
            }
        }
        return work;
    }

    /** Reads into {@code buffer}, a view of native memory whose index 0 is at {@code base}. */
    private int receive(long base, ByteBuffer buffer) throws IOException {
        return socket != null ? socket.read(base, buffer) : channel.read(buffer);
    }

    /** Copies {@code length} buffered bytes of the current piece into the receiving request's ranges. */
    private void place(RangeCursor cursor, long length) {
        long left = length;
        while (left > 0) {
            long chunk = cursor.chunk(left);
            MemorySegment.copy(rx, rxStart, regionSegments[cursor.key()], cursor.position(), chunk);
            rxStart += (int) chunk;
            left -= chunk;
            cursor.advance(chunk);
        }
        pieceRemaining -= length;
    }

    private int readIntoRanges(RangeCursor cursor) throws IOException {
        long start = cursor.position();
        long chunk = cursor.chunk(pieceRemaining);
        ByteBuffer target = regionBuffers[cursor.key()];
        target.limit((int) (start + chunk)).position((int) start);
        MemorySegment region = regionSegments[cursor.key()];
        // A direct read is given an address, which outlives the memory: check what NIO's view would.
        if (socket != null && !region.scope().isAlive()) {
            throw new IllegalStateException("the memory of region " + cursor.key() + " was freed while registered");
        }
        int n = receive(region.address(), target);
        if (n > 0) {
            pieceRemaining -= n;
            cursor.advance(n);
        }
        return n;
    }

    /** Whether the connection reads and writes through direct socket calls; for tests. */
    boolean usesDirectSocketCalls() {
        return socket != null;
    }

    /**
     * Set when the socket ends or fails under a read or a write: the server is gone (it closed,
     * died or became unreachable), the same cause an RDMA client learns from its bootstrap socket,
     * so that both count a server restart as a peer loss.
     */
    @Override
    public boolean failureReasons() {
        return failureReasons;
    }

    @Override
    public String lossReason() {
        return loss;
    }

    /** Closes the socket: nothing more can be read into any range. */
    @Override
    public void breakConnection() {
        closedHere = true;
        closeSocket();
        BootstrapIo.closeQuietly(channel);
        BootstrapIo.closeQuietly(selector);
    }

    /** Closes the direct descriptor first: once the channel is closed too, the socket ends. */
    private void closeSocket() {
        if (socket != null) {
            socket.close();
            socket = null;
        }
    }

    @Override
    public void disconnect() {
        breakConnection();
    }

    @Override
    public boolean close() {
        breakConnection();
        arena.close();
        return true;
    }

    @Override
    public String backend() {
        return TcpBackend.NAME;
    }

    @Override
    public String path() {
        return path;
    }
}
