package dev.ofl.verbs.rdma;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ofl.api.ClientConfig;
import dev.ofl.api.Completion;
import dev.ofl.api.Ofl;
import dev.ofl.api.OflClient;
import dev.ofl.api.OflConnectionException;
import dev.ofl.api.OflException;
import dev.ofl.api.OflRefusedException;
import dev.ofl.api.OflServer;
import dev.ofl.api.OflStatus;
import dev.ofl.api.ResponseRanges;
import dev.ofl.api.ServerConfig;
import dev.ofl.api.WaitMode;
import dev.ofl.api.spi.ServerMemory;
import dev.ofl.api.wire.Bootstrap;
import dev.ofl.conformance.Conditions;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A connection that comes and goes leaves nothing behind: after many HELLO-and-leave cycles the
 * verbs objects alive in softverbs (PDs, MRs, CQs, completion channels, QPs and its internal
 * connections), the pages mapped for connections and the server's receive accounting are what
 * they were before. Counts, not time or RSS: a leak of one object per connection shows as a
 * difference of the cycle count. softverbs only (its {@code softverbs_live_objects}); the kernel's
 * verbs have no such census.
 */
@Timeout(120)
class RdmaTeardownCountsTest {
    private static final int CYCLES = 40;
    private static final int HELD = 3;
    private static final int SERVER_CYCLES = 6;
    private static final int FAILED_CYCLES = 20;
    private static final String[] KINDS = {"PD", "MR", "CQ", "channel", "QP", "socket connection"};

    @Test
    void helloAndLeaveCyclesGiveBackEveryVerbsObjectAndEveryMappedPage() throws Throwable {
        MethodHandle live = liveObjects();
        ServerConfig config = ServerConfig.builder().backend(RdmaBackend.NAME)
                .bind(new InetSocketAddress("127.0.0.1", 0)).serviceName("teardown").build();
        try (OflServer server = Ofl.serve(config, (request, response) -> 0)) {
            ClientConfig client = ClientConfig.builder().backend(RdmaBackend.NAME).server(server.localAddress())
                    .serviceName("teardown").build();
            // One connection first: whatever is made once per process (the engine) is in the baseline.
            Ofl.connect(client).close();
            Conditions.await(() -> server.connectionCount() == 0, "the first connection to end");
            long[] before = counts(live);
            long mappingsBefore = PageMemory.mappings();
            long mappedBefore = PageMemory.mappedBytes();
            long receiveBefore = ServerMemory.receiveBytes();

            // While connections are held the census sees them: the counts are not blind.
            List<OflClient> held = new ArrayList<>();
            for (int i = 0; i < HELD; i++) {
                held.add(Ofl.connect(client));
            }
            Conditions.await(() -> server.connectionCount() == HELD, HELD + " connections");
            long[] during = counts(live);
            // Each connection has two queue pairs here, the client's and the server's, and each its CQ.
            assertEquals(before[4] + 2L * HELD, during[4], "live QPs while " + HELD + " connections are held");
            assertEquals(before[2] + 2L * HELD, during[2], "live CQs while " + HELD + " connections are held");
            assertTrue(during[1] >= before[1] + 2L * HELD, "each server connection registers its receive slots and "
                    + "completion headers: MRs " + Arrays.toString(during));
            assertEquals(mappingsBefore + 2L * HELD, PageMemory.mappings(),
                    "each server connection maps its receive slots and its completion headers");
            for (OflClient c : held) {
                c.close();
            }

            for (int i = 0; i < CYCLES; i++) {
                Ofl.connect(client).close();
            }
            Conditions.await(() -> server.connectionCount() == 0, "every connection to end");
            awaitNoGrowth(before, live, (HELD + CYCLES) + " connections came and went");
            assertEquals(mappingsBefore, PageMemory.mappings(), "pages mapped for connections and not unmapped");
            assertEquals(mappedBefore, PageMemory.mappedBytes(), "bytes mapped for connections and not unmapped");
            assertEquals(receiveBefore, ServerMemory.receiveBytes(), "receive memory the server still accounts");
        }
    }

