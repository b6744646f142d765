package dev.ofl.micrometer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ofl.api.ClientConfig;
import dev.ofl.api.Completion;
import dev.ofl.api.Limits;
import dev.ofl.api.Ofl;
import dev.ofl.api.OflClient;
import dev.ofl.api.OflHandler;
import dev.ofl.api.OflServer;
import dev.ofl.api.OflStatus;
import dev.ofl.api.Region;
import dev.ofl.api.ResponseRanges;
import dev.ofl.api.ServerConfig;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.lang.foreign.ValueLayout;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The call timer over a real TCP client: what each outcome records, and what records nothing. */
@Timeout(60)
class TimedOflClientTest {
    private static final long SECOND_NS = TimeUnit.SECONDS.toNanos(1);
    private static final Limits LIMITS = new Limits(1024, 1 << 20, 4, 4);
    private static final String SERVICE = "timed";
    private static final int ECHO = 1;
    private static final int SLOW = 2;
    private static final int BLOCK = 3;
    private static final int FAIL = 4;
    /** How far a SLOW request moves the client's clock on: a latency no real call here reaches. */
    private static final long SLOW_NS = 100 * SECOND_NS;

    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    /** The client's clock: real time plus what SLOW requests add. */
    private final AtomicLong offsetNs = new AtomicLong();
    private final CountDownLatch unblock = new CountDownLatch(1);
    private OflServer server;
    private OflClient client;
    private Region region;

    @BeforeEach
    void setUp() {
        OflHandler handler = (request, response) -> switch (request.op()) {
            case ECHO -> {
                response.write(request.payload());
                yield 0;
            }
            case SLOW -> {
                offsetNs.addAndGet(SLOW_NS);
                yield 0;
            }
            case BLOCK -> {
                unblock.await(30, TimeUnit.SECONDS);
                yield 0;
            }
            case FAIL -> throw new IllegalStateException("the handler fails");
            default -> 5;
        };
        server = Ofl.serve(ServerConfig.builder().bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))
                .serviceName(SERVICE).limits(LIMITS).build(), handler);
        client = new TimedOflClient(Ofl.connect(ClientConfig.builder().server(server.localAddress())
                .serviceName(SERVICE).limits(LIMITS).clock(() -> System.nanoTime() + offsetNs.get()).build()),
                registry, SERVICE, Tags.of("replica", "a"), 0.5, 0.99);
        region = client.allocateRegion(64);
    }

    @AfterEach
    void tearDown() {
        unblock.countDown();
        client.close();
        server.close();
        registry.close();
    }

    private Timer timer(String status) {
        return registry.get(TimedOflClient.METER).tags("status", status, "backend", "tcp", "service", SERVICE,
                "replica", "a").timer();
    }

    private int call(int op) {
        client.requestPayload().set(ValueLayout.JAVA_LONG_UNALIGNED, 0, 42);
        return client.call(op, 0, 8, new ResponseRanges().add(region, 0, 8), 200 * SECOND_NS, new Completion());
    }

    @Test
    void eachOutcomeIsTimedUnderItsStatus() {
        assertEquals(OflStatus.OK, call(ECHO));
        assertEquals(OflStatus.OK, call(SLOW));
        assertEquals(OflStatus.REFUSED, call(99));
        assertEquals(OflStatus.HANDLER_FAILED, call(FAIL));
        long ticket = client.submit(BLOCK, 0, 0, new ResponseRanges().add(region, 0, 8));
        assertEquals(OflStatus.TIMED_OUT, client.await(ticket, client.clock().nanoTime(), new Completion()));

        assertEquals(2, timer("ok").count());
        // The SLOW call took at least the time its handler added to the clock, and the two calls
        // far less than twice that.
        double okSeconds = timer("ok").totalTime(TimeUnit.SECONDS);
        assertTrue(okSeconds >= 100 && okSeconds < 200, okSeconds + " s");
        assertTrue(timer("ok").max(TimeUnit.SECONDS) >= 100, timer("ok").max(TimeUnit.SECONDS) + " s");
        assertEquals(1, timer("refused").count());
        assertEquals(1, timer("handler_failed").count());
        assertEquals(1, timer("timed_out").count());
        assertEquals(0, timer("busy").count());
        assertTrue(timer("refused").totalTime(TimeUnit.SECONDS) < 100, "a fast call is timed as fast");
        assertEquals(2, timer("ok").takeSnapshot().percentileValues().length, "the percentiles asked for");
        assertEquals(5, client.statistics().calls(), "statistics are the wrapped client's");
    }

    @Test
    void pipelinedCallsAreEachTimedAndDroppedTicketsRecordNothing() {
        ResponseRanges ranges = new ResponseRanges().add(region, 0, 8);
        client.requestPayload().set(ValueLayout.JAVA_LONG_UNALIGNED, 0, 7);
        long[] tickets = new long[4];
        for (int i = 0; i < tickets.length; i++) {
            tickets[i] = client.submit(ECHO, 0, 8, ranges);
        }
        assertEquals(OflStatus.IN_FLIGHT_FULL, client.submit(ECHO, 0, 8, ranges));
        for (int i = tickets.length - 1; i >= 0; i--) {
            assertEquals(OflStatus.OK, client.await(tickets[i], client.deadlineAfter(java.time.Duration.ofSeconds(30)),
                    new Completion()));
        }
        assertEquals(4, timer("ok").count());

        // Tickets in flight at a reconnect are dropped: they never reach await and record nothing.
        long blocked = client.submit(BLOCK, 0, 0, ranges);
        client.submit(ECHO, 0, 8, ranges);
        client.reconnect();
        unblock.countDown();
        assertThrows(IllegalArgumentException.class, () -> client.await(blocked, client.clock().nanoTime()
                + SECOND_NS, new Completion()));
        for (int i = 0; i < 6; i++) {
            assertEquals(OflStatus.OK, call(ECHO));
        }
        assertEquals(10, timer("ok").count());
        assertEquals(0, timer("timed_out").count());
        assertTrue(timer("ok").totalTime(TimeUnit.SECONDS) < 100, "no call was timed from a dropped ticket's start");
    }

    @Test
    void theWrapperForwardsAndChecksItsArguments() {
        TimedOflClient timed = (TimedOflClient) client;
        assertSame(timed.delegate().requestPayload(), client.requestPayload());
        assertEquals("tcp", client.backend());
        assertEquals(LIMITS, client.limits());
        assertThrows(IllegalArgumentException.class,
                () -> new TimedOflClient(timed.delegate(), registry, SERVICE, Tags.empty(), 1.5));
        assertThrows(NullPointerException.class, () -> new TimedOflClient(timed.delegate(), registry, null));
        assertThrows(NullPointerException.class, () -> new TimedOflClient(null, registry, SERVICE));
    }
}
