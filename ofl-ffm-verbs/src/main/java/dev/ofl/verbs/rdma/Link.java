package dev.ofl.verbs.rdma;

import dev.ofl.api.wire.Bootstrap;
import dev.ofl.verbs.CompletionChannel;
import dev.ofl.verbs.CompletionQueue;
import dev.ofl.verbs.Errno;
import dev.ofl.verbs.Gid;
import dev.ofl.verbs.GidEntry;
import dev.ofl.verbs.MemoryRegion;
import dev.ofl.verbs.PathMtu;
import dev.ofl.verbs.QueuePair;
import dev.ofl.verbs.QueuePairCapabilities;
import dev.ofl.verbs.RtrParameters;
import dev.ofl.verbs.VerbsException;
import dev.ofl.verbs.ffm.ibv_qp_state;
import dev.ofl.verbs.ffm.ibv_recv_wr;
import dev.ofl.verbs.ffm.ibv_send_flags;
import dev.ofl.verbs.ffm.ibv_send_wr;
import dev.ofl.verbs.ffm.ibv_sge;
import dev.ofl.verbs.ffm.ibv_wc;
import dev.ofl.verbs.ffm.ibv_wr_opcode;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One RC connection's verbs objects: completion channel (event mode only), one completion queue
 * for sends and receives, the queue pair, and the memory regions registered for it. Owned by one
 * client or server connection; {@link #breakLink()} may also be called by its liveness thread.
 *
 * <p>Teardown order (ownership): the QP goes to ERR and its completions are drained, then the QP is
 * destroyed, then the memory regions are deregistered (no write can target them any more), then
 * the CQ and channel.
 */
final class Link implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(Link.class);
    /** Completions taken per poll. */
    static final int POLL_BATCH = 16;
    private static final SecureRandom PSN = new SecureRandom();

    final CompletionChannel channel;
    final CompletionQueue cq;
    final QueuePair qp;
    final int psn = PSN.nextInt(1 << 24);
    private final RdmaDevice device;
    /** The GID this connection uses, chosen from the device's table when the link was made. */
    final GidEntry gid;
    private final List<MemoryRegion> regions = new ArrayList<>();
    private final Arena arena = Arena.ofShared();
    final MemorySegment completions = ibv_wc.allocateArray(POLL_BATCH, arena);
    private final MemorySegment[] completionViews = new MemorySegment[POLL_BATCH];
    /** Two send work requests: the second follows the first when a pair is posted. */
    private final MemorySegment sendWrs = ibv_send_wr.allocateArray(2, arena);
    private final MemorySegment sendSges = ibv_sge.allocateArray(2, arena);
    private final MemorySegment[] sendWr = {ibv_send_wr.asSlice(sendWrs, 0), ibv_send_wr.asSlice(sendWrs, 1)};
    private final MemorySegment[] sendSge = {ibv_sge.asSlice(sendSges, 0), ibv_sge.asSlice(sendSges, 1)};
    private final MemorySegment recvWr = ibv_recv_wr.allocate(arena);
    private final MemorySegment recvSge = ibv_sge.allocate(arena);
    private static final long SEND_MARKER = -1L;
    private static final long RECEIVE_MARKER = -2L;

    private boolean broken;
    private boolean closed;
    private volatile String lossReason;
    /** Orders a peer's loss and the link's failure, reported by two threads: the failure's reason wins. */
    private final Object lossLock = new Object();
    /** Set when the device said the link itself failed (a port down, a fatal device error). */
    private volatile boolean linkFailed;
    /** Set as {@link #close()} begins, before its lock: a link failure then leaves the break to it. */
    private volatile boolean closing;
    /** Told of a link failure, on the poller thread: a server's connection thread must look. */
    private volatile Runnable onLinkFailure;

    private Link(RdmaDevice device, GidEntry gid, CompletionChannel channel, CompletionQueue cq, QueuePair qp) {
        this.device = device;
        this.gid = gid;
        this.channel = channel;
        this.cq = cq;
        this.qp = qp;
        for (int i = 0; i < POLL_BATCH; i++) {
            completionViews[i] = ibv_wc.asSlice(completions, i);
        }
        for (int i = 0; i < sendWr.length; i++) {
            ibv_send_wr.sg_list(sendWr[i], sendSge[i]);
            ibv_send_wr.num_sge(sendWr[i], 1);
        }
        ibv_recv_wr.sg_list(recvWr, recvSge);
    }

    /** Creates the queues and the QP, in INIT with the given remote access; unwinds on failure. */
    static Link create(RdmaDevice device, GidEntry gid, int sendDepth, int receiveDepth, int maxInline,
            boolean events, int remoteAccess) {
        CompletionChannel channel = null;
        CompletionQueue cq = null;
        try {
            channel = events ? device.context.createCompletionChannel() : null;
            cq = device.context.createCompletionQueue(sendDepth + receiveDepth + 1, channel, 0);
            QueuePair qp = createQueuePair(device, cq, sendDepth, receiveDepth, maxInline);
            Link link;
            try {
                link = new Link(device, gid, channel, cq, qp);
            } catch (RuntimeException e) {
                closeQuietly(qp, e);
                throw e;
            }
            device.events.add(link);
            try {
                qp.modifyToInit(gid.port(), remoteAccess);
            } catch (RuntimeException e) {
                link.close();
                throw e;
            }
            return link;
        } catch (RuntimeException e) {
            // close() is idempotent: resources the failed link already closed are skipped.
            if (cq != null) {
                closeQuietly(cq, e);
            }
            if (channel != null) {
                closeQuietly(channel, e);
            }
            throw e;
        }
    }

    /**
     * Inline data is an optimisation whose limit differs by device (and some providers refuse a
     * request above it with EINVAL rather than granting less): ask for less until one is granted.
     */
    private static QueuePair createQueuePair(RdmaDevice device, CompletionQueue cq, int sendDepth, int receiveDepth,
            int maxInline) {
        VerbsException first = null;
        for (int inline : new int[] {maxInline, 64, 0}) {
            if (inline > maxInline) {
                continue;
            }
            try {
                return device.domain.createReliableConnected(cq, cq,
                        new QueuePairCapabilities(sendDepth, receiveDepth, 1, 1, inline));
            } catch (VerbsException e) {
                if (first == null) {
                    first = e;
                } else {
                    first.addSuppressed(e);
                }
            }
        }
        throw first;
    }

    private static void closeQuietly(AutoCloseable closeable, RuntimeException primary) {
        try {
            closeable.close();
        } catch (Exception e) {
            primary.addSuppressed(e);
        }
    }

    /** Registers memory for this connection; deregistered by {@link #close()} after the QP. */
    MemoryRegion register(MemorySegment memory, int access) {
        MemoryRegion region = device.domain.register(memory, access);
        regions.add(region);
        return region;
    }

    /** The memory registered for this connection so far; for tests. */
    List<MemoryRegion> registrations() {
        return List.copyOf(regions);
    }

    /** This side's bootstrap parameters. */
    Bootstrap.Endpoint endpoint(Bootstrap.Endpoint base, long ringAddress, int ringKey) {
        return new Bootstrap.Endpoint(base.status(), base.transport(), base.serviceName(), base.limits(),
                qp.qpNumber(), psn, gid.gid().toBytes(), PathMtu.toBytes(device.activeMtu()), ringAddress,
                ringKey, base.text(), base.extensions());
    }

    /**
     * Moves to RTR towards the peer, then RTS; the path MTU is the smaller active MTU.
     *
     * @param rnrRetry how often to retry a peer that is not ready to receive (7: forever)
     */
    void connect(Bootstrap.Endpoint peer, RdmaSettings settings, int rnrRetry) {
        if ((peer.qpn() & ~0xff_ffff) != 0 || (peer.psn() & ~0xff_ffff) != 0) {
            throw new IllegalArgumentException("the peer's QPN 0x" + Integer.toHexString(peer.qpn()) + " or PSN 0x"
                    + Integer.toHexString(peer.psn()) + " does not fit in 24 bits");
        }
        int peerMtu;
        try {
            peerMtu = PathMtu.fromBytes(peer.mtu());
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("the peer's MTU " + peer.mtu() + " is not a verbs MTU", e);
        }
        int pathMtu = PathMtu.pathMtu(device.activeMtu(), peerMtu);
        qp.modifyToRtr(RtrParameters.roce(peer.qpn(), peer.psn(), pathMtu,
                Gid.fromBytes(peer.gid()), gid.index(), gid.port()));
        qp.modifyToRts(settings.rts(psn, rnrRetry));
    }

    /** Posts one receive: {@code length} zero means a receive for WRITE WITH IMMEDIATE only. */
    int postReceive(long workRequestId, long address, int length, int lkey) {
        ibv_recv_wr.wr_id(recvWr, workRequestId);
        if (length == 0) {
            ibv_recv_wr.num_sge(recvWr, 0);
        } else {
            ibv_recv_wr.num_sge(recvWr, 1);
            ibv_sge.addr(recvSge, address);
            ibv_sge.length(recvSge, length);
            ibv_sge.lkey(recvSge, lkey);
        }
        return qp.postRecv(recvWr);
    }

    /** Posts one send work request with one gather entry; returns 0 or an errno value. */
    int postSend(long workRequestId, int opcode, boolean signaled, long address, int length, int lkey,
            long remoteAddress, int rkey, int immediate) {
        prepareSend(0, workRequestId, opcode, signaled, address, length, lkey, remoteAddress, rkey, immediate);
        ibv_send_wr.next(sendWr[0], MemorySegment.NULL);
        return qp.postSend(sendWr[0]);
    }

    /**
     * Fills the first of the two work requests {@link #postPreparedPair} posts, with one gather
     * entry. Nothing is posted until then, and no other send may be posted in between: it would
     * overwrite this one.
     */
    void prepareFirstOfPair(long workRequestId, int opcode, boolean signaled, long address, int length, int lkey,
            long remoteAddress, int rkey, int immediate) {
        prepareSend(0, workRequestId, opcode, signaled, address, length, lkey, remoteAddress, rkey, immediate);
    }

    /**
     * Posts the work request {@link #prepareFirstOfPair} filled and then this one, in one call: a
     * NIC takes both with one doorbell, and the second executes after the first, as any two
     * requests posted in order on one queue pair. Returns 0 or an errno value; on an error the
     * first may have been posted (rdma-core's providers post those before the failing request).
     */
    int postPreparedPair(long workRequestId, int opcode, boolean signaled, long address, int length, int lkey,
            long remoteAddress, int rkey, int immediate) {
        prepareSend(1, workRequestId, opcode, signaled, address, length, lkey, remoteAddress, rkey, immediate);
        ibv_send_wr.next(sendWr[0], sendWr[1]);
        ibv_send_wr.next(sendWr[1], MemorySegment.NULL);
        return qp.postSend(sendWr[0]);
    }

    /**
     * How many of the pair {@link #postPreparedPair} returned {@code rc} for were posted.
     *
     * @param rc what it returned
     * @return 2 on success; on an error 0 or 1 as the provider names the first or the second as
     *     the failing one, and 2 when it named neither (or the queue pair was closed): counted as
     *     posted, their blocks stay held until they complete or the connection closes
     */
    int postedOfPair(int rc) {
        if (rc == 0) {
            return 2;
        }
        if (rc == Errno.EBADF) {
            return 2; // closed: its scratch memory, bad_wr included, is gone
        }
        long bad = qp.badSendWorkRequest();
        return bad == sendWr[0].address() ? 0 : bad == sendWr[1].address() ? 1 : 2;
    }

    private void prepareSend(int index, long workRequestId, int opcode, boolean signaled, long address, int length,
            int lkey, long remoteAddress, int rkey, int immediate) {
        MemorySegment wr = sendWr[index];
        MemorySegment sge = sendSge[index];
        ibv_send_wr.wr_id(wr, workRequestId);
        ibv_send_wr.opcode(wr, opcode);
        int flags = signaled ? ibv_send_flags.IBV_SEND_SIGNALED : 0;
        // A READ's local buffer is where the data goes, which inline cannot be.
        if (length <= qp.capabilities().maxInlineData() && opcode != ibv_wr_opcode.IBV_WR_RDMA_READ) {
            flags |= ibv_send_flags.IBV_SEND_INLINE;
        }
        ibv_send_wr.send_flags(wr, flags);
        ibv_send_wr.imm_data(wr, immediate);
        ibv_send_wr.wr_rdma_remote_addr(wr, remoteAddress);
        ibv_send_wr.wr_rdma_rkey(wr, rkey);
        ibv_sge.addr(sge, address);
        ibv_sge.length(sge, length);
        ibv_sge.lkey(sge, lkey);
    }

    /** The i-th completion of the last poll, as a {@code struct ibv_wc} view. */
    MemorySegment completion(int index) {
        return completionViews[index];
    }

    /**
     * Polls up to {@link #POLL_BATCH} completions.
     *
     * @return the count, or a negative errno value
     */
    int poll() {
        return cq.poll(POLL_BATCH, completions);
    }

    /**
     * Takes and acknowledges every completion event the channel holds, then arms the queue for the
     * next: a waiter that then polls once more and finds nothing can sleep until the channel's
     * descriptor is readable without missing a completion that came in between.
     *
     * @return 0, or the errno value of {@code ibv_req_notify_cq}
     */
    int rearm() {
        int taken = 0;
        while (channel.takeEvent() != null) {
            taken++;
        }
        if (taken > 0) {
            cq.acknowledgeEvents(taken);
        }
        return cq.requestNotify(false);
    }

    /**
     * Moves the QP to ERR so that nothing more lands in our memory and outstanding work flushes.
     * Idempotent; safe from the liveness thread.
     */
    synchronized void breakLink() {
        if (broken || closed) {
            return;
        }
        qp.modifyToError();
        // Only now: a failed attempt must leave the next caller free to try (or to tear down).
        broken = true;
    }

    /**
     * Records that the peer is gone (its bootstrap socket ended) and breaks the link. Called by the
     * liveness thread; the owner sees {@link #lossReason()}.
     */
    void lose(String reason) {
        synchronized (lossLock) {
            // A peer that left because this link failed is not the cause: the link's failure stays.
            if (!linkFailed) {
                lossReason = reason;
            }
        }
        breakLink();
    }

    /** Why the peer was lost, or {@code null}. */
    String lossReason() {
        return lossReason;
    }

    /**
     * Records that the device reported this link failed (its port went down, the device failed,
     * its queue pair or completion queue broke), breaks it like a lost peer and tells the
     * {@linkplain #whenLinkFails listener}. Called on the poller thread.
     */
    void failLink(String reason) {
        synchronized (lossLock) {
            // The flag first: a reader that sees the reason then sees the flag (it reads them in that order).
            linkFailed = true;
            lossReason = reason;
        }
        // A link being closed is moved to ERR by its closer; waiting for its lock (held through the
        // drain, up to a second) would hold up the poller thread and every wake-up it owes.
        if (!closing) {
            try {
                breakLink();
            } catch (VerbsException e) {
                // A failed device may refuse the move to ERR; its queue pair is of no use either way.
                LOG.warn("qp {}: moving to ERR after \"{}\" failed: {}", qp.qpNumber(), reason, e.getMessage());
            }
        }
        Runnable listener = onLinkFailure;
        if (listener != null) {
            listener.run();
        }
    }

    /** Whether the loss was the link's own failure rather than the peer's leaving. */
    boolean linkFailed() {
        return linkFailed;
    }

    /** Sets what a link failure runs, on the poller thread; quick and non-blocking. */
    void whenLinkFails(Runnable listener) {
        onLinkFailure = listener;
    }

    /** True once the QP was moved to ERR by us. */
    synchronized boolean isBroken() {
        return broken;
    }

    /** Releases everything in the documented order. Idempotent. */
    @Override
    public void close() {
        closing = true;
        synchronized (this) {
            closeLocked();
        }
    }

    private void closeLocked() {
        if (closed) {
            return;
        }
        // Before the queue pair is destroyed: the device's events look links up by its address.
        device.events.remove(this);
        VerbsException failure = null;
        try {
            if (!broken && qp.queryState() != ibv_qp_state.IBV_QPS_RESET) {
                qp.modifyToError();
                broken = true;
            }
            drainFlushes();
        } catch (VerbsException e) {
            // Destroying the QP below still stops all access; only a failed destroy must leak memory.
            LOG.warn("qp {}: moving to ERR or draining before destroy failed: {}", qp.qpNumber(), e.getMessage());
        }
        closed = true;
        List<AutoCloseable> order = new ArrayList<>();
        order.add(qp);
        order.addAll(regions);
        order.add(cq);
        if (channel != null) {
            order.add(channel);
        }
        for (AutoCloseable resource : order) {
            try {
                resource.close();
            } catch (Exception e) {
                if (failure == null) {
                    failure = e instanceof VerbsException v ? v : new VerbsException("close", 0, 0, resource.toString(),
                            "none", e);
                } else {
                    failure.addSuppressed(e);
                }
            }
        }
        arena.close();
        if (failure != null) {
            throw failure;
        }
    }

    /**
     * Takes the flushed completions of an ERR queue pair before anything is freed. A work request
     * posted in ERR completes (flushed) after every earlier one of its queue, so one marker per
     * queue shows that both queues are empty; bounded by one second in case a device never flushes.
     */
    private void drainFlushes() {
        boolean sendDrained = postSend(SEND_MARKER, ibv_wr_opcode.IBV_WR_SEND, true, 0, 0, 0, 0, 0, 0) != 0;
        boolean receiveDrained = postReceive(RECEIVE_MARKER, 0, 0, 0) != 0;
        long deadlineNs = System.nanoTime() + 1_000_000_000L;
        while (!(sendDrained && receiveDrained) && System.nanoTime() - deadlineNs < 0) {
            int n = cq.poll(POLL_BATCH, completions);
            if (n < 0) {
                throw VerbsException.errno("ibv_poll_cq", -n, "draining " + qp, "none");
            }
            for (int i = 0; i < n; i++) {
                long id = ibv_wc.wr_id(completionViews[i]);
                sendDrained |= id == SEND_MARKER;
                receiveDrained |= id == RECEIVE_MARKER;
            }
            if (n == 0) {
                Thread.yield();
            }
        }
    }
}