    /**
     * A client that reconnects again and again holds one connection: each reconnect closes the
     * old bootstrap socket (the server ends its side) and destroys the old queue pair, its queue
     * and its registrations, not only when the client closes.
     */
    @Test
    void reconnectsReleaseTheOldConnectionEachTime() throws Throwable {
        MethodHandle live = liveObjects();
        ServerConfig config = ServerConfig.builder().backend(RdmaBackend.NAME)
                .bind(new InetSocketAddress("127.0.0.1", 0)).serviceName("reconnect").build();
        try (OflServer server = Ofl.serve(config, (request, response) -> 0)) {
            ClientConfig clientConfig = ClientConfig.builder().backend(RdmaBackend.NAME)
                    .server(server.localAddress()).serviceName("reconnect").build();
            Ofl.connect(clientConfig).close();
            Conditions.await(() -> server.connectionCount() == 0, "the first connection to end");
            long[] before = counts(live);
            try (OflClient client = Ofl.connect(clientConfig); Arena arena = Arena.ofShared()) {
                client.registerRegion(arena.allocate(4096, 4096));
                for (int i = 0; i < 10; i++) {
                    client.reconnect();
                }
                Conditions.await(() -> server.connectionCount() == 1, "the server to end every replaced connection");
                long[] during = counts(live);
                assertEquals(before[4] + 2, during[4], "live QPs: the client's current one and the server's");
                assertEquals(before[2] + 2, during[2], "live CQs: the client's current one and the server's");
            }
            Conditions.await(() -> server.connectionCount() == 0, "the last connection to end");
            awaitNoGrowth(before, live, "a client reconnected 10 times and closed");
        }
    }

    /**
     * A server that starts, answers and closes gives back what it opened for itself, not only for
     * its connections: the device's protection domain and the registration of its staging pool
     * (made when the first response needs staging), also when it fails to start because its port
     * is taken. Servers come and go in one process as services restart or tests run; each that
     * kept its device open would pin its memory until the process ends.
     */
    @Test
    void serversThatStartAnswerAndCloseGiveBackTheirDomainAndStagingRegistration() throws Throwable {
        MethodHandle live = liveObjects();
        ServerConfig config = ServerConfig.builder().backend(RdmaBackend.NAME)
                .bind(new InetSocketAddress("127.0.0.1", 0)).serviceName("server-teardown").build();
        // One server first: whatever is made once per process is in the baseline.
        serveOneResponse(config);
        long[] before = counts(live);
        for (int i = 0; i < SERVER_CYCLES; i++) {
            serveOneResponse(config);
        }
        // A server that cannot bind (its port is taken) has opened its device already: it closes it.
        try (ServerSocketChannel taken = ServerSocketChannel.open().bind(new InetSocketAddress("127.0.0.1", 0))) {
            ServerConfig clash = ServerConfig.builder().backend(RdmaBackend.NAME)
                    .bind((InetSocketAddress) taken.getLocalAddress()).serviceName("server-teardown").build();
            for (int i = 0; i < SERVER_CYCLES; i++) {
                assertThrows(OflException.class, () -> Ofl.serve(clash, (request, response) -> 0).close());
            }
        }
        awaitNoGrowth(before, live, SERVER_CYCLES + " servers started, answered a request and closed");
    }

    /** Starts a server, has it stage and send one response, and closes it; counts one PD and its MRs while open. */
    private static void serveOneResponse(ServerConfig config) throws Throwable {
        MethodHandle live = liveObjects();
        long[] idle = counts(live);
        try (OflServer server = Ofl.serve(config, (request, response) -> {
            response.write(request.payload());
            return 0;
        }); Arena arena = Arena.ofShared()) {
            long[] serving = counts(live);
            assertEquals(idle[0] + 1, serving[0], "a serving RDMA server holds its device's protection domain");
            try (OflClient client = Ofl.connect(ClientConfig.builder().backend(RdmaBackend.NAME)
                    .server(server.localAddress()).serviceName(config.serviceName()).build())) {
                MemorySegment memory = arena.allocate(8, 8);
                client.requestPayload().set(ValueLayout.JAVA_LONG_UNALIGNED, 0, 42);
                Completion completion = new Completion();
                assertEquals(OflStatus.OK, client.call(1, 0, 8, ResponseRanges.of(client.registerRegion(memory)),
                        TestEnvironment.nanos(10), completion), completion::toString);
                assertEquals(42, memory.get(ValueLayout.JAVA_LONG_UNALIGNED, 0));
            }
            Conditions.await(() -> server.connectionCount() == 0, "the connection to end");
        }
    }

