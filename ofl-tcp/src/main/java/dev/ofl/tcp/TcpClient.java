package dev.ofl.tcp;

import dev.ofl.api.ClientConfig;
import dev.ofl.api.Limits;
import dev.ofl.api.OflConnectionException;
import dev.ofl.api.Region;
import dev.ofl.api.ResponseRanges;
import dev.ofl.api.WaitMode;
import dev.ofl.api.spi.AbstractClient;
import dev.ofl.api.spi.BootstrapIo;
import dev.ofl.api.spi.ClientBootstrap;
import dev.ofl.api.spi.RequestEncoder;
import dev.ofl.api.wire.Bootstrap;
import dev.ofl.api.wire.MessageChecks;
import dev.ofl.api.wire.MessageHeader;
import dev.ofl.api.wire.MessageType;
import dev.ofl.api.wire.ProtocolException;
import dev.ofl.api.wire.RefusalCode;
import java.io.EOFException;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.util.Arrays;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The TCP client. One thread at a time. Requests go out from per-slot send buffers whose payload
 * areas are what {@link #requestPayload()} hands out; responses are parsed from a small receive
 * buffer, and large DATA pieces are read from the socket straight into the caller's ranges.
 *
 * <p>Memory: the send slots and the receive buffer belong to a shared arena owned by the client
 * and freed by {@link #close()}.
 */
final class TcpClient extends AbstractClient<TcpClient.Slot> {
    private static final Logger LOG = LoggerFactory.getLogger(TcpClient.class);

    /** Receive buffer for headers and small pieces; pieces this large or more bypass it. */
    private static final int RX_BYTES = 64 << 10;
    private static final int DIRECT_READ_BYTES = 16 << 10;
    /** The action form of select() skips the selected-key set, whose insertions allocate. */
    private static final Consumer<SelectionKey> IGNORE_KEY = selected -> { };

    /** A request's send buffer and where its response goes, with the placement cursor. */
    static final class Slot extends AbstractClient.Slot {
        final ByteBuffer messageBuffer;
        final int[] regionIds = new int[Limits.MAX_RANGES];
        final long[] offsets = new long[Limits.MAX_RANGES];
        final long[] lengths = new long[Limits.MAX_RANGES];
        long received;
        int cursorRange;
        long cursorOffset;

        Slot(MemorySegment message, int maxRequestBytes) {
            super(message, maxRequestBytes);
            this.messageBuffer = message.asByteBuffer();
        }

        @Override
        protected void begin() {
            received = 0;
            cursorRange = 0;
            cursorOffset = 0;
        }
    }

    private final Arena arena;
    private ByteBuffer[] regionBuffers = new ByteBuffer[4];
    private final MemorySegment rx;
    private final ByteBuffer rxBuffer;
    private final MessageHeader header = new MessageHeader();

    private SocketChannel channel;
    private Selector selector;
    private SelectionKey key;
    private int rxStart;
    private int rxEnd;
    private long pieceRemaining;

    TcpClient(ClientConfig config) {
        this(config, Arena.ofShared());
    }

    private TcpClient(ClientConfig config, Arena arena) {
        super(config, slots(config.limits(), arena));
        this.arena = arena;
        try {
            this.rx = arena.allocate(RX_BYTES, 64);
            this.rxBuffer = rx.asByteBuffer();
            connect();
        } catch (RuntimeException | Error e) {
            arena.close();
            throw e;
        }
    }

    private static Slot[] slots(Limits limits, Arena arena) {
        // The whole request is written before submit returns, so in-flight requests need no
        // spare slot: a slot's buffer is free as soon as its request was sent.
        Slot[] slots = new Slot[limits.maxInFlight()];
        long messageBytes = MessageHeader.requestLength(limits.maxRequestBytes(), limits.maxRanges());
        try {
            for (int i = 0; i < slots.length; i++) {
                slots[i] = new Slot(arena.allocate(messageBytes, 64), limits.maxRequestBytes());
            }
        } catch (RuntimeException | Error e) {
            arena.close();
            throw e;
        }
        return slots;
    }

    @Override
    protected void connect() {
        InetSocketAddress server = config.server();
        long deadlineNs = System.nanoTime() + config.connectTimeout().toNanos();
        SocketChannel ch = null;
        Selector sel = null;
        try {
            ch = ClientBootstrap.open(config);
            ClientBootstrap.exchange(ch, server, Bootstrap.Endpoint.tcp(RefusalCode.ACCEPTED, config.serviceName(),
                    limits, ""), deadlineNs);
            ch.configureBlocking(false);
            sel = Selector.open();
            key = ch.register(sel, SelectionKey.OP_READ);
            selector = sel;
            channel = ch;
            rxStart = 0;
            rxEnd = 0;
            pieceRemaining = 0;
            connected();
            LOG.debug("connected to {} as {}", server, ch.getLocalAddress());
        } catch (IOException e) {
            BootstrapIo.closeQuietly(ch);
            BootstrapIo.closeQuietly(sel);
            throw new OflConnectionException("cannot connect to " + server + ": " + e
                    + "; is an ofl server running and bound to exactly that address and port?", e);
        } catch (RuntimeException e) {
            BootstrapIo.closeQuietly(ch);
            BootstrapIo.closeQuietly(sel);
            throw e;
        }
    }

    @Override
    protected void onRegister(Region region) {
        if (region.byteSize() > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("the TCP backend registers regions of at most " + Integer.MAX_VALUE
                    + " bytes; split " + region.byteSize() + " bytes into several regions");
        }
        if (region.id() == regionBuffers.length) {
            regionBuffers = Arrays.copyOf(regionBuffers, regionBuffers.length * 2);
        }
        regionBuffers[region.id()] = region.segment().asByteBuffer();
    }

    @Override
    protected RequestEncoder.RangeAddressing addressing() {
        return RequestEncoder.RangeAddressing.NONE;
    }

    @Override
    protected void send(Slot slot, long length, ResponseRanges ranges) {
        for (int i = 0; i < ranges.count(); i++) {
            slot.regionIds[i] = ranges.region(i).id();
            slot.offsets[i] = ranges.offset(i);
            slot.lengths[i] = ranges.length(i);
        }
        ByteBuffer out = slot.messageBuffer;
        out.limit((int) length).position(0);
        try {
            write(out);
        } catch (IOException e) {
            throw broken("sending a request failed: " + e, e);
        }
    }

    private void write(ByteBuffer out) throws IOException {
        long stallStartNs = 0;
        while (out.hasRemaining()) {
            if (channel.write(out) > 0) {
                stallStartNs = 0;
                continue;
            }
            // Keep reading while the send stalls: the server may be blocked writing an earlier
            // response that only our reading can drain.
            if (poll() > 0) {
                stallStartNs = 0;
                continue;
            }
            long now = clock.nanoTime();
            if (stallStartNs == 0) {
                stallStartNs = now;
            } else if (now - stallStartNs > config.connectTimeout().toNanos()) {
                throw new IOException("the server has not read for " + config.connectTimeout()
                        + " (connectTimeout) while a request was being sent");
            }
            if (waitMode == WaitMode.BLOCKING) {
                key.interestOps(SelectionKey.OP_WRITE);
                selector.select(IGNORE_KEY, 1);
                key.interestOps(SelectionKey.OP_READ);
            } else {
                idle.idle(0);
            }
        }
    }

    @Override
    protected void waitForProgress(long deadlineNs) {
        long remainingNs = deadlineNs - clock.nanoTime();
        long timeoutMs = Math.max(1, (remainingNs + 999_999) / 1_000_000);
        try {
            selector.select(IGNORE_KEY, timeoutMs);
        } catch (IOException e) {
            throw broken("waiting for the server failed: " + e, e);
        }
    }

    @Override
    protected int poll() {
        try {
            return read();
        } catch (ProtocolException e) {
            throw broken("the server broke the protocol: " + e.getMessage(), null);
        } catch (IOException e) {
            throw broken("the connection failed: " + e, e);
        }
    }

    /** Reads what the socket has and processes it; returns how many things progressed. */
    private int read() throws IOException, ProtocolException {
        int work = 0;
        if (pieceRemaining >= DIRECT_READ_BYTES && rxStart == rxEnd) {
            int n = readIntoRanges(receivingSlot());
            if (n < 0) {
                throw new EOFException("the server closed the connection");
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
        int n = channel.read(rxBuffer);
        if (n < 0) {
            throw new EOFException("the server closed the connection");
        }
        if (n > 0) {
            rxEnd += n;
            work++;
        }
        while (rxEnd > rxStart) {
            Slot slot = receivingSlot();
            if (slot == null) {
                throw new ProtocolException("sequence", receivingSequence(),
                        "the server sent a message while no request was outstanding");
            }
            if (pieceRemaining > 0) {
                place(slot, Math.min(pieceRemaining, rxEnd - rxStart));
                continue;
            }
            if (rxEnd - rxStart < MessageHeader.LENGTH) {
                break;
            }
            header.wrap(rx, rxStart);
            int type = MessageChecks.checkServerMessage(header, receivingSequence(), slot.received, slot.capacity());
            if (type == MessageType.DATA) {
                pieceRemaining = header.payloadLength();
            } else {
                completeReceiving(header.status(), header.handlerStatus(), slot.received);
            }
            rxStart += MessageHeader.LENGTH;
            work++;
            if (pieceRemaining >= DIRECT_READ_BYTES && rxStart == rxEnd) {
                break;
            }
        }
        return work;
    }

    /** Copies {@code length} buffered bytes of the current piece into the slot's ranges. */
    private void place(Slot slot, long length) {
        long left = length;
        while (left > 0) {
            int range = slot.cursorRange;
            long chunk = Math.min(slot.lengths[range] - slot.cursorOffset, left);
            MemorySegment.copy(rx, rxStart, regions.get(slot.regionIds[range]).segment(),
                    slot.offsets[range] + slot.cursorOffset, chunk);
            rxStart += (int) chunk;
            left -= chunk;
            advance(slot, chunk);
        }
        pieceRemaining -= length;
    }

    private int readIntoRanges(Slot slot) throws IOException {
        int range = slot.cursorRange;
        long start = slot.offsets[range] + slot.cursorOffset;
        long chunk = Math.min(slot.lengths[range] - slot.cursorOffset, pieceRemaining);
        ByteBuffer target = regionBuffers[slot.regionIds[range]];
        target.limit((int) (start + chunk)).position((int) start);
        int n = channel.read(target);
        if (n > 0) {
            pieceRemaining -= n;
            advance(slot, n);
        }
        return n;
    }

    private static void advance(Slot slot, long bytes) {
        slot.received += bytes;
        slot.cursorOffset += bytes;
        if (slot.cursorOffset == slot.lengths[slot.cursorRange]) {
            slot.cursorRange++;
            slot.cursorOffset = 0;
        }
    }

    /** Closes the socket: nothing more can be read into any range. */
    @Override
    protected void breakTransport() {
        BootstrapIo.closeQuietly(channel);
        BootstrapIo.closeQuietly(selector);
    }

    @Override
    protected void tearDown() {
        breakTransport();
    }

    @Override
    protected void releaseResources() {
        breakTransport();
        arena.close();
    }

    @Override
    public String backend() {
        return TcpBackend.NAME;
    }
}
