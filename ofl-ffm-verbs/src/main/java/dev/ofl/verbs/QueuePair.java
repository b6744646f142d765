package dev.ofl.verbs;

import dev.ofl.verbs.ffm.Verbs;
import dev.ofl.verbs.ffm.VerbsFunction;
import dev.ofl.verbs.ffm.ibv_ah_attr;
import dev.ofl.verbs.ffm.ibv_context;
import dev.ofl.verbs.ffm.ibv_global_route;
import dev.ofl.verbs.ffm.ibv_qp;
import dev.ofl.verbs.ffm.ibv_qp_attr;
import dev.ofl.verbs.ffm.ibv_qp_attr_mask;
import dev.ofl.verbs.ffm.ibv_qp_init_attr;
import dev.ofl.verbs.ffm.ibv_qp_state;
import dev.ofl.verbs.ffm.ibv_qp_type;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * A reliable-connected queue pair ({@code struct ibv_qp}).
 *
 * <p>State changes go RESET → {@link #modifyToInit(int, int) INIT} →
 * {@link #modifyToRtr(RtrParameters) RTR} → {@link #modifyToRts(RtsParameters) RTS}, and any
 * state → {@link #modifyToError() ERR}, each with the attribute mask the transition requires.
 * {@link #postSend(MemorySegment)} and {@link #postRecv(MemorySegment)} call the provider's
 * {@code post_send} and {@code post_recv} through the context's ops table, read once at creation;
 * they take work requests the caller built in native memory, are allocation-free, and return 0 or
 * an errno value. One thread at a time may post to each queue; the data-path methods must not race
 * with {@link #close()}. Closed before the memory regions of its protection domain.
 */
public final class QueuePair extends OwnedResource {
    /** Mask for RESET → INIT: state, P_Key index, port, access flags. */
    public static final int INIT_MASK = ibv_qp_attr_mask.IBV_QP_STATE | ibv_qp_attr_mask.IBV_QP_PKEY_INDEX
            | ibv_qp_attr_mask.IBV_QP_PORT | ibv_qp_attr_mask.IBV_QP_ACCESS_FLAGS;
    /** Mask for INIT → RTR: state, address vector, path MTU, destination QPN, RQ PSN, incoming reads, RNR timer. */
    public static final int RTR_MASK = ibv_qp_attr_mask.IBV_QP_STATE | ibv_qp_attr_mask.IBV_QP_AV
            | ibv_qp_attr_mask.IBV_QP_PATH_MTU | ibv_qp_attr_mask.IBV_QP_DEST_QPN | ibv_qp_attr_mask.IBV_QP_RQ_PSN
            | ibv_qp_attr_mask.IBV_QP_MAX_DEST_RD_ATOMIC | ibv_qp_attr_mask.IBV_QP_MIN_RNR_TIMER;
    /** Mask for RTR → RTS: state, timeout, retry count, RNR retry, SQ PSN, outgoing reads. */
    public static final int RTS_MASK = ibv_qp_attr_mask.IBV_QP_STATE | ibv_qp_attr_mask.IBV_QP_TIMEOUT
            | ibv_qp_attr_mask.IBV_QP_RETRY_CNT | ibv_qp_attr_mask.IBV_QP_RNR_RETRY | ibv_qp_attr_mask.IBV_QP_SQ_PSN
            | ibv_qp_attr_mask.IBV_QP_MAX_QP_RD_ATOMIC;
    /** Mask for any state → ERR: state only. */
    public static final int ERROR_MASK = ibv_qp_attr_mask.IBV_QP_STATE;

    private final ProtectionDomain domain;
    private final MemorySegment qp;
    private final int qpNumber;
    private final QueuePairCapabilities capabilities;
    private final MemorySegment postSend;
    private final MemorySegment postRecv;
    private final Arena scratchArena;
    private final MemorySegment badSendWr;
    private final MemorySegment badRecvWr;
    private boolean live = true;

    private QueuePair(ProtectionDomain domain, MemorySegment qp, QueuePairCapabilities capabilities) {
        super(domain);
        this.domain = domain;
        this.qp = qp;
        this.qpNumber = ibv_qp.qp_num(qp);
        this.capabilities = capabilities;
        MemorySegment context = ibv_context.reinterpret(ibv_qp.context(qp));
        this.postSend = ibv_context.ops_post_send(context);
        this.postRecv = ibv_context.ops_post_recv(context);
        this.scratchArena = Arena.ofShared();
        this.badSendWr = scratchArena.allocate(ValueLayout.ADDRESS);
        this.badRecvWr = scratchArena.allocate(ValueLayout.ADDRESS);
    }

    static QueuePair createRc(ProtectionDomain domain, CompletionQueue sendQueue, CompletionQueue receiveQueue,
            QueuePairCapabilities requested) {
        MemorySegment qp;
        int errno;
        QueuePairCapabilities actual;
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment init = ibv_qp_init_attr.allocate(arena);
            ibv_qp_init_attr.send_cq(init, sendQueue.address());
            ibv_qp_init_attr.recv_cq(init, receiveQueue.address());
            requested.write(ibv_qp_init_attr.cap(init));
            ibv_qp_init_attr.qp_type(init, ibv_qp_type.IBV_QPT_RC);
            ibv_qp_init_attr.sq_sig_all(init, 0);
            MemorySegment state = Native.captureState(arena);
            try {
                qp = (MemorySegment) Verbs.IBV_CREATE_QP.invokeExact(
                        domain.context().library().address(VerbsFunction.IBV_CREATE_QP), state, domain.address(), init);
            } catch (Throwable t) {
                throw Native.unchecked(t);
            }
            errno = Verbs.errno(state);
            actual = qp.equals(MemorySegment.NULL) ? null : QueuePairCapabilities.read(ibv_qp_init_attr.cap(init));
        }
        if (qp.equals(MemorySegment.NULL)) {
            throw VerbsException.errno("ibv_create_qp", errno, "RC, device " + domain.context().deviceName() + ", " + requested,
                    "ask for at most the device's max_qp_wr work requests and max_sge entries (ibv_devinfo -v); "
                            + "on ENOMEM raise the locked-memory limit (ulimit -l)");
        }
        QueuePair created;
        try {
            created = new QueuePair(domain, ibv_qp.reinterpret(qp), actual);
        } catch (RuntimeException e) {
            destroyNative(domain, qp, e);
            throw e;
        }
        try {
            created.attach();
        } catch (RuntimeException e) {
            created.scratchArena.close();
            destroyNative(domain, qp, e);
            throw e;
        }
        return created;
    }

    private static void destroyNative(ProtectionDomain domain, MemorySegment qp, RuntimeException primary) {
        try {
            int ignored = (int) Verbs.IBV_DESTROY_QP.invokeExact(
                    domain.context().library().address(VerbsFunction.IBV_DESTROY_QP), qp);
        } catch (Throwable t) {
            primary.addSuppressed(t);
        }
    }

    /**
     * Returns the queue pair number, sent to the peer in the bootstrap.
     *
     * @return the 24-bit QPN
     */
    public int qpNumber() {
        return qpNumber;
    }

    /**
     * Returns the capacities the device granted.
     *
     * @return the actual capacities
     */
    public QueuePairCapabilities capabilities() {
        return capabilities;
    }

    /**
     * Returns the native {@code struct ibv_qp *}.
     *
     * @return the queue pair, sized to the struct
     */
    public MemorySegment address() {
        return qp;
    }

    /**
     * Returns the state the library last recorded ({@code qp->state}, updated by
     * {@code ibv_modify_qp} and {@code ibv_query_qp}); the device may have moved to ERR since.
     *
     * @return an {@code IBV_QPS_*} value of {@link ibv_qp_state}
     */
    public int cachedState() {
        return ibv_qp.state(qp);
    }

    /**
     * Queries the current state from the device ({@code ibv_query_qp} with {@code IBV_QP_STATE}).
     *
     * @return an {@code IBV_QPS_*} value of {@link ibv_qp_state}
     * @throws VerbsException if the query fails
     */
    public int queryState() {
        try (Arena arena = Arena.ofConfined()) {
            return ibv_qp_attr.qp_state(query(arena, ibv_qp_attr_mask.IBV_QP_STATE));
        }
    }

    /** {@code ibv_query_qp} into a {@code struct ibv_qp_attr} allocated from {@code arena}. */
    private MemorySegment query(Arena arena, int mask) {
        ensureOpen();
        MemorySegment attr = ibv_qp_attr.allocate(arena);
        MemorySegment init = ibv_qp_init_attr.allocate(arena);
        int rc;
        try {
            rc = (int) Verbs.IBV_QUERY_QP.invokeExact(domain.context().library().address(VerbsFunction.IBV_QUERY_QP),
                    qp, attr, mask, init);
        } catch (Throwable t) {
            throw Native.unchecked(t);
        }
        if (rc != 0) {
            throw VerbsException.returned("ibv_query_qp", rc, "qp " + qpNumber + ", mask 0x" + Integer.toHexString(mask),
                    "none; the queue pair or its device is gone: reconnect");
        }
        return attr;
    }

    /**
     * Queries the attributes the connection runs with ({@code ibv_query_qp} with the state, path,
     * PSN, timeout and retry bits), for checks and diagnostics: not for the data path.
     *
     * @return what the device reports
     * @throws VerbsException if the query fails
     */
    public QueuePairAttributes queryAttributes() {
        int mask = ibv_qp_attr_mask.IBV_QP_STATE | ibv_qp_attr_mask.IBV_QP_PATH_MTU | ibv_qp_attr_mask.IBV_QP_DEST_QPN
                | ibv_qp_attr_mask.IBV_QP_SQ_PSN | ibv_qp_attr_mask.IBV_QP_RQ_PSN | ibv_qp_attr_mask.IBV_QP_TIMEOUT
                | ibv_qp_attr_mask.IBV_QP_RETRY_CNT | ibv_qp_attr_mask.IBV_QP_RNR_RETRY
                | ibv_qp_attr_mask.IBV_QP_MIN_RNR_TIMER;
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment attr = query(arena, mask);
            return new QueuePairAttributes(ibv_qp_attr.qp_state(attr), ibv_qp_attr.path_mtu(attr),
                    ibv_qp_attr.dest_qp_num(attr), ibv_qp_attr.sq_psn(attr), ibv_qp_attr.rq_psn(attr),
                    Byte.toUnsignedInt(ibv_qp_attr.timeout(attr)), Byte.toUnsignedInt(ibv_qp_attr.retry_cnt(attr)),
                    Byte.toUnsignedInt(ibv_qp_attr.rnr_retry(attr)),
                    Byte.toUnsignedInt(ibv_qp_attr.min_rnr_timer(attr)));
        }
    }

    /**
     * Moves RESET → INIT.
     *
     * @param port the port number, from 1
     * @param accessFlags what the peer may do to our memory: {@code IBV_ACCESS_REMOTE_*} bits
     * @throws VerbsException if the device refuses
     */
    public void modifyToInit(int port, int accessFlags) {
        RtrParameters.checkRange("port", port, 0xff);
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment attr = ibv_qp_attr.allocate(arena);
            ibv_qp_attr.qp_state(attr, ibv_qp_state.IBV_QPS_INIT);
            ibv_qp_attr.pkey_index(attr, (short) 0);
            ibv_qp_attr.port_num(attr, (byte) port);
            ibv_qp_attr.qp_access_flags(attr, accessFlags);
            modify(attr, INIT_MASK, "INIT", "port " + port + ", access 0x" + Integer.toHexString(accessFlags),
                    "the queue pair must be in RESET and the port must exist");
        }
    }

    /**
     * Moves INIT → RTR with a global (GRH) address vector to the peer.
     *
     * @param parameters the peer and path
     * @throws VerbsException if the device refuses
     */
    public void modifyToRtr(RtrParameters parameters) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment attr = ibv_qp_attr.allocate(arena);
            ibv_qp_attr.qp_state(attr, ibv_qp_state.IBV_QPS_RTR);
            ibv_qp_attr.path_mtu(attr, parameters.pathMtu());
            ibv_qp_attr.dest_qp_num(attr, parameters.remoteQpNumber());
            ibv_qp_attr.rq_psn(attr, parameters.remotePsn());
            ibv_qp_attr.max_dest_rd_atomic(attr, (byte) parameters.maxDestRdAtomic());
            ibv_qp_attr.min_rnr_timer(attr, (byte) parameters.minRnrTimer());
            MemorySegment ah = ibv_qp_attr.ah_attr(attr);
            ibv_ah_attr.is_global(ah, (byte) 1);
            ibv_ah_attr.port_num(ah, (byte) parameters.port());
            MemorySegment grh = ibv_ah_attr.grh(ah);
            parameters.remoteGid().write(ibv_global_route.dgid(grh));
            ibv_global_route.sgid_index(grh, (byte) parameters.sgidIndex());
            ibv_global_route.hop_limit(grh, (byte) parameters.hopLimit());
            ibv_global_route.traffic_class(grh, (byte) parameters.trafficClass());
            modify(attr, RTR_MASK, "RTR", parameters.toString(),
                    "the queue pair must be in INIT; check the peer's QP number, PSN and GID, that the path MTU "
                            + "is at most both ports' active MTU, and that sgid_index is a RoCE v2 GID of this port "
                            + "(GidSelector)");
        }
    }

    /**
     * Moves RTR → RTS.
     *
     * @param parameters our send side
     * @throws VerbsException if the device refuses
     */
    public void modifyToRts(RtsParameters parameters) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment attr = ibv_qp_attr.allocate(arena);
            ibv_qp_attr.qp_state(attr, ibv_qp_state.IBV_QPS_RTS);
            ibv_qp_attr.sq_psn(attr, parameters.psn());
            ibv_qp_attr.timeout(attr, (byte) parameters.timeout());
            ibv_qp_attr.retry_cnt(attr, (byte) parameters.retryCount());
            ibv_qp_attr.rnr_retry(attr, (byte) parameters.rnrRetry());
            ibv_qp_attr.max_rd_atomic(attr, (byte) parameters.maxRdAtomic());
            modify(attr, RTS_MASK, "RTS", parameters.toString(), "the queue pair must be in RTR");
        }
    }

    /**
     * Moves to ERR: outstanding work requests complete with {@code IBV_WC_WR_FLUSH_ERR} and no
     * further remote write can land in our memory. Used on timeout before giving buffers back.
     *
     * @throws VerbsException if the device refuses
     */
    public void modifyToError() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment attr = ibv_qp_attr.allocate(arena);
            ibv_qp_attr.qp_state(attr, ibv_qp_state.IBV_QPS_ERR);
            modify(attr, ERROR_MASK, "ERR", "", "none; destroy the queue pair and reconnect");
        }
    }

    private void modify(MemorySegment attr, int mask, String target, String values, String fix) {
        ensureOpen();
        int rc;
        try {
            rc = (int) Verbs.IBV_MODIFY_QP.invokeExact(domain.context().library().address(VerbsFunction.IBV_MODIFY_QP),
                    qp, attr, mask);
        } catch (Throwable t) {
            throw Native.unchecked(t);
        }
        if (rc != 0) {
            throw VerbsException.returned("ibv_modify_qp", rc, "qp " + qpNumber + " " + ibv_qp_state.name(cachedState())
                    + " -> " + target + ", mask 0x" + Integer.toHexString(mask) + (values.isEmpty() ? "" : ", " + values), fix);
        }
    }

    /**
     * Posts a chain of send work requests ({@code ibv_post_send}). Allocation-free.
     *
     * @param sendWorkRequest native memory holding the first {@code struct ibv_send_wr}, whose
     *     scatter/gather lists reference registered memory
     * @return 0, or an errno value ({@code ENOMEM} when the send queue is full, {@code EINVAL} for a
     *     malformed request, {@code EBADF} after close); then {@link #badSendWorkRequest()} says which
     */
    public int postSend(MemorySegment sendWorkRequest) {
        if (!live) {
            return Errno.EBADF;
        }
        // Cleared first: a provider that fails without naming a request leaves NULL, not an old one.
        badSendWr.set(ValueLayout.JAVA_LONG, 0, 0L);
        try {
            return (int) Verbs.POST_SEND.invokeExact(postSend, qp, sendWorkRequest, badSendWr);
        } catch (Throwable t) {
            throw Native.unchecked(t);
        }
    }

    /**
     * Posts a chain of receive work requests ({@code ibv_post_recv}). Allocation-free.
     *
     * @param receiveWorkRequest native memory holding the first {@code struct ibv_recv_wr}
     * @return 0, or an errno value ({@code ENOMEM} when the receive queue is full, {@code EBADF}
     *     after close); then {@link #badReceiveWorkRequest()} says which
     */
    public int postRecv(MemorySegment receiveWorkRequest) {
        if (!live) {
            return Errno.EBADF;
        }
        try {
            return (int) Verbs.POST_RECV.invokeExact(postRecv, qp, receiveWorkRequest, badRecvWr);
        } catch (Throwable t) {
            throw Native.unchecked(t);
        }
    }

    /**
     * Returns the address of the first send work request the last failed {@link #postSend} did not
     * post.
     *
     * @return the native address, or 0 if the provider named none; not after close
     */
    public long badSendWorkRequest() {
        return badSendWr.get(ValueLayout.JAVA_LONG, 0);
    }

    /**
     * Returns the address of the first receive work request the last failed {@link #postRecv} did
     * not post.
     *
     * @return the native address
     */
    public long badReceiveWorkRequest() {
        return badRecvWr.get(ValueLayout.JAVA_LONG, 0);
    }

    @Override
    int closeRank() {
        return 0;
    }

    @Override
    void destroy() {
        int rc;
        try {
            rc = (int) Verbs.IBV_DESTROY_QP.invokeExact(domain.context().library().address(VerbsFunction.IBV_DESTROY_QP), qp);
        } catch (Throwable t) {
            throw Native.unchecked(t);
        }
        if (rc != 0) {
            throw VerbsException.returned("ibv_destroy_qp", rc, "qp " + qpNumber,
                    "detach multicast groups and close flows using this queue pair first");
        }
        live = false;
        scratchArena.close();
    }

    @Override
    public String toString() {
        return "QueuePair[" + domain.context().deviceName() + ", qpn " + qpNumber + ", "
                + ibv_qp_state.name(cachedState()) + "]";
    }
}
