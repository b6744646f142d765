package dev.ofl.tcp;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ofl.api.ClientConfig;
import dev.ofl.api.Completion;
import dev.ofl.api.Limits;
import dev.ofl.api.Ofl;
import dev.ofl.api.OflClient;
import dev.ofl.api.OflException;
import dev.ofl.api.OflHandler;
import dev.ofl.api.OflRefusedException;
import dev.ofl.api.OflStatus;
import dev.ofl.api.RefusalCode;
import dev.ofl.api.Region;
import dev.ofl.api.ResponseRanges;
import dev.ofl.api.ServerConfig;
import dev.ofl.api.spi.BootstrapIo;
import dev.ofl.api.spi.BootstrapServer;
import dev.ofl.api.spi.ServerTransport;
import dev.ofl.api.spi.StagingPool;
import dev.ofl.api.wire.Bootstrap;
import dev.ofl.api.wire.FailureReason;
import dev.ofl.api.wire.PskExchange;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.reflect.InvocationTargetException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Peer authentication over the TCP backend (docs/PROTOCOL.md 3.8): both directions, rotation, a
 * man in the middle that rewrites bytes, a replayed proof, and hostile authentication frames.
 * Every unauthenticated peer must leave the transport's {@code accept} uncalled: nothing is
 * allocated and no transport parameter is revealed before the key is proven.
 */
@Timeout(60)
class PeerAuthenticationTest {
    private static final long SECOND_NS = TimeUnit.SECONDS.toNanos(1);
    private static final Limits LIMITS = new Limits(1024, 1 << 16, 4, 4);
    private static final String SERVICE = "guarded";
    private static final byte[] KEY_A = key(0x11);
    private static final byte[] KEY_B = key(0x22);
    private static final OflHandler ECHO = (request, response) -> {
        response.write(request.payload());
        return 0;
    };

    private final List<AutoCloseable> closeables = new ArrayList<>();
    private final AtomicInteger accepts = new AtomicInteger();
    private final Arena arena = Arena.ofShared();

    private static byte[] key(int fill) {
        byte[] key = new byte[32];
        for (int i = 0; i < key.length; i++) {
            key[i] = (byte) (fill + i);
        }
        return key;
    }

    @AfterEach
    void tearDown() throws Exception {
        for (int i = closeables.size() - 1; i >= 0; i--) {
            closeables.get(i).close();
        }
        arena.close();
    }

