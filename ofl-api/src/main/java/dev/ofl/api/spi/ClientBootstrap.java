package dev.ofl.api.spi;

import dev.ofl.api.ClientConfig;
import dev.ofl.api.NanoClock;
import dev.ofl.api.OflException;
import dev.ofl.api.OflRefusedException;
import dev.ofl.api.PeerKeys;
import dev.ofl.api.RefusalCode;
import dev.ofl.api.wire.Bootstrap;
import dev.ofl.api.wire.FailureReason;
import dev.ofl.api.wire.MessageHeader;
import dev.ofl.api.wire.PeerText;
import dev.ofl.api.wire.ProtocolException;
import dev.ofl.api.wire.PskExchange;
import java.io.EOFException;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.channels.DatagramChannel;
import java.nio.channels.SocketChannel;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import javax.crypto.Mac;

/**
 * The client side of the bootstrap, shared by every backend: send the HELLO, read and check the
 * WELCOME, and make sure the server accepted exactly what was proposed.
 */
public final class ClientBootstrap {
    private static final int SOCKET_BUFFER_BYTES = 4 << 20;

    private ClientBootstrap() {
    }

    /**
     * The local address the bootstrap connection leaves from: the configured one, else the one
     * the host's routing chooses for the server, found with a connected datagram socket (which
     * sends nothing). A transport that must build its endpoint for that address (an RDMA device
     * and GID) does so before {@link #open(ClientConfig, InetAddress, Duration)}.
     *
     * @param config the client's settings
     * @return the address to connect from
     * @throws IOException if no route leads to the server
     */
    public static InetAddress sourceAddress(ClientConfig config) throws IOException {
        if (config.localAddress() != null) {
            return config.localAddress();
        }
        try (DatagramChannel probe = SocketFamily.datagram(config.server().getAddress())) {
            probe.connect(config.server());
            return ((InetSocketAddress) probe.getLocalAddress()).getAddress();
        }
    }

    /**
     * Opens the bootstrap connection: a socket of the server address's family, TCP_NODELAY,
     * keep-alive, large socket buffers, bound to the configured local address if any, connected
     * within the connect timeout.
     *
     * @param config the client's settings
     * @return a connected channel in blocking mode
     * @throws IOException if the connection cannot be made
     */
    public static SocketChannel open(ClientConfig config) throws IOException {
        return open(config, config.localAddress(), config.connectTimeout());
    }

    /**
     * Opens the bootstrap connection from {@code local}, as {@link #open(ClientConfig)} does from
     * the configured local address: for a transport that prepared its endpoint for the address
     * {@link #sourceAddress(ClientConfig)} named before connecting, so that its HELLO can follow
     * the connect at once (a server drops a handshake whose HELLO is late, docs/PROTOCOL.md 3.4),
     * and whose preparation took part of the connect timeout.
     *
     * @param config the client's settings
     * @param local the address to connect from, or {@code null} for the one routing chooses
     * @param timeout the bound of the TCP connect: what is left of the connect timeout
     * @return a connected channel in blocking mode
     * @throws IOException if the connection cannot be made
     */
    public static SocketChannel open(ClientConfig config, InetAddress local, Duration timeout) throws IOException {
        SocketChannel channel = SocketFamily.connecting(config.server().getAddress(), local);
        try {
            channel.setOption(StandardSocketOptions.TCP_NODELAY, true);
            channel.setOption(StandardSocketOptions.SO_KEEPALIVE, true);
            channel.setOption(StandardSocketOptions.SO_RCVBUF, SOCKET_BUFFER_BYTES);
            channel.setOption(StandardSocketOptions.SO_SNDBUF, SOCKET_BUFFER_BYTES);
            if (local != null) {
                channel.bind(new InetSocketAddress(local, 0));
            }
            // Saturated: Socket.connect takes an int of milliseconds (about 24.8 days at most).
            channel.socket().connect(config.server(),
                    Math.clamp(TimeUnit.MILLISECONDS.convert(timeout), 1, Integer.MAX_VALUE));
            return channel;
        } catch (IOException | RuntimeException e) {
            BootstrapIo.closeQuietly(channel);
            throw e;
        }
    }

