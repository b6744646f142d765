package dev.ofl.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ofl.api.ClientConfig;
import dev.ofl.api.Completion;
import dev.ofl.api.Limits;
import dev.ofl.api.NanoClock;
import dev.ofl.api.Ofl;
import dev.ofl.api.OflClient;
import dev.ofl.api.OflConnectionException;
import dev.ofl.api.OflHandler;
import dev.ofl.api.OflServer;
import dev.ofl.api.OflStatus;
import dev.ofl.api.Region;
import dev.ofl.api.ResponseRanges;
import dev.ofl.api.ServerConfig;
import dev.ofl.api.WaitMode;
import dev.ofl.api.spi.ClientSession;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The client half of the engine ({@link ClientSession}) over the fake backend: tickets and slots,
 * out-of-order awaits, the deadline read from the injected clock, the broken state, reconnect and
 * close.
 */
@Timeout(60)
class ClientEngineTest {
    private static final long SECOND_NS = TimeUnit.SECONDS.toNanos(1);
    private static final Limits LIMITS = new Limits(256, 64 << 10, 4, 3);
    private static final AtomicInteger SERVICES = new AtomicInteger();
    private static final OflHandler ECHO = (request, response) -> {
        response.write(request.payload());
        return 0;
    };

    private final Completion completion = new Completion();
    private String service;
    private FakeFaults faults;
    private OflServer server;
    private OflClient client;
    private Arena arena;
    private MemorySegment memory;
    private Region region;

    @BeforeEach
    void setUp() {
        service = "client-engine-" + SERVICES.incrementAndGet();
        faults = FakeFaults.of(service);
        arena = Arena.ofShared();
        memory = arena.allocate(4096);
        server = Ofl.serve(ServerConfig.builder().backend(FakeBackend.NAME)
                .bind(new InetSocketAddress("127.0.0.1", 0)).serviceName(service).limits(LIMITS).build(), ECHO);
    }

    @AfterEach
    void tearDown() {
        if (client != null) {
            client.close();
        }
        server.close();
        faults.clear();
        arena.close();
    }

    private ClientConfig.Builder config() {
        return ClientConfig.builder().backend(FakeBackend.NAME).server(server.localAddress()).serviceName(service)
                .limits(LIMITS);
    }

    private void start(ClientConfig config) {
        client = Ofl.connect(config);
        region = client.registerRegion(memory);
    }

    private long submitEcho(long value, long at) {
        client.requestPayload().set(ValueLayout.JAVA_LONG_UNALIGNED, 0, value);
        return client.submit(1, 0, 8, new ResponseRanges().add(region, at, 8));
    }

    private long deadline() {
        return client.clock().nanoTime() + 10 * SECOND_NS;
    }

    @Test
    void awaitsInAnyOrderGetTheirOwnResponses() {
        start(config().build());
        long a = submitEcho(100, 0);
        long b = submitEcho(200, 8);
        long c = submitEcho(300, 16);
        assertEquals(a + 1, b);
        assertEquals(b + 1, c);
        assertEquals(OflStatus.IN_FLIGHT_FULL, submitEcho(400, 24), "three in flight is the negotiated maximum");

        assertEquals(OflStatus.OK, client.await(c, deadline(), completion));
        assertEquals(c, completion.ticket());
        assertEquals(8, completion.responseLength());
        assertEquals(300, memory.get(ValueLayout.JAVA_LONG_UNALIGNED, 16));
        assertEquals(OflStatus.IN_FLIGHT_FULL, submitEcho(400, 24),
                "the oldest request still holds its place until it is awaited");

        assertEquals(OflStatus.OK, client.await(a, deadline(), completion));
        assertEquals(a, completion.ticket());
        assertEquals(100, memory.get(ValueLayout.JAVA_LONG_UNALIGNED, 0));
        long d = submitEcho(400, 24);
        assertEquals(c + 1, d, "awaiting the oldest frees a place");

        assertEquals(OflStatus.OK, client.await(b, deadline(), completion));
        assertEquals(200, memory.get(ValueLayout.JAVA_LONG_UNALIGNED, 8));
        assertEquals(OflStatus.OK, client.await(d, deadline(), completion));
        assertEquals(400, memory.get(ValueLayout.JAVA_LONG_UNALIGNED, 24));

        long[] again = {submitEcho(1, 0), submitEcho(2, 8), submitEcho(3, 16)};
        assertEquals(OflStatus.IN_FLIGHT_FULL, submitEcho(4, 24), "with everything awaited the bound is whole again");
        for (long t : again) {
            assertEquals(OflStatus.OK, client.await(t, deadline(), completion));
        }
    }

