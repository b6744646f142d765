package dev.ofl.api.spi;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ofl.api.ClientConfig;
import dev.ofl.api.Limits;
import dev.ofl.api.NanoClock;
import dev.ofl.api.OflException;
import dev.ofl.api.OflRefusedException;
import dev.ofl.api.PeerKeys;
import dev.ofl.api.RefusalCode;
import dev.ofl.api.wire.Bootstrap;
import dev.ofl.api.wire.FailureReason;
import dev.ofl.api.wire.PskExchange;
import dev.ofl.api.wire.TransportKind;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The client side of the bootstrap against a scripted peer on loopback: the client takes an
 * accepting WELCOME only if it accepts exactly what was proposed.
 */
@Timeout(60)
class ClientBootstrapTest {
    private static final Limits LIMITS = new Limits(4096, 1 << 20, 4, 8);
    private static final long SECOND_NS = TimeUnit.SECONDS.toNanos(1);

    private ServerSocketChannel listener;
    private InetSocketAddress address;
    private final Bootstrap.Endpoint hello = Bootstrap.Endpoint.tcp(RefusalCode.ACCEPTED, "svc", LIMITS, "");

    @BeforeEach
    void listen() throws IOException {
        listener = ServerSocketChannel.open().bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
        address = (InetSocketAddress) listener.getLocalAddress();
    }

    @AfterEach
    void close() throws IOException {
        listener.close();
    }