    /** A TCP server whose transports count {@code accept}, the first thing that allocates for a peer. */
    private BootstrapServer server(ServerConfig.Builder builder) {
        ServerConfig config = builder.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))
                .serviceName(SERVICE).limits(LIMITS).build();
        StagingPool pool = new StagingPool(config.stagingBudgetBytes(), StagingPool.Memory.offHeap(), config.clock());
        BootstrapServer server = BootstrapServer.start(config, TcpBackend.NAME, ECHO,
                (c, channel, id) -> countingAccepts(new TcpServerTransport(c, channel, pool, 0)), s -> pool.close());
        closeables.add(server);
        return server;
    }

    /** The transport with every call passed through, {@code accept} counted and its HELLO checked. */
    private ServerTransport countingAccepts(ServerTransport inner) {
        return (ServerTransport) java.lang.reflect.Proxy.newProxyInstance(ServerTransport.class.getClassLoader(),
                new Class<?>[] {ServerTransport.class}, (proxy, method, args) -> {
                    if (method.getName().equals("accept")) {
                        accepts.incrementAndGet();
                        // What an ofl client offers besides: the failure reason record alone.
                        assertArrayEquals(FailureReason.record(), ((Bootstrap.Endpoint) args[0]).extensions(),
                                "the transport never sees the authentication record");
                    }
                    try {
                        return method.invoke(inner, args);
                    } catch (InvocationTargetException e) {
                        throw e.getCause();
                    }
                });
    }

    private static ClientConfig.Builder client(InetSocketAddress server) {
        return ClientConfig.builder().server(server).serviceName(SERVICE).limits(LIMITS)
                .connectTimeout(Duration.ofSeconds(10));
    }

    private OflClient connect(ClientConfig.Builder builder) {
        OflClient client = Ofl.connect(builder.build());
        closeables.add(client);
        return client;
    }

    private void assertEchoes(OflClient client) {
        Region region = client.registerRegion(arena.allocate(8));
        client.requestPayload().set(ValueLayout.JAVA_LONG_UNALIGNED, 0, 0x0123_4567_89AB_CDEFL);
        assertEquals(OflStatus.OK, client.call(1, 0, 8, new ResponseRanges().add(region, 0, 8), 10 * SECOND_NS,
                new Completion()));
        assertEquals(0x0123_4567_89AB_CDEFL, region.segment().get(ValueLayout.JAVA_LONG_UNALIGNED, 0));
    }

    private void assertRefused(RefusalCode code, ClientConfig.Builder builder) {
        OflRefusedException e = assertThrows(OflRefusedException.class, () -> connect(builder));
        assertEquals(code, e.code(), e::getMessage);
    }

    @Test
    void theSameKeyAtBothEndsConnectsAndServes() {
        BootstrapServer server = server(ServerConfig.builder().authenticationKey(1, KEY_A));
        assertEchoes(connect(client(server.localAddress()).authenticationKey(1, KEY_A)));
        assertEquals(1, accepts.get());
    }

    @Test
    void aServerWithTwoKeysAcceptsEitherDuringRotation() {
        BootstrapServer server = server(ServerConfig.builder().authenticationKey(1, KEY_A).authenticationKey(2, KEY_B));
        assertEchoes(connect(client(server.localAddress()).authenticationKey(1, KEY_A)));
        assertEchoes(connect(client(server.localAddress()).authenticationKey(2, KEY_B)));
        assertEquals(2, accepts.get());
        assertRefused(RefusalCode.AUTHENTICATION_FAILED, client(server.localAddress()).authenticationKey(3, KEY_A));
        assertRefused(RefusalCode.AUTHENTICATION_FAILED, client(server.localAddress()).authenticationKey(1, KEY_B));
        assertEquals(2, accepts.get(), "a refused peer got nothing allocated");
    }

    @Test
    void aWrongKeyIsRefusedBeforeAnythingIsAllocated() {
        BootstrapServer server = server(ServerConfig.builder().authenticationKey(1, KEY_A));
        OflRefusedException e = assertThrows(OflRefusedException.class,
                () -> connect(client(server.localAddress()).authenticationKey(1, KEY_B)));
        assertEquals(RefusalCode.AUTHENTICATION_FAILED, e.code());
        assertTrue(e.getMessage().contains("key id 1"), e::getMessage);
        assertEquals(0, accepts.get());
        assertEquals(1, server.statistics().connectionsRefused());
    }

    @Test
    void aServerThatRequiresAuthenticationRefusesAClientWithout() {
        BootstrapServer server = server(ServerConfig.builder().authenticationKey(1, KEY_A));
        assertRefused(RefusalCode.AUTHENTICATION_REQUIRED, client(server.localAddress()));
        assertEquals(0, accepts.get());
    }

    @Test
    void aClientThatRequiresAuthenticationIsRefusedByAServerWithout() {
        BootstrapServer server = server(ServerConfig.builder());
        OflRefusedException e = assertThrows(OflRefusedException.class,
                () -> connect(client(server.localAddress()).authenticationKey(1, KEY_A)));
        assertEquals(RefusalCode.UNSUPPORTED_EXTENSION, e.code());
        assertTrue(e.getMessage().contains("0x8001"), e::getMessage);
        assertEquals(0, accepts.get());
    }

    @Test
    void aClientRefusesAServerThatAcceptsWithoutProof() throws Exception {
        try (ScriptedServer rogue = new ScriptedServer()) {
            CompletableFuture<Void> peer = rogue.run(socket -> {
                Bootstrap.Endpoint hello = readHello(socket);
                socket.getOutputStream().write(Bootstrap.encode(Bootstrap.WELCOME, new Bootstrap.Endpoint(
                        RefusalCode.ACCEPTED, hello.transport(), hello.serviceName(), hello.limits(), 0, 0, null, 0, 0,
                        0, "", null)));
            });
            OflException e = assertThrows(OflException.class,
                    () -> connect(client(rogue.address()).authenticationKey(1, KEY_A)));
            assertFalse(e instanceof OflRefusedException);
            assertTrue(e.getMessage().contains("accepted without authenticating"), e::getMessage);
            peer.get(10, TimeUnit.SECONDS);
        }
    }

    @Test
    void aClientRefusesAServerWhoseProofIsWrong() throws Exception {
        try (ScriptedServer rogue = new ScriptedServer()) {
            CompletableFuture<Void> peer = rogue.run(socket -> {
                Bootstrap.Endpoint hello = readHello(socket);
                socket.getOutputStream().write(Bootstrap.encodeFrame(Bootstrap.AUTH_CHALLENGE, new byte[32]));
                socket.getInputStream().readNBytes(Bootstrap.FRAME_LENGTH + Bootstrap.AUTH_BODY_LENGTH);
                byte[] welcome = Bootstrap.encode(Bootstrap.WELCOME, new Bootstrap.Endpoint(RefusalCode.ACCEPTED,
                        hello.transport(), hello.serviceName(), hello.limits(), 0, 0, null, 0, 0, 0, "",
                        PskExchange.withProofPlaceholder(new byte[0])));
                PskExchange.fillServerProof(welcome, key(0x33));
                socket.getOutputStream().write(welcome);
            });
            OflException e = assertThrows(OflException.class,
                    () -> connect(client(rogue.address()).authenticationKey(1, KEY_A)));
            assertTrue(e.getMessage().contains("did not prove key id 1"), e::getMessage);
            peer.get(10, TimeUnit.SECONDS);
        }
    }

    @Test
    void aManInTheMiddleThatRaisesTheLimitsIsRefusedByTheServer() throws Exception {
        BootstrapServer server = server(ServerConfig.builder().authenticationKey(1, KEY_A));
        int maxInFlight = Bootstrap.FRAME_LENGTH + Bootstrap.MAX_IN_FLIGHT_OFFSET;
        // Client to server: the HELLO's max in flight 4 becomes 3; server to client: untouched.
        try (Proxy proxy = new Proxy(server.localAddress(), (at, b) -> at == maxInFlight ? (byte) 3 : b, null)) {
            assertRefused(RefusalCode.AUTHENTICATION_FAILED, client(proxy.address()).authenticationKey(1, KEY_A));
        }
        assertEquals(0, accepts.get());
        // The same proxy passing bytes unchanged is transparent.
        try (Proxy proxy = new Proxy(server.localAddress(), null, null)) {
            assertEchoes(connect(client(proxy.address()).authenticationKey(1, KEY_A)));
        }
    }

    @Test
    void aManInTheMiddleThatChangesTheWelcomeIsRefusedByTheClient() throws Exception {
        BootstrapServer server = server(ServerConfig.builder().authenticationKey(1, KEY_A));
        // Server to client, after the 48-byte challenge: the WELCOME's qpn, unchecked on TCP
        // except by the MAC, as an RDMA peer's queue-pair number would be.
        long qpn = 48 + Bootstrap.FRAME_LENGTH + Bootstrap.QPN_OFFSET;
        try (Proxy proxy = new Proxy(server.localAddress(), null, (at, b) -> at == qpn ? (byte) 0x42 : b)) {
            OflException e = assertThrows(OflException.class,
                    () -> connect(client(proxy.address()).authenticationKey(1, KEY_A)));
            assertTrue(e.getMessage().contains("did not prove key id 1"), e::getMessage);
        }
    }

    @Test
    void aReplayedProofFailsAgainstAFreshChallenge() throws Exception {
        BootstrapServer server = server(ServerConfig.builder().authenticationKey(1, KEY_A));
        byte[] recorded;
        try (Proxy proxy = new Proxy(server.localAddress(), null, null)) {
            connect(client(proxy.address()).authenticationKey(1, KEY_A));
            recorded = proxy.clientBytes();
        }
        assertEquals(1, accepts.get());
        int helloLength = Bootstrap.FRAME_LENGTH + Bootstrap.decodeFrame(recorded, Bootstrap.HELLO).bodyLength();
        byte[] hello = Arrays.copyOf(recorded, helloLength);
        byte[] proof = Arrays.copyOfRange(recorded, helloLength, helloLength + 48);
        try (Socket attacker = new Socket(server.localAddress().getAddress(), server.localAddress().getPort())) {
            attacker.setSoTimeout(10_000);
            attacker.getOutputStream().write(hello);
            byte[] challenge = attacker.getInputStream().readNBytes(48);
            assertEquals(Bootstrap.AUTH_CHALLENGE, challenge[Bootstrap.FRAME_TYPE_OFFSET]);
            attacker.getOutputStream().write(proof);
            assertEquals(RefusalCode.AUTHENTICATION_FAILED, readWelcome(attacker).status());
        }
        assertEquals(1, accepts.get(), "the replay got nothing allocated");
    }

    @Test
    void malformedAuthenticationFramesAreRefusedAsMalformed() throws Exception {
        BootstrapServer server = server(ServerConfig.builder().authenticationKey(1, KEY_A));
        byte[] hello = Bootstrap.encode(Bootstrap.HELLO, new Bootstrap.Endpoint(RefusalCode.ACCEPTED, 1, SERVICE,
                LIMITS, 0, 0, null, 0, 0, 0, "", new PskExchange.Offer(1, new byte[32]).record()));
        // A proof frame announcing a 2 GiB body: refused from its 16 bytes, nothing read or allocated for it.
        byte[] hugeProof = Bootstrap.encodeFrame(Bootstrap.AUTH_PROOF, new byte[32]);
        MemorySegment.ofArray(hugeProof).set(ValueLayout.JAVA_INT_UNALIGNED, Bootstrap.FRAME_BODY_LENGTH_OFFSET,
                Integer.MIN_VALUE);
        try (Socket peer = new Socket(server.localAddress().getAddress(), server.localAddress().getPort())) {
            peer.setSoTimeout(10_000);
            peer.getOutputStream().write(hello);
            peer.getInputStream().readNBytes(48);
            peer.getOutputStream().write(Arrays.copyOf(hugeProof, Bootstrap.FRAME_LENGTH));
            Bootstrap.Endpoint welcome = readWelcome(peer);
            assertEquals(RefusalCode.MALFORMED, welcome.status());
            assertTrue(welcome.text().contains("bootstrap body length"), welcome::text);
        }
        // An offer whose value is one byte short.
        byte[] shortOffer = Bootstrap.encode(Bootstrap.HELLO, new Bootstrap.Endpoint(RefusalCode.ACCEPTED, 1, SERVICE,
                LIMITS, 0, 0, null, 0, 0, 0, "", PskExchange.record(PskExchange.EXTENSION_TYPE, new byte[35])));
        try (Socket peer = new Socket(server.localAddress().getAddress(), server.localAddress().getPort())) {
            peer.setSoTimeout(10_000);
            peer.getOutputStream().write(shortOffer);
            Bootstrap.Endpoint welcome = readWelcome(peer);
            assertEquals(RefusalCode.MALFORMED, welcome.status());
            assertTrue(welcome.text().contains("authentication offer length"), welcome::text);
        }
        long deadlineNs = System.nanoTime() + 30 * SECOND_NS;
        while (server.statistics().protocolViolations() < 2) {
            assertTrue(System.nanoTime() - deadlineNs < 0, "both violations are counted by the deadline");
            Thread.onSpinWait();
            Thread.yield();
        }
        assertEquals(2, server.statistics().protocolViolations(), "each violation is counted once");
        assertEquals(0, accepts.get());
    }

    @Test
    void aClientThatNeverSendsItsProofIsDroppedAtTheBootstrapDeadline() throws Exception {
        BootstrapServer server = server(ServerConfig.builder().authenticationKey(1, KEY_A)
                .bootstrapTimeout(Duration.ofMillis(300)));
        byte[] hello = Bootstrap.encode(Bootstrap.HELLO, new Bootstrap.Endpoint(RefusalCode.ACCEPTED, 1, SERVICE,
                LIMITS, 0, 0, null, 0, 0, 0, "", new PskExchange.Offer(1, new byte[32]).record()));
        try (Socket peer = new Socket(server.localAddress().getAddress(), server.localAddress().getPort())) {
            peer.setSoTimeout(10_000);
            peer.getOutputStream().write(hello);
            assertEquals(48, peer.getInputStream().readNBytes(48).length, "the challenge");
            assertEquals(-1, peer.getInputStream().read(), "closed without a WELCOME");
        }
        assertEquals(0, accepts.get());
        assertEquals(0, server.statistics().connectionsAccepted());
    }

    private static Bootstrap.Endpoint readHello(Socket socket) throws IOException {
        try {
            byte[] frame = socket.getInputStream().readNBytes(Bootstrap.FRAME_LENGTH);
            byte[] body = socket.getInputStream().readNBytes(Bootstrap.decodeFrame(frame, Bootstrap.HELLO).bodyLength());
            return Bootstrap.decodeBody(body);
        } catch (dev.ofl.api.wire.ProtocolException e) {
            throw new IOException(e);
        }
    }

    private static Bootstrap.Endpoint readWelcome(Socket socket) throws IOException {
        try {
            byte[] frame = socket.getInputStream().readNBytes(Bootstrap.FRAME_LENGTH);
            byte[] body = socket.getInputStream().readNBytes(
                    Bootstrap.decodeFrame(frame, Bootstrap.WELCOME).bodyLength());
            return Bootstrap.decodeBody(body);
        } catch (dev.ofl.api.wire.ProtocolException e) {
            throw new IOException(e);
        }
    }

    /** Rewrites one direction's bytes by their position in that direction's stream. */
    @FunctionalInterface
    private interface Rewrite {
        byte apply(long at, byte value);
    }

    /** A man in the middle on loopback: one connection, each direction copied through a rewrite. */
    private static final class Proxy implements AutoCloseable {
        private final ServerSocket listener;
        private final ByteArrayOutputStream fromClient = new ByteArrayOutputStream();
        private final List<Socket> sockets = new ArrayList<>();

        Proxy(InetSocketAddress target, Rewrite toServer, Rewrite toClient) throws IOException {
            listener = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
            Thread.ofPlatform().daemon().start(() -> {
                try {
                    Socket client = listener.accept();
                    Socket server = new Socket(target.getAddress(), target.getPort());
                    synchronized (sockets) {
                        sockets.add(client);
                        sockets.add(server);
                    }
                    Thread.ofPlatform().daemon().start(() -> pump(client, server, toServer, fromClient));
                    pump(server, client, toClient, null);
                } catch (IOException e) {
                    // The test closed the proxy.
                }
            });
        }

        private static void pump(Socket from, Socket to, Rewrite rewrite, ByteArrayOutputStream record) {
            try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
                byte[] buffer = new byte[8192];
                long at = 0;
                int n;
                while ((n = in.read(buffer)) > 0) {
                    for (int i = 0; i < n && rewrite != null; i++) {
                        buffer[i] = rewrite.apply(at + i, buffer[i]);
                    }
                    if (record != null) {
                        synchronized (record) {
                            record.write(buffer, 0, n);
                        }
                    }
                    out.write(buffer, 0, n);
                    at += n;
                }
            } catch (IOException e) {
                // One side closed: the other is closed with it.
            } finally {
                BootstrapIo.closeQuietly(from);
                BootstrapIo.closeQuietly(to);
            }
        }

        InetSocketAddress address() {
            return (InetSocketAddress) listener.getLocalSocketAddress();
        }

        byte[] clientBytes() {
            synchronized (fromClient) {
                return fromClient.toByteArray();
            }
        }

        @Override
        public void close() throws IOException {
            listener.close();
            synchronized (sockets) {
                sockets.forEach(BootstrapIo::closeQuietly);
            }
        }
    }

    /** A server that runs a script on one connection. */
    private static final class ScriptedServer implements AutoCloseable {
        private final ServerSocket listener;

        ScriptedServer() throws IOException {
            listener = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
        }

        interface Script {
            void run(Socket socket) throws IOException;
        }

        CompletableFuture<Void> run(Script script) {
            return CompletableFuture.runAsync(() -> {
                try (Socket socket = listener.accept()) {
                    socket.setSoTimeout(10_000);
                    script.run(socket);
                    socket.getInputStream().read();
                } catch (IOException e) {
                    throw new IllegalStateException(e);
                }
            });
        }

        InetSocketAddress address() {
            return (InetSocketAddress) listener.getLocalSocketAddress();
        }

        @Override
        public void close() throws IOException {
            listener.close();
        }
    }
}
