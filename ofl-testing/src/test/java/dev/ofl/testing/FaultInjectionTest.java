package dev.ofl.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ofl.api.ClientConfig;
import dev.ofl.api.Completion;
import dev.ofl.api.IdleStrategy;
import dev.ofl.api.Ofl;
import dev.ofl.api.OflClient;
import dev.ofl.api.OflConnectionException;
import dev.ofl.api.OflException;
import dev.ofl.api.OflHandler;
import dev.ofl.api.OflServer;
import dev.ofl.api.OflStatus;
import dev.ofl.api.Region;
import dev.ofl.api.ResponseRanges;
import dev.ofl.api.ServerConfig;
import dev.ofl.api.WaitMode;
import dev.ofl.api.wire.WireStatus;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The engine's client and server sessions under injected faults: each fault must surface to the
 * caller as the contract says (a status, a broken client with a reason that names the cause, a
 * counter), never as a hang, a wrong byte or a silently accepted response.
 */
@Timeout(60)
class FaultInjectionTest {
    private static final long SECOND_NS = TimeUnit.SECONDS.toNanos(1);
    private static final byte SENTINEL = 0x5A;
    private static final int OP_ECHO = 1;
    private static final int OP_ROWS = 2;
    private static final int ROWS_BYTES = 64 << 10;

    private static final AtomicInteger SERVICES = new AtomicInteger();

    private String service;
    private FakeFaults faults;
    private OflServer server;
    private OflClient client;
    private Arena arena;
    private MemorySegment memory;
    private Region region;
    private final Completion completion = new Completion();

    private static final OflHandler HANDLER = (request, response) -> {
        if (request.op() == OP_ROWS) {
            MemorySegment buffer = response.buffer();
            for (long i = 0; i < response.capacity(); i++) {
                buffer.set(ValueLayout.JAVA_BYTE, i, (byte) i);
            }
            // Two commits, each at least a piece: the response travels as two pieces.
            long half = response.capacity() / 2;
            response.commit(half);
            response.commit(response.capacity() - half);
            return 0;
        }
        response.write(request.payload());
        return 0;
    };

    @BeforeEach
    void setUp() {
        service = "faults-" + SERVICES.incrementAndGet();
        faults = FakeFaults.of(service);
        arena = Arena.ofShared();
        memory = arena.allocate(ROWS_BYTES);
        memory.fill(SENTINEL);
    }

    @AfterEach
    void tearDown() {
        if (client != null) {
            client.close();
        }
        if (server != null) {
            server.close();
        }
        faults.clear();
        arena.close();
    }

    private void start(WaitMode mode, IdleStrategy idle) {
        server = Ofl.serve(ServerConfig.builder().backend(FakeBackend.NAME)
                .bind(new InetSocketAddress("127.0.0.1", 0)).serviceName(service).build(), HANDLER);
        client = Ofl.connect(ClientConfig.builder().backend(FakeBackend.NAME).server(server.localAddress())
                .serviceName(service).waitMode(mode).idleStrategy(idle).build());
        region = client.registerRegion(memory);
    }

    private void start() {
        start(WaitMode.BUSY_POLL, IdleStrategy.YIELD);
    }

    private int echo(long value, long timeoutNs) {
        client.requestPayload().set(ValueLayout.JAVA_LONG_UNALIGNED, 0, value);
        return client.call(OP_ECHO, 0, 8, new ResponseRanges().add(region, 0, 8), timeoutNs, completion);
    }

    private void assertUntouchedFrom(long offset) {
        for (long i = offset; i < memory.byteSize(); i++) {
            if (memory.get(ValueLayout.JAVA_BYTE, i) != SENTINEL) {
                throw new AssertionError("a byte landed at offset " + i);
            }
        }
    }

