package dev.ofl.tcp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ofl.api.ClientConfig;
import dev.ofl.api.Limits;
import dev.ofl.api.Ofl;
import dev.ofl.api.OflException;
import dev.ofl.api.OflRefusedException;
import dev.ofl.api.OflServer;
import dev.ofl.api.RefusalCode;
import dev.ofl.api.ServerConfig;
import dev.ofl.api.wire.Bootstrap;
import dev.ofl.api.wire.MessageHeader;
import dev.ofl.api.wire.ProtocolException;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.ByteOrder;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * docs/PROTOCOL.md 9.1 and 12: the frame's version is checked right after its magic, so that a
 * later version whose frame breaks version 1's rules (a longer body, another type or flags) still
 * gets VERSION_MISMATCH, and a client still names the server's version.
 */
@Timeout(60)
class VersionRuleTest {
    private static final ValueLayout.OfShort U16 = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfInt U32 = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final Limits LIMITS = new Limits(1024, 1 << 16, 4, 4);

    /** A frame of version 2 with a 100,000-byte body, type 1 and flags 1: version 1 would call it malformed. */
    private static byte[] futureFrame(int type) {
        byte[] frame = Arrays.copyOf(Bootstrap.encode(type,
                Bootstrap.Endpoint.tcp(RefusalCode.ACCEPTED, "versions", LIMITS, "")), Bootstrap.FRAME_LENGTH);
        MemorySegment.ofArray(frame).set(U16, Bootstrap.FRAME_VERSION_OFFSET, (short) 2);
        MemorySegment.ofArray(frame).set(U32, Bootstrap.FRAME_BODY_LENGTH_OFFSET, 100_000);
        frame[Bootstrap.FRAME_FLAGS_OFFSET] = 1;
        return frame;
    }

    @Test
    void aFutureVersionWithALongerBodyGetsVersionMismatch() throws IOException, ProtocolException {
        try (OflServer server = Ofl.serve(ServerConfig.builder()
                .bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0)).serviceName("versions")
                .limits(LIMITS).build(), (request, response) -> 0);
                Socket socket = new Socket(server.localAddress().getAddress(), server.localAddress().getPort())) {
            socket.setSoTimeout(10_000);
            socket.getOutputStream().write(futureFrame(Bootstrap.HELLO));
            // Part of the longer body: the server answers without waiting for the rest.
            socket.getOutputStream().write(new byte[4096]);
            byte[] frame = socket.getInputStream().readNBytes(Bootstrap.FRAME_LENGTH);
            Bootstrap.Frame decoded = Bootstrap.decodeFrame(frame, Bootstrap.WELCOME);
            assertEquals(MessageHeader.VERSION, decoded.version());
            Bootstrap.Endpoint welcome = Bootstrap.decodeBody(socket.getInputStream().readNBytes(decoded.bodyLength()));
            assertEquals(RefusalCode.VERSION_MISMATCH, welcome.status(), welcome::toString);
            assertTrue(welcome.text().contains("the client 2"), welcome::text);
        }
    }

    @Test
    void aClientNamesAFutureServerVersionWhateverItsBodyLength() throws Exception {
        try (ServerSocket listener = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            CompletableFuture<Void> peer = CompletableFuture.runAsync(() -> {
                try (Socket socket = listener.accept()) {
                    socket.getOutputStream().write(futureFrame(Bootstrap.WELCOME));
                    socket.getInputStream().readAllBytes();
                } catch (IOException e) {
                    throw new IllegalStateException(e);
                }
            });
            ClientConfig config = ClientConfig.builder()
                    .server((InetSocketAddress) listener.getLocalSocketAddress()).serviceName("versions")
                    .limits(LIMITS).connectTimeout(Duration.ofSeconds(10)).build();
            OflException e = assertThrows(OflException.class, () -> Ofl.connect(config).close());
            assertFalse(e instanceof OflRefusedException);
            assertTrue(e.getMessage().contains("protocol version 2"), e::getMessage);
            peer.get(10, TimeUnit.SECONDS);
        }
    }
}
