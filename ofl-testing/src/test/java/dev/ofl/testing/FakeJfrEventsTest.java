package dev.ofl.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ofl.api.ClientConfig;
import dev.ofl.api.Completion;
import dev.ofl.api.Limits;
import dev.ofl.api.Ofl;
import dev.ofl.api.OflClient;
import dev.ofl.api.OflConnectionException;
import dev.ofl.api.OflHandler;
import dev.ofl.api.OflServer;
import dev.ofl.api.OflStatus;
import dev.ofl.api.Region;
import dev.ofl.api.ResponseRanges;
import dev.ofl.api.ServerConfig;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.ValueLayout;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The JFR events of the engine, which ofl-api's sessions emit for every backend, over the fake
 * one: every field of {@code dev.ofl.Call}, {@code dev.ofl.Handler}, {@code dev.ofl.Connect} and
 * {@code dev.ofl.ConnectionBroken} for a round trip, a refusal, a handler failure, a timeout, a
 * lost call and failed connects, and nothing per call while the per-call events are off.
 */
@Timeout(60)
class FakeJfrEventsTest {
    private static final long SECOND_NS = TimeUnit.SECONDS.toNanos(1);
    private static final Limits LIMITS = new Limits(1024, 1 << 20, 4, 4);
    private static final String SERVICE = "fake-jfr-events";
    private static final int ECHO = 1;
    private static final int REFUSE = 2;
    private static final int BLOCK = 3;
    private static final int THROW = 4;
    private static final int REFUSAL_STATUS = 7;

    @TempDir
    Path directory;

    private final CountDownLatch unblock = new CountDownLatch(1);
    private Arena arena;
    private OflServer server;

