package dev.ofl.verbs.rdma;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ofl.api.Limits;
import dev.ofl.api.RefusalCode;
import dev.ofl.api.wire.Bootstrap;
import dev.ofl.api.wire.TransportKind;
import dev.ofl.verbs.Errno;
import dev.ofl.verbs.MemlockLimit;
import dev.ofl.verbs.MemoryRegion;
import dev.ofl.verbs.PathMtu;
import dev.ofl.verbs.VerbsException;
import dev.ofl.verbs.ffm.ibv_access_flags;
import dev.ofl.verbs.ffm.ibv_qp_state;
import dev.ofl.verbs.ffm.ibv_wc;
import dev.ofl.verbs.ffm.ibv_wc_opcode;
import dev.ofl.verbs.ffm.ibv_wc_status;
import dev.ofl.verbs.ffm.ibv_wr_opcode;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * One connection's verbs objects ({@link Link}) over softverbs (and over rxe in the guest of
 * {@code ./ofl test-rxe}), two links wired to each other in one process: what a peer receives
 * from its posts, what breaking and losing a link leave behind, the checks on a peer's queue-pair
 * parameters, and that closing releases every registration.
 */
@Timeout(60)
class LinkTest {
    private static final Limits LIMITS = new Limits(1024, 4096, 4, 4);
    /** Tests that need a queue pair the device refuses, which softverbs' limits give and rxe's do not. */
    static final String SOFTVERBS_LIMITS = "softverbs-limits";
    private static final int REMOTE_WRITABLE = ibv_access_flags.IBV_ACCESS_LOCAL_WRITE
            | ibv_access_flags.IBV_ACCESS_REMOTE_WRITE;

    private final RdmaSettings settings = RdmaSettings.from(TestEnvironment.rdmaProperties());
    private final List<Link> links = new ArrayList<>();
    private RdmaDevice device;
    private Arena arena;

    @BeforeEach
    void openDevice() {
        device = RdmaDevice.open(TestEnvironment.address(), settings);
        arena = Arena.ofShared();
    }

    @AfterEach
    void closeEverything() {
        for (Link link : links) {
            link.close();
        }
        device.close();
        arena.close();
    }

    private Link create(boolean events) {
        Link link = Link.create(device, device.gid, 16, 16, 256, events, ibv_access_flags.IBV_ACCESS_REMOTE_WRITE);
        links.add(link);
        return link;
    }

    private static Bootstrap.Endpoint base() {
        return new Bootstrap.Endpoint(RefusalCode.ACCEPTED, TransportKind.RDMA, "link", LIMITS, 0, 0, null, 0, 0, 0,
                "", null);
    }

    /** Two links in RTS, each the other's peer. */
    private Link[] pair() {
        Link a = create(false);
        Link b = create(false);
        Bootstrap.Endpoint ea = a.endpoint(base(), 0, 0);
        Bootstrap.Endpoint eb = b.endpoint(base(), 0, 0);
        a.connect(eb, settings, RdmaSettings.RNR_RETRY_FOREVER);
        b.connect(ea, settings, RdmaSettings.RNR_RETRY_FOREVER);
        return new Link[] {a, b};
    }

    /** The next completion of {@code link}: {wr_id, status, opcode, byte_len, imm_data}. */
    private static long[] next(Link link) {
        long deadlineNs = System.nanoTime() + TestEnvironment.nanos(10);
        while (true) {
            int n = link.poll();
            assertTrue(n >= 0, "ibv_poll_cq failed: " + n);
            if (n > 0) {
                assertEquals(1, n, "one completion at a time in these tests");
                MemorySegment wc = link.completion(0);
                return new long[] {ibv_wc.wr_id(wc), ibv_wc.status(wc), ibv_wc.opcode(wc), ibv_wc.byte_len(wc),
                        ibv_wc.imm_data(wc)};
            }
            assertTrue(System.nanoTime() - deadlineNs < 0, "no completion within the deadline");
            Thread.onSpinWait();
        }
    }

    private static void fill(MemorySegment segment, int seed) {
        for (long i = 0; i < segment.byteSize(); i++) {
            segment.set(ValueLayout.JAVA_BYTE, i, (byte) (i * 7 + seed));
        }
    }

