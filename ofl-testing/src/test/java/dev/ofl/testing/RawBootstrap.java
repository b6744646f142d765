package dev.ofl.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

import dev.ofl.api.OflServer;
import dev.ofl.api.spi.BootstrapServer;
import dev.ofl.api.wire.Bootstrap;
import dev.ofl.api.wire.ProtocolException;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/** Raw-socket peers of a server's bootstrap, for the admission tests: open, read what comes back, wait for a state. */
final class RawBootstrap {
    /** How long a read or a wait may take before the test fails: far beyond any healthy machine's. */
    static final int WAIT_MS = 20_000;

    private RawBootstrap() {
    }

    /** A loopback source address, 127.0.0.{@code last}. */
    static InetAddress address(int last) {
        return new InetSocketAddress("127.0.0." + last, 0).getAddress();
    }

    /** Handshakes the server's listener holds or is deciding on. */
    static int pending(OflServer server) {
        return ((BootstrapServer) server).pendingHandshakes();
    }

    /** A socket connected to the server from {@code from}, reads bounded by {@link #WAIT_MS}. */
    static Socket open(OflServer server, InetAddress from) throws IOException {
        Socket socket = new Socket();
        try {
            socket.bind(new InetSocketAddress(from, 0));
            socket.connect(server.localAddress(), WAIT_MS);
            socket.setSoTimeout(WAIT_MS);
            return socket;
        } catch (IOException e) {
            socket.close();
            throw e;
        }
    }

    /** Reads one WELCOME (frame and body) and decodes its body. */
    static Bootstrap.Endpoint readWelcome(Socket socket) throws IOException, ProtocolException {
        InputStream in = socket.getInputStream();
        byte[] frame = in.readNBytes(Bootstrap.FRAME_LENGTH);
        byte[] body = in.readNBytes(Bootstrap.decodeFrame(frame, Bootstrap.WELCOME).bodyLength());
        return Bootstrap.decodeBody(body);
    }

    /** Decodes a whole WELCOME message, failing the test if it is anything else. */
    static Bootstrap.Endpoint welcome(byte[] message) {
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
    static byte[] readUntilClosed(Socket socket) throws IOException {
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

    /** Waits for a condition, looking every 2 ms; fails the test after {@link #WAIT_MS}. */
    static void awaitTrue(BooleanSupplier condition, Supplier<String> message) {
        long deadlineNs = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(WAIT_MS);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadlineNs >= 0) {
                fail(message.get());
            }
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(2));
        }
    }
}