    /**
     * A connect that fails after its bootstrap socket and its queue pair exist gives both back:
     * neither a refusal (another service name) nor a server that accepts the TCP connection and
     * never answers the HELLO leaves an open file or a live verbs object per attempt. Files are
     * counted in {@code /proc/self/fd} and compared with the number of attempts, so a file some
     * other thread opens meanwhile cannot fail the test; the server's own sockets for the refused
     * connections are closed by then, as the server sends a refusal and closes at once.
     */
    @Test
    void failedConnectsCloseTheirSocketAndReleaseTheirVerbsObjects() throws Throwable {
        MethodHandle live = liveObjects();
        ServerConfig config = ServerConfig.builder().backend(RdmaBackend.NAME)
                .bind(new InetSocketAddress("127.0.0.1", 0)).serviceName("teardown").build();
        try (OflServer server = Ofl.serve(config, (request, response) -> 0);
                ServerSocketChannel silent = ServerSocketChannel.open()) {
            silent.bind(new InetSocketAddress("127.0.0.1", 0), FAILED_CYCLES + 2);
            silent.configureBlocking(false);
            ClientConfig refused = ClientConfig.builder().backend(RdmaBackend.NAME).server(server.localAddress())
                    .serviceName("another service").build();
            // Nothing answers there, so a short timeout only shortens the test.
            ClientConfig unanswered = ClientConfig.builder().backend(RdmaBackend.NAME)
                    .server((InetSocketAddress) silent.getLocalAddress()).serviceName("teardown")
                    .connectTimeout(Duration.ofMillis(300)).build();
            // One of each first: whatever is made once per process is in the baseline.
            failBoth(refused, unanswered, silent);
            long[] before = counts(live);
            long filesBefore = TestEnvironment.openFiles();
            for (int i = 0; i < FAILED_CYCLES; i++) {
                failBoth(refused, unanswered, silent);
            }
            Conditions.await(() -> TestEnvironment.openFiles() - filesBefore < FAILED_CYCLES, "open files to be fewer than "
                    + FAILED_CYCLES + " more than the " + filesBefore + " before " + FAILED_CYCLES
                    + " failed connects of each kind");
            awaitNoGrowth(before, live, FAILED_CYCLES + " failed connects of each kind");
        }
    }

    /**
     * A connect makes its queue pair, registrations and receives before it opens its bootstrap
     * connection, so the HELLO follows the connect at once: a server's bootstrap timeout runs from
     * its accept, and on a slow host the set-up after the connect once took longer than the
     * default 2 s, so servers dropped honest clients without a word. At the accept the client's
     * queue pair is therefore alive already (the census counts it), and the HELLO is there to read.
     * A server that then closes without answering is named as one that may have dropped a late
     * HELLO.
     */
    @Test
    void aConnectMakesItsQueuePairBeforeItsBootstrapConnectionAndSendsItsHelloAtOnce() throws Throwable {
        MethodHandle live = liveObjects();
        int qp = Arrays.asList(KINDS).indexOf("QP");
        try (ServerSocketChannel listener = ServerSocketChannel.open()) {
            listener.bind(new InetSocketAddress("127.0.0.1", 0));
            ClientConfig config = ClientConfig.builder().backend(RdmaBackend.NAME)
                    .server((InetSocketAddress) listener.getLocalAddress()).serviceName("order")
                    .connectTimeout(Duration.ofSeconds(60)).build();
            long before = counts(live)[qp];
            CompletableFuture<Throwable> outcome = new CompletableFuture<>();
            Thread.ofPlatform().name("order-client").start(() -> {
                try {
                    Ofl.connect(config).close();
                    outcome.complete(null);
                } catch (Throwable t) {
                    outcome.complete(t);
                }
            });
            try (SocketChannel accepted = accept(listener, outcome)) {
                long atAccept = counts(live)[qp];
                assertTrue(atAccept > before, "the client's queue pair exists when its bootstrap connection is"
                        + " accepted (QPs alive before the connect: " + before + ", at the accept: " + atAccept + ")");
                ByteBuffer frame = readFully(accepted, Bootstrap.FRAME_LENGTH);
                Bootstrap.Frame hello = Bootstrap.decodeFrame(frame.array(), Bootstrap.HELLO);
                assertEquals(Bootstrap.HELLO, hello.type(), "the first frame on the connection");
                // The whole HELLO is read, so that the close is a FIN rather than a reset.
                readFully(accepted, hello.bodyLength());
            }
            Throwable failure = outcome.get(60, TimeUnit.SECONDS);
            assertTrue(failure instanceof OflConnectionException, "a server that closes unanswered fails the connect: "
                    + failure);
            assertTrue(failure.getMessage().contains("closed it without an answer"), failure.getMessage());
        }
    }

