package dev.ofl.tcp;

import dev.ofl.api.ClientConfig;
import dev.ofl.api.Completion;
import dev.ofl.api.IdleStrategy;
import dev.ofl.api.Limits;
import dev.ofl.api.NanoClock;
import dev.ofl.api.OflClient;
import dev.ofl.api.OflConnectionException;
import dev.ofl.api.OflStatus;
import dev.ofl.api.Region;
import dev.ofl.api.ResponseRanges;
import dev.ofl.api.WaitMode;
import dev.ofl.api.spi.BootstrapIo;
import dev.ofl.api.spi.ClientBootstrap;
import dev.ofl.api.spi.RequestEncoder;
import dev.ofl.api.wire.Bootstrap;
import dev.ofl.api.wire.MessageChecks;
import dev.ofl.api.wire.MessageHeader;
import dev.ofl.api.wire.MessageType;
import dev.ofl.api.wire.ProtocolException;
import dev.ofl.api.wire.RefusalCode;
import dev.ofl.api.wire.WireStatus;
import java.io.EOFException;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The TCP client. One thread at a time. Requests go out from per-slot send buffers whose payload
 * areas are what {@link #requestPayload()} hands out; responses are parsed from a small receive
 * buffer, and large DATA pieces are read from the socket straight into the caller's ranges.
 */
final class TcpClient implements OflClient {
    private static final Logger LOG = LoggerFactory.getLogger(TcpClient.class);

    /** Receive buffer for headers and small pieces; pieces this large or more bypass it. */
    private static final int RX_BYTES = 64 << 10;
    private static final int DIRECT_READ_BYTES = 16 << 10;
    /** The action form of select() skips the selected-key set, whose insertions allocate. */
    private static final java.util.function.Consumer<SelectionKey> IGNORE_KEY = selected -> { };

    /** One in-flight request: its send buffer and where its response goes. */
    private static final class Slot {
        final MemorySegment message;
        final ByteBuffer messageBuffer;
        final MemorySegment payload;
        final int[] regionIds = new int[Limits.MAX_RANGES];
        final long[] offsets = new long[Limits.MAX_RANGES];
        final long[] lengths = new long[Limits.MAX_RANGES];
        int rangeCount;
        long capacity;
        long ticket = -1;
        boolean done;
        boolean awaited = true;
        int status;
        int handlerStatus;
        long received;
        int cursorRange;
        long cursorOffset;

        Slot(MemorySegment message, int maxRequestBytes) {
            this.message = message;
            this.messageBuffer = message.asByteBuffer();
            this.payload = message.asSlice(MessageHeader.LENGTH, maxRequestBytes);
        }
    }

    private final ClientConfig config;
    private final Limits limits;
    private final NanoClock clock;
    private final IdleStrategy idle;
    private final WaitMode waitMode;
    private final Arena arena = Arena.ofShared();
    private final Slot[] slots;
    private final List<Region> regions = new ArrayList<>();
    private ByteBuffer[] regionBuffers = new ByteBuffer[4];
    private final MemorySegment rx;
    private final ByteBuffer rxBuffer;
    private final MessageHeader header = new MessageHeader();
    private final RequestEncoder encoder = new RequestEncoder();

    private SocketChannel channel;
    private Selector selector;
    private SelectionKey key;
    private String brokenReason;
    private boolean closed;

    private long nextTicket;
    private long oldestTicket;
    private long receivingTicket;
    private long ticketBase;
    private int rxStart;
    private int rxEnd;
    private long pieceRemaining;

    TcpClient(ClientConfig config) {
        this.config = config;
        this.limits = config.limits();
        this.clock = config.clock();
        this.idle = config.idleStrategy();
        this.waitMode = config.waitMode();
        this.slots = new Slot[limits.maxInFlight()];
        long messageBytes = MessageHeader.requestLength(limits.maxRequestBytes(), limits.maxRanges());
        for (int i = 0; i < slots.length; i++) {
            slots[i] = new Slot(arena.allocate(messageBytes, 64), limits.maxRequestBytes());
        }
        this.rx = arena.allocate(RX_BYTES, 64);
        this.rxBuffer = rx.asByteBuffer();
        try {
            connect();
        } catch (RuntimeException e) {
            arena.close();
            throw e;
        }
    }

    private void connect() {
        InetSocketAddress server = config.server();
        long deadlineNs = System.nanoTime() + config.connectTimeout().toNanos();
        SocketChannel ch = null;
        try {
            ch = ClientBootstrap.open(config);
            ClientBootstrap.exchange(ch, server, Bootstrap.Endpoint.tcp(RefusalCode.ACCEPTED, config.serviceName(),
                    limits, ""), deadlineNs);
            ch.configureBlocking(false);
            Selector sel = Selector.open();
            key = ch.register(sel, SelectionKey.OP_READ);
            selector = sel;
            channel = ch;
            brokenReason = null;
            ticketBase = nextTicket;
            oldestTicket = nextTicket;
            receivingTicket = nextTicket;
            rxStart = 0;
            rxEnd = 0;
            pieceRemaining = 0;
            LOG.debug("connected to {} as {}", server, ch.getLocalAddress());
        } catch (IOException e) {
            BootstrapIo.closeQuietly(ch);
            throw new OflConnectionException("cannot connect to " + server + ": " + e
                    + "; is an ofl server running and bound to exactly that address and port?", e);
        } catch (RuntimeException e) {
            BootstrapIo.closeQuietly(ch);
            throw e;
        }
    }

    @Override
    public Region registerRegion(MemorySegment segment) {
        ensureOpen();
        if (!segment.isNative()) {
            throw new IllegalArgumentException("regions must be native (off-heap) memory; allocate it from an Arena");
        }
        if (segment.byteSize() > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("the TCP backend registers regions of at most " + Integer.MAX_VALUE
                    + " bytes; split " + segment.byteSize() + " bytes into several regions");
        }
        Region region = new Region(this, regions.size(), segment);
        if (region.id() == regionBuffers.length) {
            regionBuffers = java.util.Arrays.copyOf(regionBuffers, regionBuffers.length * 2);
        }
        regionBuffers[region.id()] = segment.asByteBuffer();
        regions.add(region);
        return region;
    }

    @Override
    public MemorySegment requestPayload() {
        return slotOf(nextTicket).payload;
    }

    private Slot slotOf(long ticket) {
        return slots[(int) (ticket % slots.length)];
    }

    @Override
    public long submit(int op, long generation, int payloadLength, ResponseRanges ranges) {
        ensureUsable();
        if (nextTicket - oldestTicket == slots.length) {
            return OflStatus.IN_FLIGHT_FULL;
        }
        RequestEncoder.check(this, regions, limits, payloadLength, ranges);
        int count = ranges.count();
        Slot slot = slotOf(nextTicket);
        long length = encoder.encode(slot.message, nextTicket - ticketBase, op, generation, payloadLength, ranges,
                RequestEncoder.RangeAddressing.NONE);
        for (int i = 0; i < count; i++) {
            slot.regionIds[i] = ranges.region(i).id();
            slot.offsets[i] = ranges.offset(i);
            slot.lengths[i] = ranges.length(i);
        }
        slot.rangeCount = count;
        slot.capacity = ranges.totalLength();
        slot.ticket = nextTicket;
        slot.done = false;
        slot.awaited = false;
        slot.received = 0;
        slot.cursorRange = 0;
        slot.cursorOffset = 0;
        ByteBuffer out = slot.messageBuffer;
        out.limit((int) length).position(0);
        try {
            send(out);
        } catch (IOException e) {
            slot.awaited = true;
            throw broken("sending request " + nextTicket + " failed: " + e, e);
        }
        return nextTicket++;
    }

    private void send(ByteBuffer out) throws IOException {
        long stallStartNs = 0;
        while (out.hasRemaining()) {
            if (channel.write(out) > 0) {
                stallStartNs = 0;
                continue;
            }
            // Keep reading while the send stalls: the server may be blocked writing an earlier
            // response that only our reading can drain.
            try {
                if (poll() > 0) {
                    stallStartNs = 0;
                    continue;
                }
            } catch (ProtocolException e) {
                throw new IOException("the server broke the protocol: " + e.getMessage(), e);
            }
            long now = System.nanoTime();
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
    public int await(long ticket, long deadlineNs, Completion completion) {
        ensureOpen();
        if (ticket < 0 || slotOf(ticket).ticket != ticket || slotOf(ticket).awaited) {
            throw new IllegalArgumentException("ticket " + ticket + " is not outstanding (awaited already, dropped"
                    + " by a reconnect, or never issued)");
        }
        Slot slot = slotOf(ticket);
        while (!slot.done) {
            if (brokenReason != null) {
                release(slot);
                throw new OflConnectionException("ticket " + ticket + " was lost: " + brokenReason
                        + "; call reconnect()");
            }
            int work;
            try {
                work = poll();
            } catch (ProtocolException e) {
                release(slot);
                throw broken("the server broke the protocol: " + e.getMessage(), null);
            } catch (IOException e) {
                release(slot);
                throw broken("the connection failed while awaiting ticket " + ticket + ": " + e, e);
            }
            if (slot.done) {
                break;
            }
            if (clock.nanoTime() - deadlineNs >= 0) {
                breakConnection("ticket " + ticket + " timed out");
                release(slot);
                completion.set(ticket, OflStatus.TIMED_OUT, 0, 0);
                return OflStatus.TIMED_OUT;
            }
            if (work == 0) {
                if (waitMode == WaitMode.BLOCKING) {
                    waitReadable(deadlineNs);
                } else {
                    idle.idle(0);
                }
            }
        }
        int status = WireStatus.toOflStatus(slot.status);
        completion.set(ticket, status, slot.handlerStatus, status == OflStatus.OK ? slot.received : 0);
        release(slot);
        return status;
    }

    private void release(Slot slot) {
        slot.awaited = true;
        while (oldestTicket < nextTicket && slotOf(oldestTicket).awaited) {
            oldestTicket++;
        }
    }

    private void waitReadable(long deadlineNs) {
        long remainingNs = deadlineNs - clock.nanoTime();
        long timeoutMs = Math.max(1, (remainingNs + 999_999) / 1_000_000);
        try {
            selector.select(IGNORE_KEY, timeoutMs);
        } catch (IOException e) {
            throw broken("waiting for the server failed: " + e, e);
        }
    }

    /** Reads what the socket has and processes it; returns how many things progressed. */
    private int poll() throws IOException, ProtocolException {
        int work = 0;
        if (pieceRemaining >= DIRECT_READ_BYTES && rxStart == rxEnd) {
            int n = readIntoRanges(slotOf(receivingTicket));
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
            if (receivingTicket == nextTicket) {
                throw new ProtocolException("sequence", nextTicket - ticketBase,
                        "the server sent a message while no request was outstanding");
            }
            Slot slot = slotOf(receivingTicket);
            if (pieceRemaining > 0) {
                long take = Math.min(pieceRemaining, rxEnd - rxStart);
                place(slot, take);
                continue;
            }
            if (rxEnd - rxStart < MessageHeader.LENGTH) {
                break;
            }
            header.wrap(rx, rxStart);
            int type = MessageChecks.checkServerMessage(header, receivingTicket - ticketBase, slot.received,
                    slot.capacity);
            if (type == MessageType.DATA) {
                pieceRemaining = header.payloadLength();
            } else {
                slot.status = header.status();
                slot.handlerStatus = header.handlerStatus();
                slot.done = true;
                receivingTicket++;
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
            long room = slot.lengths[range] - slot.cursorOffset;
            long chunk = Math.min(room, left);
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

    private OflConnectionException broken(String reason, Throwable cause) {
        breakConnection(reason);
        return new OflConnectionException(reason + "; the client is broken until reconnect()", cause);
    }

    /** Closes the socket first, so that nothing more can be read into any range. */
    private void breakConnection(String reason) {
        if (brokenReason == null) {
            brokenReason = reason;
            LOG.debug("connection to {} broken: {}", config.server(), reason);
        }
        BootstrapIo.closeQuietly(channel);
        BootstrapIo.closeQuietly(selector);
    }

    private void ensureOpen() {
        if (closed) {
            throw new IllegalStateException("the client is closed");
        }
    }

    private void ensureUsable() {
        ensureOpen();
        if (brokenReason != null) {
            throw new OflConnectionException("the connection is broken (" + brokenReason + "); call reconnect()");
        }
    }

    @Override
    public void reconnect() {
        ensureOpen();
        breakConnection("reconnect() was called");
        for (Slot slot : slots) {
            slot.awaited = true;
        }
        oldestTicket = nextTicket;
        receivingTicket = nextTicket;
        connect();
    }

    @Override
    public boolean isBroken() {
        return brokenReason != null;
    }

    @Override
    public Limits limits() {
        return limits;
    }

    @Override
    public NanoClock clock() {
        return clock;
    }

    @Override
    public String backend() {
        return TcpBackend.NAME;
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        breakConnection("closed");
        arena.close();
    }
}