    /**
     * With the oldest ticket late in the ring of four slots (three in flight and one spare), the
     * newer tickets lie past the ring's end: each, awaited out of order, still finds its own slot.
     */
    @Test
    void awaitsOutOfOrderFindTheirSlotsAcrossTheEndOfTheRing() {
        start(config().build());
        for (int i = 0; i < 3; i++) {
            assertEquals(OflStatus.OK, client.await(submitEcho(i, 0), deadline(), completion));
        }
        long a = submitEcho(100, 0);
        long b = submitEcho(200, 8);
        long c = submitEcho(300, 16);
        assertEquals(OflStatus.OK, client.await(c, deadline(), completion));
        assertEquals(c, completion.ticket());
        assertEquals(300, memory.get(ValueLayout.JAVA_LONG_UNALIGNED, 16));
        assertEquals(OflStatus.OK, client.await(b, deadline(), completion));
        assertEquals(b, completion.ticket());
        assertEquals(200, memory.get(ValueLayout.JAVA_LONG_UNALIGNED, 8));
        assertThrows(IllegalArgumentException.class, () -> client.await(c, deadline(), completion),
                "awaited already, though the oldest is still outstanding");
        assertThrows(IllegalArgumentException.class, () -> client.await(c + 1, deadline(), completion),
                "never issued");
        assertEquals(OflStatus.OK, client.await(a, deadline(), completion));
        assertEquals(a, completion.ticket());
        assertEquals(100, memory.get(ValueLayout.JAVA_LONG_UNALIGNED, 0));
    }

    @Test
    void onlyOutstandingTicketsMayBeAwaited() {
        start(config().build());
        long ticket = submitEcho(1, 0);
        IllegalArgumentException never = assertThrows(IllegalArgumentException.class,
                () -> client.await(ticket + 1, deadline(), completion));
        assertTrue(never.getMessage().contains("ticket " + (ticket + 1) + " is not outstanding"), never.getMessage());
        assertThrows(IllegalArgumentException.class, () -> client.await(-1, deadline(), completion));
        assertEquals(OflStatus.OK, client.await(ticket, deadline(), completion));
        assertThrows(IllegalArgumentException.class, () -> client.await(ticket, deadline(), completion),
                "a ticket is awaited once");
        long next = submitEcho(2, 0);
        long wrapped = next - (LIMITS.maxInFlight() + 1);
        assertThrows(IllegalArgumentException.class, () -> client.await(wrapped, deadline(), completion),
                "an old ticket whose slot was reused is not outstanding");
        assertEquals(OflStatus.OK, client.await(next, deadline(), completion));
    }

    @Test
    void everyTicketIsSentFromOnePayloadAreaThatSurvivesReconnect() {
        start(config().build());
        MemorySegment area = client.requestPayload();
        assertEquals(LIMITS.maxRequestBytes(), area.byteSize());
        for (int i = 0; i < 2 * (LIMITS.maxInFlight() + 1); i++) {
            assertEquals(area.address(), client.requestPayload().address(), "ticket " + i);
            assertEquals(OflStatus.OK, client.await(submitEcho(i, 0), deadline(), completion));
            assertEquals(i, memory.get(ValueLayout.JAVA_LONG_UNALIGNED, 0), "ticket " + i + " sent its own payload");
        }
        client.reconnect();
        assertEquals(area.address(), client.requestPayload().address(), "a reconnect keeps the area");
        assertEquals(OflStatus.OK, client.await(submitEcho(77, 0), deadline(), completion));
        assertEquals(77, memory.get(ValueLayout.JAVA_LONG_UNALIGNED, 0));
    }