    private static void awaitCondition(BooleanSupplier condition, String what) {
        long deadlineNs = System.nanoTime() + 30 * SECOND_NS;
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadlineNs > 0) {
                throw new AssertionError("timed out waiting for " + what);
            }
            Thread.onSpinWait();
            Thread.yield();
        }
    }

    @Test
    void aDroppedResponseTimesOutAndReconnectRecovers() {
        start();
        assertEquals(OflStatus.OK, echo(7, 5 * SECOND_NS));
        faults.dropResponses(1);
        assertEquals(OflStatus.TIMED_OUT, echo(8, 200_000_000L));
        assertTrue(client.isBroken());
        assertThrows(OflConnectionException.class, () -> echo(9, SECOND_NS));
        client.reconnect();
        assertEquals(OflStatus.OK, echo(10, 5 * SECOND_NS));
        assertEquals(10, memory.get(ValueLayout.JAVA_LONG_UNALIGNED, 0));
    }

    @ParameterizedTest
    @EnumSource(WaitMode.class)
    void stalledRequestsTimeOutAtTheDeadlineInEveryWaitMode(WaitMode mode) {
        start(mode, IdleStrategy.YIELD);
        faults.stallRequests(true);
        long deadlineNs = client.clock().nanoTime() + 100_000_000L;
        client.requestPayload().set(ValueLayout.JAVA_LONG_UNALIGNED, 0, 1);
        long ticket = client.submit(OP_ECHO, 0, 8, new ResponseRanges().add(region, 0, 8));
        assertEquals(OflStatus.TIMED_OUT, client.await(ticket, deadlineNs, completion));
        assertTrue(client.clock().nanoTime() - deadlineNs >= 0, "TIMED_OUT only once the deadline passed");
        faults.stallRequests(false);
        // The server may now answer the stalled request: nothing may land.
        awaitCondition(() -> server.statistics().requests() == 1 || server.connectionCount() == 0,
                "the stalled request to reach the server or the connection to end");
        assertUntouchedFrom(0);
    }

    /**
     * A request the server has no memory for is answered BUSY without its handler, writes nothing
     * into the ranges, counts no handled request, and the connection serves the next one.
     */
    @Test
    void aRequestWithoutMemoryIsAnsweredBusyAndTheConnectionGoesOn() {
        start();
        faults.refuseRequestMemory(1);
        assertEquals(OflStatus.BUSY, echo(11, 5 * SECOND_NS), completion::toString);
        assertEquals(0, completion.responseLength());
        assertUntouchedFrom(0);
        assertEquals(0, server.statistics().requests(), "the handler ran");
        assertFalse(client.isBroken());
        assertEquals(OflStatus.OK, echo(12, 5 * SECOND_NS), completion::toString);
        assertEquals(12, memory.get(ValueLayout.JAVA_LONG_UNALIGNED, 0));
        assertEquals(1, server.statistics().requests());
    }

    @Test
    void aDelayedResponseWithinTheDeadlineArrives() {
        start(WaitMode.BLOCKING, IdleStrategy.YIELD);
        faults.delayResponses(Duration.ofMillis(30));
        assertEquals(OflStatus.OK, echo(42, 10 * SECOND_NS));
        assertEquals(42, memory.get(ValueLayout.JAVA_LONG_UNALIGNED, 0));
    }

    @ParameterizedTest
    @EnumSource(value = FakeFaults.HeaderField.class, names = {"MAGIC", "VERSION", "TYPE", "SEQUENCE", "STATUS",
        "HANDLER_STATUS", "RANGE_COUNT", "PAYLOAD_LENGTH"})
    void aCorruptedCompletionBreaksTheClientNamingTheField(FakeFaults.HeaderField field) {
        start();
        long value = switch (field) {
            case STATUS -> 99;
            case SEQUENCE -> 5;
            case TYPE -> 9;
            default -> 3;
        };
        faults.corruptNextResponse(field, value);
        OflConnectionException e = assertThrows(OflConnectionException.class, () -> echo(1, 5 * SECOND_NS));
        assertTrue(e.getMessage().contains("the server broke the protocol"), e.getMessage());
        String name = field.name().toLowerCase().replace('_', ' ');
        assertTrue(e.getMessage().contains(name), "the message names '" + name + "': " + e.getMessage());
        assertTrue(client.isBroken());
    }

    @Test
    void aResponseLengthBeyondTheRangesIsRefused() {
        start();
        faults.corruptNextResponse(FakeFaults.HeaderField.RESPONSE_LENGTH, 9);
        OflConnectionException e = assertThrows(OflConnectionException.class, () -> echo(1, 5 * SECOND_NS));
        assertTrue(e.getMessage().contains("response length"), e.getMessage());
    }

    @Test
    void aRefusalWithoutHandlerStatusIsRefused() {
        start();
        faults.corruptNextResponse(FakeFaults.HeaderField.STATUS, WireStatus.REFUSED);
        OflConnectionException e = assertThrows(OflConnectionException.class, () -> echo(1, 5 * SECOND_NS));
        assertTrue(e.getMessage().contains("handler status"), e.getMessage());
    }

    @Test
    void aFailedPostBreaksTheClientAndReconnectRecovers() {
        start();
        faults.failPosts(1);
        OflConnectionException e = assertThrows(OflConnectionException.class, () -> echo(1, 5 * SECOND_NS));
        assertTrue(e.getMessage().contains("injected"), e.getMessage());
        assertTrue(e.getMessage().contains("reconnect()"), "the message names the way out: " + e.getMessage());
        assertTrue(client.isBroken());
        client.reconnect();
        assertEquals(OflStatus.OK, echo(3, 5 * SECOND_NS));
    }

    @Test
    void aFailedRegistrationIsReportedAndLeavesTheClientUsable() {
        start();
        faults.failRegistrations(1);
        OflException e = assertThrows(OflException.class, () -> client.registerRegion(arena.allocate(64)));
        assertTrue(e.getMessage().contains("injected"), e.getMessage());
        assertFalse(client.isBroken());
        assertEquals(OflStatus.OK, echo(4, 5 * SECOND_NS));
    }

    @Test
    void aBreakMidResponseFailsTheCallAndCountsAnUndeliveredResponse() {
        start();
        faults.breakAfterPieces(1);
        long ticket = client.submit(OP_ROWS, 0, 0, ResponseRanges.of(region));
        assertThrows(OflConnectionException.class, () -> client.await(ticket, client.clock().nanoTime()
                + 10 * SECOND_NS, completion));
        assertTrue(client.isBroken());
        awaitCondition(() -> server.statistics().undeliveredResponses() == 1, "the undelivered response counted");
        awaitCondition(() -> server.connectionCount() == 0, "the server to end the connection");
    }

    @Test
    void anInterruptedAwaitBreaksTheConnectionAndKeepsTheInterrupt() {
        start();
        faults.stallRequests(true);
        client.requestPayload().set(ValueLayout.JAVA_LONG_UNALIGNED, 0, 1);
        long ticket = client.submit(OP_ECHO, 0, 8, new ResponseRanges().add(region, 0, 8));
        Thread.currentThread().interrupt();
        try {
            OflConnectionException e = assertThrows(OflConnectionException.class,
                    () -> client.await(ticket, client.clock().nanoTime() + 30 * SECOND_NS, completion));
            assertTrue(e.getMessage().contains("interrupted"), e.getMessage());
            assertTrue(Thread.currentThread().isInterrupted(), "the interrupt stays set");
        } finally {
            Thread.interrupted();
        }
        assertTrue(client.isBroken());
        faults.stallRequests(false);
        client.reconnect();
        assertEquals(OflStatus.OK, echo(5, 5 * SECOND_NS));
    }

    @Test
    void everyAwaitResetsTheIdleStrategy() {
        AtomicInteger resets = new AtomicInteger();
        IdleStrategy counting = new IdleStrategy() {
            @Override
            public void idle(int workCount) {
                Thread.yield();
            }

            @Override
            public void reset() {
                resets.incrementAndGet();
            }
        };
        start(WaitMode.BUSY_POLL, counting);
        int before = resets.get();
        for (int i = 0; i < 5; i++) {
            assertEquals(OflStatus.OK, echo(i, 5 * SECOND_NS));
        }
        assertTrue(resets.get() - before >= 5, "each await resets the strategy once at least: " + resets);
    }

    @Test
    void rowsArriveByteExactThroughTheFakeWrites() {
        start();
        long ticket = client.submit(OP_ROWS, 0, 0, ResponseRanges.of(region));
        assertEquals(OflStatus.OK, client.await(ticket, client.clock().nanoTime() + 10 * SECOND_NS, completion));
        assertEquals(ROWS_BYTES, completion.responseLength());
        for (long i = 0; i < ROWS_BYTES; i++) {
            assertEquals((byte) i, memory.get(ValueLayout.JAVA_BYTE, i), "byte " + i);
        }
    }
}
