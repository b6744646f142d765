package dev.ofl.testing;

import dev.ofl.api.wire.MessageHeader;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Faults the {@code "fake"} backend injects into the connections of one service name. A test gets
 * the faults of its service with {@link #of(String)}, arms what it wants, and runs clients and a
 * server of the fake backend under that name; {@link #clear()} disarms everything. Counted faults
 * fire for the next {@code n} matching events of any connection of the service, then disarm.
 *
 * <p>Thread-safe: tests arm faults while connection threads consume them.
 */
public final class FakeFaults {
    private static final Map<String, FakeFaults> BY_SERVICE = new ConcurrentHashMap<>();
    private static final ValueLayout.OfInt U32_LE = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfLong U64_LE = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    /** A field of the 64-byte message header, for {@link #corruptNextResponse}. */
    public enum HeaderField {
        /** The magic. */
        MAGIC,
        /** The version. */
        VERSION,
        /** The message type. */
        TYPE,
        /** The sequence. */
        SEQUENCE,
        /** The wire status. */
        STATUS,
        /** The handler's status. */
        HANDLER_STATUS,
        /** The response length. */
        RESPONSE_LENGTH,
        /** The payload length. */
        PAYLOAD_LENGTH,
        /** The range count. */
        RANGE_COUNT;

        void set(MessageHeader header, long value) {
            MemorySegment buffer = header.buffer();
            long at = header.offset();
            switch (this) {
                case MAGIC -> buffer.set(U32_LE, at + MessageHeader.MAGIC_OFFSET, (int) value);
                case VERSION -> buffer.set(ValueLayout.JAVA_BYTE, at + MessageHeader.VERSION_OFFSET, (byte) value);
                case TYPE -> buffer.set(ValueLayout.JAVA_BYTE, at + MessageHeader.TYPE_OFFSET, (byte) value);
                case SEQUENCE -> buffer.set(U64_LE, at + MessageHeader.SEQUENCE_OFFSET, value);
                case STATUS -> header.status((int) value);
                case HANDLER_STATUS -> header.handlerStatus((int) value);
                case RESPONSE_LENGTH -> header.responseLength(value);
                case PAYLOAD_LENGTH -> header.payloadLength((int) value);
                case RANGE_COUNT -> header.rangeCount((int) value);
                default -> throw new AssertionError(this);
            }
        }
    }

    private record Corruption(HeaderField field, long value) {
    }

    private final AtomicInteger dropResponses = new AtomicInteger();
    private final AtomicInteger failPosts = new AtomicInteger();
    private final AtomicInteger failRegistrations = new AtomicInteger();
    private final AtomicInteger breakAfterPieces = new AtomicInteger(-1);
    private final AtomicInteger failServerSetups = new AtomicInteger();
    private final AtomicInteger refuseRequestMemory = new AtomicInteger();
    private final AtomicReference<Corruption> corruption = new AtomicReference<>();
    private volatile long responseDelayNs;
    private volatile boolean requestsStalled;
    private final AtomicInteger stallDeliveries = new AtomicInteger();

    private FakeFaults() {
    }

    /**
     * The faults of a service's connections.
     *
     * @param serviceName the service name clients and server use
     * @return the service's faults, created disarmed on first use
     */
    public static FakeFaults of(String serviceName) {
        return BY_SERVICE.computeIfAbsent(Objects.requireNonNull(serviceName, "serviceName"), n -> new FakeFaults());
    }

    /** Disarms every fault of this service. */
    public void clear() {
        dropResponses.set(0);
        failPosts.set(0);
        failRegistrations.set(0);
        breakAfterPieces.set(-1);
        failServerSetups.set(0);
        refuseRequestMemory.set(0);
        corruption.set(null);
        responseDelayNs = 0;
        requestsStalled = false;
        stallDeliveries.set(0);
    }

    /**
     * Drops the next completions: their responses never arrive (the response bytes already placed
     * stay placed), so the clients' awaits time out.
     *
     * @param count how many completions to drop
     * @return this
     */
    public FakeFaults dropResponses(int count) {
        dropResponses.set(count);
        return this;
    }

    /**
     * Delays every completion: it becomes visible to the client this long after the server sent it.
     *
     * @param delay the delay; zero for none
     * @return this
     */
    public FakeFaults delayResponses(Duration delay) {
        responseDelayNs = delay.toNanos();
        return this;
    }

    /**
     * Stalls requests: they are accepted from clients but reach no server until unstalled.
     *
     * @param stalled whether requests are held
     * @return this
     */
    public FakeFaults stallRequests(boolean stalled) {
        requestsStalled = stalled;
        return this;
    }

    /**
     * Makes the clients of the next connections to send a response take nothing from then on, as
     * a client that stops reading its socket (or is stopped): each such connection's response
     * writes wait until the connection is broken, as a TCP server's blocking write waits on a full
     * socket buffer. Other connections are not affected.
     *
     * @param connections how many connections stall, each at its first response piece or completion
     * @return this
     */
    public FakeFaults stallDeliveries(int connections) {
        stallDeliveries.set(connections);
        return this;
    }

    /**
     * Overwrites a field of the next completion header with a value, as a faulty or hostile server
     * would send it.
     *
     * @param field the field
     * @param value the value it gets
     * @return this
     */
    public FakeFaults corruptNextResponse(HeaderField field, long value) {
        corruption.set(new Corruption(Objects.requireNonNull(field, "field"), value));
        return this;
    }

    /**
     * Makes the next client posts (request sends) fail as a transport failure would.
     *
     * @param count how many posts fail
     * @return this
     */
    public FakeFaults failPosts(int count) {
        failPosts.set(count);
        return this;
    }

    /**
     * Makes the next memory registrations fail, as a device out of resources would.
     *
     * @param count how many registrations fail
     * @return this
     */
    public FakeFaults failRegistrations(int count) {
        failRegistrations.set(count);
        return this;
    }

    /**
     * Breaks the next connection that sends a response piece after this many pieces, in the
     * middle of the response: both sides see the connection fail.
     *
     * @param pieces how many pieces pass before the break; negative disarms
     * @return this
     */
    public FakeFaults breakAfterPieces(int pieces) {
        breakAfterPieces.set(pieces);
        return this;
    }

    /**
     * Makes the server's setup of the next accepted connections find no memory for their receive
     * slots, as a process out of memory would: the clients must get a refusing WELCOME.
     *
     * @param count how many connections fail
     * @return this
     */
    public FakeFaults failServerSetups(int count) {
        failServerSetups.set(count);
        return this;
    }

    /**
     * Makes the server find no memory for the next requests, as an RDMA server that reads large
     * payloads into staging finds none within its staging timeout: each is answered {@code BUSY}
     * without its handler, and the connection goes on.
     *
     * @param count how many requests
     * @return this
     */
    public FakeFaults refuseRequestMemory(int count) {
        refuseRequestMemory.set(count);
        return this;
    }

    // ---- consumed by the transports

    boolean takeRefusedRequestMemory() {
        return takeOne(refuseRequestMemory);
    }

    boolean takeFailedServerSetup() {
        return takeOne(failServerSetups);
    }

    boolean takeDrop() {
        return takeOne(dropResponses);
    }

    boolean takeFailedPost() {
        return takeOne(failPosts);
    }

    boolean takeFailedRegistration() {
        return takeOne(failRegistrations);
    }

    /** Counts a piece; true when the connection must break before sending it. */
    boolean takeBreakBeforePiece() {
        while (true) {
            int left = breakAfterPieces.get();
            if (left < 0) {
                return false;
            }
            if (breakAfterPieces.compareAndSet(left, left - 1)) {
                return left == 0;
            }
        }
    }

    void corrupt(MessageHeader header) {
        Corruption c = corruption.getAndSet(null);
        if (c != null) {
            c.field().set(header, c.value());
        }
    }

    long responseDelayNs() {
        return responseDelayNs;
    }

    boolean requestsStalled() {
        return requestsStalled;
    }

    boolean takeStalledDeliveries() {
        return takeOne(stallDeliveries);
    }

    /** Connections still to stall, for tests that wait until the stall began. */
    int stallsArmed() {
        return stallDeliveries.get();
    }

    private static boolean takeOne(AtomicInteger counter) {
        while (true) {
            int left = counter.get();
            if (left <= 0) {
                return false;
            }
            if (counter.compareAndSet(left, left - 1)) {
                return true;
            }
        }
    }
}
