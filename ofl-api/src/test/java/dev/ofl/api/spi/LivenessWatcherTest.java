package dev.ofl.api.spi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(60)
class LivenessWatcherTest {
    private ServerSocketChannel listener;

    @BeforeEach
    void listen() throws IOException {
        listener = ServerSocketChannel.open().bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
    }

    @AfterEach
    void close() throws IOException {
        listener.close();
    }

    private SocketChannel[] pair() throws IOException {
        SocketChannel a = SocketChannel.open(listener.getLocalAddress());
        SocketChannel b = listener.accept();
        return new SocketChannel[] {a, b};
    }

    @Test
    void thePeerClosingIsReportedOnce() throws Exception {
        SocketChannel[] sockets = pair();
        BlockingQueue<String> losses = new ArrayBlockingQueue<>(4);
        LivenessWatcher.shared().watch(sockets[0], losses::add);
        sockets[1].close();
        String reason = losses.poll(30, TimeUnit.SECONDS);
        assertNotNull(reason, "the loss was never reported");
        assertTrue(reason.contains("closed"), reason);
        assertNull(losses.poll(200, TimeUnit.MILLISECONDS), "reported once");
        sockets[0].close();
    }

    @Test
    void aByteFromThePeerIsALoss() throws Exception {
        SocketChannel[] sockets = pair();
        BlockingQueue<String> losses = new ArrayBlockingQueue<>(4);
        LivenessWatcher.shared().watch(sockets[0], losses::add);
        sockets[1].write(ByteBuffer.wrap(new byte[] {1}));
        String reason = losses.poll(30, TimeUnit.SECONDS);
        assertNotNull(reason, "the loss was never reported");
        assertTrue(reason.contains("sent data"), reason);
        sockets[0].close();
        sockets[1].close();
    }

    @Test
    void aLocalCloseEndsTheWatchQuietly() throws Exception {
        SocketChannel[] sockets = pair();
        BlockingQueue<String> losses = new ArrayBlockingQueue<>(4);
        LivenessWatcher.shared().watch(sockets[0], losses::add);
        sockets[0].close();
        sockets[1].close();
        assertNull(losses.poll(300, TimeUnit.MILLISECONDS), "a local close is not a loss");
    }

    @Test
    void oneThreadWatchesManySockets() throws Exception {
        SocketChannel[][] pairs = new SocketChannel[16][];
        BlockingQueue<String> losses = new ArrayBlockingQueue<>(32);
        for (int i = 0; i < pairs.length; i++) {
            pairs[i] = pair();
            LivenessWatcher.shared().watch(pairs[i][0], losses::add);
        }
        long watchers = Thread.getAllStackTraces().keySet().stream()
                .filter(t -> t.getName().equals("ofl-liveness")).count();
        assertEquals(1, watchers, "one watcher thread for every socket");
        for (SocketChannel[] p : pairs) {
            p[1].close();
        }
        for (int i = 0; i < pairs.length; i++) {
            assertNotNull(losses.poll(30, TimeUnit.SECONDS), "loss " + i + " was never reported");
        }
        for (SocketChannel[] p : pairs) {
            p[0].close();
        }
    }
}
