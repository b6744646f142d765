package dev.ofl.tcp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ofl.api.Limits;
import dev.ofl.api.Ofl;
import dev.ofl.api.OflServer;
import dev.ofl.api.RefusalCode;
import dev.ofl.api.ServerConfig;
import dev.ofl.api.spi.ServerMemory;
import dev.ofl.api.wire.Bootstrap;
import dev.ofl.api.wire.ProtocolException;
import dev.ofl.conformance.Conditions;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * What clients that say HELLO and send no request cost a TCP server, by the server's own
 * accounting ({@link ServerMemory}): at most 64 KiB each while they stay, no staging at all, and
 * nothing left after a thousand of them came and went.
 */
@Timeout(120)
class HelloAndLeaveMemoryTest {
    private static final long PER_HELLO_BYTES = 64 << 10;
    private static final String SERVICE = "hello-and-leave";

    /** Sends a HELLO with the client defaults and reads the WELCOME; the caller closes. */
    private static SocketChannel hello(InetSocketAddress server) throws IOException, ProtocolException {
        SocketChannel channel = SocketChannel.open(server);
        channel.write(ByteBuffer.wrap(Bootstrap.encode(Bootstrap.HELLO,
                Bootstrap.Endpoint.tcp(RefusalCode.ACCEPTED, SERVICE, Limits.CLIENT_DEFAULTS, ""))));
        ByteBuffer frame = ByteBuffer.allocate(Bootstrap.FRAME_LENGTH);
        while (frame.hasRemaining()) {
            if (channel.read(frame) < 0) {
                throw new IOException("the server closed before its WELCOME");
            }
        }
        Bootstrap.Frame decoded = Bootstrap.decodeFrame(frame.array(), Bootstrap.WELCOME);
        ByteBuffer body = ByteBuffer.allocate(decoded.bodyLength());
        while (body.hasRemaining()) {
            if (channel.read(body) < 0) {
                throw new IOException("the server closed in its WELCOME");
            }
        }
        assertEquals(RefusalCode.ACCEPTED, Bootstrap.decodeBody(body.array()).status());
        return channel;
    }

    @Test
    void helloThenLeaveCommitsAtMost64KiBAndLeavesNothingBehind() throws Exception {
        // Caps above the 1,020 connections: a loaded host may reap closed connections more slowly
        // than the loop opens new ones, and the default cap (64) would then answer SERVER_BUSY.
        ServerConfig config = ServerConfig.builder().bind(new InetSocketAddress("127.0.0.1", 0)).serviceName(SERVICE)
                .maxConnections(1_100).maxConnectionsPerAddress(1_100).build();
        try (OflServer server = Ofl.serve(config, (request, response) -> 0)) {
            long receiveBefore = ServerMemory.receiveBytes();
            long stagingBefore = ServerMemory.stagingBytes();
            List<SocketChannel> held = new ArrayList<>();
            try {
                for (int i = 0; i < 20; i++) {
                    held.add(hello(server.localAddress()));
                }
                Conditions.await(() -> server.connectionCount() == 20, "20 accepted connections");
                long committed = ServerMemory.receiveBytes() - receiveBefore;
                assertTrue(committed > 0 && committed <= 20 * PER_HELLO_BYTES,
                        "20 idle connections commit " + committed + " bytes");
                assertEquals(stagingBefore, ServerMemory.stagingBytes(), "no staging for clients that ask nothing");
            } finally {
                for (SocketChannel channel : held) {
                    channel.close();
                }
            }
            for (int i = 0; i < 1_000; i++) {
                hello(server.localAddress()).close();
            }
            Conditions.await(() -> server.connectionCount() == 0, "every connection to end");
            Conditions.await(() -> ServerMemory.receiveBytes() <= receiveBefore,
                    "the receive memory of 1,020 connections to be freed");
            assertEquals(stagingBefore, ServerMemory.stagingBytes());
            assertEquals(1_020, server.statistics().connectionsAccepted());
        }
    }
}
