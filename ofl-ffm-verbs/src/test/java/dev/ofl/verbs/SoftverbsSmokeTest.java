package dev.ofl.verbs;

import dev.ofl.verbs.ffm.ibv_access_flags;
import dev.ofl.verbs.ffm.ibv_link_layer;
import dev.ofl.verbs.ffm.ibv_qp_state;
import dev.ofl.verbs.ffm.ibv_recv_wr;
import dev.ofl.verbs.ffm.ibv_send_flags;
import dev.ofl.verbs.ffm.ibv_send_wr;
import dev.ofl.verbs.ffm.ibv_sge;
import dev.ofl.verbs.ffm.ibv_wc;
import dev.ofl.verbs.ffm.ibv_wc_opcode;
import dev.ofl.verbs.ffm.ibv_wc_status;
import dev.ofl.verbs.ffm.ibv_wr_opcode;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.OptionalInt;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * The whole binding against softverbs, the user-space libibverbs stand-in built by
 * {@code ofl-softverbs}: device, port, GID table, PD, MR, CQ, two RC queue pairs connected over
 * the loopback GID, one SEND/RECV through the ops table, then ERR and teardown.
 */
class SoftverbsSmokeTest {
    private static final int PAYLOAD_BYTES = 64;
    private static final long WAIT_NS = 10_000_000_000L;

    private static VerbsLibrary softverbs;

    @BeforeAll
    static void loadSoftverbs() {
        // The library ofl.test.softverbs names (an emulated JVM's architecture's), else the build's.
        Path moduleDir = Path.of(System.getProperty("basedir", ".")).toAbsolutePath().normalize();
        String named = System.getProperty("ofl.test.softverbs", "");
        Path library = named.isBlank() ? moduleDir.resolveSibling("ofl-softverbs").resolve("target/lib/libibverbs.so.1")
                : Path.of(named);
        if (!Files.isRegularFile(library)) {
            fail(library + " is missing: build ofl-softverbs first (mvn -pl ofl-softverbs package, or make -C ofl-softverbs)");
        }
        softverbs = VerbsLibrary.load(library.toString());
    }

