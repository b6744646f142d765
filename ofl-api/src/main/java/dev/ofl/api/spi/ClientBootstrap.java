package dev.ofl.api.spi;

import dev.ofl.api.ClientConfig;
import dev.ofl.api.NanoClock;
import dev.ofl.api.OflException;
import dev.ofl.api.OflRefusedException;
import dev.ofl.api.RefusalCode;
import dev.ofl.api.wire.Bootstrap;
import dev.ofl.api.wire.MessageHeader;
import dev.ofl.api.wire.PeerText;
import dev.ofl.api.wire.ProtocolException;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.channels.SocketChannel;

/**
 * The client side of the bootstrap, shared by every backend: send the HELLO, read and check the
 * WELCOME, and make sure the server accepted exactly what was proposed.
 */
public final class ClientBootstrap {
    private static final int SOCKET_BUFFER_BYTES = 4 << 20;

    private ClientBootstrap() {
    }

    /**
     * Opens the bootstrap connection: TCP_NODELAY, keep-alive, large socket buffers, bound to the
     * configured local address if any, connected within the connect timeout.
     *
     * @param config the client's settings
     * @return a connected channel in blocking mode
     * @throws IOException if the connection cannot be made
     */
    public static SocketChannel open(ClientConfig config) throws IOException {
        SocketChannel channel = SocketChannel.open();
        try {
            channel.setOption(StandardSocketOptions.TCP_NODELAY, true);
            channel.setOption(StandardSocketOptions.SO_KEEPALIVE, true);
            channel.setOption(StandardSocketOptions.SO_RCVBUF, SOCKET_BUFFER_BYTES);
            channel.setOption(StandardSocketOptions.SO_SNDBUF, SOCKET_BUFFER_BYTES);
            if (config.localAddress() != null) {
                channel.bind(new InetSocketAddress(config.localAddress(), 0));
            }
            channel.socket().connect(config.server(), (int) Math.max(1, config.connectTimeout().toMillis()));
            return channel;
        } catch (IOException | RuntimeException e) {
            BootstrapIo.closeQuietly(channel);
            throw e;
        }
    }

    /**
     * Runs the exchange on a connected, blocking channel.
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
        BootstrapIo.writeFully(channel, Bootstrap.encode(Bootstrap.HELLO, hello));
        Bootstrap.Endpoint welcome;
        try {
            Bootstrap.Frame frame = Bootstrap.decodeFrame(
                    BootstrapIo.readFully(channel, Bootstrap.FRAME_LENGTH, deadlineNs, clock), Bootstrap.WELCOME);
            if (frame.version() != MessageHeader.VERSION) {
                throw new OflException("server " + server + " answered in protocol version " + frame.version()
                        + "; this client speaks version " + MessageHeader.VERSION);
            }
            welcome = Bootstrap.decodeBody(BootstrapIo.readFully(channel, frame.bodyLength(), deadlineNs, clock));
        } catch (ProtocolException e) {
            throw new OflException("server " + server + " sent a malformed WELCOME: " + e.getMessage(), e);
        }
        if (welcome.status() != RefusalCode.ACCEPTED) {
            throw new OflRefusedException(welcome.status(), "server " + server + " refused the connection ("
                    + welcome.status() + "): " + PeerText.escape(welcome.text()));
        }
        int critical = Bootstrap.firstCriticalExtension(welcome.extensions());
        if (critical >= 0) {
            throw new OflException("server " + server + " requires extension type 0x"
                    + Integer.toHexString(critical) + ", which this client does not support");
        }
        if (welcome.transport() != hello.transport() || !welcome.limits().equals(hello.limits())
                || !welcome.serviceName().equals(hello.serviceName())) {
            throw new OflException("server " + server + " accepted with other parameters than proposed: "
                    + welcome + "; proposed " + hello);
        }
        return welcome;
    }
}
