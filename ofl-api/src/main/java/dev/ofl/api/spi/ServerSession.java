package dev.ofl.api.spi;

import dev.ofl.api.Limits;
import dev.ofl.api.OflConnectionException;
import dev.ofl.api.OflException;
import dev.ofl.api.OflHandler;
import dev.ofl.api.OflRequest;
import dev.ofl.api.OflResponse;
import dev.ofl.api.RefusalCode;
import dev.ofl.api.wire.Bootstrap;
import dev.ofl.api.wire.FailureReason;
import dev.ofl.api.wire.MessageChecks;
import dev.ofl.api.wire.MessageHeader;
import dev.ofl.api.wire.ProtocolException;
import dev.ofl.api.wire.RangeDescriptor;
import dev.ofl.api.wire.WireStatus;
import java.io.EOFException;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.SocketChannel;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The server side of one connection, the same for every backend: the HELLO decision
 * ({@link #admit()}), then, on the connection's thread ({@link #run()}), request after request in
 * order: check it, run the handler, send the response's pieces as they are committed and its
 * completion, until the client leaves, the connection stays idle for the idle timeout, or the
 * server closes. It moves bytes only through its {@link ServerTransport}.
 *
 * <p>Not thread-safe except {@link #closeIfIdle()} and {@link #forceClose()}, which the server
 * calls while draining, and {@link #closeIfIdleFor}, which the listener's thread calls.
 */
final class ServerSession implements BootstrapServer.Connection {
    private static final Logger LOG = LoggerFactory.getLogger(ServerSession.class);

    private final BootstrapServer server;
    private final OflHandler handler;
    private final SocketChannel channel;
    private final ServerTransport transport;
    private final long id;
    private final String peer;
    private final InetAddress source;
    private final Handshake handshake;
    private Bootstrap.Endpoint hello;
    private boolean admitted;
    /** Receive memory this connection counts against the server's receive budget. */
    private long receiveTaken;
    /**
     * Set once the WELCOME was sent: only then does the idle timeout apply, and until then draining
     * leaves the socket to the bootstrap.
     */
    private volatile boolean serving;
    /** Moves at each handler's start and end, so that the listener can tell an idle connection. */
    private volatile long activity;
    /** The listener's view of {@link #activity}, and since when it has not moved. */
    private long activitySeen = -1;
    private long activitySeenSinceNs;
    private volatile boolean closedForIdleness;
    /** Set by the one newcomer this connection gave way to, or as it gives its place back. */
    private final AtomicBoolean gaveWay = new AtomicBoolean();
    /**
     * Odd while the connection waits on its peer mid-transfer: a piece or the completion of a
     * response going out, or the rest of a request whose header arrived coming in. Written by the
     * connection's thread with release stores (no fence on the hot path); the listener breaks a
     * connection whose count stays odd and unchanged for the send timeout.
     */
    private final AtomicLong sends = new AtomicLong();
    /** The listener's view of {@link #sends} and of the transport's progress, and since when neither moved. */
    private long sendsSeen = -1;
    private long progressSeen;
    private long sendsSeenSinceNs;
    /** What the send under way is, for the listener's log line: published by the release store of {@link #sends}. */
    private boolean sendingResponse;
    private volatile boolean sendTimedOut;
    /** When the WELCOME was sent, on the server's clock. */
    private volatile long servingSinceNs;
    private final DrainGate drain = new DrainGate();
    private final MessageHeader header = new MessageHeader();
    private final RangeCursor ranges = new RangeCursor();
    private final ServerEvents events;
    private Limits limits;
    private RequestView request;
    private Response response;
    /** True from the handler's start until the completion was sent: a failure then loses a response. */
    private boolean delivering;

    ServerSession(BootstrapServer server, OflHandler handler, SocketChannel channel, ServerTransport transport,
            long id, Handshake handshake) {
        this.server = server;
        this.handshake = handshake;
        this.handler = handler;
        this.channel = channel;
        this.transport = transport;
        this.id = id;
        this.peer = BootstrapServer.remote(channel);
        this.events = new ServerEvents(server.backend(), server.config().serviceName(), id, peer);
        this.source = BootstrapServer.source(channel);
    }

    @Override
    public boolean admit() {
        try {
            server.prepare(channel);
            hello = server.acceptHello(channel, handshake, transport.kind(), id);
            if (hello != null) {
                admitted = true;
                return true;
            }
        } catch (IOException e) {
            ended(e);
        } catch (ProtocolException e) {
            // Refused and logged by acceptHello; counted here, once.
            server.counters().protocolViolation();
        } catch (RuntimeException | Error e) {
            LOG.error("connection {} from {}: deciding on its HELLO failed unexpectedly", id, peer, e);
        }
        release();
        return false;
    }

    @Override
    public void abandon() {
        release();
    }

    @Override
    public boolean parksVirtualThreads() {
        return transport.parksVirtualThreads();
    }

    @Override
    public void run() {
        try {
            limits = hello.limits();
            Bootstrap.Endpoint welcome;
            boolean reasons;
            try {
                // Looked at whatever the setting: a HELLO with the record twice is malformed at every server.
                boolean offered = FailureReason.present(hello.extensions());
                reasons = offered && server.config().failureReasons();
            } catch (ProtocolException e) {
                server.counters().protocolViolation();
                server.refuse(channel, id, RefusalCode.MALFORMED, "malformed HELLO: " + e.getMessage());
                return;
            }
            try {
                long receive = transport.receiveBytes(hello);
                String over = server.takeReceive(receive, limits);
                if (over != null) {
                    server.refuse(channel, id, RefusalCode.SERVER_BUSY, over);
                    return;
                }
                receiveTaken = receive;
                welcome = transport.accept(hello);
                if (reasons) {
                    // Answered only to a client that offered: an older one never meets a reason.
                    welcome = PeerAuthentication.withExtensions(welcome,
                            PeerAuthentication.concat(welcome.extensions(), FailureReason.record()));
                }
            } catch (RuntimeException | OutOfMemoryError e) {
                // Logged by the refusal, whose repeats are counted: a peer can ask for this at will.
                server.refuse(channel, id, RefusalCode.TRANSPORT_SETUP_FAILED, String.valueOf(e.getMessage()));
                return;
            }
            request = new RequestView(transport.receiveSlots());
            StagingPool pool = transport.staging();
            response = new Response(pool, pool.share(Math.min(server.config().stagingShareBytes(), pool.budgetBytes())),
                    transport.pieceBytes(), reasons);
            // Taken before the WELCOME goes out: connections accepted one after the other are then
            // as old as their clients saw them become, whichever thread runs first after it.
            servingSinceNs = server.config().clock().nanoTime();
            server.welcome(channel, welcome);
            transport.start();
            serving = true;
            LOG.debug("connection {} from {} accepted with {}", id, peer, limits);
            serve();
        } catch (ProtocolException e) {
            server.counters().protocolViolation();
            server.warnRepeated("protocol violation", "closing connection " + id + " from " + peer + ": "
                    + e.getMessage());
        } catch (IOException | OflConnectionException e) {
            ended(e);
        } catch (RuntimeException | Error e) {
            LOG.error("connection {} from {} ended by an unexpected failure", id, peer, e);
        } finally {
            release();
        }
    }

    private void release() {
        transport.breakConnection();
        BootstrapIo.closeQuietly(channel);
        if (!transport.close()) {
            transport.staging().pin();
            LOG.warn("connection {}: its transport could not release its device resources; its memory is left "
                    + "allocated so that the device cannot write into freed memory", id);
        } else if (response != null) {
            response.abandon();
        }
        // From here it can make room for no one: its place is going back, and a newcomer that
        // closed it as well would count on that place a second time.
        gaveWay.set(true);
        if (admitted) {
            server.release(source);
        }
        server.giveReceive(receiveTaken);
        receiveTaken = 0;
        server.forget(channel);
    }

    @Override
    public void closeIfIdleFor(long nowNs, long idleTimeoutNs) {
        if (!serving) {
            return;
        }
        long now = activity;
        if (now != activitySeen) {
            activitySeen = now;
            activitySeenSinceNs = nowNs;
            return;
        }
        if (nowNs - activitySeenSinceNs >= idleTimeoutNs && drain.closeIfIdle()) {
            closedForIdleness = true;
            server.infoRepeated("idle timeout", "closing connection " + id + " from " + peer + ": no request for "
                    + (nowNs - activitySeenSinceNs) / 1_000_000 + " ms (idle timeout " + idleTimeoutNs / 1_000_000
                    + " ms)");
            forceClose();
        }
    }

    /**
     * Marks the start of a wait on the peer mid-transfer; the connection's thread only.
     *
     * @param response {@code true} for a response going out, {@code false} for a request coming in
     */
    private void sendBegins(boolean response) {
        sendingResponse = response;
        sends.setRelease(sends.getPlain() + 1);
    }

    /** Marks its end. */
    private void sendEnds() {
        sends.setRelease(sends.getPlain() + 1);
    }

    @Override
    public void closeIfStalled(long nowNs, long sendTimeoutNs, long pressedNs) {
        long now = sends.getAcquire();
        // A transfer whose bytes still move is slow, not stalled: each move starts the wait anew,
        // as does a wait on this server's own staging.
        long progress = transport.progress();
        if ((now & 1) == 0 || now != sendsSeen || progress != progressSeen || transport.waitingOnServer()) {
            sendsSeen = now;
            progressSeen = progress;
            sendsSeenSinceNs = nowNs;
            return;
        }
        boolean response = sendingResponse;
        long stalledNs = nowNs - sendsSeenSinceNs;
        boolean pressed = response && stalledNs >= pressedNs;
        if ((stalledNs >= sendTimeoutNs || pressed) && !sendTimedOut) {
            sendTimedOut = true;
            server.counters().sendTimeout();
            server.warnRepeated("send timeout", "closing connection " + id + " from " + peer + ": "
                    + (response ? "its response" : "the rest of its request") + " made no progress for "
                    + stalledNs / 1_000_000 + " ms (" + (stalledNs >= sendTimeoutNs ? "send timeout "
                    + sendTimeoutNs / 1_000_000 + " ms" : "other responses waited for the staging it holds")
                    + "): the client stopped " + (response ? "reading" : "sending") + ", or is stopped");
            forceClose();
        }
    }

    @Override
    public InetAddress source() {
        return source;
    }

    @Override
    public boolean settled(long nowNs, long graceNs) {
        return serving && (activity != 0 || nowNs - servingSinceNs >= graceNs);
    }

    @Override
    public long unusedSince(long nowNs, long graceNs) {
        long since = servingSinceNs;
        return serving && activity == 0 && !gaveWay.get() && nowNs - since >= graceNs ? since : Long.MAX_VALUE;
    }

    @Override
    public boolean giveWay() {
        // Once only: the newcomer that closes it takes its place, and no second one may count on it.
        if (activity != 0 || !drain.closeIfIdle() || !gaveWay.compareAndSet(false, true)) {
            return false;
        }
        closedForIdleness = true;
        server.infoRepeated("made room", "closing connection " + id + " from " + peer + ": at the connection cap, "
                + "a new client takes the place of one that sent no request since it connected");
        forceClose();
        return true;
    }

    private void ended(Exception e) {
        if (!serving && !server.closing()) {
            // Before its WELCOME a peer can end connections as fast as it opens them: one line per
            // cause, repeats counted (docs/OPERATIONS.md 4.1).
            server.infoRepeated("connection ended before its WELCOME", "connection " + id + " from " + peer
                    + " ended before its WELCOME: " + e);
        } else if (transport.linkFailed() && !server.closing() && !closedForIdleness && !sendTimedOut) {
            server.counters().linkFailure();
            if (delivering || transport.delivering()) {
                server.counters().undeliveredResponse();
            }
            server.infoRepeated("link failed", "connection " + id + " from " + peer + " broke: " + e.getMessage());
        } else if (closedForIdleness || sendTimedOut) {
            if (sendTimedOut && (delivering || transport.delivering())) {
                server.counters().undeliveredResponse();
            }
            LOG.debug("connection {} from {} closed for idleness: {}", id, peer, e.toString());
        } else if ((delivering || transport.delivering()) && !server.closing()) {
            server.counters().undeliveredResponse();
            server.infoRepeated("broke while delivering", "connection " + id + " from " + peer
                    + " broke while a response was being delivered: " + e.getMessage());
        } else if (e instanceof EOFException || e instanceof ClosedChannelException || server.closing()) {
            LOG.debug("connection {} from {} ended: {}", id, peer, e.toString());
        } else {
            server.infoRepeated("connection failed", "connection " + id + " from " + peer + " failed: " + e);
        }
    }

    private void serve() throws IOException, ProtocolException {
        long sequence = 0;
        while (!server.closing() && serveOne(sequence)) {
            sequence++;
        }
        // Closing: the last response may still be on its way (RDMA); let it land first.
        sendBegins(true);
        try {
            transport.flush();
        } finally {
            sendEnds();
        }
    }

    /**
     * Takes, runs and answers one request. A method per request rather than the loop's body: the
     * loop is entered once per connection, so the JIT would compile it only by on-stack
     * replacement, after tens of thousands of requests run interpreted; a method called per
     * request is compiled after a few hundred.
     *
     * @return {@code false} if draining closed the gate before this request got in
     */
    private boolean serveOne(long sequence) throws IOException, ProtocolException {
        int slot = transport.nextRequest();
        MemorySegment message = transport.message(slot);
        header.wrap(message, 0);
        long length = MessageChecks.checkRequest(header, limits, sequence);
        // False: the transport had no memory for the request within the staging timeout. It is
        // then answered BUSY like a response without staging, its ranges neither read nor written.
        boolean whole;
        // The rest of a request whose header arrived is bounded like a send: a peer that stops
        // half-way holds its receive memory no longer than the send timeout.
        sendBegins(false);
        try {
            whole = transport.completeRequest(slot, length);
        } finally {
            sendEnds();
        }
        long capacity = 0;
        ranges.clear();
        if (whole) {
            MemorySegment moved = transport.message(slot);
            if (moved != message) {
                // RDMA: a payload read into memory the transport borrowed for this request.
                message = moved;
                header.wrap(message, 0);
            }
            capacity = MessageChecks.checkRanges(message, 0, header, limits);
            request.set(slot, message, header, capacity);
            // Copied now: the slot goes back to the transport before the response is sent.
            long at = MessageHeader.rangesOffset((int) header.payloadLength());
            for (int i = 0; i < header.rangeCount(); i++, at += RangeDescriptor.LENGTH) {
                ranges.add(RangeDescriptor.address(message, at), RangeDescriptor.length(message, at),
                        RangeDescriptor.key(message, at));
            }
        }
        if (!drain.enter()) {
            return false;
        }
        activity++;
        // Draining lets a request that got in finish: its handler and its response.
        delivering = true;
        try {
            if (whole && response.begin(sequence, capacity)) {
                HandlerEvent event = events.handlerStarting();
                int outcome = response.run(handler, request);
                events.handlerEnded(event, header, outcome, response.committed());
                // The payload is dead and the ranges were copied: give the slot back before
                // responding, so that the client's next request never waits for it.
                transport.releaseRequest(slot);
                response.finish(outcome);
            } else {
                if (!whole) {
                    response.begin(sequence, 0);
                }
                transport.releaseRequest(slot);
                server.counters().busyResponse();
                response.finish(WireStatus.BUSY);
            }
        } finally {
            activity++;
            drain.exit();
        }
        delivering = false;
        return true;
    }

    @Override
    public void closeIfIdle() {
        // A connection still in its bootstrap is left to finish it (bounded by the bootstrap and
        // drain timeouts): a HELLO read from now on is refused with SHUTTING_DOWN rather than cut
        // off, and one accepted already meets the closed gate before its first request.
        if (drain.closeIfIdle() && serving) {
            // Not at once: a response already sent may still be on its way (RDMA).
            transport.closeWhenDelivered();
        }
    }

    @Override
    public void forceClose() {
        BootstrapIo.closeQuietly(channel);
        transport.breakConnection();
    }

    /**
     * The response a handler writes into: committed bytes travel as pieces once the transport's
     * piece size is pending, the rest with the completion.
     *
     * <p>Its buffer is an extent of the server's {@link StagingPool}, borrowed for the request's
     * capacity (rounded up to whole blocks) before the handler runs. Each piece hands the blocks
     * wholly before its end to the transport, which returns them once sent; the completion hands
     * the rest. The view of the extent is kept while the connection gets the same extent back, so
     * a steady stream of responses allocates nothing.
     */
    private final class Response implements OflResponse {
        private static final MemorySegment EMPTY = MemorySegment.ofArray(new byte[0]);
        private final StagingPool pool;
        /** The most of the pool this connection may hold at once (ServerConfig.stagingShareBytes). */
        private final StagingPool.Share share;
        private final boolean zero = server.config().zeroStaging();
        private final int pieceBytes;
        /** Whether the client takes a reason with HANDLER_FAILED (negotiated at the bootstrap). */
        private final boolean reasons;
        /** ServerConfig.stagingTimeout, converted once (saturated: a Duration may exceed 292 years). */
        private final long stagingTimeoutNs = TimeUnit.NANOSECONDS.convert(server.config().stagingTimeout());
        private MemorySegment view = EMPTY;
        private long viewBase = -1;
        private long viewBytes;
        /** The extent's offset in the pool, or the previous one between responses. */
        private long base = -1;
        private long extentBytes;
        /** Bytes from the extent's start already handed to the transport to return, whole blocks. */
        private long handed;
        private long sequence;
        private int handlerStatus;
        /** What the handler threw, for the failure's reason; {@code null} unless it threw. */
        private Throwable failure;
        /** Set when sending a piece failed: only then does a connection exception end the connection. */
        private boolean transportFailed;
        private long capacity;
        private long committed;
        private long flushed;

        Response(StagingPool pool, StagingPool.Share share, int pieceBytes, boolean reasons) {
            this.pool = pool;
            this.share = share;
            this.pieceBytes = pieceBytes;
            this.reasons = reasons;
        }

        /**
         * Borrows staging for the request's capacity, waiting up to the server's staging timeout.
         *
         * @return {@code false} if none could be had: the request is answered BUSY
         */
        boolean begin(long requestSequence, long responseCapacity) {
            sequence = requestSequence;
            capacity = responseCapacity;
            committed = 0;
            flushed = 0;
            handed = 0;
            extentBytes = 0;
            if (responseCapacity == 0) {
                // The view stays cached for the next extent; buffer() shows none while none is held.
                return true;
            }
            long bytes = StagingPool.blocksFor(responseCapacity) * StagingPool.BLOCK_BYTES;
            long at;
            try {
                at = pool.tryReserve(bytes, base, share);
                if (at == StagingPool.NO_EXTENT) {
                    at = reserveWhenReturned(bytes);
                }
            } catch (IOException e) {
                throw new OflConnectionException("waiting for this connection's earlier responses to be delivered "
                        + "failed: " + e.getMessage(), e);
            } catch (OflException | IllegalArgumentException | IllegalStateException e) {
                LOG.warn("connection {} from {}: request {} answered BUSY: {}", id, peer, requestSequence,
                        e.getMessage());
                return false;
            }
            if (at == StagingPool.NO_EXTENT) {
                LOG.debug("connection {} from {}: request {} answered BUSY: no {} bytes of staging free within {}",
                        id, peer, requestSequence, bytes, server.config().stagingTimeout());
                return false;
            }
            base = at;
            extentBytes = bytes;
            if (at != viewBase || bytes != viewBytes) {
                view = pool.view(at, bytes);
                viewBase = at;
                viewBytes = bytes;
            }
            if (zero) {
                view.fill((byte) 0);
            }
            return true;
        }

        /**
         * Waits for staging, up to the staging timeout: first for blocks this connection's own
         * earlier responses still hold (their writes complete only as this thread sees them), then
         * for any returned to the pool.
         */
        private long reserveWhenReturned(long bytes) throws IOException {
            long deadlineNs = server.config().clock().nanoTime() + stagingTimeoutNs;
            while (transport.reclaimStaging(deadlineNs)) {
                long at = pool.tryReserve(bytes, base, share);
                if (at != StagingPool.NO_EXTENT) {
                    return at;
                }
            }
            long leftNs = deadlineNs - server.config().clock().nanoTime();
            server.stagingWaitBegins();
            try {
                return pool.reserve(bytes, base, Math.max(0, leftNs), share);
            } finally {
                server.stagingWaitEnds();
            }
        }

        /** Returns what was not handed to the transport; only once the transport closed cleanly. */
        void abandon() {
            if (handed < extentBytes) {
                pool.release(base + handed, extentBytes - handed);
                handed = extentBytes;
            }
        }

        /**
         * Runs the handler, counts the request with its outcome (once the handler ran, whatever
         * happens to the response), and maps how it ended to a {@link WireStatus}.
         */
        int run(OflHandler h, OflRequest r) throws IOException {
            handlerStatus = 0;
            transportFailed = false;
            int outcome;
            try {
                handlerStatus = h.handle(r, this);
                outcome = handlerStatus == 0 ? WireStatus.OK : WireStatus.REFUSED;
            } catch (OflConnectionException e) {
                if (!transportFailed) {
                    // The handler's own failure (for example a downstream ofl connection): not ours.
                    server.handlerFailed(r, e);
                }
                failure = e;
                outcome = WireStatus.HANDLER_FAILED;
            } catch (Exception e) {
                server.handlerFailed(r, e);
                failure = e;
                outcome = WireStatus.HANDLER_FAILED;
            }
            // A response lost to the transport is counted as undelivered, not as the handler's failure.
            server.counters().request(transportFailed ? WireStatus.OK : outcome);
            if (transportFailed) {
                throw new IOException("sending a piece of the response failed while the handler ran");
            }
            return outcome;
        }

        /**
         * With OK sends the rest and the completion; otherwise drops what was not sent (a refusal
         * has no data), and a failure sends its reason instead when the client takes one and no
         * piece went out yet (the reason is the response stream's first bytes). Hands the rest of
         * the extent back through the transport.
         */
        void finish(int wireStatus) throws IOException {
            long responseLength = 0;
            if (wireStatus != WireStatus.OK) {
                committed = flushed;
            }
            if (wireStatus == WireStatus.HANDLER_FAILED && reasons && failure != null && flushed == 0
                    && extentBytes > 0) {
                byte[] reason = FailureReason.encode(failure, capacity);
                MemorySegment.copy(MemorySegment.ofArray(reason), 0, view, 0, reason.length);
                committed = reason.length;
                responseLength = reason.length;
            } else if (wireStatus == WireStatus.OK) {
                responseLength = committed;
            }
            // Let go of it here, the one place every response passes: an exception is not held past its response.
            failure = null;
            long releaseFrom = handed;
            // Handed over before the call: the transport owns these blocks even if it throws.
            handed = extentBytes;
            sendBegins(true);
            try {
                transport.sendEnd(sequence, Math.max(base, 0), flushed, committed, wireStatus,
                        wireStatus == WireStatus.REFUSED ? handlerStatus : 0, responseLength, ranges,
                        base + releaseFrom, extentBytes - releaseFrom);
            } finally {
                sendEnds();
            }
            flushed = committed;
        }

        @Override
        public MemorySegment buffer() {
            return extentBytes == 0 ? EMPTY : view;
        }

        @Override
        public long capacity() {
            return capacity;
        }

        @Override
        public long committed() {
            return committed;
        }

        @Override
        public void commit(long length) {
            if (length < 0 || length > capacity - committed) {
                throw new IllegalArgumentException("committing " + length + " bytes after " + committed
                        + " exceeds the client's capacity of " + capacity + " bytes");
            }
            committed += length;
            if (committed - flushed >= pieceBytes) {
                long releaseFrom = handed;
                // Blocks wholly before the end of this piece: the handler writes only after it.
                handed = StagingPool.blockFloor(committed);
                sendBegins(true);
                try {
                    transport.sendPiece(sequence, base, flushed, committed, ranges, base + releaseFrom,
                            handed - releaseFrom);
                } catch (IOException e) {
                    transportFailed = true;
                    throw new OflConnectionException("sending a response piece failed: " + e, e);
                } catch (OflConnectionException e) {
                    transportFailed = true;
                    throw e;
                } finally {
                    sendEnds();
                }
                flushed = committed;
            }
        }
    }
}
