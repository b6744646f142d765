package dev.ofl.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ofl.api.ClientConfig;
import dev.ofl.api.Completion;
import dev.ofl.api.HandlerErrorListener;
import dev.ofl.api.Limits;
import dev.ofl.api.Ofl;
import dev.ofl.api.OflClient;
import dev.ofl.api.OflHandler;
import dev.ofl.api.OflServer;
import dev.ofl.api.OflStatus;
import dev.ofl.api.Region;
import dev.ofl.api.ResponseRanges;
import dev.ofl.api.ServerConfig;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.lang.foreign.Arena;
import java.lang.foreign.ValueLayout;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@link ServerConfig.Builder#handlerErrorListener}: the listener replaces the server's log of
 * handler failures, sees the request while it is valid, and a listener that throws harms neither the
 * client's outcome nor the connection.
 */
@Timeout(60)
class HandlerErrorListenerTest {
    private static final long TIMEOUT_NS = TimeUnit.SECONDS.toNanos(10);
    private static final Limits LIMITS = new Limits(4096, 4096, 4, 4);
    private static final AtomicInteger SERVICES = new AtomicInteger();
    private static final int OP_ECHO = 1;
    private static final int OP_THROW = 2;

    private record Seen(int op, long sequence, long payloadValue, Exception failure, String thread) {
    }

    private final OflHandler handler = (request, response) -> {
        if (request.op() == OP_THROW) {
            throw new IllegalStateException("failure " + request.payload().get(ValueLayout.JAVA_LONG_UNALIGNED, 0));
        }
        response.write(request.payload());
        return 0;
    };

    private static String handlerErrorLog(ByteArrayOutputStream captured) {
        return String.join("\n", captured.toString(StandardCharsets.UTF_8).lines()
                .filter(l -> l.contains(" dev.ofl.api.spi.HandlerErrors - ")).toList());
    }

    /** Runs echo, throw, throw, echo over one connection with the listener given. */
    private static List<Integer> exchange(String service, HandlerErrorListener listener, OflHandler handler) {
        ServerConfig.Builder server = ServerConfig.builder().backend(FakeBackend.NAME)
                .bind(new InetSocketAddress("127.0.0.1", 0)).serviceName(service).limits(LIMITS);
        if (listener != null) {
            server.handlerErrorListener(listener);
        }
        List<Integer> statuses = new CopyOnWriteArrayList<>();
        try (OflServer s = Ofl.serve(server.build(), handler);
                OflClient client = Ofl.connect(ClientConfig.builder().backend(FakeBackend.NAME)
                        .server(s.localAddress()).serviceName(service).limits(LIMITS).build());
                Arena arena = Arena.ofShared()) {
            Region region = client.registerRegion(arena.allocate(64));
            Completion completion = new Completion();
            long value = 100;
            for (int op : new int[] {OP_ECHO, OP_THROW, OP_THROW, OP_ECHO}) {
                client.requestPayload().set(ValueLayout.JAVA_LONG_UNALIGNED, 0, value++);
                statuses.add(client.call(op, 0, 8, new ResponseRanges().add(region, 0, 8), TIMEOUT_NS, completion));
            }
        }
        return statuses;
    }

    private static ByteArrayOutputStream captureErr(Runnable body) {
        PrintStream originalErr = System.err;
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
        try {
            body.run();
        } finally {
            System.err.flush();
            System.setErr(originalErr);
        }
        return captured;
    }

    @Test
    void theListenerSeesEveryFailureWithItsRequestInsteadOfTheLog() {
        List<Seen> seen = new CopyOnWriteArrayList<>();
        List<List<Integer>> statuses = new CopyOnWriteArrayList<>();
        ByteArrayOutputStream captured = captureErr(() -> statuses.add(exchange(
                "listener-" + SERVICES.incrementAndGet(),
                (request, failure) -> seen.add(new Seen(request.op(), request.sequence(),
                        request.payload().get(ValueLayout.JAVA_LONG_UNALIGNED, 0), failure,
                        Thread.currentThread().getName())),
                handler)));

        assertEquals(List.of(OflStatus.OK, OflStatus.HANDLER_FAILED, OflStatus.HANDLER_FAILED, OflStatus.OK),
                statuses.get(0));
        assertEquals(2, seen.size(), "every failure, repeats included: " + seen);
        for (int i = 0; i < 2; i++) {
            Seen s = seen.get(i);
            assertEquals(OP_THROW, s.op());
            assertEquals(1 + i, s.sequence(), "the failing request's sequence");
            assertEquals(101 + i, s.payloadValue(), "the payload is readable during the call");
            IllegalStateException failure = assertInstanceOf(IllegalStateException.class, s.failure());
            assertEquals("failure " + (101 + i), failure.getMessage());
            assertTrue(!s.thread().startsWith("main"), "called on the connection's thread, was " + s.thread());
        }
        assertEquals("", handlerErrorLog(captured), "the listener replaces the log");
    }

    @Test
    void aListenerThatThrowsIsLoggedAndHarmsNothing() {
        List<IllegalArgumentException> thrown = new CopyOnWriteArrayList<>();
        List<List<Integer>> statuses = new CopyOnWriteArrayList<>();
        ByteArrayOutputStream captured = captureErr(() -> statuses.add(exchange(
                "listener-" + SERVICES.incrementAndGet(),
                (request, failure) -> {
                    IllegalArgumentException listenerFailure = new IllegalArgumentException("listener broke");
                    thrown.add(listenerFailure);
                    throw listenerFailure;
                },
                handler)));

        assertEquals(List.of(OflStatus.OK, OflStatus.HANDLER_FAILED, OflStatus.HANDLER_FAILED, OflStatus.OK),
                statuses.get(0), "the client's outcomes and the connection are untouched");
        assertEquals(2, thrown.size());
        String log = handlerErrorLog(captured);
        assertEquals(1, log.lines().count(), "the first listener failure is logged, the repeat counted: " + log);
        assertTrue(log.contains("listener broke"), log);
        for (int i = 0; i < 2; i++) {
            Throwable[] suppressed = thrown.get(i).getSuppressed();
            assertEquals(1, suppressed.length, "the handler's failure travels with it");
            assertEquals("failure " + (101 + i), suppressed[0].getMessage());
        }
    }

    @Test
    void withoutAListenerTheServerLogs() {
        ServerConfig config = ServerConfig.builder().bind(new InetSocketAddress("127.0.0.1", 0)).serviceName("s")
                .build();
        assertNull(config.handlerErrorListener(), "the default is the server's own log");
        ByteArrayOutputStream captured = captureErr(() -> exchange("listener-" + SERVICES.incrementAndGet(), null,
                handler));
        String log = handlerErrorLog(captured);
        assertEquals(1, log.lines().filter(l -> l.contains("handler failed (op 2, sequence 1)")).count(), log);
    }

    @Test
    void theBuilderRefusesANullListener() {
        ServerConfig.Builder builder = ServerConfig.builder();
        NullPointerException e = assertThrows(NullPointerException.class, () -> builder.handlerErrorListener(null));
        assertEquals("handlerErrorListener", e.getMessage());
        HandlerErrorListener listener = (request, failure) -> { };
        assertSame(listener, builder.handlerErrorListener(listener).bind(new InetSocketAddress("127.0.0.1", 0))
                .serviceName("s").build().handlerErrorListener());
    }
}
