package dev.ofl.verbs.rdma;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ofl.api.ClientConfig;
import dev.ofl.api.Completion;
import dev.ofl.api.Limits;
import dev.ofl.api.Ofl;
import dev.ofl.api.OflClient;
import dev.ofl.api.OflConnectionException;
import dev.ofl.api.OflServer;
import dev.ofl.api.OflStatus;
import dev.ofl.api.Region;
import dev.ofl.api.ResponseRanges;
import dev.ofl.api.ServerConfig;
import dev.ofl.api.WaitMode;
import dev.ofl.api.spi.ClientSession;
import dev.ofl.conformance.Conditions;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A port that goes down breaks the connections on it at once, on both sides, with the cause named,
 * instead of after the RC retry budget: the device's {@code IBV_EVENT_PORT_ERR}, read on the
 * process's poller. The connections are given a retry budget of 7 x 4.3 s and the calls a deadline
 * longer still: a call that ends with the port named ended by the event, one that took the
 * retries would name {@code RETRY_EXC_ERR}. Nothing of a response finished after the break lands,
 * even once the port is back. The port is taken down with softverbs' hook, or, where
 * {@code ofl.test.portDown} and {@code ofl.test.portUp} give commands (the rxe guest: the veth
 * under the device goes down), with those, so the same assertions hold over the kernel's rxe.
 */
@Timeout(180)
class RdmaPortEventsTest {
    private static final String SERVICE = "port-events";
    private static final int ANSWER = 1;
    private static final int HOLD = 2;
    private static final byte SENTINEL = 0x5A;
    private static final long LONG_NS = TestEnvironment.nanos(600);
    /** Tests of a fault only softverbs' hooks can make; left out on a kernel device. */
    static final String SOFTVERBS_HOOKS = "softverbs-hooks";

    @TempDir
    Path directory;

    private final List<AutoCloseable> closing = new ArrayList<>();

    @AfterEach
    void bringThePortBack() throws Exception {
        Port.up();
        for (AutoCloseable c : closing.reversed()) {
            c.close();
        }
    }

    @ParameterizedTest
    @EnumSource(value = WaitMode.class, names = {"BLOCKING", "BUSY_POLL"})
    void aCallInFlightEndsWhenThePortGoesDownAndNothingLateLands(WaitMode mode) throws Exception {
        Recording recording = new Recording();
        recording.enable("dev.ofl.DeviceEvent");
        recording.enable("dev.ofl.ConnectionBroken");
        recording.start();
        CountDownLatch held = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        OflServer server = server(mode, held, release);
        Arena arena = Arena.ofShared();
        closing.add(arena);
        OflClient client = client(server, mode);
        MemorySegment memory = arena.allocate(4096);
        memory.fill(SENTINEL);
        Region region = client.registerRegion(memory);

        long ticket = client.submit(HOLD, 0, 0, new ResponseRanges().add(region, 0, 4096));
        assertTrue(held.await(TestEnvironment.seconds(20), TimeUnit.SECONDS), "the handler never ran");
        long downNs = System.nanoTime();
        Port.down();
        OflConnectionException broken = assertThrows(OflConnectionException.class,
                () -> client.await(ticket, client.clock().nanoTime() + LONG_NS, new Completion()));
        long tookNs = System.nanoTime() - downNs;
        System.out.printf("%s: the call in flight ended %.1f ms after the port went down: %s%n", mode,
                tookNs / 1e6, broken.getMessage());
        assertTrue(broken.getMessage().matches("(?s).*port \\d+ of \\S+ went down \\(IBV_EVENT_PORT_ERR\\).*"),
                broken::getMessage);
        assertEquals(1, client.statistics().linkFailures(), client.statistics()::toString);
        assertEquals(0, client.statistics().peerLosses(), client.statistics()::toString);
        assertEquals(0, client.statistics().transportFailures(), client.statistics()::toString);

        // The port comes back, then the handler finishes: its response must still have nowhere to
        // land, since both queue pairs went to ERR when the port went down.
        Port.up();
        release.countDown();
        Conditions.await(() -> server.statistics().linkFailures() == 1 && server.connectionCount() == 0,
                "the server to end its connection on the port's failure");
        for (long at = 0; at < memory.byteSize(); at++) {
            assertEquals(SENTINEL, memory.get(ValueLayout.JAVA_BYTE, at), "byte " + at + " landed after the break");
        }

        client.reconnect();
        assertEquals(OflStatus.OK, call(client, region, 0x1122334455667788L), "a call after the port came back");
        assertEquals(0x1122334455667788L, memory.get(ValueLayout.JAVA_LONG_UNALIGNED, 0));
        assertEquals(1, server.statistics().linkFailures(), server.statistics()::toString);

        recording.stop();
        Path file = directory.resolve("port.jfr");
        recording.dump(file);
        recording.close();
        List<RecordedEvent> events = RecordingFile.readAllEvents(file);
        List<RecordedEvent> downs = events.stream().filter(e -> e.getEventType().getName().equals("dev.ofl.DeviceEvent")
                && e.getString("event").equals("IBV_EVENT_PORT_ERR")).toList();
        // The client's device and the server's are two contexts: each heard and broke its own
        // connection (devices other test classes left open may have heard it too).
        assertTrue(downs.stream().filter(e -> e.getInt("connectionsBroken") == 1
                && e.getString("reason").contains("went down")).count() >= 2, downs::toString);
        assertTrue(events.stream().anyMatch(e -> e.getEventType().getName().equals("dev.ofl.ConnectionBroken")
                && e.getString("cause").equals("LINK_FAILURE")), "no ConnectionBroken with cause LINK_FAILURE");
    }

