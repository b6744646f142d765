package dev.ofl.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ofl.api.Limits;
import dev.ofl.api.NanoClock;
import dev.ofl.api.Ofl;
import dev.ofl.api.RefusalCode;
import dev.ofl.api.ServerConfig;
import dev.ofl.api.spi.BootstrapIo;
import dev.ofl.api.spi.BootstrapServer;
import dev.ofl.api.wire.Bootstrap;
import dev.ofl.api.wire.MessageHeader;
import dev.ofl.api.wire.TransportKind;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A client that connected while the server closes is answered with
 * {@link RefusalCode#SHUTTING_DOWN}, not cut off: forced without a race, by sending the HELLO only
 * once the server holds the socket as a pending handshake and {@code close()} has begun.
 */
@Timeout(60)
class ShuttingDownRefusalTest {
    private static final Limits LIMITS = new Limits(4096, 4096, 4, 4);
    private static final String SERVICE = "shutting-down";

    @Test
    void aHelloArrivingWhileTheServerClosesIsRefusedWithShuttingDown() throws Exception {
        ServerConfig config = ServerConfig.builder().backend(FakeBackend.NAME)
                .bind(new InetSocketAddress("127.0.0.1", 0)).serviceName(SERVICE).limits(LIMITS)
                .bootstrapTimeout(Duration.ofSeconds(30)).drainTimeout(Duration.ofSeconds(30)).build();
        BootstrapServer server = (BootstrapServer) Ofl.serve(config, (request, response) -> 0);
        CompletableFuture<Void> closed;
        try (SocketChannel channel = SocketChannel.open(server.localAddress())) {
            awaitTrue(() -> server.pendingHandshakes() == 1, "the server holds the socket as a pending handshake");
            closed = CompletableFuture.runAsync(server::close);
            awaitTrue(server::closing, "close() began");
            Bootstrap.Endpoint hello = new Bootstrap.Endpoint(RefusalCode.ACCEPTED, TransportKind.IN_PROCESS, SERVICE,
                    LIMITS, 0, 0, null, 0, 0, 0, "", null);
            channel.write(ByteBuffer.wrap(Bootstrap.encode(Bootstrap.HELLO, hello)));
            Bootstrap.Frame frame = Bootstrap.decodeFrame(readFully(channel, Bootstrap.FRAME_LENGTH),
                    Bootstrap.WELCOME);
            assertEquals(MessageHeader.VERSION, frame.version());
            Bootstrap.Endpoint welcome = Bootstrap.decodeBody(readFully(channel, frame.bodyLength()));
            assertEquals(RefusalCode.SHUTTING_DOWN, welcome.status(), welcome::toString);
            assertTrue(welcome.text().contains("shutting down"), welcome.text());
        }
        closed.get(10, TimeUnit.SECONDS);
        assertEquals(0, server.connectionCount());
        assertEquals(1, server.statistics().connectionsRefused());
    }

    private static void awaitTrue(BooleanSupplier condition, String what) {
        long deadlineNs = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!condition.getAsBoolean()) {
            assertTrue(System.nanoTime() - deadlineNs < 0, what);
            Thread.onSpinWait();
        }
    }

    private static byte[] readFully(SocketChannel channel, int length) throws IOException {
        return BootstrapIo.readFully(channel, length, System.nanoTime() + TimeUnit.SECONDS.toNanos(10),
                NanoClock.SYSTEM);
    }
}
