package dev.ofl.verbs.rdma;

import dev.ofl.api.ClientConfig;
import dev.ofl.api.Completion;
import dev.ofl.api.Limits;
import dev.ofl.api.Ofl;
import dev.ofl.api.OflClient;
import dev.ofl.api.OflServer;
import dev.ofl.api.OflStatus;
import dev.ofl.api.Region;
import dev.ofl.api.ResponseRanges;
import dev.ofl.api.ServerConfig;
import dev.ofl.api.wire.MessageHeader;
import dev.ofl.api.wire.MessageType;
import dev.ofl.api.wire.WireStatus;
import dev.ofl.verbs.ffm.ibv_wc_opcode;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetSocketAddress;
import java.nio.ByteOrder;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.function.ToIntFunction;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * A hostile RDMA client, built from the backend's own verbs wrappers ({@link VerbsPeer}), against
 * a real ofl RDMA server over softverbs: after a normal bootstrap and one answered request, it
 * SENDs what PROTOCOL.md §9.3 refuses. The server must survive, close only that connection, count
 * one protocol violation, and name the field in its log, while a well-behaved client on the same
 * server keeps working. Waits come from {@link TestEnvironment}.
 */
class HostileRdmaClientTest {
    private static final String SERVICE = "hostile-rdma";
    private static final Limits LIMITS = new Limits(1024, 4096, 4, 2);
    private static final int OP_ECHO = 1;
    private static final int OP_HOLD = 2;
    private static final ValueLayout.OfInt U32_LE = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    /** Where the hostile client's ranges start in its remotely writable area (past its ring). */
    private static final long RANGE_OFFSET = 4096;

    private final AtomicInteger held = new AtomicInteger();
    private final CountDownLatch holdEntered = new CountDownLatch(1);
    private final CountDownLatch holdRelease = new CountDownLatch(1);
    private Arena arena;
    private OflServer server;
    private OflClient good;
    private Region goodRegion;
    private MemorySegment goodMemory;

    @BeforeEach
    void startServerAndWellBehavedClient() {
        arena = Arena.ofShared();
        server = Ofl.serve(ServerConfig.builder().backend(RdmaBackend.NAME)
                .bind(new InetSocketAddress(TestEnvironment.address(), 0)).serviceName(SERVICE)
                .bootstrapTimeout(TestEnvironment.duration(5))
                .properties(TestEnvironment.rdmaProperties()).build(), (request, response) -> {
                    if (request.op() == OP_HOLD) {
                        held.incrementAndGet();
                        holdEntered.countDown();
                        if (!holdRelease.await(TestEnvironment.seconds(30), TimeUnit.SECONDS)) {
                            return 99;
                        }
                    }
                    response.write(request.payload());
                    return 0;
                });
        good = Ofl.connect(ClientConfig.builder().backend(RdmaBackend.NAME).server(server.localAddress())
                .serviceName(SERVICE).connectTimeout(TestEnvironment.duration(5))
                .properties(TestEnvironment.rdmaProperties()).build());
        goodMemory = arena.allocate(4096);
        goodRegion = good.registerRegion(goodMemory);
        assertGoodClientWorks();
    }

    @AfterEach
    void closeEverything() {
        holdRelease.countDown();
        good.close();
        server.close();
        arena.close();
    }

    /** A violation: how to spoil a valid request of sequence 1 in the send slot, and the bytes to SEND. */
    interface Spoiler extends ToIntFunction<VerbsPeer> {
    }