    /**
     * Runs the exchange on a connected, blocking channel, without peer authentication.
     *
     * @param channel the connected socket
     * @param server the server's address, for messages
     * @param hello what this client proposes
     * @param deadlineNs instant on {@code clock} by which the WELCOME must have arrived
     * @param clock the clock of the deadline
     * @return the server's accepting WELCOME
     * @throws OflRefusedException if the server refused, with its reason
     * @throws OflException if the WELCOME is malformed, of another version, or accepts other
     *     parameters than proposed
     * @throws IOException if the socket fails or the deadline passes
     */
    public static Bootstrap.Endpoint exchange(SocketChannel channel, InetSocketAddress server, Bootstrap.Endpoint hello,
            long deadlineNs, NanoClock clock) throws IOException {
        return exchange(channel, server, hello, deadlineNs, clock, PeerKeys.NONE);
    }

    /**
     * Runs the exchange on a connected, blocking channel. With a key, the HELLO offers it, the
     * client answers the server's challenge, and the WELCOME is accepted only if it proves the
     * same key over the whole exchange (docs/PROTOCOL.md 3.8): a server that accepts without
     * proving it is refused.
     *
     * @param channel the connected socket
     * @param server the server's address, for messages
     * @param proposed what this client proposes, without an authentication record (the offer of
     *     failure reasons is added here)
     * @param deadlineNs instant on {@code clock} by which the WELCOME must have arrived
     * @param clock the clock of the deadline
     * @param keys the client's key ({@link PeerKeys#firstKeyId()}), or {@link PeerKeys#NONE}
     * @return the server's accepting WELCOME, without its authentication record
     * @throws OflRefusedException if the server refused, with its reason
     * @throws OflException if the WELCOME is malformed, of another version, accepts other
     *     parameters than proposed, or does not prove the key
     * @throws IOException if the socket fails or the deadline passes
     */
    public static Bootstrap.Endpoint exchange(SocketChannel channel, InetSocketAddress server, Bootstrap.Endpoint proposed,
            long deadlineNs, NanoClock clock, PeerKeys keys) throws IOException {
        // Every ofl client takes a reason with HANDLER_FAILED (docs/PROTOCOL.md 3.7).
        Bootstrap.Endpoint hello = PeerAuthentication.withExtensions(proposed,
                PeerAuthentication.concat(proposed.extensions(), FailureReason.record()));
        if (keys.isEmpty()) {
            BootstrapIo.writeFully(channel, Bootstrap.encode(Bootstrap.HELLO, hello));
            Bootstrap.Endpoint welcome = readWelcome(channel, server, readFrame(channel, server, deadlineNs, clock,
                    Bootstrap.WELCOME), deadlineNs, clock).endpoint;
            return checkAccepted(server, hello, welcome);
        }
        int keyId = keys.firstKeyId();
        byte[] helloMessage = Bootstrap.encode(Bootstrap.HELLO, PeerAuthentication.withExtensions(hello,
                PeerAuthentication.concat(hello.extensions(), new PskExchange.Offer(keyId, PeerAuthentication.nonce()).record())));
        BootstrapIo.writeFully(channel, helloMessage);
        byte[] frame = readFrame(channel, server, deadlineNs, clock, Bootstrap.AUTH_CHALLENGE);
        if (frame[Bootstrap.FRAME_TYPE_OFFSET] != Bootstrap.AUTH_CHALLENGE) {
            Bootstrap.Endpoint welcome = readWelcome(channel, server, frame, deadlineNs, clock).endpoint;
            throw new OflException("server " + server + " accepted without authenticating: it does not hold "
                    + "authentication keys (or something between strips the offer); this client requires it to "
                    + "prove key id " + Integer.toUnsignedString(keyId) + ", so it refuses " + welcome);
        }
        byte[] challenge = PeerAuthentication.concat(frame,
                BootstrapIo.readFully(channel, Bootstrap.AUTH_BODY_LENGTH, deadlineNs, clock));
        Mac mac = keys.mac(keyId);
        byte[] proof = Bootstrap.encodeFrame(Bootstrap.AUTH_PROOF, PskExchange.clientProof(mac, helloMessage,
                challenge));
        BootstrapIo.writeFully(channel, proof);
        Welcome welcome = readWelcome(channel, server, readFrame(channel, server, deadlineNs, clock,
                Bootstrap.WELCOME), deadlineNs, clock);
        byte[] serverMac;
        try {
            serverMac = PskExchange.findServerProof(welcome.endpoint.extensions());
        } catch (ProtocolException e) {
            throw new OflException("server " + server + " sent a malformed WELCOME: " + e.getMessage(), e);
        }
        if (serverMac == null) {
            throw new OflException("server " + server + " accepted without proving key id "
                    + Integer.toUnsignedString(keyId) + "; this client requires the proof, so it refuses "
                    + welcome.endpoint);
        }
        byte[] expected = PskExchange.serverProof(mac, helloMessage, challenge, proof, welcome.message);
        if (!MessageDigest.isEqual(expected, serverMac)) {
            throw new OflException("server " + server + " did not prove key id " + Integer.toUnsignedString(keyId)
                    + ": its proof is wrong, so it holds another key under that id or the exchange was changed on "
                    + "the way; refusing it");
        }
        return checkAccepted(server, hello, PeerAuthentication.withExtensions(welcome.endpoint,
                PskExchange.withoutAuthentication(welcome.endpoint.extensions())));
    }