    /** An idle connection hears it too: the next call fails at once instead of waiting out the retries. */
    @Test
    void anIdleConnectionLearnsAtOnceAndItsNextCallSaysWhy() throws Exception {
        OflServer server = server(WaitMode.BLOCKING, new CountDownLatch(1), new CountDownLatch(0));
        Arena arena = Arena.ofShared();
        closing.add(arena);
        OflClient client = client(server, WaitMode.BLOCKING);
        Region region = client.registerRegion(arena.allocate(64));
        assertEquals(OflStatus.OK, call(client, region, 7));

        Port.down();
        // The server's connection thread, parked between requests, is woken by the flushes.
        Conditions.await(() -> server.statistics().linkFailures() == 1 && server.connectionCount() == 0,
                "the server to end its connection on the port's failure");
        Conditions.await(() -> transport(client).lossIsLinkFailure(), "the client's device to hear of it");
        OflConnectionException broken = assertThrows(OflConnectionException.class, () -> call(client, region, 8));
        assertTrue(broken.getMessage().contains("went down (IBV_EVENT_PORT_ERR)"), broken::getMessage);
        assertEquals(1, client.statistics().linkFailures(), client.statistics()::toString);
    }

    /**
     * A fatal device error breaks every connection of the device; the client opens the device
     * again for its next connection. softverbs only: on a kernel device it takes a driver reset.
     */
    @Test
    @Tag(SOFTVERBS_HOOKS)
    void aFatalDeviceErrorBreaksTheConnectionAndTheNextConnectOpensTheDeviceAgain() throws Exception {
        MethodHandle fatal = Port.hook("softverbs_device_fatal", FunctionDescriptor.ofVoid());
        OflServer server = server(WaitMode.BUSY_POLL, new CountDownLatch(1), new CountDownLatch(0));
        Arena arena = Arena.ofShared();
        closing.add(arena);
        OflClient client = client(server, WaitMode.BUSY_POLL);
        Region region = client.registerRegion(arena.allocate(64));
        assertEquals(OflStatus.OK, call(client, region, 7));
        RdmaDevice before = transport(client).device();

        try {
            fatal.invokeExact();
        } catch (Throwable t) {
            throw new AssertionError(t);
        }
        Conditions.await(() -> before.failure() != null, "the client's device to hear of its failure");
        // Marked failed only after its links were: the call below sees the device's failure, not a flush.
        assertTrue(transport(client).lossIsLinkFailure(), "the device failed before its links did");
        OflConnectionException broken = assertThrows(OflConnectionException.class, () -> call(client, region, 8));
        assertTrue(broken.getMessage().contains("failed (IBV_EVENT_DEVICE_FATAL)"), broken::getMessage);
        assertEquals(1, client.statistics().linkFailures(), client.statistics()::toString);

        client.reconnect();
        assertEquals(OflStatus.OK, call(client, region, 9));
        RdmaDevice after = transport(client).device();
        assertTrue(after != before, "the failed device was used again");
        assertEquals(null, after.failure());
    }

