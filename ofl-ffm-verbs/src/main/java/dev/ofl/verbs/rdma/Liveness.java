package dev.ofl.verbs.rdma;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.util.function.Consumer;

/**
 * Watches the bootstrap socket of an RDMA connection: the peer sends nothing on it after the
 * bootstrap, so its end (or any byte) means the connection is over. The RDMA data path alone
 * would notice a dead peer only when it next sends; the socket tells at once.
 */
final class Liveness {
    private Liveness() {
    }

    /**
     * Starts a daemon thread that blocks reading {@code channel} and calls {@code onLoss} with a
     * reason when the peer closes, resets or writes; nothing when the channel is closed locally.
     */
    static Thread watch(SocketChannel channel, String name, Consumer<String> onLoss) {
        return Thread.ofPlatform().name(name).daemon().start(() -> {
            ByteBuffer one = ByteBuffer.allocate(1);
            String reason;
            try {
                int n = channel.read(one);
                reason = n < 0 ? "the peer closed the bootstrap connection"
                        : "the peer sent data on the bootstrap connection after the bootstrap";
            } catch (IOException e) {
                if (!channel.isOpen()) {
                    return;
                }
                reason = "the bootstrap connection failed: " + e;
            }
            if (channel.isOpen()) {
                onLoss.accept(reason);
            }
        });
    }
}