    @Test
    void theEndpointCarriesThisSidesQueuePairPsnGidMtuAndRing() {
        Link link = create(false);
        Bootstrap.Endpoint endpoint = link.endpoint(base(), 0x1234_5678_9abcL, 0x55aa);
        assertEquals(link.qp.qpNumber(), endpoint.qpn());
        assertEquals(link.psn, endpoint.psn());
        assertTrue(link.psn >= 0 && link.psn < 1 << 24, "a PSN has 24 bits: " + link.psn);
        assertArrayEquals(device.gid.gid().toBytes(), endpoint.gid());
        assertEquals(PathMtu.toBytes(device.activeMtu()), endpoint.mtu());
        assertEquals(0x1234_5678_9abcL, endpoint.ringAddress());
        assertEquals(0x55aa, endpoint.ringKey());
        assertEquals("link", endpoint.serviceName());
        assertEquals(LIMITS, endpoint.limits());
    }

    @Test
    void aCompletionChannelExistsInEventModeOnly() {
        Link events = create(true);
        Link polling = create(false);
        assertNotNull(events.channel, "BLOCKING waits on the channel's descriptor");
        assertTrue(events.channel.fileDescriptor() >= 0);
        assertNull(polling.channel, "BUSY_POLL needs no channel");
    }

    @Test
    void aSendLandsInThePeersPostedReceiveAndAWriteWithImmediateCarriesItsValue() {
        Link[] pair = pair();
        Link a = pair[0];
        Link b = pair[1];
        MemorySegment source = arena.allocate(4096, 4096);
        MemorySegment target = arena.allocate(4096, 4096);
        fill(source, 3);
        MemoryRegion sourceMr = a.register(source, ibv_access_flags.IBV_ACCESS_LOCAL_WRITE);
        MemoryRegion targetMr = b.register(target, REMOTE_WRITABLE);
        // 300 bytes: above the inline limit, so the device reads the source at send time.
        assertEquals(0, b.postReceive(7, target.address(), 1024, targetMr.lkey()));
        assertEquals(0, a.postSend(11, ibv_wr_opcode.IBV_WR_SEND, true, source.address(), 300, sourceMr.lkey(), 0, 0,
                0));
        long[] received = next(b);
        assertEquals(7, received[0], "the receive's work request id");
        assertEquals(ibv_wc_status.IBV_WC_SUCCESS, received[1]);
        assertEquals(ibv_wc_opcode.IBV_WC_RECV, received[2]);
        assertEquals(300, received[3], "the SEND's length");
        assertEquals(-1L, source.asSlice(0, 300).mismatch(target.asSlice(0, 300)), "the SEND's bytes");
        long[] sent = next(a);
        assertEquals(11, sent[0]);
        assertEquals(ibv_wc_opcode.IBV_WC_SEND, sent[2]);

        // An unsignalled WRITE completes nothing on the sender; the signalled WRITE WITH IMMEDIATE after it does.
        assertEquals(0, b.postReceive(8, 0, 0, 0), "a receive for WRITE WITH IMMEDIATE only");
        assertEquals(0, a.postSend(12, ibv_wr_opcode.IBV_WR_RDMA_WRITE, false, source.address() + 100, 64,
                sourceMr.lkey(), target.address() + 1000, targetMr.rkey(), 0));
        assertEquals(0, a.postSend(13, ibv_wr_opcode.IBV_WR_RDMA_WRITE_WITH_IMM, true, source.address() + 200, 16,
                sourceMr.lkey(), target.address() + 2000, targetMr.rkey(), 0x0bad_cafe));
        long[] immediate = next(b);
        assertEquals(8, immediate[0]);
        assertEquals(ibv_wc_status.IBV_WC_SUCCESS, immediate[1]);
        assertEquals(ibv_wc_opcode.IBV_WC_RECV_RDMA_WITH_IMM, immediate[2]);
        assertEquals(0x0bad_cafe, (int) immediate[4], "the immediate");
        assertEquals(-1L, source.asSlice(100, 64).mismatch(target.asSlice(1000, 64)), "the WRITE's bytes");
        assertEquals(-1L, source.asSlice(200, 16).mismatch(target.asSlice(2000, 16)), "the WRITE WITH IMM's bytes");
        long[] written = next(a);
        assertEquals(13, written[0], "only the signalled write completes on the sender");
        assertEquals(ibv_wc_opcode.IBV_WC_RDMA_WRITE, written[2]);
        assertEquals(0, a.poll());
    }