    @Test
    void theDeadlineIsReadFromTheInjectedClockAndReachedAtItsInstant() {
        // Each read of this clock moves it one nanosecond: await reads it once per poll.
        AtomicLong reads = new AtomicLong();
        NanoClock clock = reads::incrementAndGet;
        start(config().clock(clock).build());
        assertSame(clock, client.clock());
        faults.stallRequests(true);
        long ticket = submitEcho(5, 0);
        reads.set(0);
        assertEquals(OflStatus.TIMED_OUT, client.await(ticket, 3, completion));
        assertEquals(3, reads.get(), "timed out at the poll that read the deadline itself, not before or after");
        assertEquals(ticket, completion.ticket());
        assertEquals(OflStatus.TIMED_OUT, completion.status());
        assertEquals(0, completion.responseLength());
        assertTrue(client.isBroken(), "a timeout breaks the connection so that nothing lands late");
    }

    @Test
    void aTicketEndedByATimeoutOrALossIsSpentAndOnesFromBeforeAReconnectAreDropped() {
        start(config().build());
        faults.stallRequests(true);
        long timedOut = submitEcho(1, 0);
        assertEquals(OflStatus.TIMED_OUT, client.await(timedOut, client.clock().nanoTime() + 20_000_000L, completion));
        assertThrows(IllegalArgumentException.class, () -> client.await(timedOut, deadline(), completion),
                "a timed-out ticket is spent");
        client.reconnect();
        long lostA = submitEcho(2, 0);
        long lostB = submitEcho(3, 8);
        faults.failPosts(1);
        assertThrows(OflConnectionException.class, () -> submitEcho(4, 16));
        assertThrows(OflConnectionException.class, () -> client.await(lostA, deadline(), completion));
        assertThrows(IllegalArgumentException.class, () -> client.await(lostA, deadline(), completion),
                "a lost ticket is spent");
        faults.stallRequests(false);
        client.reconnect();
        IllegalArgumentException dropped = assertThrows(IllegalArgumentException.class,
                () -> client.await(lostB, deadline(), completion));
        assertTrue(dropped.getMessage().contains("dropped by a reconnect"), dropped.getMessage());
        long[] fresh = {submitEcho(5, 0), submitEcho(6, 8), submitEcho(7, 16)};
        assertEquals(OflStatus.IN_FLIGHT_FULL, submitEcho(8, 24), "a reconnect frees every place");
        for (long t : fresh) {
            assertEquals(OflStatus.OK, client.await(t, deadline(), completion));
        }
    }

    @Test
    void aBrokenClientRefusesSubmitsUntilReconnectAndKeepsRegionsRegisteredMeanwhile() {
        start(config().build());
        faults.failPosts(1);
        OflConnectionException failed = assertThrows(OflConnectionException.class, () -> submitEcho(1, 0));
        assertTrue(failed.getMessage().endsWith("; the client is broken until reconnect()"), failed.getMessage());
        assertTrue(client.isBroken());
        OflConnectionException refused = assertThrows(OflConnectionException.class, () -> submitEcho(2, 0));
        assertTrue(refused.getMessage().startsWith("the connection is broken (posting a request failed"),
                refused.getMessage());
        assertTrue(refused.getMessage().endsWith("); call reconnect()"), refused.getMessage());
        Region later = client.registerRegion(arena.allocate(64));
        client.reconnect();
        assertFalse(client.isBroken());
        client.requestPayload().set(ValueLayout.JAVA_LONG_UNALIGNED, 0, 33);
        assertEquals(OflStatus.OK, client.call(1, 0, 8, new ResponseRanges().add(later, 0, 8), 10 * SECOND_NS,
                completion));
        assertEquals(33, later.segment().get(ValueLayout.JAVA_LONG_UNALIGNED, 0),
                "a region registered while broken is exposed by the reconnect");
    }

