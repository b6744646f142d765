package dev.ofl.testing;

import static dev.ofl.testing.RawBootstrap.WAIT_MS;
import static dev.ofl.testing.RawBootstrap.address;
import static dev.ofl.testing.RawBootstrap.awaitTrue;
import static dev.ofl.testing.RawBootstrap.open;
import static dev.ofl.testing.RawBootstrap.pending;
import static dev.ofl.testing.RawBootstrap.readUntilClosed;
import static dev.ofl.testing.RawBootstrap.readWelcome;
import static dev.ofl.testing.RawBootstrap.welcome;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

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
import dev.ofl.api.wire.Bootstrap;
import dev.ofl.api.wire.ProtocolException;
import dev.ofl.api.wire.TransportKind;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The listener's admission rules ({@code Admission} and the caps of {@code BootstrapServer}) over
 * the fake backend, with raw sockets from several loopback source addresses and an injected
 * server clock, so that no assertion depends on how fast the machine is: the pending-handshake
 * caps and the reason each refusal names, a HELLO arriving in pieces, a client that leaves
 * mid-HELLO, the bootstrap deadline, refusals beyond what may linger, the answer to handshakes
 * pending when the server closes, the connection caps before any HELLO, and the unused and idle
 * connections that give their place back.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class AdmissionEngineTest {
    private static final Limits LIMITS = new Limits(256, 1024, 2, 2);
    private static final AtomicInteger SERVICES = new AtomicInteger();

    private final List<AutoCloseable> resources = new ArrayList<>();
    /** The server's clock: real time plus what a test adds, or a fixed time while frozen. */
    private final AtomicLong offsetNs = new AtomicLong();
    private final AtomicBoolean frozen = new AtomicBoolean();
    private volatile long frozenAtNs;
    /** Holds the server's listener where it reads the clock, for tests that queue sockets unaccepted. */
    private final ListenerGate listener = new ListenerGate(WAIT_MS);
    private Arena arena;
    private String service;

    @BeforeEach
    void setUp() {
        service = "admission-engine-" + SERVICES.incrementAndGet();
        arena = Arena.ofShared();
    }

    @AfterEach
    void closeEverything() throws Exception {
        frozen.set(false);
        listener.release();
        for (int i = resources.size() - 1; i >= 0; i--) {
            resources.get(i).close();
        }
        arena.close();
    }

    private long now() {
        listener.pass();
        return frozen.get() ? frozenAtNs : System.nanoTime() + offsetNs.get();
    }

    private void freeze() {
        frozenAtNs = now();
        frozen.set(true);
    }

    private OflServer serve(Consumer<ServerConfig.Builder> settings) {
        ServerConfig.Builder builder = ServerConfig.builder()
                .backend(FakeBackend.NAME)
                .bind(new InetSocketAddress(address(1), 0))
                .serviceName(service)
                .limits(LIMITS)
                .bootstrapTimeout(Duration.ofSeconds(30))
                .clock(this::now);
        settings.accept(builder);
        OflServer server = Ofl.serve(builder.build(), (request, response) -> {
            response.write(request.payload());
            return 0;
        });
        resources.add(server);
        return server;
    }

    private OflClient connect(OflServer server, InetAddress from) {
        OflClient client = Ofl.connect(ClientConfig.builder()
                .backend(FakeBackend.NAME)
                .server(server.localAddress())
                .localAddress(from)
                .serviceName(service)
                .limits(LIMITS)
                .connectTimeout(Duration.ofMillis(WAIT_MS))
                .build());
        resources.add(client);
        return client;
    }

    /** One echo call, checking the byte that came back. */
    private void assertEcho(OflClient client, int round) {
        MemorySegment memory = arena.allocate(64);
        Region region = client.registerRegion(memory);
        client.requestPayload().set(ValueLayout.JAVA_BYTE, 0, (byte) round);
        Completion completion = new Completion();
        assertEquals(OflStatus.OK, client.call(1, round, 1, new ResponseRanges().add(region, 0, 64),
                TimeUnit.MILLISECONDS.toNanos(WAIT_MS), completion), completion::toString);
        assertEquals((byte) round, memory.get(ValueLayout.JAVA_BYTE, 0));
    }

    // ---------------------------------------------------------------------------------------------
    // Pending handshakes

    /**
     * Two places per address and three in all: a third silent socket from one address takes the
     * place of that address's oldest, which is refused naming the address's limit; a socket beyond
     * the total takes the oldest one's place, which is refused naming the total; the newcomer's
     * HELLO is then read and decided on, and its place given back.
     */
    @Test
    void pendingPlacesAreCappedPerAddressAndTheOldestGivesWay() throws Exception {
        OflServer server = serve(b -> b.maxPendingPerAddress(2).maxPendingHandshakes(3));
        Socket oldest = raw(server, address(2));
        Socket second = raw(server, address(2));
        awaitTrue(() -> pending(server) == 2, () -> "pending handshakes: " + pending(server));

        Socket third = raw(server, address(2));
        Bootstrap.Endpoint busy = welcome(readUntilClosed(oldest));
        assertEquals(RefusalCode.SERVER_BUSY, busy.status());
        assertTrue(busy.text().contains("2 handshakes from 127.0.0.2 are pending")
                && busy.text().contains("this one was the oldest of them"), busy.text());
        assertEquals(service, busy.serviceName());
        assertEquals(LIMITS, busy.limits(), "a refusal carries the server's maxima");
        awaitTrue(() -> server.statistics().connectionsRefused() == 1, () -> server.statistics().toString());
        awaitTrue(() -> pending(server) == 2, () -> "the third did not take the oldest one's place: "
                + pending(server) + " pending");

        Socket other = raw(server, address(3));
        awaitTrue(() -> pending(server) == 3, () -> "pending handshakes: " + pending(server));
        Socket newcomer = raw(server, address(4));
        Bootstrap.Endpoint displaced = welcome(readUntilClosed(second));
        assertEquals(RefusalCode.SERVER_BUSY, displaced.status());
        assertTrue(displaced.text().contains("3 handshakes are pending")
                && displaced.text().contains("this one was the oldest"), displaced.text());
        awaitTrue(() -> server.statistics().connectionsRefused() == 2, () -> server.statistics().toString());
        // The oldest is answered before the newcomer takes its place, so the count may be seen at 2 first.
        awaitTrue(() -> pending(server) == 3, () -> "the newcomer did not take the oldest one's place: "
                + pending(server) + " pending");

        // The newcomer's HELLO is read and decided on: TCP on an in-process server is refused.
        newcomer.getOutputStream().write(hello(TransportKind.TCP));
        assertEquals(RefusalCode.TRANSPORT_MISMATCH, welcome(readUntilClosed(newcomer)).status());
        awaitTrue(() -> pending(server) == 2, () -> "pending handshakes: " + pending(server));
        for (Socket socket : List.of(oldest, second, third, other, newcomer)) {
            socket.close();
        }
        awaitTrue(() -> pending(server) == 0, () -> "pending handshakes: " + pending(server));
        assertEquals(0, server.connectionCount());
    }

    /** A HELLO that trickles in, frame and body each in two writes, is put together and decided on whole. */
    @Test
    void aHelloArrivingInPiecesIsDecidedOnWhole() throws Exception {
        OflServer server = serve(b -> { });
        byte[] hello = hello(TransportKind.TCP);
        int[] cuts = {0, 7, Bootstrap.FRAME_LENGTH, Bootstrap.FRAME_LENGTH + 9, hello.length};
        try (Socket socket = raw(server, address(2))) {
            OutputStream out = socket.getOutputStream();
            for (int i = 0; i + 1 < cuts.length; i++) {
                out.write(Arrays.copyOfRange(hello, cuts[i], cuts[i + 1]));
                out.flush();
                awaitTrue(() -> pending(server) == 1, () -> "pending handshakes: " + pending(server));
            }
            Bootstrap.Endpoint answer = welcome(readUntilClosed(socket));
            assertEquals(RefusalCode.TRANSPORT_MISMATCH, answer.status(), answer::text);
        }
        awaitTrue(() -> pending(server) == 0, () -> "pending handshakes: " + pending(server));
        assertEquals(1, server.statistics().connectionsRefused());
        assertEquals(0, server.statistics().protocolViolations());
    }

    /** A frame announcing an empty body is handed to the decision at once, which refuses it as malformed. */
    @Test
    void aFrameAnnouncingNoBodyIsRefusedAsMalformed() throws Exception {
        OflServer server = serve(b -> { });
        byte[] frame = Arrays.copyOf(hello(TransportKind.IN_PROCESS), Bootstrap.FRAME_LENGTH);
        ByteBuffer.wrap(frame).order(ByteOrder.LITTLE_ENDIAN).putInt(Bootstrap.FRAME_BODY_LENGTH_OFFSET, 0);
        try (Socket socket = raw(server, address(2))) {
            socket.getOutputStream().write(frame);
            Bootstrap.Endpoint answer = welcome(readUntilClosed(socket));
            assertEquals(RefusalCode.MALFORMED, answer.status(), answer::text);
        }
        awaitTrue(() -> server.statistics().protocolViolations() == 1, () -> server.statistics().toString());
        awaitTrue(() -> pending(server) == 0, () -> "pending handshakes: " + pending(server));
    }

    /** A client that leaves in the middle of its HELLO gives its place back, unanswered and uncounted. */
    @Test
    void aClientLeavingMidHelloGivesItsPlaceBack() throws Exception {
        OflServer server = serve(b -> b.maxPendingPerAddress(1));
        try (Socket leaving = raw(server, address(2))) {
            leaving.getOutputStream().write(Arrays.copyOf(hello(TransportKind.IN_PROCESS), 20));
            awaitTrue(() -> pending(server) == 1, () -> "pending handshakes: " + pending(server));
        }
        awaitTrue(() -> pending(server) == 0, () -> "pending handshakes: " + pending(server));
        assertEquals(0, server.statistics().connectionsRefused(), "nobody was answered");
        // The address's one place is free again: a client from it gets in.
        assertEcho(connect(server, address(2)), 4);
    }

    /**
     * A HELLO not whole by the bootstrap deadline (injected clock) closes the socket unanswered;
     * before the deadline it keeps its place.
     */
    @Test
    void aHelloNotWholeByTheDeadlineIsDroppedUnanswered() throws Exception {
        OflServer server = serve(b -> b.bootstrapTimeout(Duration.ofSeconds(10)));
        try (Socket trickling = raw(server, address(2)); Socket silent = raw(server, address(3))) {
            trickling.getOutputStream().write(Arrays.copyOf(hello(TransportKind.IN_PROCESS), 20));
            awaitTrue(() -> pending(server) == 2, () -> "pending handshakes: " + pending(server));
            offsetNs.addAndGet(TimeUnit.SECONDS.toNanos(11));
            assertEquals(0, readUntilClosed(trickling).length, "a server must not answer a HELLO it never got");
            assertEquals(0, readUntilClosed(silent).length, "a server must not answer a HELLO it never got");
        }
        awaitTrue(() -> pending(server) == 0, () -> "pending handshakes: " + pending(server));
        assertEquals(0, server.statistics().connectionsRefused());
        assertEcho(connect(server, address(2)), 5);
    }

    // ---------------------------------------------------------------------------------------------
    // Refusals

    /**
     * With the clock frozen a lingering refusal stays open until its peer leaves, taking what the
     * peer sends. One refusal may linger here, so a second one beyond it is closed as soon as its
     * answer is written: its peer reads the whole answer, and what it sends afterwards is refused.
     */
    @Test
    void refusalsBeyondWhatMayLingerAreClosedOnceAnswered() throws Exception {
        OflServer server = fullWithOneRefusalLingeringAndTheClockFrozen();
        Socket lingering = raw(server, address(2));
        Bootstrap.Endpoint first = welcome(readUntilClosed(lingering));
        assertEquals(RefusalCode.SERVER_BUSY, first.status());
        assertTrue(first.text().contains("cap of 1 connections"), first.text());
        try (Socket closedAtOnce = raw(server, address(3))) {
            Bootstrap.Endpoint second = welcome(readUntilClosed(closedAtOnce));
            assertEquals(RefusalCode.SERVER_BUSY, second.status());
            assertTrue(sendingFails(closedAtOnce), "a refusal beyond what may linger was kept open");
        }
        assertFalse(sendingFails(lingering), "the lingering refusal stopped reading while the clock stood still");
        assertEquals(2, server.statistics().connectionsRefused());
        // The lingering refusal ends when its peer leaves, however still the clock stands: a
        // refusal after it may linger in its place.
        lingering.close();
        awaitTrue(() -> aRefusalNowLingers(server), () -> "no refusal lingers after the lingering one's peer left");
        frozen.set(false);
        assertEquals(1, server.connectionCount());
    }

    /** Whether a socket refused now is kept open to linger: sending to it does not fail. */
    private boolean aRefusalNowLingers(OflServer server) {
        try (Socket socket = raw(server, address(5))) {
            assertEquals(RefusalCode.SERVER_BUSY, readWelcome(socket).status());
            return !sendingFails(socket);
        } catch (IOException | ProtocolException e) {
            throw new AssertionError(e);
        }
    }

    /**
     * Peers that keep sending to their refusals, one lingering (the clock stands still, so only
     * its peer ends it) and one beyond what may linger, do not hold the listener: a socket that
     * arrives meanwhile is still answered. A listener that read for as long as a peer sent fails
     * this only when that peer outpaces its reads, which depends on timing: a guard, not a proof.
     */
    @Test
    void peersThatKeepSendingToTheirRefusalsDoNotHoldTheListener() throws Exception {
        OflServer server = fullWithOneRefusalLingeringAndTheClockFrozen();
        Socket lingering = raw(server, address(2));
        assertEquals(RefusalCode.SERVER_BUSY, readWelcome(lingering).status());
        keepSending(lingering, 64 << 10);
        keepSending(raw(server, address(3)), 64 << 10);
        try (Socket answered = raw(server, address(4))) {
            assertEquals(RefusalCode.SERVER_BUSY, readWelcome(answered).status());
        }
        assertEquals(3, server.statistics().connectionsRefused());
    }

    /**
     * A refusal that may not linger reads what its peer sent before closing, but no more than a
     * HELLO's worth: a peer that sent a HELLO is closed in order (the server read all of it), while
     * one that sent more is reset (bytes were left unread). Both are queued whole at the server
     * while its listener is held, before either is accepted; the kernel's table of TCP sockets
     * ({@code /proc/net/tcp}) shows what is queued and which end each client got. A listener that
     * read all it was sent, or nothing, fails this.
     */
    @Test
    void aRefusalThatMayNotLingerReadsNoMoreThanAHelloBeforeClosing() throws Exception {
        assumeTrue(Files.isReadable(Path.of("/proc/net/tcp")), "needs Linux's /proc/net/tcp");
        OflServer server = fullWithOneRefusalLingeringAndTheClockFrozen();
        Socket lingering = raw(server, address(2));
        assertEquals(RefusalCode.SERVER_BUSY, readWelcome(lingering).status());
        byte[] hello = hello(TransportKind.IN_PROCESS);
        int more = 16 << 10;
        // Released by the test, or after it fails by closeEverything().
        listener.hold();
        Socket quiet = raw(server, address(3));
        quiet.getOutputStream().write(hello);
        Socket loud = raw(server, address(4));
        loud.getOutputStream().write(new byte[more]);
        awaitTrue(() -> queuedAtTheServer(quiet) == hello.length, () -> "the HELLO is not all queued at the "
                + "server: " + queuedAtTheServer(quiet));
        awaitTrue(() -> queuedAtTheServer(loud) == more, () -> "16 KiB are not all queued at the server: "
                + queuedAtTheServer(loud));
        listener.release();
        assertEquals(RefusalCode.SERVER_BUSY, readWelcome(quiet).status());
        assertEquals(-1, quiet.getInputStream().read(), "the refusal was not closed once answered");
        awaitTrue(() -> tcpRow(loud.getLocalSocketAddress(), loud.getRemoteSocketAddress()) == null,
                () -> "the peer that sent 16 KiB was not reset: its socket is still there, "
                        + tcpRow(loud.getLocalSocketAddress(), loud.getRemoteSocketAddress())
                        + " (08 is CLOSE_WAIT: the server read everything and closed in order)");
        TcpRow answered = tcpRow(quiet.getLocalSocketAddress(), quiet.getRemoteSocketAddress());
        assertTrue(answered != null && answered.state().equals("08"),
                "the peer that sent a HELLO was reset, or is not in CLOSE_WAIT: " + answered);
        assertEquals(3, server.statistics().connectionsRefused());
    }

    /** A socket's row in the kernel's table of TCP sockets: its state (hex: 01 ESTABLISHED, 08 CLOSE_WAIT) and bytes unread. */
    private record TcpRow(String state, long unread) { }

    /** The bytes the server's end of a client's connection holds unread, or -1 if there is no such end. */
    private static long queuedAtTheServer(Socket client) {
        TcpRow row = tcpRow(client.getRemoteSocketAddress(), client.getLocalSocketAddress());
        return row == null ? -1 : row.unread();
    }

    /**
     * The row of the connection from {@code local} to {@code remote} (IPv4 addresses) in
     * {@code /proc/net/tcp} or {@code tcp6}, or null if it has none: a reset socket leaves the table.
     */
    private static TcpRow tcpRow(SocketAddress local, SocketAddress remote) {
        String from = procAddress((InetSocketAddress) local);
        String to = procAddress((InetSocketAddress) remote);
        try {
            // ofl's sockets for IPv4 addresses are IPv4 ones; a JVM's plain sockets are IPv6 ones, IPv4 peers v4-mapped.
            for (String table : List.of("/proc/net/tcp", "/proc/net/tcp6")) {
                if (!Files.isReadable(Path.of(table))) {
                    continue;
                }
                for (String line : Files.readAllLines(Path.of(table))) {
                    String[] fields = line.trim().split("\\s+");
                    if (fields.length > 4 && fields[1].endsWith(from) && fields[2].endsWith(to)) {
                        String queues = fields[4];
                        return new TcpRow(fields[3], Long.parseLong(queues.substring(queues.indexOf(':') + 1), 16));
                    }
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return null;
    }

    /**
     * An IPv4 address and port as the kernel's table writes them: the address as one word in the
     * machine's byte order (little-endian here), which is also how a v4-mapped address ends in {@code tcp6}.
     */
    private static String procAddress(InetSocketAddress address) {
        byte[] ip = address.getAddress().getAddress();
        assertEquals(4, ip.length, address::toString);
        return String.format("%02X%02X%02X%02X:%04X", ip[3], ip[2], ip[1], ip[0], address.getPort());
    }

    /**
     * A server at its cap of one connection (from address 1), of which one refusal may linger, with
     * the clock frozen so that only its peer ends a lingering refusal.
     */
    private OflServer fullWithOneRefusalLingeringAndTheClockFrozen() throws Exception {
        OflServer server = serve(b -> b.maxConnections(1).maxPendingHandshakes(1));
        assertEcho(connect(server, address(1)), 1);
        freeze();
        return server;
    }

    /** Writes to the socket from a daemon thread until writing fails (the socket closed, or its peer). */
    private static Thread keepSending(Socket socket, int chunkBytes) {
        return Thread.ofPlatform().daemon().start(() -> {
            byte[] chunk = new byte[chunkBytes];
            try {
                while (true) {
                    socket.getOutputStream().write(chunk);
                }
            } catch (IOException closed) {
                // The end this thread waits for.
            }
        });
    }

    /** Whether the peer closed: writing 16 MiB to it fails (a lingering refusal reads and discards them). */
    private static boolean sendingFails(Socket socket) {
        byte[] chunk = new byte[64 << 10];
        try {
            for (int i = 0; i < 256; i++) {
                socket.getOutputStream().write(chunk);
            }
            return false;
        } catch (IOException e) {
            return true;
        }
    }

    /** A refused socket that keeps sending is closed at the end of the linger, on the server's clock. */
    @Test
    void aRefusedSocketThatKeepsSendingIsClosedAfterTheLinger() throws Exception {
        OflServer server = serve(b -> b.maxConnections(1));
        assertEcho(connect(server, address(1)), 1);
        try (Socket socket = raw(server, address(2))) {
            Thread sender = keepSending(socket, 1024);
            assertEquals(RefusalCode.SERVER_BUSY, readWelcome(socket).status());
            offsetNs.addAndGet(TimeUnit.SECONDS.toNanos(1));
            sender.join(WAIT_MS);
            assertFalse(sender.isAlive(), "the server still takes bytes from a refused client");
        }
    }

    /**
     * Handshakes pending when the server closes, whether their HELLO began to arrive or not, are
     * answered SHUTTING_DOWN rather than cut off.
     */
    @Test
    void handshakesPendingAtCloseAreToldTheServerIsShuttingDown() throws Exception {
        OflServer server = serve(b -> { });
        try (Socket silent = raw(server, address(2)); Socket partial = raw(server, address(3))) {
            partial.getOutputStream().write(Arrays.copyOf(hello(TransportKind.IN_PROCESS), 30));
            awaitTrue(() -> pending(server) == 2, () -> "pending handshakes: " + pending(server));
            Thread closer = Thread.ofPlatform().start(server::close);
            for (Socket socket : List.of(silent, partial)) {
                Bootstrap.Endpoint answer = readWelcome(socket);
                assertEquals(RefusalCode.SHUTTING_DOWN, answer.status(), answer::text);
                assertTrue(answer.text().contains("shutting down"), answer.text());
            }
            closer.join(WAIT_MS);
            assertFalse(closer.isAlive());
        }
        assertEquals(2, server.statistics().connectionsRefused());
        assertEquals(0, pending(server));
    }

    // ---------------------------------------------------------------------------------------------
    // Connection caps

    /**
     * At the per-address cap a socket from that address is refused before it sends anything,
     * naming the address; a socket from another address is let send its HELLO.
     */
    @Test
    void thePerAddressCapRefusesBeforeAnyHelloOnlyThatAddress() throws Exception {
        OflServer server = serve(b -> b.maxConnectionsPerAddress(1));
        assertEcho(connect(server, address(2)), 1);
        try (Socket same = raw(server, address(2))) {
            Bootstrap.Endpoint busy = welcome(readUntilClosed(same));
            assertEquals(RefusalCode.SERVER_BUSY, busy.status());
            assertTrue(busy.text().contains("cap of 1 connections from 127.0.0.2"), busy.text());
        }
        try (Socket other = raw(server, address(3))) {
            awaitTrue(() -> pending(server) == 1, () -> "pending handshakes: " + pending(server));
            other.getOutputStream().write(hello(TransportKind.TCP));
            assertEquals(RefusalCode.TRANSPORT_MISMATCH, welcome(readUntilClosed(other)).status());
        }
        assertEcho(connect(server, address(3)), 2);
        assertEquals(2, server.connectionCount());
        OflRefusedException refused = assertThrows(OflRefusedException.class, () -> connect(server, address(3)));
        assertEquals(RefusalCode.SERVER_BUSY, refused.code());
    }

    /**
     * The per-address cap is never above the total cap: with one connection allowed in all, a
     * second from the same address is refused naming the address's cap of one.
     */
    @Test
    void thePerAddressCapIsBoundedByTheTotal() throws Exception {
        OflServer server = serve(b -> b.maxConnections(1).maxConnectionsPerAddress(5));
        assertEcho(connect(server, address(2)), 1);
        try (Socket same = raw(server, address(2))) {
            Bootstrap.Endpoint busy = welcome(readUntilClosed(same));
            assertEquals(RefusalCode.SERVER_BUSY, busy.status());
            assertTrue(busy.text().contains("cap of 1 connections"), busy.text());
        }
    }

    /**
     * At the connection cap, a connection that sent no request for the bootstrap timeout gives its
     * place to a new client whose source holds two fewer; within that grace, once it asked, or to
     * a source holding as many, it keeps it.
     */
    @Test
    void anUnusedConnectionGivesItsPlaceToANewClientAfterTheGrace() {
        OflServer server = serve(b -> b.maxConnections(3).bootstrapTimeout(Duration.ofSeconds(10)));
        OflClient asking = connect(server, address(2));
        assertEcho(asking, 1);
        OflClient unused = connect(server, address(3));
        OflClient alsoUnused = connect(server, address(3));
        assertEquals(3, server.connectionCount());

        OflRefusedException early = assertThrows(OflRefusedException.class, () -> connect(server, address(4)));
        assertEquals(RefusalCode.SERVER_BUSY, early.code(), "within the grace period the cap holds");

        offsetNs.addAndGet(TimeUnit.SECONDS.toNanos(11));
        OflClient fresh = connect(server, address(4));
        assertEcho(fresh, 2);
        awaitTrue(unused::isBroken, () -> "the oldest unused connection was not closed");
        assertFalse(alsoUnused.isBroken(), "one gave way, not both");
        assertEcho(asking, 3);
        // The newcomer held its place at once; the one that gave way returns its own as its connection ends.
        awaitTrue(() -> server.connectionCount() == 3, () -> "connections: " + server.connectionCount());

        offsetNs.addAndGet(TimeUnit.SECONDS.toNanos(11));
        OflRefusedException full = assertThrows(OflRefusedException.class, () -> connect(server, address(5)));
        assertEquals(RefusalCode.SERVER_BUSY, full.code(),
                "each source holds one: the unused one does not give way to a source that would then hold as many");
        assertFalse(asking.isBroken());
        assertFalse(fresh.isBroken());
        assertFalse(alsoUnused.isBroken());
    }

    /**
     * A connection with no request for the idle timeout (injected clock) is closed; the call after
     * it fails with a broken connection, and reconnect() serves again.
     */
    @Test
    void anIdleConnectionIsClosedAndTheClientReconnects() {
        OflServer server = serve(b -> b.idleTimeout(Duration.ofSeconds(10)));
        OflClient client = connect(server, address(2));
        assertEcho(client, 1);
        // Each look advances the server's clock a second: the listener closes it after ten quiet ones.
        awaitTrue(() -> {
            offsetNs.addAndGet(TimeUnit.SECONDS.toNanos(1));
            return server.connectionCount() == 0;
        }, () -> "connections: " + server.connectionCount());
        long requests = server.statistics().requests();
        assertThrows(OflConnectionException.class, () -> assertEcho(client, 2));
        assertTrue(client.isBroken());
        assertEquals(requests, server.statistics().requests(), "the call after the idle close was not handled");
        client.reconnect();
        assertEcho(client, 3);
        assertEquals(1, server.connectionCount());
    }

    // ---------------------------------------------------------------------------------------------

    private Socket raw(OflServer server, InetAddress from) throws IOException {
        Socket socket = open(server, from);
        resources.add(socket);
        return socket;
    }

    private byte[] hello(int transport) {
        return Bootstrap.encode(Bootstrap.HELLO, new Bootstrap.Endpoint(RefusalCode.ACCEPTED, transport, service,
                LIMITS, 0, 0, null, 0, 0, 0, "", null));
    }
}