    /**
     * A post the provider refuses reaches the caller as its errno, not as success (the transports
     * name it in their failure): nothing completes a receive while no message arrives, so the queue
     * fills and a receive beyond it is refused. Where it fills is the device's: at least what it
     * granted, and some rxe kernels report the depth asked for while their ring holds more; the
     * rxe provider of older rdma-core returns the error negated.
     */
    @Test
    void aReceivePostedToAFullQueueReturnsTheProvidersError() {
        Link a = create(false);
        int granted = a.qp.capabilities().maxRecvWr();
        int accepted = 0;
        int rc = 0;
        while (accepted <= 4 * granted && (rc = a.postReceive(accepted, 0, 0, 0)) == 0) {
            accepted++;
        }
        assertTrue(accepted >= granted, accepted + " receives accepted of the " + granted + " granted");
        assertEquals(Errno.ENOMEM, Math.abs(rc), "a receive beyond the queue, after " + accepted + " accepted");
    }

    /**
     * The same for the send queue: a SEND the peer has no receive for waits (receiver not ready,
     * retried for ever), so the sends behind it fill the queue and the one beyond it is refused.
     */
    @Test
    void aSendPostedToAFullQueueReturnsTheProvidersError() {
        Link a = pair()[0];
        int granted = a.qp.capabilities().maxSendWr();
        int accepted = 0;
        int rc = 0;
        while (accepted <= 4 * granted
                && (rc = a.postSend(accepted, ibv_wr_opcode.IBV_WR_SEND, true, 0, 0, 0, 0, 0, 0)) == 0) {
            accepted++;
        }
        assertTrue(accepted >= granted, accepted + " sends accepted of the " + granted + " granted");
        assertEquals(Errno.ENOMEM, Math.abs(rc), "a send beyond the queue, after " + accepted + " accepted");
    }

    /**
     * How many SENDs the send queue of a fresh connected link like {@code like} takes before the
     * provider refuses one: each waits for a receive the peer never posts (RNR, retried for ever),
     * so none completes.
     */
    private int sendQueueCapacity(Link like) {
        Link probe = pair()[0];
        // The same grant, or the count would not carry over from one queue pair to the other.
        assertEquals(like.qp.capabilities(), probe.qp.capabilities());
        int granted = probe.qp.capabilities().maxSendWr();
        int accepted = 0;
        while (accepted <= 4 * granted && probe.postSend(accepted, ibv_wr_opcode.IBV_WR_SEND, true, 0, 0, 0, 0, 0, 0)
                == 0) {
            accepted++;
        }
        return accepted;
    }

    /**
     * A pair posted where the queue has room for one posts the first and names the second as the
     * failing one, and where it has none names the first: the server counts exactly the posted
     * ones, whose completions return its staging blocks.
     */
    @Test
    void aPairPostedToAQueueWithRoomForOneOrNoneCountsWhatWasPosted() {
        for (int room : new int[] {1, 0}) {
            Link a = pair()[0];
            int capacity = sendQueueCapacity(a);
            for (int i = 0; i < capacity - room; i++) {
                assertEquals(0, a.postSend(i, ibv_wr_opcode.IBV_WR_SEND, true, 0, 0, 0, 0, 0, 0), "send " + i);
            }
            a.prepareFirstOfPair(1000, ibv_wr_opcode.IBV_WR_SEND, true, 0, 0, 0, 0, 0, 0);
            int rc = a.postPreparedPair(1001, ibv_wr_opcode.IBV_WR_SEND, true, 0, 0, 0, 0, 0, 0);
            assertEquals(Errno.ENOMEM, Math.abs(rc), "a pair with room for " + room);
            assertEquals(room, a.postedOfPair(rc), "posted of a pair with room for " + room);
        }
    }

    /**
     * Closing a live link moves its queue pair to ERR before it posts the markers that drain it:
     * posted on a queue pair still in RTS, the send marker would travel to the peer and consume a
     * receive there. The peer's receive stays untouched until the peer itself breaks and flushes it.
     */
    @Test
    void closingALiveLinkSendsNothingToThePeer() {
        Link[] pair = pair();
        Link a = pair[0];
        Link b = pair[1];
        assertEquals(0, b.postReceive(7, 0, 0, 0));
        a.close();
        assertTrue(a.isBroken(), "close moved the queue pair to ERR");
        b.breakLink();
        long[] flushed = next(b);
        assertEquals(7, flushed[0]);
        assertEquals(ibv_wc_status.IBV_WC_WR_FLUSH_ERR, flushed[1], "the peer's receive took nothing from the close");
    }