    static Stream<Arguments> violations() {
        return Stream.of(
                Arguments.of("magic", (Spoiler) p -> spoil(p, 1, h -> h.buffer().set(U32_LE, 0, 0x4C4C4548))),
                Arguments.of("version", (Spoiler) p -> spoil(p, 1,
                        h -> h.buffer().set(ValueLayout.JAVA_BYTE, MessageHeader.VERSION_OFFSET, (byte) 2))),
                Arguments.of("type", (Spoiler) p -> spoil(p, 1,
                        h -> h.buffer().set(ValueLayout.JAVA_BYTE, MessageHeader.TYPE_OFFSET,
                                (byte) MessageType.RESPONSE))),
                Arguments.of("sequence", (Spoiler) p -> spoil(p, 7, h -> { })),
                Arguments.of("payload length", (Spoiler) p -> spoil(p, 1, h -> h.payloadLength(1025))),
                Arguments.of("range count", (Spoiler) p -> spoil(p, 1, h -> h.rangeCount(5))),
                Arguments.of("status", (Spoiler) p -> spoil(p, 1, h -> h.status(WireStatus.REFUSED))),
                Arguments.of("range[0].length", (Spoiler) p -> p.request(1, 8,
                        new long[] {p.receive.address() + RANGE_OFFSET}, new int[] {0}, new int[] {p.receiveMr.rkey()})),
                Arguments.of("range[1].length", (Spoiler) p -> p.request(1, 8,
                        new long[] {p.receive.address() + RANGE_OFFSET, p.receive.address() + RANGE_OFFSET},
                        new int[] {4096, 1}, new int[] {p.receiveMr.rkey(), p.receiveMr.rkey()})),
                // Shorter than a header: the completion's byte length alone shows it.
                Arguments.of("request byte length", (Spoiler) p -> 40),
                // Longer than the header describes.
                Arguments.of("request byte length", (Spoiler) p -> spoil(p, 1, h -> { }) + 8),
                // Longer than the server's receive slot: the server's RECV fails with a local length error.
                Arguments.of("request byte length", (Spoiler) p -> VerbsPeer.SLOT_BYTES));
    }

