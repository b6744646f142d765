package dev.ofl.api.spi;

import dev.ofl.api.NanoClock;
import dev.ofl.api.RefusalCode;
import dev.ofl.api.ServerConfig;
import dev.ofl.api.wire.Bootstrap;
import dev.ofl.api.wire.MessageHeader;
import dev.ofl.api.wire.ProtocolException;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedSelectorException;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The listener's one thread: accepts sockets and reads each one's HELLO frame and body on
 * non-blocking I/O, so that a pending handshake costs a socket and a few hundred bytes, never a
 * thread. Only a socket whose whole HELLO (and, with peer authentication, proof) arrived is handed
 * to the server's per-connection path.
 *
 * <p>Admission rules, in order, for each accepted socket:
 * <ol>
 * <li>the server is at its connection cap, or at its cap for the socket's source address: the
 *     socket is answered SERVER_BUSY at once, without waiting for its HELLO;</li>
 * <li>the source has {@code maxPendingPerAddress} handshakes pending: the oldest of them still
 *     in the listener's hands is answered SERVER_BUSY and the new socket takes its place, so that
 *     sockets sharing a client's address (a co-tenant's) cannot lock that client out; with none
 *     such, the new socket is answered SERVER_BUSY;</li>
 * <li>{@code maxPendingHandshakes} handshakes are pending in all: the oldest still in the
 *     listener's hands is answered SERVER_BUSY and the new socket takes its place, so that
 *     sockets that never finish their handshake cannot lock out clients that do;</li>
 * <li>a handshake not done by the bootstrap deadline, counted from the accept: the socket is
 *     closed without an answer.</li>
 * </ol>
 * A handshake is in the listener's hands until its HELLO has arrived whole or, when the HELLO
 * offers one of the server's keys, until the client's proof has arrived: the listener sends the
 * challenge itself, without blocking ({@link PeerAuthentication#challengeFor}), and reads the
 * proof like the HELLO. A client that never proves therefore holds only an evictable pending
 * place, never a thread.
 * A refusal is written without blocking, then the socket's output is shut and what the peer still
 * sends is read and discarded for at most {@link #LINGER_NS}, so that closing does not reset the
 * connection before the peer read the answer; at most {@code maxPendingHandshakes} refusals linger
 * at once, further ones are closed as soon as the answer is written, after reading at most one
 * HELLO's worth of what the peer sent (the peer may then see a reset). No socket holds the thread:
 * each is read a bounded amount per wake-up, and HELLOs that arrived are handed off one batch per
 * wake-up, so the deadlines are looked at between. A pending socket keeps its place until the
 * server decided on its HELLO.
 *
 * <p>The thread also ticks the server's periodic work: idle connections and log summaries.
 *
 * <p>Only {@link #handshakeDecided} and {@link #wakeup} are called from other threads.
 */
final class Admission implements Runnable {
    private static final Logger LOG = LoggerFactory.getLogger(Admission.class);
    /** How long a refusal's socket is kept so that the answer is read before the close. */
    static final long LINGER_NS = 200_000_000L;
    /** What a refusal that cannot linger reads before it closes: one whole HELLO. */
    private static final int DISCARD_BEFORE_CLOSE = Bootstrap.FRAME_LENGTH + Bootstrap.MAX_BODY_LENGTH;
    /** The longest select: periodic work and an injected clock's jumps are noticed this often. */
    private static final long TICK_MS = 100;
    /** Read from a lingering refusal per wake-up: it cannot hold the thread, and a flood costs few wake-ups. */
    private static final int DISCARD_PER_WAKEUP = 64 << 10;
    /** Accepted per wake-up, so that reads of pending HELLOs go on under a connection storm. */
    private static final int ACCEPT_BATCH = 64;
    /** After accept fails (out of file descriptors), the listener rests this long instead of spinning. */
    private static final long ACCEPT_PAUSE_NS = 100_000_000L;

    /** One socket the listener owns: a pending handshake, or a refusal lingering. */
    private static final class Peer {
        final SocketChannel channel;
        final InetAddress source;
        SelectionKey key;
        long deadlineNs;
        /** The frame, then frame and body, while pending; then the proof's frame, then frame and MAC. */
        ByteBuffer in;
        /** The whole HELLO, once a challenge was sent for it. */
        byte[] hello;
        /** The challenge sent; set while the proof is awaited. */
        byte[] challenge;
        /** The refusal, while refusing. */
        ByteBuffer out;
        boolean refusing;

        Peer(SocketChannel channel, InetAddress source) {
            this.channel = channel;
            this.source = source;
        }
    }

    private final BootstrapServer server;
    private final ServerConfig config;
    private final NanoClock clock;
    private final ServerSocketChannel acceptor;
    private final Selector selector;
    private final SelectionKey acceptKey;
    private final RepeatedLog log;
    private final long bootstrapTimeoutNs;
    /** Still arriving, oldest first: deadlines are accept time plus one constant. */
    private final LinkedHashSet<Peer> pending = new LinkedHashSet<>();
    /** Refusals lingering, oldest first. */
    private final LinkedHashSet<Peer> refusing = new LinkedHashSet<>();
    /** Places of handshakes from accept until the server decided on the HELLO. */
    private final SourceCounts pendingPlaces = new SourceCounts();
    private final List<Peer> arrived = new ArrayList<>();
    private final ByteBuffer discard = ByteBuffer.allocateDirect(4096);
    private long acceptPausedUntilNs;
    private boolean acceptPaused;

    Admission(BootstrapServer server, ServerSocketChannel acceptor, RepeatedLog log) throws IOException {
        this.server = server;
        this.config = server.config();
        this.clock = config.clock();
        this.acceptor = acceptor;
        this.log = log;
        this.bootstrapTimeoutNs = TimeUnit.NANOSECONDS.convert(config.bootstrapTimeout());
        this.selector = Selector.open();
        try {
            acceptor.configureBlocking(false);
            this.acceptKey = acceptor.register(selector, SelectionKey.OP_ACCEPT);
        } catch (IOException | RuntimeException e) {
            selector.close();
            throw e;
        }
    }

    /** Makes the thread look at the server's state now (closing). */
    void wakeup() {
        selector.wakeup();
    }

    /**
     * Gives back the pending place of a socket the server decided on.
     *
     * @param source the socket's source address
     */
    void handshakeDecided(InetAddress source) {
        pendingPlaces.release(source);
    }

    /**
     * Handshakes whose HELLO is arriving or being decided on.
     *
     * @return the count
     */
    int pendingHandshakes() {
        return pendingPlaces.total();
    }

    @Override
    public void run() {
        try {
            while (!server.closing()) {
                if (arrived.isEmpty()) {
                    selector.select(this::ready, waitMs(clock.nanoTime()));
                } else {
                    selector.selectNow(this::ready); // HELLOs left from the last batch: no waiting
                }
                handOffArrived();
                tick(clock.nanoTime());
            }
        } catch (IOException | ClosedSelectorException e) {
            if (!server.closing()) {
                server.listenerFailed(e);
            }
        } finally {
            try {
                refuseWhileClosing();
            } catch (IOException | RuntimeException e) {
                LOG.debug("answering pending handshakes while closing failed: {}", e.toString());
            } finally {
                closeAll();
            }
        }
    }

    /**
     * The server is closing: every handshake not yet decided on gets SHUTTING_DOWN, at once and
     * whether or not its HELLO has arrived, and the refusals linger as usual (bounded by
     * {@link #LINGER_NS}), so that a client connecting while the server closes learns why.
     */
    private void refuseWhileClosing() throws IOException {
        if (!selector.isOpen()) {
            return;
        }
        acceptKey.cancel();
        // Deregisters the cancelled keys (the acceptor's, and those of HELLOs that arrived), so
        // that the arrived sockets can be registered again for their refusal.
        selector.selectNow(key -> { });
        for (Peer peer : new ArrayList<>(pending)) {
            refuse(peer, RefusalCode.SHUTTING_DOWN, "the server is shutting down");
        }
        for (Peer peer : arrived) {
            pendingPlaces.release(peer.source);
            peer.key = null;
            refuse(peer, RefusalCode.SHUTTING_DOWN, "the server is shutting down");
        }
        arrived.clear();
        long untilNs = clock.nanoTime() + LINGER_NS;
        while (!refusing.isEmpty() && clock.nanoTime() - untilNs < 0) {
            selector.select(this::ready, waitMs(clock.nanoTime()));
            tick(clock.nanoTime());
        }
    }

    private long waitMs(long nowNs) {
        long untilNs = TICK_MS * 1_000_000L;
        if (!pending.isEmpty()) {
            untilNs = Math.min(untilNs, pending.getFirst().deadlineNs - nowNs);
        }
        if (!refusing.isEmpty()) {
            untilNs = Math.min(untilNs, refusing.getFirst().deadlineNs - nowNs);
        }
        return Math.max(1, untilNs / 1_000_000L);
    }

    private void ready(SelectionKey key) {
        if (key == acceptKey) {
            acceptSome();
            return;
        }
        Peer peer = (Peer) key.attachment();
        if (!key.isValid()) {
            return;
        }
        if (peer.refusing) {
            if (key.isWritable()) {
                writeRefusal(peer);
            } else if (key.isReadable()) {
                discardInput(peer);
            }
        } else if (key.isReadable()) {
            readHandshake(peer);
        }
    }

    private void acceptSome() {
        for (int i = 0; i < ACCEPT_BATCH; i++) {
            SocketChannel channel;
            try {
                channel = acceptor.accept();
            } catch (IOException e) {
                // Typically out of file descriptors: the connection stays in the backlog, and a
                // listener that kept trying would spin. The kernel answers it if the backlog overflows.
                log.warn("accept failed", "accept on " + server.localAddress() + " failed: " + e
                        + "; pausing accepts for " + ACCEPT_PAUSE_NS / 1_000_000 + " ms (raise the open-file limit?)");
                acceptKey.interestOps(0);
                acceptPaused = true;
                acceptPausedUntilNs = clock.nanoTime() + ACCEPT_PAUSE_NS;
                return;
            }
            if (channel == null) {
                return;
            }
            accepted(channel);
        }
    }

    private void accepted(SocketChannel channel) {
        InetAddress source;
        try {
            channel.configureBlocking(false);
            source = ((InetSocketAddress) channel.getRemoteAddress()).getAddress();
        } catch (IOException | RuntimeException e) {
            BootstrapIo.closeQuietly(channel);
            return;
        }
        Peer peer = new Peer(channel, source);
        String busy = server.busyReason(source);
        if (busy != null) {
            refuse(peer, RefusalCode.SERVER_BUSY, busy);
            return;
        }
        int taken = pendingPlaces.tryAcquire(source, config.maxPendingPerAddress(), config.maxPendingHandshakes());
        if (taken == SourceCounts.SOURCE_FULL) {
            Peer oldest = evictable(source);
            if (oldest != null) {
                refuse(oldest, RefusalCode.SERVER_BUSY, config.maxPendingPerAddress() + " handshakes from "
                        + SourceCounts.describe(source) + " are pending, the most this server allows from one "
                        + "address; this one was the oldest of them and had not finished its handshake");
                taken = pendingPlaces.tryAcquire(source, config.maxPendingPerAddress(), config.maxPendingHandshakes());
            }
        }
        Peer oldest;
        if (taken == SourceCounts.ALL_FULL && (oldest = evictable(null)) != null) {
            refuse(oldest, RefusalCode.SERVER_BUSY, config.maxPendingHandshakes() + " handshakes are pending, "
                    + "the most this server allows; this one was the oldest and had not finished its handshake");
            taken = pendingPlaces.tryAcquire(source, config.maxPendingPerAddress(), config.maxPendingHandshakes());
        }
        if (taken == SourceCounts.SOURCE_FULL) {
            refuse(peer, RefusalCode.SERVER_BUSY, config.maxPendingPerAddress() + " handshakes from "
                    + SourceCounts.describe(source) + " are pending, the most this server allows from one address");
            return;
        }
        if (taken == SourceCounts.ALL_FULL) {
            refuse(peer, RefusalCode.SERVER_BUSY, config.maxPendingHandshakes() + " handshakes are pending, "
                    + "the most this server allows");
            return;
        }
        peer.deadlineNs = clock.nanoTime() + bootstrapTimeoutNs;
        peer.in = ByteBuffer.allocate(Bootstrap.FRAME_LENGTH);
        try {
            peer.key = channel.register(selector, SelectionKey.OP_READ, peer);
        } catch (IOException e) {
            pendingPlaces.release(source);
            BootstrapIo.closeQuietly(channel);
            return;
        }
        pending.add(peer);
    }

    /**
     * The handshake to refuse to make room: the oldest still in the listener's hands, from the
     * source of {@code address} or, with {@code null}, from any. Each candidate first has what it
     * sent read: one whose HELLO or proof is already in its socket (an honest client's, which
     * sends at once, but whose bytes the listener has not read yet) moves on instead of being
     * refused, so sockets opened after it cannot push it out.
     */
    private Peer evictable(InetAddress address) {
        InetAddress group = address == null ? null : SourceCounts.group(address);
        while (true) {
            Peer oldest = null;
            for (Peer peer : pending) {
                if (group == null || SourceCounts.group(peer.source).equals(group)) {
                    oldest = peer;
                    break;
                }
            }
            if (oldest == null) {
                return null;
            }
            readHandshake(oldest);
            if (pending.contains(oldest)) {
                return oldest;
            }
        }
    }

    private void readHandshake(Peer peer) {
        while (true) {
            int n;
            try {
                n = peer.channel.read(peer.in);
            } catch (IOException e) {
                dropPending(peer, "it failed: " + e.getMessage());
                return;
            }
            if (n < 0) {
                dropPending(peer, "the client closed it after " + peer.in.position() + " bytes of its "
                        + (peer.challenge == null ? "HELLO" : "proof"));
                return;
            }
            if (peer.in.hasRemaining()) {
                return;
            }
            if (peer.challenge != null ? proofRead(peer) : helloRead(peer)) {
                return;
            }
        }
    }

    /**
     * A HELLO buffer is full: reads on into the body, or sends the challenge the HELLO calls for
     * and reads on into the proof, or hands the socket over.
     *
     * @return {@code true} if this socket needs nothing more now
     */
    private boolean helloRead(Peer peer) {
        if (peer.in.capacity() == Bootstrap.FRAME_LENGTH) {
            Bootstrap.Frame frame;
            try {
                frame = Bootstrap.decodeFrame(peer.in.array(), Bootstrap.HELLO);
            } catch (ProtocolException e) {
                // The server decodes it again and refuses it: one place decides on every HELLO.
                arrived(peer);
                return true;
            }
            // Another version's body follows that version's rules (its length unchecked): the
            // server refuses the version from the frame alone, and never reads the body.
            if (frame.version() != MessageHeader.VERSION || frame.bodyLength() == 0) {
                arrived(peer);
                return true;
            }
            // Bounded by Bootstrap.MAX_BODY_LENGTH, which decodeFrame checked for this version.
            ByteBuffer whole = ByteBuffer.allocate(Bootstrap.FRAME_LENGTH + frame.bodyLength());
            whole.put(peer.in.flip());
            peer.in = whole;
            return false;
        }
        byte[] challenge = server.challengeFor(peer.in.array());
        if (challenge == null) {
            arrived(peer);
            return true;
        }
        try {
            // 48 bytes into an empty socket buffer: a socket that cannot take them at once is not a client's.
            if (peer.channel.write(ByteBuffer.wrap(challenge)) != challenge.length) {
                dropPending(peer, "its socket would not take the " + challenge.length + "-byte challenge");
                return true;
            }
        } catch (IOException e) {
            dropPending(peer, "sending the challenge failed: " + e.getMessage());
            return true;
        }
        peer.hello = peer.in.array();
        peer.challenge = challenge;
        peer.in = ByteBuffer.allocate(Bootstrap.FRAME_LENGTH);
        return false;
    }

    /**
     * A proof buffer is full: reads on into the MAC once the frame passes its checks, or hands the
     * socket over (the connection's thread checks the frame again and refuses it).
     *
     * @return {@code true} if this socket needs nothing more now
     */
    private boolean proofRead(Peer peer) {
        if (peer.in.capacity() == Bootstrap.FRAME_LENGTH) {
            try {
                if (Bootstrap.decodeFrame(peer.in.array(), Bootstrap.AUTH_PROOF).version() == MessageHeader.VERSION) {
                    ByteBuffer whole = ByteBuffer.allocate(Bootstrap.FRAME_LENGTH + Bootstrap.AUTH_BODY_LENGTH);
                    whole.put(peer.in.flip());
                    peer.in = whole;
                    return false;
                }
            } catch (ProtocolException e) {
                // Refused MALFORMED by the connection's thread, which decodes it again.
            }
        }
        arrived(peer);
        return true;
    }

    private void arrived(Peer peer) {
        pending.remove(peer);
        // Deregistered at the next selection, after which the channel may block again.
        peer.key.cancel();
        arrived.add(peer);
    }

    /**
     * Hands the sockets whose HELLO arrived to the server, once the selection that deregisters
     * their cancelled keys is done. HELLOs completed by that selection wait for the next round,
     * which does not block: a stream of them cannot keep the thread from its deadlines.
     */
    private void handOffArrived() throws IOException {
        if (arrived.isEmpty()) {
            return;
        }
        List<Peer> batch = new ArrayList<>(arrived);
        arrived.clear();
        selector.selectNow(this::ready);
        for (Peer peer : batch) {
            Handshake handshake = peer.challenge == null ? new Handshake(peer.in.array(), null, null)
                    : new Handshake(peer.hello, peer.challenge, Arrays.copyOf(peer.in.array(), peer.in.position()));
            peer.in = null;
            peer.hello = null;
            server.helloArrived(peer.channel, peer.source, handshake);
        }
    }

    private void dropPending(Peer peer, String why) {
        pending.remove(peer);
        pendingPlaces.release(peer.source);
        close(peer);
        log.info("handshake dropped", "dropped a handshake from " + peer.source.getHostAddress() + ": " + why);
    }

    /** Answers with a refusing WELCOME without blocking; the socket lingers until read or {@link #LINGER_NS}. */
    private void refuse(Peer peer, RefusalCode code, String reason) {
        if (pending.remove(peer)) {
            pendingPlaces.release(peer.source);
        }
        server.counters().connectionRefused();
        log.warn("refused: " + code, "refusing a connection from " + peer.source.getHostAddress() + ": " + reason
                + " (" + code + ")");
        peer.refusing = true;
        peer.in = null;
        peer.out = ByteBuffer.wrap(Bootstrap.encode(Bootstrap.WELCOME, Bootstrap.Endpoint.tcp(code,
                config.serviceName(), config.limits(), reason)));
        peer.deadlineNs = clock.nanoTime() + LINGER_NS;
        boolean canLinger = refusing.size() < config.maxPendingHandshakes();
        try {
            peer.channel.write(peer.out);
            if (!canLinger) {
                // No room to wait for the peer: what it sent so far is read, so that the close does
                // not reset the connection of a peer that sent no more than a HELLO. Bounded: a peer
                // that kept sending would otherwise hold the listener in this loop.
                peer.channel.shutdownOutput();
                drop(peer.channel, DISCARD_BEFORE_CLOSE);
                close(peer);
                return;
            }
            int interest = SelectionKey.OP_WRITE;
            if (!peer.out.hasRemaining()) {
                peer.channel.shutdownOutput();
                interest = SelectionKey.OP_READ;
            }
            if (peer.key == null) {
                peer.key = peer.channel.register(selector, interest, peer);
            } else {
                peer.key.interestOps(interest);
            }
        } catch (IOException | RuntimeException e) {
            close(peer);
            return;
        }
        refusing.add(peer);
    }

    private void writeRefusal(Peer peer) {
        try {
            peer.channel.write(peer.out);
            if (!peer.out.hasRemaining()) {
                peer.channel.shutdownOutput();
                peer.key.interestOps(SelectionKey.OP_READ);
            }
        } catch (IOException e) {
            endRefusal(peer);
        }
    }

    /**
     * Reads and drops what a lingering refusal's peer sent, at most {@link #DISCARD_PER_WAKEUP}
     * per readiness, so that a peer that keeps sending shares the listener with the others and the
     * linger's end is seen.
     */
    private void discardInput(Peer peer) {
        try {
            if (drop(peer.channel, DISCARD_PER_WAKEUP) < 0) {
                endRefusal(peer);
            }
        } catch (IOException e) {
            endRefusal(peer);
        }
    }

    /**
     * Reads and drops at most {@code most} bytes of what has arrived: never more, so that no peer
     * holds the thread by sending.
     *
     * @return the last read's result: -1 at the end of the stream, else what it read (0: nothing left)
     */
    private int drop(SocketChannel channel, int most) throws IOException {
        int n = 0;
        for (int left = most; left > 0 && (n = channel.read(discard.clear().limit(Math.min(left,
                discard.capacity())))) > 0; ) {
            left -= n;
        }
        return n;
    }

    private void endRefusal(Peer peer) {
        refusing.remove(peer);
        close(peer);
    }

    private void tick(long nowNs) {
        for (Iterator<Peer> it = pending.iterator(); it.hasNext(); ) {
            Peer peer = it.next();
            if (nowNs - peer.deadlineNs < 0) {
                break;
            }
            it.remove();
            pendingPlaces.release(peer.source);
            close(peer);
            log.info("bootstrap timeout", "dropped a handshake from " + peer.source.getHostAddress() + ": its "
                    + (peer.challenge == null ? "HELLO" : "proof") + " had not arrived whole (" + peer.in.position()
                    + " bytes) within the bootstrap timeout of " + config.bootstrapTimeout() + ", counted from the accept");
        }
        for (Iterator<Peer> it = refusing.iterator(); it.hasNext(); ) {
            Peer peer = it.next();
            if (nowNs - peer.deadlineNs < 0) {
                break;
            }
            it.remove();
            close(peer);
        }
        if (acceptPaused && nowNs - acceptPausedUntilNs >= 0) {
            acceptPaused = false;
            acceptKey.interestOps(SelectionKey.OP_ACCEPT);
        }
        server.tick(nowNs);
        log.flush();
    }

    private static void close(Peer peer) {
        if (peer.key != null) {
            peer.key.cancel();
        }
        BootstrapIo.closeQuietly(peer.channel);
    }

    private void closeAll() {
        BootstrapIo.closeQuietly(acceptor);
        for (Peer peer : pending) {
            pendingPlaces.release(peer.source);
            close(peer);
        }
        pending.clear();
        for (Peer peer : refusing) {
            close(peer);
        }
        refusing.clear();
        for (Peer peer : arrived) {
            pendingPlaces.release(peer.source);
            BootstrapIo.closeQuietly(peer.channel);
        }
        arrived.clear();
        BootstrapIo.closeQuietly(selector);
    }
}