    /**
     * Whether the server answered the offer of failure reasons: it then may send a reason with
     * {@code HANDLER_FAILED} ({@link FailureReason}).
     *
     * @param welcome a WELCOME {@link #exchange} returned (its extensions checked)
     * @return {@code true} if the answer is there
     */
    public static boolean failureReasons(Bootstrap.Endpoint welcome) {
        try {
            return FailureReason.present(welcome.extensions());
        } catch (ProtocolException e) {
            throw new IllegalArgumentException("not a WELCOME that exchange() returned: " + e.getMessage(), e);
        }
    }

    /** A WELCOME as received and as decoded. */
    private record Welcome(byte[] message, Bootstrap.Endpoint endpoint) {
    }

    /** Reads a frame that is a WELCOME or the other expected type; a foreign version fails here. */
    private static byte[] readFrame(SocketChannel channel, InetSocketAddress server, long deadlineNs, NanoClock clock,
            int otherType) throws IOException {
        byte[] frame;
        try {
            frame = BootstrapIo.readFully(channel, Bootstrap.FRAME_LENGTH, deadlineNs, clock);
        } catch (EOFException e) {
            // Not a word: the server dropped the handshake, and only its log says why.
            EOFException named = new EOFException(e.getMessage() + "; the server closed it without an answer, as it"
                    + " does when the HELLO (or the authentication proof) arrives after its bootstrap timeout"
                    + " (ServerConfig.bootstrapTimeout, counted from its accept) or when it cannot set up the"
                    + " connection; its log says which");
            named.initCause(e);
            throw named;
        }
        try {
            Bootstrap.Frame decoded = Bootstrap.decodeFrame(frame, Bootstrap.WELCOME, otherType);
            if (decoded.version() != MessageHeader.VERSION) {
                throw new OflException("server " + server + " answered in protocol version " + decoded.version()
                        + "; this client speaks version " + MessageHeader.VERSION);
            }
        } catch (ProtocolException e) {
            throw new OflException("server " + server + " sent a malformed WELCOME: " + e.getMessage(), e);
        }
        return frame;
    }

    /** Reads a WELCOME's body after its checked frame; a refusal is thrown. */
    private static Welcome readWelcome(SocketChannel channel, InetSocketAddress server, byte[] frame, long deadlineNs,
            NanoClock clock) throws IOException {
        Bootstrap.Endpoint welcome;
        byte[] body;
        try {
            body = BootstrapIo.readFully(channel, Bootstrap.decodeFrame(frame, Bootstrap.WELCOME).bodyLength(),
                    deadlineNs, clock);
            welcome = Bootstrap.decodeBody(body);
        } catch (ProtocolException e) {
            throw new OflException("server " + server + " sent a malformed WELCOME: " + e.getMessage(), e);
        }
        if (welcome.status() != RefusalCode.ACCEPTED) {
            throw new OflRefusedException(welcome.status(), "server " + server + " refused the connection ("
                    + welcome.status() + "): " + PeerText.escape(welcome.text()));
        }
        return new Welcome(PeerAuthentication.concat(frame, body), welcome);
    }

    private static Bootstrap.Endpoint checkAccepted(InetSocketAddress server, Bootstrap.Endpoint hello,
            Bootstrap.Endpoint welcome) {
        int critical = Bootstrap.firstCriticalExtension(welcome.extensions());
        if (critical >= 0) {
            throw new OflException("server " + server + " requires extension type 0x"
                    + Integer.toHexString(critical) + ", which this client does not support");
        }
        try {
            FailureReason.present(welcome.extensions());
        } catch (ProtocolException e) {
            throw new OflException("server " + server + " sent a malformed WELCOME: " + e.getMessage(), e);
        }
        if (welcome.transport() != hello.transport() || !welcome.limits().equals(hello.limits())
                || !welcome.serviceName().equals(hello.serviceName())) {
            throw new OflException("server " + server + " accepted with other parameters than proposed: "
                    + welcome + "; proposed " + hello);
        }
        return welcome;
    }
}
