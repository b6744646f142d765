package dev.ofl.testing;

import static dev.ofl.testing.RawBootstrap.WAIT_MS;
import static dev.ofl.testing.RawBootstrap.address;
import static dev.ofl.testing.RawBootstrap.awaitTrue;
import static dev.ofl.testing.RawBootstrap.open;
import static dev.ofl.testing.RawBootstrap.pending;
import static dev.ofl.testing.RawBootstrap.readUntilClosed;
import static dev.ofl.testing.RawBootstrap.welcome;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ofl.api.ClientConfig;
import dev.ofl.api.Completion;
import dev.ofl.api.Limits;
import dev.ofl.api.Ofl;
import dev.ofl.api.OflClient;
import dev.ofl.api.OflRefusedException;
import dev.ofl.api.OflServer;
import dev.ofl.api.OflStatus;
import dev.ofl.api.RefusalCode;
import dev.ofl.api.Region;
import dev.ofl.api.ResponseRanges;
import dev.ofl.api.ServerConfig;
import dev.ofl.api.wire.Bootstrap;
import dev.ofl.api.wire.PskExchange;
import dev.ofl.api.wire.TransportKind;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Peers that try to keep others out, over the fake backend with an injected server clock: sockets
 * sharing a client's address, connections that never ask, and clients that offer a key and never
 * prove it (docs/PROTOCOL.md 3.4.1 and 3.8). Each attack is held while a well-behaved client
 * connects, and the client gets in.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class HostileAdmissionTest {
    private static final Limits LIMITS = new Limits(256, 1024, 2, 2);
    private static final int KEY_ID = 7;
    private static final byte[] KEY = "thirty-two bytes of a shared key".getBytes(StandardCharsets.US_ASCII);
    private static final AtomicInteger SERVICES = new AtomicInteger();

    private final List<AutoCloseable> resources = new ArrayList<>();
    /** The server's clock: real time plus what a test adds. */
    private final AtomicLong offsetNs = new AtomicLong();
    private final Arena arena = Arena.ofShared();
    private final String service = "hostile-admission-" + SERVICES.incrementAndGet();

    @AfterEach
    void closeEverything() throws Exception {
        for (int i = resources.size() - 1; i >= 0; i--) {
            resources.get(i).close();
        }
        arena.close();
    }

    private OflServer serve(Consumer<ServerConfig.Builder> settings) {
        ServerConfig.Builder builder = ServerConfig.builder()
                .backend(FakeBackend.NAME)
                .bind(new InetSocketAddress(address(1), 0))
                .serviceName(service)
                .limits(LIMITS)
                .bootstrapTimeout(Duration.ofSeconds(10))
                .clock(() -> System.nanoTime() + offsetNs.get());
        settings.accept(builder);
        OflServer server = Ofl.serve(builder.build(), (request, response) -> {
            response.write(request.payload());
            return 0;
        });
        resources.add(server);
        return server;
    }

    private OflClient connect(OflServer server, InetAddress from, Consumer<ClientConfig.Builder> settings) {
        ClientConfig.Builder builder = ClientConfig.builder()
                .backend(FakeBackend.NAME)
                .server(server.localAddress())
                .localAddress(from)
                .serviceName(service)
                .limits(LIMITS)
                .connectTimeout(Duration.ofMillis(WAIT_MS));
        settings.accept(builder);
        OflClient client = Ofl.connect(builder.build());
        resources.add(client);
        return client;
    }

    private OflClient connect(OflServer server, InetAddress from) {
        return connect(server, from, b -> { });
    }

    private void assertEcho(OflClient client, int round) {
        MemorySegment memory = arena.allocate(64);
        Region region = client.registerRegion(memory);
        client.requestPayload().set(ValueLayout.JAVA_BYTE, 0, (byte) round);
        Completion completion = new Completion();
        assertEquals(OflStatus.OK, client.call(1, round, 1, new ResponseRanges().add(region, 0, 64),
                TimeUnit.MILLISECONDS.toNanos(WAIT_MS), completion), completion::toString);
        assertEquals((byte) round, memory.get(ValueLayout.JAVA_BYTE, 0));
    }

    private Socket raw(OflServer server, InetAddress from) throws IOException {
        Socket socket = open(server, from);
        resources.add(socket);
        return socket;
    }

    // ---------------------------------------------------------------------------------------------
    // Pending places

    /**
     * Silent sockets from a client's own address (a co-tenant's) fill that address's pending
     * places; the client connecting from it still gets in: the oldest of them gives way.
     */
    @Test
    void aCoTenantsSilentSocketsCannotKeepItsNeighbourOut() throws Exception {
        OflServer server = serve(b -> b.maxPendingPerAddress(2));
        Socket oldest = raw(server, address(2));
        raw(server, address(2));
        awaitTrue(() -> pending(server) == 2, () -> "pending handshakes: " + pending(server));
        OflClient neighbour = connect(server, address(2));
        assertEcho(neighbour, 1);
        Bootstrap.Endpoint displaced = welcome(readUntilClosed(oldest));
        assertEquals(RefusalCode.SERVER_BUSY, displaced.status());
        assertTrue(displaced.text().contains("from 127.0.0.2 are pending"), displaced.text());
    }

    /**
     * A client that offers a key and never proves it holds only a pending place, in the listener's
     * hands like one whose HELLO is still arriving: beyond the total the oldest such gives way, and
     * a client that holds the key gets in.
     */
    @Test
    void aClientThatNeverProvesHoldsOnlyAnEvictablePendingPlace() throws Exception {
        OflServer server = serve(b -> b.authenticationKey(KEY_ID, KEY).maxPendingHandshakes(2));
        Socket first = stallAfterTheChallenge(server, address(2));
        stallAfterTheChallenge(server, address(3));
        assertEquals(2, pending(server), "both stalled handshakes keep their pending places");
        assertEquals(0, server.statistics().connectionsRefused());

        assertEcho(connect(server, address(4), b -> b.authenticationKey(KEY_ID, KEY)), 1);
        Bootstrap.Endpoint displaced = welcome(readUntilClosed(first));
        assertEquals(RefusalCode.SERVER_BUSY, displaced.status(), displaced::text);
        assertTrue(displaced.text().contains("had not finished its handshake"), displaced.text());
        awaitTrue(() -> pending(server) == 1, () -> "pending handshakes: " + pending(server));
    }

    /**
     * The proof is due by the bootstrap deadline counted from the accept, not a fresh one after
     * the HELLO: a socket whose HELLO came 60 s into a 100 s timeout and which never proves is
     * closed, unanswered, once 100 s have passed since its accept (on the server's clock; a fresh
     * deadline would hold it for longer than this test waits).
     */
    @Test
    void theProofIsDueByTheDeadlineCountedFromTheAccept() throws Exception {
        OflServer server = serve(b -> b.authenticationKey(KEY_ID, KEY).bootstrapTimeout(Duration.ofSeconds(100)));
        Socket socket = raw(server, address(2));
        awaitTrue(() -> pending(server) == 1, () -> "pending handshakes: " + pending(server));
        offsetNs.addAndGet(TimeUnit.SECONDS.toNanos(60));
        socket.getOutputStream().write(helloWithOffer());
        byte[] challenge = socket.getInputStream().readNBytes(Bootstrap.FRAME_LENGTH + PskExchange.NONCE_BYTES);
        assertEquals(Bootstrap.AUTH_CHALLENGE, Bootstrap.decodeFrame(challenge, Bootstrap.AUTH_CHALLENGE).type());
        assertEquals(1, pending(server), "awaiting the proof");
        offsetNs.addAndGet(TimeUnit.SECONDS.toNanos(50));
        assertArrayEquals(new byte[0], readUntilClosed(socket), "closed without a WELCOME");
        awaitTrue(() -> pending(server) == 0, () -> "pending handshakes: " + pending(server));
        assertEquals(0, server.statistics().connectionsRefused());
    }

    /** Opens a socket, sends a HELLO offering the server's key, reads the challenge, and sends nothing more. */
    private Socket stallAfterTheChallenge(OflServer server, InetAddress from) throws Exception {
        Socket socket = raw(server, from);
        socket.getOutputStream().write(helloWithOffer());
        byte[] challenge = socket.getInputStream().readNBytes(Bootstrap.FRAME_LENGTH + PskExchange.NONCE_BYTES);
        assertEquals(Bootstrap.AUTH_CHALLENGE, Bootstrap.decodeFrame(challenge, Bootstrap.AUTH_CHALLENGE).type());
        return socket;
    }

    private byte[] helloWithOffer() {
        return hello(new PskExchange.Offer(KEY_ID, new byte[PskExchange.NONCE_BYTES]).record());
    }

    private byte[] hello(byte[] extensions) {
        return Bootstrap.encode(Bootstrap.HELLO, new Bootstrap.Endpoint(RefusalCode.ACCEPTED,
                TransportKind.IN_PROCESS, service, LIMITS, 0, 0, null, 0, 0, 0, "", extensions));
    }

    // ---------------------------------------------------------------------------------------------
    // Connection places

    /**
     * Connections that never ask, from two sources holding equal shares of the cap, cannot push
     * each other out however long they wait; a client from a new source can, once the grace is
     * over, and one connection of a source holding the most gives way to it.
     */
    @Test
    void connectionsThatNeverAskCannotPushEachOtherOutButANewSourceGetsIn() {
        OflServer server = serve(b -> b.maxConnections(4).maxConnectionsPerAddress(4));
        List<OflClient> unused = new ArrayList<>();
        for (int source : new int[] {2, 2, 3, 3}) {
            unused.add(connect(server, address(source)));
        }
        offsetNs.addAndGet(TimeUnit.SECONDS.toNanos(11));
        OflRefusedException equal = assertThrows(OflRefusedException.class, () -> connect(server, address(2)));
        assertEquals(RefusalCode.SERVER_BUSY, equal.code());
        assertTrue(equal.getMessage().contains("cap of 4 connections"), equal.getMessage());
        assertTrue(unused.stream().noneMatch(OflClient::isBroken), "a source of equal share pushed one out");

        OflClient newcomer = connect(server, address(4));
        assertEcho(newcomer, 1);
        awaitTrue(() -> unused.stream().filter(OflClient::isBroken).count() == 1,
                () -> "not exactly one unused connection gave way");
        awaitTrue(() -> server.connectionCount() == 4, () -> "connections: " + server.connectionCount());
    }

    /** At its address's cap, an unused connection past the grace gives way to a newcomer from the same address. */
    @Test
    void atItsAddressCapAnUnusedConnectionGivesWayToOneFromTheSameAddress() {
        OflServer server = serve(b -> b.maxConnectionsPerAddress(1));
        OflClient unused = connect(server, address(2));
        OflRefusedException early = assertThrows(OflRefusedException.class, () -> connect(server, address(2)));
        assertTrue(early.getMessage().contains("cap of 1 connections from 127.0.0.2"), early.getMessage());
        offsetNs.addAndGet(TimeUnit.SECONDS.toNanos(11));
        assertEcho(connect(server, address(2)), 1);
        awaitTrue(unused::isBroken, () -> "the unused connection kept its place");
        awaitTrue(() -> server.connectionCount() == 1, () -> "connections: " + server.connectionCount());
    }

    // ---------------------------------------------------------------------------------------------
    // Log lines

    /**
     * Connections a peer opens and resets as fast as it can cost one log line per cause and a
     * count, not one line each (docs/OPERATIONS.md 4.1).
     */
    @Test
    void connectionsEndedByTheirPeerAreLoggedOncePerCause() throws Exception {
        OflServer server = serve(b -> { });
        PrintStream original = System.err;
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        int resets = 100;
        System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
        try {
            byte[] hello = hello(null);
            for (int i = 0; i < resets; i++) {
                try (Socket socket = open(server, address(2))) {
                    socket.setSoLinger(true, 0);
                    socket.getOutputStream().write(hello);
                }
            }
            awaitTrue(() -> pending(server) == 0 && server.connectionCount() == 0,
                    () -> pending(server) + " pending, " + server.connectionCount() + " connections");
        } finally {
            System.setErr(original);
        }
        // The listener names the address alone, a connection's thread "/address:port": both count.
        long lines = captured.toString(StandardCharsets.UTF_8).lines()
                .filter(line -> line.contains("from 127.0.0.2") || line.contains("from /127.0.0.2:")).count();
        assertTrue(lines >= 1 && lines <= 6, lines + " lines for " + resets + " reset connections:\n" + captured);
    }
}