    private static RdmaClientTransport transport(OflClient client) {
        return (RdmaClientTransport) ((ClientSession) client).transport();
    }

    private OflServer server(WaitMode mode, CountDownLatch held, CountDownLatch release) {
        Map<String, String> properties = new HashMap<>(TestEnvironment.rdmaProperties());
        properties.putAll(longRetries());
        OflServer server = Ofl.serve(ServerConfig.builder().backend(RdmaBackend.NAME)
                .bind(new InetSocketAddress(TestEnvironment.address(), 0)).serviceName(SERVICE)
                .limits(new Limits(1024, 4096, 1, 4)).waitMode(mode).bootstrapTimeout(TestEnvironment.duration(10))
                .properties(properties).build(), (request, response) -> {
                    if (request.op() == HOLD) {
                        held.countDown();
                        if (!release.await(TestEnvironment.seconds(120), TimeUnit.SECONDS)) {
                            return 99;
                        }
                        response.buffer().fill((byte) 0x77);
                        response.commit(response.capacity());
                        return 0;
                    }
                    response.write(request.payload());
                    return 0;
                });
        closing.add(server);
        return server;
    }

    private OflClient client(OflServer server, WaitMode mode) {
        Map<String, String> properties = new HashMap<>(TestEnvironment.rdmaProperties());
        properties.putAll(longRetries());
        OflClient client = Ofl.connect(ClientConfig.builder().backend(RdmaBackend.NAME).server(server.localAddress())
                .serviceName(SERVICE).limits(new Limits(1024, 4096, 1, 4)).waitMode(mode)
                .connectTimeout(TestEnvironment.duration(10)).properties(properties).build());
        closing.add(client);
        return client;
    }

    /** A retry budget of 7 x 4.3 s: far longer than any wait here, so only the event can end one. */
    private static Map<String, String> longRetries() {
        return Map.of(RdmaSettings.TIMEOUT, "20", RdmaSettings.RETRY_COUNT, "6");
    }

    private static int call(OflClient client, Region region, long value) {
        client.requestPayload().set(ValueLayout.JAVA_LONG_UNALIGNED, 0, value);
        return client.call(ANSWER, 0, 8, new ResponseRanges().add(region, 0, 8), client.clock().nanoTime() + LONG_NS,
                new Completion());
    }

    /** Takes the port under the test address down and up: softverbs' hook, or the commands given. */
    static final class Port {
        private static final String DOWN = "ofl.test.portDown";
        private static final String UP = "ofl.test.portUp";
        private static volatile boolean down;

        private Port() {
        }

        static void down() throws IOException, InterruptedException {
            down = true;
            set(0, System.getProperty(DOWN));
        }

        static void up() throws IOException, InterruptedException {
            if (down) {
                down = false;
                set(1, System.getProperty(UP));
            }
        }

        private static void set(int up, String command) throws IOException, InterruptedException {
            if (command != null) {
                Process process = new ProcessBuilder(command.split(" ")).inheritIO().start();
                assertTrue(process.waitFor(TestEnvironment.seconds(60), TimeUnit.SECONDS), command + " did not end");
                assertEquals(0, process.exitValue(), command + " failed");
                return;
            }
            MethodHandle hook = hook("softverbs_set_port_state",
                    FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT));
            try {
                int was = (int) hook.invokeExact(up);
                assertEquals(1 - up, was, "the port was already " + (up == 1 ? "up" : "down"));
            } catch (Throwable t) {
                throw new AssertionError(t);
            }
        }

        static MethodHandle hook(String name, FunctionDescriptor descriptor) {
            return SoftverbsHooks.find(name, descriptor, "this test takes the port down with softverbs' hooks (or "
                    + "the commands " + DOWN + " and " + UP + " give)");
        }
    }
}