    /** Accepts one client, reads its HELLO, and answers with what {@code answer} makes of it. */
    private CompletableFuture<byte[]> peer(UnaryOperator<byte[]> answer) {
        return CompletableFuture.supplyAsync(() -> {
            try (SocketChannel channel = listener.accept()) {
                long deadlineNs = System.nanoTime() + 10 * SECOND_NS;
                byte[] frame = BootstrapIo.readFully(channel, Bootstrap.FRAME_LENGTH, deadlineNs, NanoClock.SYSTEM);
                int bodyLength = Bootstrap.decodeFrame(frame, Bootstrap.HELLO).bodyLength();
                byte[] body = BootstrapIo.readFully(channel, bodyLength, deadlineNs, NanoClock.SYSTEM);
                byte[] received = new byte[frame.length + body.length];
                System.arraycopy(frame, 0, received, 0, frame.length);
                System.arraycopy(body, 0, received, frame.length, body.length);
                byte[] reply = answer.apply(received);
                if (reply != null) {
                    BootstrapIo.writeFully(channel, reply);
                }
                BootstrapIo.drain(channel, System.nanoTime() + 2 * SECOND_NS, NanoClock.SYSTEM);
                return received;
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
    }

    private Bootstrap.Endpoint exchange(long deadlineNs) throws IOException {
        try (SocketChannel channel = SocketChannel.open(address)) {
            return ClientBootstrap.exchange(channel, address, hello, deadlineNs, NanoClock.SYSTEM);
        }
    }

    private static byte[] welcome(Bootstrap.Endpoint endpoint) {
        return Bootstrap.encode(Bootstrap.WELCOME, endpoint);
    }

    private static final PeerKeys KEYS = PeerKeys.NONE.with(5, new byte[32]);

    /**
     * An authenticating server's whole answer at once: it can compute the client's proof itself,
     * so the challenge and the sealed WELCOME (changed by {@code tamper}) go out together.
     */
    private static byte[] authenticatedAnswer(byte[] helloMessage, PeerKeys serverKeys, int tamperAt) {
        byte[] challenge = Bootstrap.encodeFrame(Bootstrap.AUTH_CHALLENGE, new byte[32]);
        byte[] proof = Bootstrap.encodeFrame(Bootstrap.AUTH_PROOF,
                PskExchange.clientProof(serverKeys.mac(5), helloMessage, challenge));
        Bootstrap.Endpoint accepted = new Bootstrap.Endpoint(RefusalCode.ACCEPTED, TransportKind.TCP, "svc", LIMITS,
                0, 0, null, 0, 0, 0, "", PskExchange.withProofPlaceholder(new byte[0]));
        byte[] sealed = Bootstrap.encode(Bootstrap.WELCOME, accepted);
        PskExchange.fillServerProof(sealed, PskExchange.serverProof(serverKeys.mac(5), helloMessage, challenge, proof,
                sealed));
        if (tamperAt >= 0) {
            sealed[tamperAt] ^= 1;
        }
        byte[] answer = Arrays.copyOf(challenge, challenge.length + sealed.length);
        System.arraycopy(sealed, 0, answer, challenge.length, sealed.length);
        return answer;
    }

    private Bootstrap.Endpoint authenticatedExchange() throws IOException {
        try (SocketChannel channel = SocketChannel.open(address)) {
            return ClientBootstrap.exchange(channel, address, hello, System.nanoTime() + 10 * SECOND_NS,
                    NanoClock.SYSTEM, KEYS);
        }
    }

    @Test
    void aServerThatProvesTheKeyIsAcceptedWithoutItsRecord() throws Exception {
        CompletableFuture<byte[]> peer = peer(h -> authenticatedAnswer(h, KEYS, -1));
        Bootstrap.Endpoint accepted = authenticatedExchange();
        assertEquals(0, accepted.extensions().length, "the proof record is taken out");
        byte[] sent = peer.get(10, TimeUnit.SECONDS);
        PskExchange.Offer offer = PskExchange.findOffer(Bootstrap.decodeBody(
                Arrays.copyOfRange(sent, Bootstrap.FRAME_LENGTH, sent.length)).extensions());
        assertEquals(5, offer.keyId());
    }

    @Test
    void aServerWithAnotherKeyOrAChangedWelcomeIsRefused() throws Exception {
        PeerKeys other = PeerKeys.NONE.with(5, new byte[] {1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
            0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0});
        peer(h -> authenticatedAnswer(h, other, -1));
        OflException wrongKey = assertThrows(OflException.class, this::authenticatedExchange);
        assertTrue(wrongKey.getMessage().contains("did not prove key id 5"), wrongKey::getMessage);
        peer(h -> authenticatedAnswer(h, KEYS, Bootstrap.FRAME_LENGTH + Bootstrap.QPN_OFFSET));
        OflException changed = assertThrows(OflException.class, this::authenticatedExchange);
        assertTrue(changed.getMessage().contains("did not prove key id 5"), changed::getMessage);
    }

    @Test
    void aServerThatSkipsAuthenticationIsRefused() throws Exception {
        peer(h -> welcome(hello));
        OflException e = assertThrows(OflException.class, this::authenticatedExchange);
        assertFalse(e instanceof OflRefusedException);
        assertTrue(e.getMessage().contains("accepted without authenticating"), e::getMessage);
        peer(h -> {
            byte[] challengeOnly = authenticatedAnswer(h, KEYS, -1);
            byte[] plain = welcome(hello);
            byte[] answer = Arrays.copyOf(challengeOnly, 48 + plain.length);
            System.arraycopy(plain, 0, answer, 48, plain.length);
            return answer;
        });
        OflException noProof = assertThrows(OflException.class, this::authenticatedExchange);
        assertTrue(noProof.getMessage().contains("accepted without proving key id 5"), noProof::getMessage);
    }

    @Test
    void anAcceptingWelcomeOfTheProposedParametersIsReturned() throws Exception {
        CompletableFuture<byte[]> peer = peer(h -> welcome(hello));
        Bootstrap.Endpoint accepted = exchange(System.nanoTime() + 10 * SECOND_NS);
        assertEquals(RefusalCode.ACCEPTED, accepted.status());
        assertEquals(LIMITS, accepted.limits());
        assertArrayEquals(Bootstrap.encode(Bootstrap.HELLO, new Bootstrap.Endpoint(hello.status(), hello.transport(),
                hello.serviceName(), hello.limits(), 0, 0, null, 0, 0, 0, "", FailureReason.record())),
                peer.get(10, TimeUnit.SECONDS), "the HELLO is sent as encoded, with the offer of failure reasons");
        assertFalse(ClientBootstrap.failureReasons(accepted), "a WELCOME without the answer");
    }

    @Test
    void aWelcomeThatAnswersTheOfferOfFailureReasonsIsSeenToDoSo() throws Exception {
        peer(h -> welcome(new Bootstrap.Endpoint(hello.status(), hello.transport(), hello.serviceName(),
                hello.limits(), 0, 0, null, 0, 0, 0, "", FailureReason.record())));
        assertTrue(ClientBootstrap.failureReasons(exchange(System.nanoTime() + 10 * SECOND_NS)));
    }

    @Test
    void aWelcomeThatAnswersTwiceIsMalformed() {
        byte[] twice = new byte[8];
        System.arraycopy(FailureReason.record(), 0, twice, 0, 4);
        System.arraycopy(FailureReason.record(), 0, twice, 4, 4);
        peer(h -> welcome(new Bootstrap.Endpoint(hello.status(), hello.transport(), hello.serviceName(),
                hello.limits(), 0, 0, null, 0, 0, 0, "", twice)));
        OflException e = assertThrows(OflException.class, () -> exchange(System.nanoTime() + 10 * SECOND_NS));
        assertTrue(e.getMessage().contains("malformed WELCOME") && e.getMessage().contains("failure reason"),
                e::getMessage);
    }

    @Test
    void aRefusalIsThrownWithItsCodeAndReason() {
        peer(h -> welcome(Bootstrap.Endpoint.tcp(RefusalCode.SERVER_BUSY, "svc", LIMITS, "full up")));
        OflRefusedException e = assertThrows(OflRefusedException.class,
                () -> exchange(System.nanoTime() + 10 * SECOND_NS));
        assertEquals(RefusalCode.SERVER_BUSY, e.code());
        assertEquals("server " + address + " refused the connection (SERVER_BUSY): full up", e.getMessage());
    }

    @Test
    void aWelcomeInAnotherVersionIsRefused() {
        peer(h -> {
            byte[] reply = welcome(hello);
            ByteBuffer.wrap(reply).order(ByteOrder.LITTLE_ENDIAN).putShort(Bootstrap.FRAME_VERSION_OFFSET, (short) 2);
            return reply;
        });
        OflException e = assertThrows(OflException.class, () -> exchange(System.nanoTime() + 10 * SECOND_NS));
        assertEquals("server " + address + " answered in protocol version 2; this client speaks version 1",
                e.getMessage());
    }

    @Test
    void aMalformedWelcomeIsRefused() {
        peer(h -> {
            byte[] reply = welcome(hello);
            reply[Bootstrap.FRAME_MAGIC_OFFSET] ^= 0x20;
            return reply;
        });
        OflException e = assertThrows(OflException.class, () -> exchange(System.nanoTime() + 10 * SECOND_NS));
        assertTrue(e.getMessage().startsWith("server " + address + " sent a malformed WELCOME: "), e.getMessage());
        assertFalse(e instanceof OflRefusedException);
    }

    @Test
    void aWelcomeRequiringACriticalExtensionIsRefused() {
        peer(h -> welcome(new Bootstrap.Endpoint(RefusalCode.ACCEPTED, TransportKind.TCP, "svc", LIMITS, 0, 0, null,
                0, 0, 0, "", new byte[] {0x01, 0x00, 0x00, 0x00, 0x05, (byte) 0x80, 0x00, 0x00})));
        OflException e = assertThrows(OflException.class, () -> exchange(System.nanoTime() + 10 * SECOND_NS));
        assertEquals("server " + address + " requires extension type 0x8005, which this client does not support",
                e.getMessage());
    }

    @Test
    void aWelcomeWithOtherParametersThanProposedIsRefused() {
        Bootstrap.Endpoint[] others = {
            Bootstrap.Endpoint.tcp(RefusalCode.ACCEPTED, "svc", new Limits(4096, 1 << 20, 4, 4), ""),
            Bootstrap.Endpoint.tcp(RefusalCode.ACCEPTED, "other", LIMITS, ""),
            new Bootstrap.Endpoint(RefusalCode.ACCEPTED, TransportKind.RDMA, "svc", LIMITS, 0, 0, null, 0, 0, 0, "",
                    null),
        };
        for (Bootstrap.Endpoint other : others) {
            peer(h -> welcome(other));
            OflException e = assertThrows(OflException.class, () -> exchange(System.nanoTime() + 10 * SECOND_NS));
            assertTrue(e.getMessage().contains("accepted with other parameters than proposed"), e.getMessage());
        }
    }

    @Test
    void aSilentServerFailsTheExchangeAtTheDeadline() {
        CompletableFuture<byte[]> peer = peer(h -> null);
        assertThrows(IOException.class, () -> exchange(System.nanoTime() + 200_000_000L));
        peer.cancel(true);
    }

    @Test
    void openBindsTheConfiguredLocalAddressAndConnects() throws Exception {
        ClientConfig config = ClientConfig.builder().server(address).serviceName("svc")
                .localAddress(InetAddress.getLoopbackAddress()).connectTimeout(Duration.ofSeconds(5)).build();
        CompletableFuture<SocketChannel> accepted = CompletableFuture.supplyAsync(() -> {
            try {
                return listener.accept();
            } catch (IOException e) {
                throw new IllegalStateException(e);
            }
        });
        try (SocketChannel channel = ClientBootstrap.open(config);
                SocketChannel peer = accepted.get(10, TimeUnit.SECONDS)) {
            assertTrue(channel.isConnected());
            assertTrue(channel.isBlocking());
            assertEquals(InetAddress.getLoopbackAddress(),
                    ((InetSocketAddress) channel.getLocalAddress()).getAddress());
            assertEquals(channel.getLocalAddress(), peer.getRemoteAddress());
        }
    }

    @Test
    void openFailsWhenNothingListens() throws IOException {
        listener.close();
        ClientConfig config = ClientConfig.builder().server(address).serviceName("svc")
                .connectTimeout(Duration.ofSeconds(5)).build();
        assertThrows(IOException.class, () -> ClientBootstrap.open(config));
    }
}