    @BeforeEach
    void setUp() {
        arena = Arena.ofShared();
        OflHandler handler = (request, response) -> switch (request.op()) {
            case ECHO -> {
                response.write(request.payload());
                yield 0;
            }
            case BLOCK -> {
                unblock.await(30, TimeUnit.SECONDS);
                yield 0;
            }
            case THROW -> throw new IllegalStateException("the handler fails on purpose");
            default -> REFUSAL_STATUS;
        };
        server = Ofl.serve(ServerConfig.builder().backend(FakeBackend.NAME)
                .bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0)).serviceName(SERVICE).limits(LIMITS)
                .build(), handler);
    }

    @AfterEach
    void tearDown() {
        unblock.countDown();
        FakeFaults.of(SERVICE).clear();
        server.close();
        arena.close();
    }

    private OflClient connect() {
        return Ofl.connect(ClientConfig.builder().backend(FakeBackend.NAME).server(server.localAddress())
                .serviceName(SERVICE).limits(LIMITS).build());
    }

    private static int call(OflClient client, Region region, int op, long generation, long value) {
        client.requestPayload().set(ValueLayout.JAVA_LONG_UNALIGNED, 0, value);
        return client.call(op, generation, 8, new ResponseRanges().add(region, 0, 8), 10 * SECOND_NS,
                new Completion());
    }

    private List<RecordedEvent> stopAndRead(Recording recording) throws IOException {
        recording.stop();
        Path file = directory.resolve("ofl.jfr");
        recording.dump(file);
        recording.close();
        assertTrue(Files.size(file) > 0, "the recording was written");
        return RecordingFile.readAllEvents(file).stream()
                .filter(e -> e.getEventType().getName().startsWith("dev.ofl.") && ours(e))
                .toList();
    }

    /**
     * Whether an event is of this test's server or its clients: other tests' clients and servers
     * in this JVM (a mutation-testing run shares one) may still be ending while this one records.
     */
    private boolean ours(RecordedEvent event) {
        if (event.hasField("server")) {
            return String.valueOf(server.localAddress()).equals(event.getString("server"));
        }
        return event.hasField("service") && SERVICE.equals(event.getString("service"));
    }

    private static List<RecordedEvent> named(List<RecordedEvent> events, String name) {
        // In start order: a recording's file order follows its thread buffers, and a virtual
        // thread's events may sit in the buffers of several carrier threads.
        return events.stream().filter(e -> e.getEventType().getName().equals(name))
                .sorted(Comparator.comparing(RecordedEvent::getStartTime)).toList();
    }

    private static Recording allOflEvents() {
        Recording recording = new Recording();
        for (String name : List.of("dev.ofl.Call", "dev.ofl.Handler", "dev.ofl.Connect", "dev.ofl.ConnectionBroken")) {
            recording.enable(name).withoutThreshold();
        }
        return recording;
    }

    @Test
    void aRoundTripAndARefusalRecordTheirCallsAndHandlers() throws IOException {
        Recording recording = allOflEvents();
        recording.start();
        try (OflClient client = connect()) {
            Region region = client.registerRegion(arena.allocate(64));
            assertEquals(OflStatus.OK, call(client, region, ECHO, 41, 1234));
            assertEquals(OflStatus.REFUSED, call(client, region, REFUSE, 42, 5678));
        }
        List<RecordedEvent> events = stopAndRead(recording);

        List<RecordedEvent> connects = named(events, "dev.ofl.Connect");
        assertEquals(1, connects.size(), events::toString);
        RecordedEvent connect = connects.get(0);
        assertEquals(FakeBackend.NAME, connect.getString("backend"));
        assertEquals(String.valueOf(server.localAddress()), connect.getString("server"));
        assertEquals(SERVICE, connect.getString("service"));
        assertEquals(false, connect.getBoolean("reconnect"));
        assertEquals("", connect.getString("failure"));
        assertEquals("", connect.getString("path"), "the fake backend adds nothing to the server's address");

        List<RecordedEvent> calls = named(events, "dev.ofl.Call");
        assertEquals(2, calls.size(), calls::toString);
        RecordedEvent ok = calls.get(0);
        assertEquals(FakeBackend.NAME, ok.getString("backend"));
        assertEquals(ECHO, ok.getInt("op"));
        assertEquals(41, ok.getLong("generation"));
        assertEquals(0, ok.getLong("ticket"));
        assertEquals("OK", ok.getString("status"));
        assertEquals(0, ok.getInt("handlerStatus"));
        assertEquals(8, ok.getLong("requestBytes"));
        assertEquals(8, ok.getLong("responseBytes"));
        assertTrue(ok.getDuration().toNanos() > 0, "the round trip is the event's duration");
        RecordedEvent refused = calls.get(1);
        assertEquals(REFUSE, refused.getInt("op"));
        assertEquals(1, refused.getLong("ticket"));
        assertEquals("REFUSED", refused.getString("status"));
        assertEquals(REFUSAL_STATUS, refused.getInt("handlerStatus"));
        assertEquals(0, refused.getLong("responseBytes"));

        List<RecordedEvent> handlers = named(events, "dev.ofl.Handler");
        assertEquals(2, handlers.size(), handlers::toString);
        RecordedEvent echoed = handlers.get(0);
        assertEquals(FakeBackend.NAME, echoed.getString("backend"));
        assertEquals(SERVICE, echoed.getString("service"));
        assertEquals(ECHO, echoed.getInt("op"));
        assertEquals(41, echoed.getLong("generation"));
        assertEquals("OK", echoed.getString("status"));
        assertEquals(8, echoed.getLong("requestBytes"));
        assertEquals(8, echoed.getLong("responseBytes"));
        assertTrue(echoed.getString("peer").startsWith("/127.0.0.1:"), echoed.getString("peer"));
        assertEquals(echoed.getLong("connection"), handlers.get(1).getLong("connection"), "one connection");
        assertEquals("REFUSED", handlers.get(1).getString("status"));
        assertEquals(0, handlers.get(1).getLong("responseBytes"));

        assertEquals(List.of(), named(events, "dev.ofl.ConnectionBroken"), "closing is not a break");
    }

    @Test
    void aTimeoutRecordsTheCallTheBreakAndTheReconnect() throws IOException {
        Recording recording = allOflEvents();
        recording.start();
        try (OflClient client = connect()) {
            Region region = client.registerRegion(arena.allocate(64));
            long ticket = client.submit(BLOCK, 9, 0, new ResponseRanges().add(region, 0, 8));
            assertEquals(OflStatus.TIMED_OUT, client.await(ticket, client.clock().nanoTime(), new Completion()));
            unblock.countDown();
            client.reconnect();
            assertEquals(OflStatus.OK, call(client, region, ECHO, 1, 1));
        }
        List<RecordedEvent> events = stopAndRead(recording);

        List<RecordedEvent> calls = named(events, "dev.ofl.Call");
        assertEquals(List.of("TIMED_OUT", "OK"), calls.stream().map(e -> e.getString("status")).toList());
        assertEquals(BLOCK, calls.get(0).getInt("op"));
        assertEquals(9, calls.get(0).getLong("generation"));
        assertEquals(0, calls.get(0).getLong("requestBytes"));
        assertEquals(0, calls.get(0).getLong("responseBytes"));

        List<RecordedEvent> breaks = named(events, "dev.ofl.ConnectionBroken");
        assertEquals(1, breaks.size(), breaks::toString);
        assertEquals("TIMEOUT", breaks.get(0).getString("cause"));
        assertEquals("ticket 0 timed out", breaks.get(0).getString("reason"));
        assertEquals(FakeBackend.NAME, breaks.get(0).getString("backend"));

        List<RecordedEvent> connects = named(events, "dev.ofl.Connect");
        assertEquals(List.of(false, true), connects.stream().map(e -> e.getBoolean("reconnect")).toList());
        assertEquals("", connects.get(1).getString("failure"));
    }

    @Test
    void aHandlerFailureAndAProtocolErrorAreRecordedWithTheirStatusAndCause() throws IOException {
        Recording recording = allOflEvents();
        recording.start();
        try (OflClient client = connect()) {
            Region region = client.registerRegion(arena.allocate(64));
            assertEquals(OflStatus.HANDLER_FAILED, call(client, region, THROW, 5, 1));
            FakeFaults.of(SERVICE).corruptNextResponse(FakeFaults.HeaderField.SEQUENCE, 77);
            assertThrows(OflConnectionException.class, () -> call(client, region, ECHO, 6, 2));
            assertEquals(1, client.statistics().protocolErrors(), client.statistics()::toString);
        }
        List<RecordedEvent> events = stopAndRead(recording);

        List<RecordedEvent> calls = named(events, "dev.ofl.Call");
        assertEquals(List.of("HANDLER_FAILED", "LOST"), calls.stream().map(e -> e.getString("status")).toList());
        assertEquals(0, calls.get(0).getLong("responseBytes"));
        assertEquals(0, calls.get(0).getInt("handlerStatus"));
        List<RecordedEvent> handlers = named(events, "dev.ofl.Handler");
        assertEquals(List.of("HANDLER_FAILED", "OK"), handlers.stream().map(e -> e.getString("status")).toList());
        assertEquals(0, handlers.get(0).getLong("responseBytes"));
        assertEquals(THROW, handlers.get(0).getInt("op"));
        assertEquals(5, handlers.get(0).getLong("generation"));
        List<RecordedEvent> breaks = named(events, "dev.ofl.ConnectionBroken");
        assertEquals(1, breaks.size(), breaks::toString);
        assertEquals("PROTOCOL_ERROR", breaks.get(0).getString("cause"));
        assertEquals(String.valueOf(server.localAddress()), breaks.get(0).getString("server"));
    }

    @Test
    void failedConnectsAndReconnectsAreRecordedWithTheirFailure() throws IOException {
        InetSocketAddress address = server.localAddress();
        OflClient client = connect();
        server.close();
        Recording recording = allOflEvents();
        recording.start();
        try {
            assertThrows(RuntimeException.class, client::reconnect);
        } finally {
            client.close();
        }
        assertThrows(RuntimeException.class, () -> Ofl.connect(ClientConfig.builder().backend(FakeBackend.NAME)
                .server(address)
                .serviceName(SERVICE).limits(LIMITS).connectTimeout(Duration.ofSeconds(5)).build()));
        List<RecordedEvent> connects = named(stopAndRead(recording), "dev.ofl.Connect");
        assertEquals(List.of(true, false), connects.stream().map(e -> e.getBoolean("reconnect")).toList());
        for (RecordedEvent connect : connects) {
            assertTrue(connect.getString("failure").contains("cannot connect"), connect.getString("failure"));
            assertEquals("", connect.getString("path"), "a failed connect chose no path");
        }
    }

    @Test
    void perRequestEventsAreOffByDefaultAndNothingIsEmittedWhenAllAreOff() throws IOException {
        Recording defaults = new Recording();
        defaults.start();
        try (OflClient client = connect()) {
            Region region = client.registerRegion(arena.allocate(64));
            assertEquals(OflStatus.OK, call(client, region, ECHO, 1, 1));
        }
        List<RecordedEvent> byDefault = stopAndRead(defaults);
        assertEquals(List.of("dev.ofl.Connect"), byDefault.stream().map(e -> e.getEventType().getName()).toList(),
                "only the per-connection events are on by default");

        Recording off = new Recording();
        for (String name : List.of("dev.ofl.Call", "dev.ofl.Handler", "dev.ofl.Connect", "dev.ofl.ConnectionBroken")) {
            off.disable(name);
        }
        off.start();
        try (OflClient client = connect()) {
            Region region = client.registerRegion(arena.allocate(64));
            assertEquals(OflStatus.OK, call(client, region, ECHO, 1, 1));
            long ticket = client.submit(BLOCK, 0, 0, new ResponseRanges().add(region, 0, 8));
            assertEquals(OflStatus.TIMED_OUT, client.await(ticket, client.clock().nanoTime(), new Completion()));
        }
        assertEquals(List.of(), stopAndRead(off));
    }

    @Test
    void aRecordingStartedAfterTheClientConnectedStillSeesItsCalls() throws IOException {
        try (OflClient client = connect()) {
            Region region = client.registerRegion(arena.allocate(64));
            assertEquals(OflStatus.OK, call(client, region, ECHO, 1, 1));
            Recording recording = allOflEvents();
            recording.start();
            assertEquals(OflStatus.OK, call(client, region, ECHO, 2, 2));
            List<RecordedEvent> calls = named(stopAndRead(recording), "dev.ofl.Call");
            assertEquals(List.of(2L), calls.stream().map(e -> e.getLong("generation")).toList());
        }
    }
}