    /**
     * The completion queue holds a completion for every work request the link asked both queues
     * for: one dropped for want of room would leave whoever waits for it waiting for ever. That
     * many receives are flushed by ERR, that many sends are posted and flushed, and every one of
     * them is polled.
     */
    @Test
    void theCompletionQueueHoldsACompletionForEveryWorkRequestOfBothQueues() {
        Link a = create(false);
        // The depths the link was made with: a device may grant more, but the transports never
        // post more than they asked for, and the completion queue is sized from those.
        int receives = 16;
        int sends = 16;
        for (int i = 0; i < receives; i++) {
            assertEquals(0, a.postReceive(i, 0, 0, 0), "receive " + i);
        }
        a.breakLink();
        for (int i = 0; i < sends; i++) {
            assertEquals(0, a.postSend(1000 + i, ibv_wr_opcode.IBV_WR_SEND, true, 0, 0, 0, 0, 0, 0), "send " + i);
        }
        Set<Long> polled = new HashSet<>();
        long deadlineNs = System.nanoTime() + TestEnvironment.nanos(10);
        while (polled.size() < receives + sends && System.nanoTime() - deadlineNs < 0) {
            int n = a.poll();
            assertTrue(n >= 0, "ibv_poll_cq failed: " + n);
            for (int i = 0; i < n; i++) {
                MemorySegment wc = a.completion(i);
                assertEquals(ibv_wc_status.IBV_WC_WR_FLUSH_ERR, ibv_wc.status(wc));
                assertTrue(polled.add(ibv_wc.wr_id(wc)), "work request " + ibv_wc.wr_id(wc) + " completed twice");
            }
            Thread.onSpinWait();
        }
        assertEquals(receives + sends, polled.size(), "completions polled of " + receives + " receives and " + sends
                + " sends");
    }

    @Test
    void breakingMovesTheQueuePairToErrorOnceAndFlushesWhatWasPosted() {
        Link[] pair = pair();
        Link a = pair[0];
        assertFalse(a.isBroken());
        assertEquals(ibv_qp_state.IBV_QPS_RTS, a.qp.queryState());
        assertEquals(0, a.postReceive(5, 0, 0, 0));
        a.breakLink();
        assertTrue(a.isBroken());
        assertEquals(ibv_qp_state.IBV_QPS_ERR, a.qp.queryState());
        long[] flushed = next(a);
        assertEquals(5, flushed[0]);
        assertEquals(ibv_wc_status.IBV_WC_WR_FLUSH_ERR, flushed[1], "a posted receive is flushed by ERR");
        assertDoesNotThrow(a::breakLink, "breaking twice is harmless");
        assertNull(a.lossReason(), "breaking is not losing the peer");
    }

    @Test
    void losingThePeerRecordsWhyAndBreaksTheLink() {
        Link a = pair()[0];
        a.lose("the peer's bootstrap socket ended");
        assertEquals("the peer's bootstrap socket ended", a.lossReason());
        assertTrue(a.isBroken());
        assertEquals(ibv_qp_state.IBV_QPS_ERR, a.qp.queryState());
    }

    @Test
    void aClosedLinkIgnoresALateBreakFromItsLivenessWatcher() {
        Link a = create(false);
        a.close();
        assertDoesNotThrow(a::breakLink, "the QP is gone: nothing to break");
        assertDoesNotThrow(() -> a.lose("late"));
        assertDoesNotThrow(a::close, "closing twice is harmless");
    }

    @Test
    void closeDeregistersEveryRegionOfTheLinkAfterTheQueuePair() {
        long before = MemlockLimit.registeredBytes();
        Link[] pair = pair();
        Link a = pair[0];
        MemoryRegion first = a.register(arena.allocate(8192, 4096), REMOTE_WRITABLE);
        MemoryRegion second = a.register(arena.allocate(4096, 4096), ibv_access_flags.IBV_ACCESS_LOCAL_WRITE);
        assertEquals(List.of(first, second), a.registrations());
        assertEquals(before + 12288, MemlockLimit.registeredBytes(), "both regions counted while registered");
        // Outstanding receives on a live queue pair: close moves it to ERR and drains them first.
        assertEquals(0, a.postReceive(1, 0, 0, 0));
        assertEquals(0, a.postReceive(2, 0, 0, 0));
        a.close();
        assertEquals(before, MemlockLimit.registeredBytes(), "every region deregistered by close");
        assertThrows(IllegalStateException.class, a.qp::queryState, "the queue pair is destroyed");
    }

    @Test
    void closeAfterBreakStillReleasesEverything() {
        long before = MemlockLimit.registeredBytes();
        Link a = pair()[0];
        a.register(arena.allocate(4096, 4096), REMOTE_WRITABLE);
        a.breakLink();
        a.close();
        assertEquals(before, MemlockLimit.registeredBytes());
        assertThrows(IllegalStateException.class, a.qp::queryState);
    }