    private static int spoil(VerbsPeer peer, long sequence, java.util.function.Consumer<MessageHeader> how) {
        int length = peer.request(sequence, 8, new long[] {peer.receive.address() + RANGE_OFFSET}, new int[] {64},
                new int[] {peer.receiveMr.rkey()});
        how.accept(peer.sendHeader());
        return length;
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("violations")
    void aViolatingSendClosesOnlyThatConnectionAndIsCountedOnce(String field, Spoiler spoiler) throws Exception {
        long violationsBefore = server.statistics().protocolViolations();
        String log;
        StderrCapture stderr = StderrCapture.start();
        try (stderr; VerbsPeer hostile = VerbsPeer.client(server.localAddress(), SERVICE, LIMITS,
                RdmaSettings.RNR_RETRY_BOUNDED)) {
            assertEcho(hostile, 0);
            hostile.postSend(spoiler.applyAsInt(hostile));
            assertTrue(hostile.closedByPeer(20), "the server did not close the violating connection");
            awaitConnections(1);
        }
        log = stderr.text();
        assertEquals(violationsBefore + 1, server.statistics().protocolViolations(), "violations counted");
        assertTrue(log.contains("closing connection") && log.contains(field + " = "),
                "the server's log must name the field '" + field + "':\n" + log);
        assertGoodClientWorks();
    }

    /**
     * More requests in flight than negotiated (one): the second SEND finds no posted receive while
     * the first is handled; the transport holds it (receiver not ready) until the server re-posts
     * the slot, and both are answered in order. Nothing is counted as a violation.
     */
    @Test
    void moreInFlightThanNegotiatedIsHeldByTheTransportAndServedInOrder() throws Exception {
        long violationsBefore = server.statistics().protocolViolations();
        Limits one = new Limits(1024, 4096, 4, 1);
        try (VerbsPeer hostile = VerbsPeer.client(server.localAddress(), SERVICE, one, RdmaSettings.RNR_RETRY_FOREVER)) {
            int length = spoil(hostile, 0, h -> h.op(OP_HOLD));
            hostile.postSend(length);
            VerbsPeer.Wc sent = hostile.next(10);
            assertTrue(sent.ok() && sent.opcode() == ibv_wc_opcode.IBV_WC_SEND, sent::toString);
            assertTrue(holdEntered.await(TestEnvironment.seconds(10), TimeUnit.SECONDS), "the handler never ran");
            // The only receive slot is taken by request 0 until its handler returns. A second receive
            // of the client's for the second response: without it that response would meet the
            // server's bounded RNR retries while this thread re-posts, a race a loaded machine loses.
            assertEquals(0, hostile.link.postReceive(1, 0, 0, 0), "ibv_post_recv");
            hostile.postSend(spoil(hostile, 1, h -> h.op(OP_ECHO)));
            holdRelease.countDown();
            for (int sequence = 0; sequence < 2; sequence++) {
                VerbsPeer.Wc wc = hostile.nextReceive(20);
                assertTrue(wc.ok() && wc.opcode() == ibv_wc_opcode.IBV_WC_RECV_RDMA_WITH_IMM, wc::toString);
                assertEquals(sequence, wc.immediate(), "responses in request order");
                // Each response consumes one of the client's max-in-flight receives.
                hostile.link.postReceive(0, 0, 0, 0);
            }
            assertEquals(1, held.get());
            assertEcho(hostile, 2);
        }
        awaitConnections(1);
        assertEquals(violationsBefore, server.statistics().protocolViolations());
        assertGoodClientWorks();
    }

    /**
     * Half-close over RDMA: the bootstrap socket carries nothing after the WELCOME, so its end of
     * stream means the client is gone (PROTOCOL.md §7.5). A request already being handled still
     * gets its response (the client's queue pair is alive); then the server ends the connection
     * quietly: no violation, no undelivered response.
     */
    @Test
    void halfCloseAfterARequestStillDeliversItsResponse() throws Exception {
        long violations = server.statistics().protocolViolations();
        long undelivered = server.statistics().undeliveredResponses();
        StderrCapture stderr = StderrCapture.start();
        try (stderr; VerbsPeer hostile = VerbsPeer.client(server.localAddress(), SERVICE, LIMITS,
                RdmaSettings.RNR_RETRY_BOUNDED)) {
            hostile.postSend(spoil(hostile, 0, h -> h.op(OP_HOLD)));
            assertTrue(holdEntered.await(TestEnvironment.seconds(10), TimeUnit.SECONDS), "the handler never ran");
            hostile.channel.shutdownOutput();
            holdRelease.countDown();
            VerbsPeer.Wc wc = hostile.nextReceive(20);
            assertTrue(wc.ok() && wc.opcode() == ibv_wc_opcode.IBV_WC_RECV_RDMA_WITH_IMM, wc::toString);
            assertEquals(0, wc.immediate());
            assertTrue(hostile.closedByPeer(20), "the server kept the half-closed connection");
            awaitConnections(1);
        }
        String log = stderr.text();
        assertFalse(log.contains(" INFO ") || log.contains(" WARN "), "a client that left between requests ends "
                + "quietly (DEBUG):\n" + log);
        assertEquals(violations, server.statistics().protocolViolations());
        assertEquals(undelivered, server.statistics().undeliveredResponses());
        assertGoodClientWorks();
    }

    /**
     * A range whose key the client never registered (or has deregistered) passes every check the
     * server can make, and its write is refused by the client's device: the connection ends, one
     * response is counted undelivered (not a violation), and the server's log says the write was
     * not accepted, naming the access error, rather than only that a work completion failed.
     */
    @Test
    void aResponseWriteToAnUnregisteredRangeIsReportedAsNotAccepted() throws Exception {
        long violations = server.statistics().protocolViolations();
        long undelivered = server.statistics().undeliveredResponses();
        StderrCapture stderr = StderrCapture.start();
        try (stderr; VerbsPeer hostile = VerbsPeer.client(server.localAddress(), SERVICE, LIMITS,
                RdmaSettings.RNR_RETRY_BOUNDED)) {
            assertEcho(hostile, 0);
            // The send area is registered for local access only: no remote write may use its key.
            hostile.postSend(hostile.request(1, 8, new long[] {hostile.send.address() + RANGE_OFFSET}, new int[] {64},
                    new int[] {hostile.sendMr.rkey()}));
            assertTrue(hostile.closedByPeer(20), "the server kept the connection whose write was refused");
            awaitConnections(1);
        }
        String log = stderr.text();
        assertTrue(log.contains("broke while a response was being delivered: a response write was not accepted (")
                && log.contains("IBV_WC_REM_ACCESS_ERR"), "the server's log must name the refused write:\n" + log);
        assertEquals(violations, server.statistics().protocolViolations());
        assertEquals(undelivered + 1, server.statistics().undeliveredResponses());
        assertGoodClientWorks();
    }

    /**
     * A byte on the bootstrap socket after the WELCOME (where nothing may travel, PROTOCOL.md §7.3):
     * the server takes the client as gone and ends the connection; it is not a violation.
     */
    @Test
    void aByteOnTheBootstrapSocketEndsTheConnection() throws Exception {
        long violations = server.statistics().protocolViolations();
        try (VerbsPeer hostile = VerbsPeer.client(server.localAddress(), SERVICE, LIMITS,
                RdmaSettings.RNR_RETRY_BOUNDED)) {
            assertEcho(hostile, 0);
            hostile.channel.write(java.nio.ByteBuffer.wrap(new byte[] {1}));
            assertTrue(hostile.closedByPeer(20), "the server kept the connection");
            awaitConnections(1);
        }
        assertEquals(violations, server.statistics().protocolViolations());
        assertGoodClientWorks();
    }

    /** Sends a valid echo request and checks its completion, ring header and placed bytes. */
    private static void assertEcho(VerbsPeer peer, long sequence) {
        peer.receive.asSlice(RANGE_OFFSET, 64).fill((byte) 0);
        int length = spoil(peer, sequence, h -> h.op(OP_ECHO));
        peer.postSend(length);
        VerbsPeer.Wc wc = peer.nextReceive(20);
        assertTrue(wc.ok() && wc.opcode() == ibv_wc_opcode.IBV_WC_RECV_RDMA_WITH_IMM, wc::toString);
        assertEquals((int) sequence, wc.immediate());
        int slots = (int) (peer.receive.byteSize() / VerbsPeer.SLOT_BYTES);
        MessageHeader header = new MessageHeader().wrap(peer.receive, (sequence % slots) * MessageHeader.LENGTH);
        assertEquals(WireStatus.OK, header.status());
        assertEquals(sequence, header.sequence());
        assertEquals(8, header.responseLength());
        for (int i = 0; i < 8; i++) {
            assertEquals((byte) (i + 1), peer.receive.get(ValueLayout.JAVA_BYTE, RANGE_OFFSET + i), "echoed byte " + i);
        }
        peer.link.postReceive(0, 0, 0, 0);
    }

    private void assertGoodClientWorks() {
        good.requestPayload().set(ValueLayout.JAVA_LONG, 0, 0x1122334455667788L);
        Completion completion = new Completion();
        assertEquals(OflStatus.OK, good.call(OP_ECHO, 0, 8, new ResponseRanges().add(goodRegion, 0, 64),
                TestEnvironment.nanos(10), completion), completion::toString);
        assertEquals(0x1122334455667788L, goodMemory.get(ValueLayout.JAVA_LONG, 0));
        assertFalse(good.isBroken());
    }

    private void awaitConnections(int expected) {
        long deadlineNs = System.nanoTime() + TestEnvironment.nanos(20);
        while (server.connectionCount() != expected) {
            if (System.nanoTime() - deadlineNs > 0) {
                fail("the server still counts " + server.connectionCount() + " connections, expected " + expected);
            }
            LockSupport.parkNanos(1_000_000L);
        }
    }
}
