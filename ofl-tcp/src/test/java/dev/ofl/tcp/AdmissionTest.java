package dev.ofl.tcp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.ofl.api.ClientConfig;
import dev.ofl.api.Completion;
import dev.ofl.api.Limits;
import dev.ofl.api.Ofl;
import dev.ofl.api.OflClient;
import dev.ofl.api.OflConnectionException;
import dev.ofl.api.OflRefusedException;
import dev.ofl.api.OflServer;
import dev.ofl.api.OflStatus;
import dev.ofl.api.RefusalCode;
import dev.ofl.api.Region;
import dev.ofl.api.ResponseRanges;
import dev.ofl.api.ServerConfig;
import dev.ofl.api.spi.BootstrapServer;
import dev.ofl.api.wire.Bootstrap;
import dev.ofl.api.wire.ProtocolException;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Admission against hostile sockets, with raw sockets from several loopback source addresses and
 * an injected server clock: what is asserted never depends on how fast the machine is. Pending
 * handshakes are capped per address and in total, and the oldest gives way to a new socket, so
 * silent sockets cannot lock out clients that send their HELLO; beyond the caps SERVER_BUSY comes
 * at once, before any HELLO; a HELLO not whole by the deadline closes the socket unanswered; idle
 * connections are closed and the client reconnects; idle connections in blocking mode cost no
 * platform thread; and what peers say reaches the log escaped, counted once, and rate-limited.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class AdmissionTest {
    private static final String SERVICE = "admission";
    private static final Limits LIMITS = new Limits(256, 1024, 2, 2);
    private static final int WAIT_MS = 20_000;

    private final List<AutoCloseable> resources = new ArrayList<>();
    /** The server's clock: real time plus what a test adds, so that socket waits still work. */
    private final AtomicLong offsetNs = new AtomicLong();
    private final Arena arena = Arena.ofShared();
    private final Map<OflClient, MemorySegment> memories = new IdentityHashMap<>();
    private final Map<OflClient, Region> regions = new IdentityHashMap<>();

    @AfterEach
    void closeEverything() throws Exception {
        for (int i = resources.size() - 1; i >= 0; i--) {
            resources.get(i).close();
        }
        arena.close();
    }

    private OflServer serve(Consumer<ServerConfig.Builder> settings) {
        ServerConfig.Builder builder = ServerConfig.builder()
                .backend(TcpBackend.NAME)
                .bind(new InetSocketAddress(address(1), 0))
                .serviceName(SERVICE)
                .limits(LIMITS)
                .bootstrapTimeout(Duration.ofSeconds(30))
                .clock(() -> System.nanoTime() + offsetNs.get());
        settings.accept(builder);
        OflServer server = Ofl.serve(builder.build(), (request, response) -> {
            response.write(request.payload());
            return 0;
        });
        resources.add(server);
        return server;
    }

    // ---------------------------------------------------------------------------------------------
    // Pending handshakes

    /**
     * Silent sockets fill every pending place (4 per address, 8 in all); a further silent socket
     * from a full address takes the place of that address's oldest, which gets SERVER_BUSY. Then 12
     * good clients connect, and after each a new silent socket fills the freed place again: every
     * good client takes the place of the oldest silent socket, which gets SERVER_BUSY, and is
     * admitted. The caps hold throughout.
     */
    @Test
    void silentSocketsCannotLockOutClientsThatSendTheirHello() throws Exception {
        OflServer server = serve(b -> b.maxPendingPerAddress(4).maxPendingHandshakes(8));
        List<Socket> silent = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            silent.add(raw(server, address(2 + i % 2)));
        }
        awaitTrue(() -> pending(server) == 8, () -> "pending handshakes: " + pending(server));
        List<Socket> extras = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            extras.add(raw(server, address(2)));
            assertEquals(RefusalCode.SERVER_BUSY, welcome(readUntilClosed(silent.get(2 * i))).status(),
                    "the oldest of the address's four, displaced by a fifth");
            awaitTrue(() -> pending(server) == 8, () -> "pending handshakes: " + pending(server));
        }
        List<OflClient> good = new ArrayList<>();
        List<Socket> later = new ArrayList<>();
        for (int i = 0; i < 12; i++) {
            OflClient client = Ofl.connect(client(server).build());
            resources.add(client);
            good.add(client);
            Socket refill = raw(server, address(4 + i % 4));
            resources.add(refill);
            later.add(refill);
            awaitTrue(() -> pending(server) == 8, () -> "pending handshakes: " + pending(server));
        }
        assertEquals(12, server.connectionCount());
        for (OflClient client : good) {
            assertEcho(client, 7);
        }
        // The twelve oldest gave way: the five silent sockets left, the three extras, then the first four refills.
        for (int i = 0; i < silent.size(); i++) {
            if (i % 2 == 1 || i > 4) {
                assertEquals(RefusalCode.SERVER_BUSY, welcome(readUntilClosed(silent.get(i))).status());
            }
            silent.get(i).close();
        }
        for (Socket socket : extras) {
            assertEquals(RefusalCode.SERVER_BUSY, welcome(readUntilClosed(socket)).status());
            socket.close();
        }
        for (Socket socket : later.subList(0, 4)) {
            assertEquals(RefusalCode.SERVER_BUSY, welcome(readUntilClosed(socket)).status());
        }
        assertEquals(8, pending(server), "the last eight refills are still pending");
        assertEquals(15, server.statistics().connectionsRefused(), "3 displaced by the extras, 12 by good clients");
    }

    /** A HELLO that has not arrived whole by the deadline (injected clock) closes the socket unanswered. */
    @Test
    void aHelloNotWholeByTheDeadlineIsClosedWithoutAnAnswer() throws Exception {
        OflServer server = serve(b -> b.bootstrapTimeout(Duration.ofSeconds(2)));
        try (Socket trickling = raw(server, address(2)); Socket silent = raw(server, address(3))) {
            trickling.getOutputStream().write(Arrays.copyOf(hello(SERVICE), 20));
            awaitTrue(() -> pending(server) == 2, () -> "pending handshakes: " + pending(server));
            offsetNs.addAndGet(TimeUnit.SECONDS.toNanos(3));
            assertEquals(0, readUntilClosed(trickling).length, "a server must not answer a HELLO it never got");
            assertEquals(0, readUntilClosed(silent).length, "a server must not answer a HELLO it never got");
        }
        awaitTrue(() -> pending(server) == 0, () -> "pending handshakes: " + pending(server));
        Ofl.connect(client(server).build()).close();
    }

    // ---------------------------------------------------------------------------------------------
    // Beyond the caps

    /**
     * At the connection cap, held by connections that have asked (settled: docs/PROTOCOL.md
     * 3.4.1, A1), a new socket gets SERVER_BUSY before it sent anything, and the server answers it
     * a HELLO it sends afterwards does not change that; a client gets {@link OflRefusedException}.
     */
    @Test
    void beyondTheCapServerBusyComesAtOnceBeforeAnyHello() throws Exception {
        OflServer server = serve(b -> b.maxConnections(2));
        for (int i = 0; i < 2; i++) {
            OflClient client = Ofl.connect(client(server).build());
            resources.add(client);
            assertEcho(client, i);
        }
        for (int i = 0; i < 20; i++) {
            try (Socket socket = raw(server, address(2 + i % 3))) {
                Bootstrap.Endpoint answer = welcome(readUntilClosed(socket));
                assertEquals(RefusalCode.SERVER_BUSY, answer.status(), answer::toString);
                assertTrue(answer.text().contains("cap of 2 connections"), answer::text);
            }
        }
        OflRefusedException refused = assertThrows(OflRefusedException.class,
                () -> Ofl.connect(client(server).build()));
        assertEquals(RefusalCode.SERVER_BUSY, refused.code());
        assertEquals(2, server.connectionCount());
        awaitTrue(() -> pending(server) == 0, () -> "pending handshakes: " + pending(server));
    }

    /**
     * A refused socket that keeps sending cannot hold the server: it gets its SERVER_BUSY (before
     * its HELLO) or its SERVICE_MISMATCH (after it), then is closed at the end of the linger
     * although its bytes keep coming.
     */
    @Test
    void aRefusedSocketThatKeepsSendingIsClosedAfterTheLinger() throws Exception {
        OflServer server = serve(b -> b.maxConnections(1));
        resources.add(Ofl.connect(client(server).build()));
        assertRefusalEndsWhileSending(raw(server, address(2)), hello(SERVICE), RefusalCode.SERVER_BUSY);
        server.close();
        OflServer other = serve(b -> { });
        assertRefusalEndsWhileSending(raw(other, address(2)), hello("another"), RefusalCode.SERVICE_MISMATCH);
    }

    private static void assertRefusalEndsWhileSending(Socket socket, byte[] first, RefusalCode expected)
            throws Exception {
        try (socket) {
            Thread sender = Thread.ofPlatform().daemon().start(() -> {
                try {
                    socket.getOutputStream().write(first);
                    byte[] garbage = new byte[1024];
                    while (true) {
                        socket.getOutputStream().write(garbage);
                    }
                } catch (IOException closed) {
                    // The server closed the connection: what this test waits for.
                }
            });
            assertEquals(expected, welcome(readUntilClosed(socket)).status());
            sender.join(WAIT_MS);
            assertFalse(sender.isAlive(), "the server still takes bytes from a refused client");
        }
    }

    /** One address may hold at most maxConnectionsPerAddress connections; another address still gets in. */
    @Test
    void thePerAddressCapRefusesOnlyThatAddress() {
        OflServer server = serve(b -> b.maxConnectionsPerAddress(2));
        for (int i = 0; i < 2; i++) {
            resources.add(Ofl.connect(client(server).build()));
        }
        OflRefusedException refused = assertThrows(OflRefusedException.class,
                () -> Ofl.connect(client(server).build()));
        assertEquals(RefusalCode.SERVER_BUSY, refused.code());
        assertTrue(refused.getMessage().contains("2 connections from 127.0.0.1"), refused::getMessage);
        OflClient other = Ofl.connect(client(server).localAddress(address(2)).build());
        resources.add(other);
        assertEcho(other, 3);
        assertEquals(3, server.connectionCount());
    }

    // ---------------------------------------------------------------------------------------------
    // Idle connections

    /**
     * A connection with no request for the idle timeout (injected clock) is closed; the client's
     * next call fails with a broken connection and nothing handled, and reconnect() serves again.
     */
    @Test
    void anIdleConnectionIsClosedAndTheClientReconnects() {
        OflServer server = serve(b -> b.idleTimeout(Duration.ofSeconds(10)));
        OflClient client = Ofl.connect(client(server).build());
        resources.add(client);
        assertEcho(client, 1);
        assertEquals(1, server.connectionCount());
        offsetNs.addAndGet(TimeUnit.SECONDS.toNanos(5));
        LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(300));
        assertEquals(1, server.connectionCount(), "half the idle timeout: still open");
        offsetNs.addAndGet(TimeUnit.SECONDS.toNanos(11));
        awaitTrue(() -> server.connectionCount() == 0, () -> "connections: " + server.connectionCount());
        long requests = server.statistics().requests();
        OflConnectionException broken = assertThrows(OflConnectionException.class, () -> assertEcho(client, 2));
        assertTrue(broken.getMessage().contains("the server closed the connection"), broken::getMessage);
        assertTrue(client.isBroken());
        assertEquals(requests, server.statistics().requests(), "the call after the idle close was not handled");
        client.reconnect();
        assertEcho(client, 3);
        assertEquals(1, server.connectionCount());
    }

    /**
     * At the connection cap, a connection that sent no request for the bootstrap timeout since its
     * WELCOME gives its place to a new client whose source holds two fewer; one that asked keeps
     * it, and so does one still within its grace period (injected clock).
     */
    @Test
    void aFullServerGivesTheUnusedConnectionsPlaceToANewClient() throws Exception {
        OflServer server = serve(b -> b.maxConnections(3));
        OflClient asking = Ofl.connect(client(server).build());
        resources.add(asking);
        assertEcho(asking, 1);
        List<Socket> unused = new ArrayList<>();
        for (int i = 0; i < 2; i++) {
            Socket socket = raw(server, address(3));
            resources.add(socket);
            socket.getOutputStream().write(hello(SERVICE));
            assertEquals(RefusalCode.ACCEPTED, readWelcome(socket).status());
            unused.add(socket);
        }
        awaitTrue(() -> server.connectionCount() == 3, () -> "connections: " + server.connectionCount());

        OflRefusedException early = assertThrows(OflRefusedException.class,
                () -> Ofl.connect(client(server).localAddress(address(4)).build()));
        assertEquals(RefusalCode.SERVER_BUSY, early.code(), "within the grace period the cap holds");

        offsetNs.addAndGet(TimeUnit.SECONDS.toNanos(31));
        OflClient fresh = Ofl.connect(client(server).localAddress(address(4)).build());
        resources.add(fresh);
        assertEcho(fresh, 2);
        readUntilClosed(unused.get(0));
        assertEcho(asking, 3);
        awaitTrue(() -> server.connectionCount() == 3, () -> "connections: " + server.connectionCount());

        OflRefusedException full = assertThrows(OflRefusedException.class,
                () -> Ofl.connect(client(server).localAddress(address(5)).build()));
        assertEquals(RefusalCode.SERVER_BUSY, full.code(),
                "each source holds one: nobody gives way to a source that would then hold as many");
    }

    /** A connection that keeps asking is never idle, however long it lives. */
    @Test
    void aBusyConnectionIsNotClosed() {
        OflServer server = serve(b -> b.idleTimeout(Duration.ofSeconds(10)));
        OflClient client = Ofl.connect(client(server).build());
        resources.add(client);
        for (int i = 0; i < 6; i++) {
            offsetNs.addAndGet(TimeUnit.SECONDS.toNanos(4));
            assertEcho(client, i);
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(250));
        }
        assertFalse(client.isBroken());
        assertEquals(1, server.connectionCount());
    }

    /** Idle accepted connections in blocking mode run on virtual threads: 200 of them add no platform thread each. */
    @Test
    void idleConnectionsInBlockingModeCostNoPlatformThread() throws Exception {
        OflServer server = serve(b -> b.maxConnections(300).maxConnectionsPerAddress(300).maxPendingPerAddress(300));
        int before = platformThreads();
        List<Socket> sockets = new ArrayList<>();
        for (int i = 0; i < 200; i++) {
            Socket socket = raw(server, address(2));
            resources.add(socket);
            socket.getOutputStream().write(hello(SERVICE));
            sockets.add(socket);
        }
        for (Socket socket : sockets) {
            assertEquals(RefusalCode.ACCEPTED, readWelcome(socket).status());
        }
        awaitTrue(() -> server.connectionCount() == 200, () -> "connections: " + server.connectionCount());
        int after = platformThreads();
        assertTrue(after - before < 20, "platform threads went from " + before + " to " + after
                + " for 200 idle connections");
    }

    // ---------------------------------------------------------------------------------------------
    // Logging hygiene

    /**
     * A service name with a line feed and an escape sequence: the refusal text and the server's log
     * carry them escaped, so no log line is forged; a malformed HELLO is counted once as a protocol
     * violation and once as a refused connection, and logged once; 30 refusals of one kind make one
     * log line, not 30.
     */
    @Test
    void peerTextIsEscapedAndViolationsAreCountedOnceAndRateLimited() throws Exception {
        PrintStream originalErr = System.err;
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
        try {
            OflServer server = serve(b -> { });
            try (Socket socket = raw(server, address(2))) {
                socket.getOutputStream().write(hello("x\n12:00:00 [main] ERROR forged\u001b[2J"));
                Bootstrap.Endpoint answer = welcome(readUntilClosed(socket));
                assertEquals(RefusalCode.SERVICE_MISMATCH, answer.status());
                assertTrue(answer.text().contains("'x\\n12:00:00 [main] ERROR forged\\u001b[2J'"), answer::text);
            }
            awaitTrue(() -> captured.toString(StandardCharsets.UTF_8).contains("SERVICE_MISMATCH"),
                    () -> "no refusal logged: " + captured);
            String log = captured.toString(StandardCharsets.UTF_8);
            assertFalse(log.lines().anyMatch(l -> l.startsWith("12:00:00")), "a forged line: " + log);
            assertFalse(log.contains("\u001b"), "an escape sequence reached the log: " + log);

            try (Socket socket = raw(server, address(2))) {
                byte[] hello = hello(SERVICE);
                hello[Bootstrap.FRAME_LENGTH + Bootstrap.MAX_RANGES_OFFSET] = 17;
                socket.getOutputStream().write(hello);
                assertEquals(RefusalCode.MALFORMED, welcome(readUntilClosed(socket)).status());
            }
            awaitTrue(() -> server.statistics().protocolViolations() > 0, () -> "not counted");
            assertEquals(1, server.statistics().protocolViolations(), server.statistics()::toString);
            assertEquals(2, server.statistics().connectionsRefused(), server.statistics()::toString);
            assertEquals(1, count(captured, "malformed HELLO"), captured::toString);

            for (int i = 0; i < 30; i++) {
                try (Socket socket = raw(server, address(3))) {
                    socket.getOutputStream().write(hello("another"));
                    assertEquals(RefusalCode.SERVICE_MISMATCH, welcome(readUntilClosed(socket)).status());
                }
            }
            assertEquals(32, server.statistics().connectionsRefused());
            // A summary line ("N more of ...") may come if the machine took 10 s; a full line only once.
            assertEquals(1, captured.toString(StandardCharsets.UTF_8).lines()
                    .filter(l -> l.contains("(SERVICE_MISMATCH)") && !l.contains(" more of ")).count(),
                    "repeats within the interval are counted, not logged: " + captured);
        } finally {
            System.setErr(originalErr);
        }
    }

    // ---------------------------------------------------------------------------------------------

    /** Live platform threads: virtual threads are not among them. */
    private static int platformThreads() {
        return Thread.getAllStackTraces().size();
    }

    private static int pending(OflServer server) {
        return ((BootstrapServer) server).pendingHandshakes();
    }

    private static long count(ByteArrayOutputStream captured, String text) {
        return captured.toString(StandardCharsets.UTF_8).lines().filter(l -> l.contains(text)).count();
    }

    private static InetAddress address(int last) {
        return new InetSocketAddress("127.0.0." + last, 0).getAddress();
    }

    private static ClientConfig.Builder client(OflServer server) {
        return ClientConfig.builder()
                .backend(TcpBackend.NAME)
                .server(server.localAddress())
                .serviceName(SERVICE)
                .limits(LIMITS)
                .connectTimeout(Duration.ofMillis(WAIT_MS));
    }

    /** One echo call into a region registered once per client, checking the byte that came back. */
    private void assertEcho(OflClient client, int round) {
        MemorySegment memory = memories.computeIfAbsent(client, c -> arena.allocate(64));
        Region region = regions.computeIfAbsent(client, c -> c.registerRegion(memory));
        client.requestPayload().set(ValueLayout.JAVA_BYTE, 0, (byte) round);
        Completion completion = new Completion();
        assertEquals(OflStatus.OK, client.call(1, round, 1, new ResponseRanges().add(region, 0, 64),
                TimeUnit.MILLISECONDS.toNanos(WAIT_MS), completion), completion::toString);
        assertEquals(1, completion.responseLength());
        assertEquals((byte) round, memory.get(ValueLayout.JAVA_BYTE, 0));
    }

    private static Socket raw(OflServer server, InetAddress from) throws IOException {
        Socket socket = new Socket();
        socket.bind(new InetSocketAddress(from, 0));
        socket.connect(server.localAddress(), WAIT_MS);
        socket.setSoTimeout(WAIT_MS);
        return socket;
    }

    private static byte[] hello(String service) {
        return Bootstrap.encode(Bootstrap.HELLO, Bootstrap.Endpoint.tcp(RefusalCode.ACCEPTED, service, LIMITS, ""));
    }

    private static Bootstrap.Endpoint readWelcome(Socket socket) throws IOException, ProtocolException {
        InputStream in = socket.getInputStream();
        byte[] frame = in.readNBytes(Bootstrap.FRAME_LENGTH);
        byte[] body = in.readNBytes(Bootstrap.decodeFrame(frame, Bootstrap.WELCOME).bodyLength());
        return Bootstrap.decodeBody(body);
    }

    private static Bootstrap.Endpoint welcome(byte[] message) {
        try {
            Bootstrap.Frame frame = Bootstrap.decodeFrame(Arrays.copyOf(message, Bootstrap.FRAME_LENGTH),
                    Bootstrap.WELCOME);
            assertEquals(Bootstrap.FRAME_LENGTH + frame.bodyLength(), message.length, "WELCOME length");
            return Bootstrap.decodeBody(Arrays.copyOfRange(message, Bootstrap.FRAME_LENGTH, message.length));
        } catch (ProtocolException e) {
            throw new AssertionError("malformed WELCOME (" + message.length + " bytes): " + e.getMessage(), e);
        }
    }

    /** Reads until the peer closes (end of stream or reset); a read that times out fails the test. */
    private static byte[] readUntilClosed(Socket socket) throws IOException {
        ByteArrayOutputStream received = new ByteArrayOutputStream();
        InputStream in = socket.getInputStream();
        byte[] buffer = new byte[4096];
        try {
            for (int n; (n = in.read(buffer)) >= 0; ) {
                received.write(buffer, 0, n);
            }
        } catch (SocketTimeoutException e) {
            fail("the server kept the connection open for " + WAIT_MS + " ms after sending " + received.size()
                    + " bytes");
        } catch (SocketException reset) {
            // Closed all the same.
        }
        return received.toByteArray();
    }

    private static void awaitTrue(BooleanSupplier condition, Supplier<String> message) {
        long deadlineNs = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(WAIT_MS);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadlineNs >= 0) {
                fail(message.get());
            }
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(2));
        }
    }
}
