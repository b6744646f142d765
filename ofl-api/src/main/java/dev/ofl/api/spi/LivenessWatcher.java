package dev.ofl.api.spi;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.CancelledKeyException;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Watches the bootstrap sockets of connections whose data travels elsewhere (RDMA): the peer sends
 * nothing on such a socket after the bootstrap, so its end, an error or any byte means the
 * connection is over. The data path alone would notice a dead peer only when it next sends; the
 * socket tells at once.
 *
 * <p>One daemon thread per process serves every watched socket through one selector, however many
 * connections there are. Thread-safe. A watched socket is switched to non-blocking mode and must
 * not be read by anyone else; closing it locally ends the watch without a callback.
 */
public final class LivenessWatcher {
    private static final Logger LOG = LoggerFactory.getLogger(LivenessWatcher.class);
    private static final LivenessWatcher SHARED = new LivenessWatcher();

    private record Watch(SocketChannel channel, Consumer<String> onLoss) {
    }

    private final Queue<Watch> added = new ConcurrentLinkedQueue<>();
    private final ByteBuffer one = ByteBuffer.allocate(1);
    private Selector selector;

    private LivenessWatcher() {
    }

    /**
     * The process's watcher.
     *
     * @return the shared instance
     */
    public static LivenessWatcher shared() {
        return SHARED;
    }

    /**
     * Starts watching a socket.
     *
     * @param channel a connected socket that the peer will not write to
     * @param onLoss called once, on the watcher's thread, with a reason when the peer closes,
     *     resets or writes; never after the socket was closed locally. It must not block.
     * @throws IOException if the socket cannot be switched to non-blocking mode
     */
    public void watch(SocketChannel channel, Consumer<String> onLoss) throws IOException {
        channel.configureBlocking(false);
        added.add(new Watch(channel, onLoss));
        selector().wakeup();
    }

    /**
     * How many sockets are watched now; for tests and diagnostics.
     *
     * @return the number of registered sockets whose watch has not ended
     */
    public synchronized int watchedCount() {
        return selector == null ? 0 : selector.keys().size() + added.size();
    }

    private synchronized Selector selector() throws IOException {
        if (selector == null) {
            selector = Selector.open();
            Thread.ofPlatform().name("ofl-liveness").daemon().start(this::run);
        }
        return selector;
    }

    private void run() {
        Selector sel;
        synchronized (this) {
            sel = selector;
        }
        while (true) {
            try {
                register(sel);
                sel.select(this::check);
            } catch (IOException | RuntimeException e) {
                // One socket's failure must not end every watch; the loop goes on.
                LOG.warn("liveness watcher: {}", e.toString());
            }
        }
    }

    private void register(Selector sel) {
        Watch watch;
        while ((watch = added.poll()) != null) {
            try {
                watch.channel().register(sel, SelectionKey.OP_READ, watch);
            } catch (ClosedChannelException e) {
                // Closed locally before the watch began: nothing to report.
            }
        }
    }

    private void check(SelectionKey key) {
        Watch watch = (Watch) key.attachment();
        SocketChannel channel = watch.channel();
        String reason;
        try {
            one.clear();
            int n = channel.read(one);
            if (n == 0) {
                return;
            }
            reason = n < 0 ? "the peer closed the bootstrap connection"
                    : "the peer sent data on the bootstrap connection after the bootstrap";
        } catch (IOException | CancelledKeyException e) {
            if (!channel.isOpen()) {
                key.cancel();
                return;
            }
            reason = "the bootstrap connection failed: " + e;
        }
        key.cancel();
        if (channel.isOpen()) {
            try {
                watch.onLoss().accept(reason);
            } catch (RuntimeException e) {
                LOG.warn("liveness callback failed: {}", e.toString());
            }
        }
    }
}