    @Test
    void aFailedReconnectLeavesTheClientBrokenWithTheReason() {
        start(config().build());
        server.close();
        RuntimeException e = assertThrows(RuntimeException.class, client::reconnect);
        assertTrue(client.isBroken());
        OflConnectionException refused = assertThrows(OflConnectionException.class, () -> submitEcho(1, 0));
        assertTrue(refused.getMessage().contains("reconnect() failed: " + e.getMessage()), refused.getMessage());
    }

    @Test
    void aLostConnectionIsNoticedBySubmitAndAwait() {
        start(config().build());
        long ticket = submitEcho(1, 0);
        assertEquals(OflStatus.OK, client.await(ticket, deadline(), completion));
        faults.stallRequests(true);
        long stalled = submitEcho(2, 0);
        server.close();
        OflConnectionException lost = assertThrows(OflConnectionException.class,
                () -> client.await(stalled, deadline(), completion));
        // Either the fake link or the bootstrap socket reports the loss first; both name the way out.
        assertTrue(lost.getMessage().contains("reconnect()"), lost.getMessage());
        assertTrue(client.isBroken());
        assertThrows(OflConnectionException.class, () -> submitEcho(3, 0));
    }

    @Test
    void blockingWaitModeCompletesAndTimesOut() {
        start(config().waitMode(WaitMode.BLOCKING).build());
        assertEquals(OflStatus.OK, client.await(submitEcho(8, 0), deadline(), completion));
        assertEquals(8, memory.get(ValueLayout.JAVA_LONG_UNALIGNED, 0));
        faults.stallRequests(true);
        long ticket = submitEcho(9, 0);
        long deadlineNs = client.clock().nanoTime() + 50_000_000L;
        assertEquals(OflStatus.TIMED_OUT, client.await(ticket, deadlineNs, completion));
        assertTrue(client.clock().nanoTime() - deadlineNs >= 0);
    }

    @Test
    void aClosedClientRefusesEverythingAndCloseIsIdempotent() {
        start(config().build());
        assertEquals(FakeBackend.NAME, client.backend());
        assertEquals(LIMITS, client.limits());
        assertTrue(((ClientSession) client).transport() instanceof FakeClientTransport);
        long ticket = submitEcho(1, 0);
        MemorySegment payload = client.requestPayload();
        client.close();
        assertFalse(payload.scope().isAlive(), "close() frees the send slots once the transport released them");
        client.close();
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> client.registerRegion(memory));
        assertEquals("the client is closed", e.getMessage());
        assertThrows(IllegalStateException.class, () -> client.await(ticket, deadline(), completion));
        IllegalStateException submit = assertThrows(IllegalStateException.class,
                () -> client.submit(1, 0, 0, new ResponseRanges()));
        assertEquals("the client is closed", submit.getMessage());
        assertThrows(IllegalStateException.class, client::reconnect);
        client = null;
    }

    @Test
    void regionsMustBeNativeMemory() {
        start(config().build());
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> client.registerRegion(MemorySegment.ofArray(new byte[64])));
        assertTrue(e.getMessage().contains("native"), e.getMessage());
        assertThrows(NullPointerException.class, () -> client.registerRegion(null));
        Region second = client.registerRegion(arena.allocate(64));
        assertEquals(region.id() + 1, second.id());
        assertSame(client, second.owner());
    }

    @Test
    void aConnectThatIsRefusedLeavesNothingBehind() {
        assertThrows(RuntimeException.class, () -> Ofl.connect(config().serviceName(service + "-other").build()));
        start(config().build());
        assertEquals(OflStatus.OK, client.await(submitEcho(4, 0), deadline(), completion));
    }
}