    /*
     * The receiving queue signals a channel, and its event is taken but never acknowledged:
     * closing the context must acknowledge it, because ibv_destroy_cq waits for every event handed
     * out (libibverbs on every device, and softverbs alike). A close that did not would hang, so
     * the test runs on a thread of its own with a bound.
     */
    @Test
    @Timeout(value = 120, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void sendAndReceiveOverLoopbackThroughTheOpsTable() throws Exception {
        RdmaAvailability.Probe probe = RdmaAvailability.probe(softverbs);
        assertTrue(probe.isAvailable(), () -> String.valueOf(probe.cause()));
        assertTrue(probe.deviceNames().contains("softverbs0"), probe.deviceNames().toString());

        Context context;
        try (DeviceList devices = DeviceList.open(softverbs)) {
            context = devices.byName("softverbs0").open();
        }
        try (context; Arena arena = Arena.ofConfined()) {
            assertTrue(context.isExtended(), "softverbs returns a verbs_context");
            DeviceAttributes device = context.queryDevice();
            assertTrue(device.physicalPortCount() >= 1, device.toString());
            PortAttributes port = context.queryPort(1);
            assertTrue(port.isActive(), port.toString());
            assertEquals(ibv_link_layer.IBV_LINK_LAYER_ETHERNET, port.linkLayer());

            List<GidEntry> table = context.queryGidTable();
            Inet4Address loopback = (Inet4Address) InetAddress.getByName("127.0.0.1");
            GidEntry gid = GidSelector.select(loopback, GidSelector.netdevIndexOf(loopback), table, List.of(port),
                    OptionalInt.empty());
            assertEquals(Gid.ipv4Mapped(loopback), gid.gid());
            assertEquals(gid.gid(), context.queryGid(1, gid.index()));
            assertEquals(gid, context.queryGidEntry(1, gid.index()));

            ProtectionDomain pd = context.allocateProtectionDomain();
            MemorySegment sendBuffer = arena.allocate(4096, 4096);
            MemorySegment receiveBuffer = arena.allocate(4096, 4096);
            int access = ibv_access_flags.IBV_ACCESS_LOCAL_WRITE | ibv_access_flags.IBV_ACCESS_REMOTE_WRITE;
            MemoryRegion sendRegion = pd.register(sendBuffer, access);
            MemoryRegion receiveRegion = pd.register(receiveBuffer, access);

            CompletionQueue cqA = context.createCompletionQueue(16, null, 0);
            CompletionChannel channel = context.createCompletionChannel();
            CompletionQueue cqB = context.createCompletionQueue(16, channel, 0);
            assertEquals(0, cqB.requestNotify(false));
            QueuePairCapabilities caps = new QueuePairCapabilities(8, 8, 1, 1, 0);
            QueuePair a = pd.createReliableConnected(cqA, cqA, caps);
            QueuePair b = pd.createReliableConnected(cqB, cqB, caps);
            assertEquals(ibv_qp_state.IBV_QPS_RESET, a.queryState());

            for (QueuePair qp : List.of(a, b)) {
                qp.modifyToInit(1, access);
                assertEquals(ibv_qp_state.IBV_QPS_INIT, qp.queryState());
            }
            MemorySegment receiveSge = ibv_sge.allocate(arena);
            ibv_sge.addr(receiveSge, receiveRegion.address());
            ibv_sge.length(receiveSge, 4096);
            ibv_sge.lkey(receiveSge, receiveRegion.lkey());
            MemorySegment receiveWr = ibv_recv_wr.allocate(arena);
            ibv_recv_wr.wr_id(receiveWr, 77);
            ibv_recv_wr.sg_list(receiveWr, receiveSge);
            ibv_recv_wr.num_sge(receiveWr, 1);
            assertEquals(0, b.postRecv(receiveWr));

            int mtu = PathMtu.pathMtu(port.activeMtu(), port.activeMtu());
            a.modifyToRtr(RtrParameters.roce(b.qpNumber(), 200, mtu, gid.gid(), gid.index(), 1));
            b.modifyToRtr(RtrParameters.roce(a.qpNumber(), 100, mtu, gid.gid(), gid.index(), 1));
            a.modifyToRts(RtsParameters.defaults(100));
            b.modifyToRts(RtsParameters.defaults(200));
            assertEquals(ibv_qp_state.IBV_QPS_RTS, a.queryState());
            assertEquals(ibv_qp_state.IBV_QPS_RTS, b.cachedState());

            for (int i = 0; i < PAYLOAD_BYTES; i++) {
                sendBuffer.set(ValueLayout.JAVA_BYTE, i, (byte) (i * 7 + 1));
            }
            MemorySegment sendSge = ibv_sge.allocate(arena);
            ibv_sge.addr(sendSge, sendRegion.address());
            ibv_sge.length(sendSge, PAYLOAD_BYTES);
            ibv_sge.lkey(sendSge, sendRegion.lkey());
            MemorySegment sendWr = ibv_send_wr.allocate(arena);
            ibv_send_wr.wr_id(sendWr, 42);
            ibv_send_wr.sg_list(sendWr, sendSge);
            ibv_send_wr.num_sge(sendWr, 1);
            ibv_send_wr.opcode(sendWr, ibv_wr_opcode.IBV_WR_SEND);
            ibv_send_wr.send_flags(sendWr, ibv_send_flags.IBV_SEND_SIGNALED);
            assertEquals(0, a.postSend(sendWr));

            MemorySegment completions = ibv_wc.allocateArray(4, arena);
            MemorySegment sent = pollOne(cqA, completions);
            assertEquals(ibv_wc_status.IBV_WC_SUCCESS, ibv_wc.status(sent), ibv_wc_status.name(ibv_wc.status(sent)));
            assertEquals(ibv_wc_opcode.IBV_WC_SEND, ibv_wc.opcode(sent));
            assertEquals(42, ibv_wc.wr_id(sent));

            MemorySegment received = pollOne(cqB, completions);
            assertEquals(ibv_wc_status.IBV_WC_SUCCESS, ibv_wc.status(received), ibv_wc_status.name(ibv_wc.status(received)));
            assertEquals(ibv_wc_opcode.IBV_WC_RECV, ibv_wc.opcode(received));
            assertEquals(77, ibv_wc.wr_id(received));
            assertEquals(PAYLOAD_BYTES, ibv_wc.byte_len(received));
            assertEquals(b.qpNumber(), ibv_wc.qp_num(received));
            assertEquals(-1L, receiveBuffer.asSlice(0, PAYLOAD_BYTES).mismatch(sendBuffer.asSlice(0, PAYLOAD_BYTES)));
            assertSame(cqB, channel.awaitEvent(), "the armed queue's completion raised its event");

            a.modifyToError();
            assertEquals(ibv_qp_state.IBV_QPS_ERR, a.queryState());
        }
        assertTrue(context.isClosed());
        context.close();
    }

    @Test
    void closingAParentClosesItsChildrenAndFastPathReportsClosed() {
        Context context;
        try (DeviceList devices = DeviceList.open(softverbs)) {
            context = devices.byName("softverbs0").open();
        }
        ProtectionDomain pd = context.allocateProtectionDomain();
        CompletionChannel channel = context.createCompletionChannel();
        CompletionQueue cq = context.createCompletionQueue(4, channel, 0);
        QueuePair qp = pd.createReliableConnected(cq, cq, new QueuePairCapabilities(1, 1, 1, 1, 0));
        try (Arena arena = Arena.ofConfined()) {
            MemoryRegion region = pd.register(arena.allocate(4096, 4096), ibv_access_flags.IBV_ACCESS_LOCAL_WRITE);
            assertEquals(0, cq.requestNotify(false));
            context.close();
            assertTrue(qp.isClosed() && region.isClosed() && cq.isClosed() && channel.isClosed() && pd.isClosed());
            assertEquals(Errno.EBADF, qp.postSend(MemorySegment.NULL));
            assertEquals(-Errno.EBADF, cq.poll(1, ibv_wc.allocate(arena)));
            context.close();
        }
    }

    private static MemorySegment pollOne(CompletionQueue cq, MemorySegment completions) {
        long deadlineNs = System.nanoTime() + WAIT_NS;
        while (System.nanoTime() - deadlineNs < 0) {
            int n = cq.poll(4, completions);
            assertTrue(n >= 0, "poll_cq returned " + n);
            if (n == 1) {
                return ibv_wc.asSlice(completions, 0);
            }
            assertEquals(0, n, "expected one completion");
            Thread.onSpinWait();
        }
        fail("no completion within " + WAIT_NS / 1_000_000 + " ms");
        return null;
    }
}