    @Test
    void aPeerQueuePairNumberOrPsnBeyond24BitsOrAForeignMtuIsRefusedNamingIt() {
        Link a = create(false);
        Bootstrap.Endpoint good = create(false).endpoint(base(), 0, 0);
        IllegalArgumentException qpn = assertThrows(IllegalArgumentException.class, () -> a.connect(
                withQpnPsnMtu(good, 1 << 24, good.psn(), good.mtu()), settings, 0));
        assertTrue(qpn.getMessage().contains("QPN 0x1000000") && qpn.getMessage().contains("24 bits"),
                qpn.getMessage());
        IllegalArgumentException psn = assertThrows(IllegalArgumentException.class, () -> a.connect(
                withQpnPsnMtu(good, good.qpn(), 0x0100_0001, good.mtu()), settings, 0));
        assertTrue(psn.getMessage().contains("PSN 0x1000001") && psn.getMessage().contains("24 bits"),
                psn.getMessage());
        IllegalArgumentException mtu = assertThrows(IllegalArgumentException.class, () -> a.connect(
                withQpnPsnMtu(good, good.qpn(), good.psn(), 1000), settings, 0));
        assertTrue(mtu.getMessage().contains("MTU 1000 is not a verbs MTU"), mtu.getMessage());
        // The largest 24-bit values are fine.
        assertDoesNotThrow(() -> a.connect(withQpnPsnMtu(good, good.qpn(), 0xff_ffff, good.mtu()), settings, 0));
        assertEquals(ibv_qp_state.IBV_QPS_RTS, a.qp.queryState());
    }

    private static Bootstrap.Endpoint withQpnPsnMtu(Bootstrap.Endpoint e, int qpn, int psn, int mtu) {
        return new Bootstrap.Endpoint(e.status(), e.transport(), e.serviceName(), e.limits(), qpn, psn, e.gid(), mtu,
                e.ringAddress(), e.ringKey(), e.text(), e.extensions());
    }

    /**
     * Tagged {@value #SOFTVERBS_LIMITS}: rxe grants 20,000 send work requests, so the guest of
     * {@code ./ofl test-rxe} leaves this test out.
     */
    @Test
    @Tag(SOFTVERBS_LIMITS)
    void aQueuePairTheDeviceRefusesAtEveryInlineSizeFailsWithEveryAttemptAndLeavesNothingOpen() {
        long before = MemlockLimit.registeredBytes();
        // More send work requests than softverbs allows (16384): refused whatever the inline size.
        VerbsException refused = assertThrows(VerbsException.class, () -> Link.create(device, device.gid, 20_000, 1,
                256, true, 0));
        assertEquals(2, refused.getSuppressed().length, "the attempts with 64 and 0 bytes inline: "
                + List.of(refused.getSuppressed()));
        assertEquals(before, MemlockLimit.registeredBytes());
        // Asking for more inline data than the device has falls back to a size it grants.
        Link link = Link.create(device, device.gid, 16, 16, 4096, false, 0);
        links.add(link);
        assertTrue(link.qp.capabilities().maxInlineData() >= 64, link.qp.capabilities()::toString);
    }

    /**
     * A link whose queue pair the device refuses closes the completion channel it made first: an
     * open file on every device. Several attempts, so that a file another thread opens meanwhile
     * cannot fail the test. Tagged {@value #SOFTVERBS_LIMITS}, as the test above.
     */
    @Test
    @Tag(SOFTVERBS_LIMITS)
    void aRefusedLinkClosesItsCompletionChannel() {
        int attempts = 8;
        long before = TestEnvironment.openFiles();
        for (int i = 0; i < attempts; i++) {
            assertThrows(VerbsException.class, () -> Link.create(device, device.gid, 20_000, 1, 256, true, 0));
        }
        long grown = TestEnvironment.openFiles() - before;
        assertTrue(grown < attempts, "open files grew by " + grown + " over " + attempts + " refused links");
    }

    @Test
    void settingsReachTheQueuePairAtConnect() {
        RdmaSettings custom = RdmaSettings.from(Map.of(RdmaSettings.TIMEOUT, "9", RdmaSettings.RETRY_COUNT, "2"));
        Link a = create(false);
        Link b = create(false);
        a.connect(b.endpoint(base(), 0, 0), custom, 3);
        assertEquals(9, a.qp.queryAttributes().timeout());
        assertEquals(2, a.qp.queryAttributes().retryCount());
        assertEquals(3, a.qp.queryAttributes().rnrRetry());
        assertEquals(b.qp.qpNumber(), a.qp.queryAttributes().destQpNumber());
        assertEquals(b.psn, a.qp.queryAttributes().receivePsn());
        assertEquals(a.psn, a.qp.queryAttributes().sendPsn());
    }
}