    /**
     * A reconnect that is refused gives back what the attempt made while the client lives on:
     * its device stays open, so a queue pair, queue, completion channel or registration the
     * attempt left behind would stay alive (after a failed first connect the device is closed and
     * takes them along). The server is replaced on the same port by one of another service name.
     */
    @Test
    void refusedReconnectsReleaseEachAttempt() throws Throwable {
        MethodHandle live = liveObjects();
        InetSocketAddress address;
        OflClient client;
        try (OflServer first = Ofl.serve(ServerConfig.builder().backend(RdmaBackend.NAME)
                .bind(new InetSocketAddress("127.0.0.1", 0)).serviceName("reconnect").build(), (request, response) -> 0)) {
            address = first.localAddress();
            // Blocking, so that each attempt also makes a completion channel: a file descriptor on every device.
            client = Ofl.connect(ClientConfig.builder().backend(RdmaBackend.NAME).server(address)
                    .serviceName("reconnect").waitMode(WaitMode.BLOCKING).build());
        }
        OflServer other = Ofl.serve(ServerConfig.builder().backend(RdmaBackend.NAME).bind(address)
                .serviceName("another service").build(), (request, response) -> 0);
        try (client; other) {
            // The first attempt also ends the first connection: the baseline is after it.
            assertThrows(OflRefusedException.class, client::reconnect);
            long[] before = counts(live);
            long filesBefore = TestEnvironment.openFiles();
            for (int i = 0; i < FAILED_CYCLES; i++) {
                assertThrows(OflRefusedException.class, client::reconnect);
            }
            Conditions.await(() -> TestEnvironment.openFiles() - filesBefore < FAILED_CYCLES, "open files to be fewer than "
                    + FAILED_CYCLES + " more than the " + filesBefore + " before " + FAILED_CYCLES
                    + " refused reconnects");
            awaitNoGrowth(before, live, FAILED_CYCLES + " refused reconnects");
        }
    }

    /**
     * One refused connect, and one that times out waiting for the WELCOME. The silent listener,
     * which does not block, then closes what it has accepted without waiting for more: a socket
     * that only now reaches its queue is taken next time (its backlog holds them all), and one that
     * never does cannot hang the test.
     */
    private static void failBoth(ClientConfig refused, ClientConfig unanswered, ServerSocketChannel silent)
            throws IOException {
        assertThrows(OflRefusedException.class, () -> Ofl.connect(refused));
        assertThrows(OflConnectionException.class, () -> Ofl.connect(unanswered));
        for (SocketChannel accepted; (accepted = silent.accept()) != null; ) {
            accepted.close();
        }
    }

    /**
     * The listener's first connection, in blocking mode; fails at once with the client's own
     * failure if the client ended before it connected.
     */
    private static SocketChannel accept(ServerSocketChannel listener, CompletableFuture<Throwable> client)
            throws Exception {
        listener.configureBlocking(false);
        while (true) {
            SocketChannel accepted = listener.accept();
            if (accepted != null) {
                accepted.configureBlocking(true);
                return accepted;
            }
            if (client.isDone()) {
                throw new AssertionError("the client ended before it connected", client.get());
            }
            Thread.sleep(1);
        }
    }

    private static ByteBuffer readFully(SocketChannel channel, int length) throws IOException {
        ByteBuffer bytes = ByteBuffer.allocate(length);
        while (bytes.hasRemaining()) {
            assertTrue(channel.read(bytes) >= 0, "the client closed before sending " + length + " bytes");
        }
        return bytes;
    }

    /**
     * Waits until no kind of verbs object is alive more often than in {@code before}, or fails
     * naming the kind that grew. Fewer is fine: softverbs frees a connection's socket on its
     * progress thread after the queue pair is destroyed, so a connection torn down just before
     * the baseline may still be in it. A leak grows a count by the number of cycles.
     */
    private static void awaitNoGrowth(long[] before, MethodHandle live, String after) throws Throwable {
        try {
            Conditions.await(() -> noneAbove(before, countsUnchecked(live)), "the verbs objects alive");
        } catch (AssertionError timedOut) {
            assertEquals(describe(before), describe(counts(live)), "the verbs objects alive after " + after);
        }
    }

    private static boolean noneAbove(long[] before, long[] now) {
        for (int i = 0; i < before.length; i++) {
            if (now[i] > before[i]) {
                return false;
            }
        }
        return true;
    }

    private static MethodHandle liveObjects() {
        return SoftverbsHooks.find("softverbs_live_objects",
                FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.ADDRESS, ValueLayout.JAVA_INT),
                "this test counts softverbs' objects");
    }

    private static long[] counts(MethodHandle live) throws Throwable {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(ValueLayout.JAVA_LONG, KINDS.length);
            int kinds = (int) live.invokeExact(out, KINDS.length);
            assertEquals(KINDS.length, kinds, "kinds softverbs counts");
            return out.toArray(ValueLayout.JAVA_LONG);
        }
    }

    private static long[] countsUnchecked(MethodHandle live) {
        try {
            return counts(live);
        } catch (Throwable t) {
            throw new AssertionError(t);
        }
    }

    private static String describe(long[] counts) {
        StringBuilder text = new StringBuilder();
        for (int i = 0; i < KINDS.length; i++) {
            text.append(i == 0 ? "" : ", ").append(KINDS[i]).append(' ').append(counts[i]);
        }
        return text.toString();
    }
}
