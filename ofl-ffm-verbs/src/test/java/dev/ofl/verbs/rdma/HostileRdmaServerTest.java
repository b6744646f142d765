package dev.ofl.verbs.rdma;

import dev.ofl.api.ClientConfig;
import dev.ofl.api.Completion;
import dev.ofl.api.Ofl;
import dev.ofl.api.OflClient;
import dev.ofl.api.OflConnectionException;
import dev.ofl.api.OflStatus;
import dev.ofl.api.Region;
import dev.ofl.api.ResponseRanges;
import dev.ofl.api.spi.ClientSession;
import dev.ofl.api.wire.Bootstrap;
import dev.ofl.api.wire.MessageHeader;
import dev.ofl.api.wire.MessageType;
import dev.ofl.api.wire.RangeDescriptor;
import dev.ofl.api.wire.WireStatus;
import dev.ofl.verbs.ffm.ibv_qp_state;
import dev.ofl.verbs.ffm.ibv_wc_opcode;
import dev.ofl.verbs.ffm.ibv_wc_status;
import dev.ofl.verbs.ffm.ibv_wr_opcode;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetSocketAddress;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A hostile RDMA server, built from the backend's own verbs wrappers ({@link VerbsPeer}), against a
 * real ofl RDMA client over softverbs. It bootstraps normally, takes the client's SEND, and then
 * answers as PROTOCOL.md §7.4 and §9.5 forbid: a bad ring header, a wrong immediate, a sequence
 * mismatch, a completion with no request outstanding, a SEND, writes after the client's timeout and
 * outside its registration. The client must report the field, count one protocol error, leave its
 * queue pair in ERR, and let no byte land outside its ranges' registration or after its timeout.
 */
class HostileRdmaServerTest {
    private static final String SERVICE = "hostile-rdma-server";
    private static final byte SENTINEL = 0x5A;
    private static final ValueLayout.OfInt U32_LE = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    /** The hostile server builds response headers here, in its send area. */
    private static final long HEADER_AT = 8192;

    private Arena arena;
    private ServerSocketChannel listener;
    private CompletableFuture<VerbsPeer> accepted;
    private final Bootstrap.Endpoint[] hello = new Bootstrap.Endpoint[1];
    private VerbsPeer server;
    private OflClient client;
    /** Three pages, sentinel-filled; only the middle one is registered and addressed by ranges. */
    private MemorySegment memory;
    private Region region;

    @BeforeEach
    void connectToTheHostileServer() throws Exception {
        arena = Arena.ofShared();
        listener = ServerSocketChannel.open().bind(new InetSocketAddress(TestEnvironment.address(), 0));
        accepted = CompletableFuture.supplyAsync(() -> {
            try {
                SocketChannel socket = listener.accept();
                return VerbsPeer.server(socket, SERVICE, hello);
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        client = Ofl.connect(ClientConfig.builder().backend(RdmaBackend.NAME)
                .server((InetSocketAddress) listener.getLocalAddress()).serviceName(SERVICE)
                .connectTimeout(TestEnvironment.duration(10)).properties(TestEnvironment.rdmaProperties()).build());
        server = accepted.get(TestEnvironment.seconds(10), TimeUnit.SECONDS);
        memory = arena.allocate(3 * 4096, 4096);
        memory.fill(SENTINEL);
        region = client.registerRegion(memory.asSlice(4096, 4096));
    }

    @AfterEach
    void closeEverything() throws Exception {
        client.close();
        server.close();
        listener.close();
        arena.close();
    }

    /** What the hostile server read from the client's SEND. */
    private record Request(long sequence, long address, long length, int key) {
    }

    private Request takeRequest() {
        VerbsPeer.Wc wc = server.nextReceive(10);
        assertTrue(wc.ok() && wc.opcode() == ibv_wc_opcode.IBV_WC_RECV, wc::toString);
        MemorySegment slot = server.receive.asSlice(wc.wrId() * VerbsPeer.SLOT_BYTES, VerbsPeer.SLOT_BYTES);
        MessageHeader header = new MessageHeader().wrap(slot, 0);
        long at = MessageHeader.rangesOffset((int) header.payloadLength());
        Request request = new Request(header.sequence(), RangeDescriptor.address(slot, at),
                RangeDescriptor.length(slot, at), RangeDescriptor.key(slot, at));
        server.link.postReceive(wc.wrId(), slot.address(), VerbsPeer.SLOT_BYTES, server.receiveMr.lkey());
        return request;
    }

    /** Writes a RESPONSE header into the client's ring slot for {@code ringSequence}, with an immediate. */
    private void respond(long ringSequence, int immediate, Consumer<MessageHeader> header) {
        MessageHeader out = new MessageHeader().wrap(server.send, HEADER_AT);
        header.accept(out);
        int slots = hello[0].limits().maxInFlight();
        server.postWrite(true, HEADER_AT, MessageHeader.LENGTH,
                hello[0].ringAddress() + (ringSequence % slots) * MessageHeader.LENGTH, hello[0].ringKey(), immediate);
    }

    private long submit() {
        client.requestPayload().set(ValueLayout.JAVA_LONG, 0, 42);
        return client.submit(1, 0, 8, new ResponseRanges().add(region, 0, 256));
    }

    /** The client's await fails naming {@code field}; it is broken, its QP in ERR, one protocol error counted. */
    private void assertClientRejects(long ticket, String field) {
        OflConnectionException e = assertThrows(OflConnectionException.class,
                () -> client.await(ticket, client.clock().nanoTime() + TestEnvironment.nanos(10), new Completion()));
        assertTrue(e.getMessage().contains("the server broke the protocol: " + field + " = "),
                "the client must name the field '" + field + "': " + e.getMessage());
        assertTrue(client.isBroken());
        assertEquals(1, client.statistics().protocolErrors(), client.statistics()::toString);
        assertEquals(ibv_qp_state.IBV_QPS_ERR,
                ((RdmaClientTransport) ((ClientSession) client).transport()).queuePairState());
        assertOutsideUntouched();
    }

    private void assertOutsideUntouched() {
        for (long i = 0; i < memory.byteSize(); i++) {
            if ((i < 4096 || i >= 8192) && memory.get(ValueLayout.JAVA_BYTE, i) != SENTINEL) {
                throw new AssertionError("a byte outside the registered region changed at offset " + i);
            }
        }
    }

    private static Consumer<MessageHeader> ok(long sequence, long length) {
        return h -> h.reset(MessageType.RESPONSE, sequence).status(WireStatus.OK).responseLength(length);
    }

    /** Control: a correct response after a WRITE into the range completes with OK and the bytes. */
    @Test
    void aCorrectResponseIsAccepted() {
        long ticket = submit();
        Request request = takeRequest();
        server.send.asSlice(0, 16).fill((byte) 0x33);
        server.postWrite(false, 0, 16, request.address(), request.key(), 0);
        respond(request.sequence(), (int) request.sequence(), ok(request.sequence(), 16));
        Completion completion = new Completion();
        assertEquals(OflStatus.OK, client.await(ticket, client.clock().nanoTime() + TestEnvironment.nanos(10),
                completion), completion::toString);
        assertEquals(16, completion.responseLength());
        assertEquals((byte) 0x33, memory.get(ValueLayout.JAVA_BYTE, 4096 + 15));
    }

    @Test
    void badRingHeaderMagic() {
        long ticket = submit();
        Request request = takeRequest();
        respond(request.sequence(), (int) request.sequence(),
                ok(request.sequence(), 0).andThen(h -> h.buffer().set(U32_LE, h.offset(), 0x0BADF00D)));
        assertClientRejects(ticket, "magic");
    }

    @Test
    void ringHeaderOfAnotherType() {
        long ticket = submit();
        Request request = takeRequest();
        respond(request.sequence(), (int) request.sequence(),
                h -> h.reset(MessageType.DATA, request.sequence()).payloadLength(8));
        assertClientRejects(ticket, "type");
    }

    @Test
    void wrongImmediate() {
        long ticket = submit();
        Request request = takeRequest();
        respond(request.sequence(), (int) request.sequence() + 1, ok(request.sequence(), 0));
        assertClientRejects(ticket, "immediate");
    }

    @Test
    void ringHeaderSequenceMismatch() {
        long ticket = submit();
        Request request = takeRequest();
        respond(request.sequence(), (int) request.sequence(), ok(request.sequence() + 1, 0));
        assertClientRejects(ticket, "sequence");
    }

    @Test
    void responseLengthBeyondTheRanges() {
        long ticket = submit();
        Request request = takeRequest();
        respond(request.sequence(), (int) request.sequence(), ok(request.sequence(), 257));
        assertClientRejects(ticket, "response length");
    }

    @Test
    void refusalWithoutAHandlerStatus() {
        long ticket = submit();
        Request request = takeRequest();
        respond(request.sequence(), (int) request.sequence(),
                h -> h.reset(MessageType.RESPONSE, request.sequence()).status(WireStatus.REFUSED));
        assertClientRejects(ticket, "handler status");
    }

    /** A failure's reason (agreed at the bootstrap) written into the range is read back from it. */
    @Test
    void aFailureReasonInTheRangeIsShown() {
        long ticket = submit();
        Request request = takeRequest();
        byte[] reason = "java.lang.IllegalStateException: no row\n".getBytes(StandardCharsets.UTF_8);
        MemorySegment.copy(MemorySegment.ofArray(reason), 0, server.send, 0, reason.length);
        server.postWrite(false, 0, reason.length, request.address(), request.key(), 0);
        respond(request.sequence(), (int) request.sequence(), h -> h.reset(MessageType.RESPONSE, request.sequence())
                .status(WireStatus.HANDLER_FAILED).responseLength(reason.length));
        Completion completion = new Completion();
        assertEquals(OflStatus.HANDLER_FAILED, client.await(ticket, client.clock().nanoTime()
                + TestEnvironment.nanos(10), completion), completion::toString);
        assertEquals("java.lang.IllegalStateException: no row\\n", completion.failureReason(),
                "read from the range, its line feed escaped");
        assertEquals(0, completion.responseLength());
        assertFalse(client.isBroken());
    }

    @Test
    void aFailureReasonBeyondTheRanges() {
        long ticket = submit();
        Request request = takeRequest();
        respond(request.sequence(), (int) request.sequence(), h -> h.reset(MessageType.RESPONSE, request.sequence())
                .status(WireStatus.HANDLER_FAILED).responseLength(257));
        assertClientRejects(ticket, "response length");
    }

    /** A server MUST NOT SEND to a client: the client's zero-length receive takes it as a RECV. */
    @Test
    void aSendFromTheServer() {
        long ticket = submit();
        takeRequest();
        server.link.postSend(1, ibv_wr_opcode.IBV_WR_SEND, true, server.send.address(), 0, server.sendMr.lkey(), 0, 0,
                0);
        assertClientRejects(ticket, "completion opcode");
    }

    /** A second completion after the one that answered the request: the next await names the immediate. */
    @Test
    void aCompletionAfterTheCompletion() {
        long first = submit();
        Request request = takeRequest();
        respond(request.sequence(), (int) request.sequence(), ok(request.sequence(), 0));
        Completion completion = new Completion();
        assertEquals(OflStatus.OK, client.await(first, client.clock().nanoTime() + TestEnvironment.nanos(10),
                completion), completion::toString);
        respond(request.sequence(), (int) request.sequence(), ok(request.sequence(), 0));
        long second = submit();
        takeRequest();
        assertClientRejects(second, "immediate");
    }

    /**
     * After the client's timeout its queue pair is in ERR: the hostile server's WRITE into the range
     * and its completion are not acknowledged and fail at the server; nothing lands.
     */
    @Test
    void writesAfterTheClientsTimeoutNeverLand() {
        long ticket = submit();
        Request request = takeRequest();
        Completion completion = new Completion();
        assertEquals(OflStatus.TIMED_OUT, client.await(ticket, client.clock().nanoTime() + 20_000_000L, completion));
        assertEquals(ibv_qp_state.IBV_QPS_ERR,
                ((RdmaClientTransport) ((ClientSession) client).transport()).queuePairState());
        server.send.asSlice(0, 256).fill((byte) 0x77);
        server.postWrite(false, 0, 256, request.address(), request.key(), 0);
        respond(request.sequence(), (int) request.sequence(), ok(request.sequence(), 256));
        VerbsPeer.Wc failed = server.next(120);
        assertNotEquals(ibv_wc_status.IBV_WC_SUCCESS, failed.status(), failed::toString);
        for (long i = 0; i < memory.byteSize(); i++) {
            assertEquals(SENTINEL, memory.get(ValueLayout.JAVA_BYTE, i), "a late byte landed at offset " + i);
        }
    }

    /**
     * A WRITE past the end of the registered region is refused by the client's device (remote access
     * error at the server): no byte lands outside, and the client's queue pair is in error, so the
     * client reports a broken connection instead of waiting for its deadline.
     */
    @Test
    void aWriteOutsideTheRegistrationLandsNowhere() {
        long ticket = submit();
        Request request = takeRequest();
        server.send.asSlice(0, 64).fill((byte) 0x66);
        server.postWrite(false, 0, 64, request.address() + 4096 - 32, request.key(), 0);
        VerbsPeer.Wc wc = server.next(30);
        assertEquals(ibv_wc_status.IBV_WC_REM_ACCESS_ERR, wc.status(), wc::toString);
        OflConnectionException e = assertThrows(OflConnectionException.class,
                () -> client.await(ticket, client.clock().nanoTime() + TestEnvironment.nanos(10), new Completion()));
        assertTrue(client.isBroken(), e::getMessage);
        // The failed completion is named (a flushed receive on every device we know), not left blank.
        assertTrue(e.getMessage().matches("IBV_WC_\\w+ on IBV_WC_\\w+; .*"), e::getMessage);
        assertOutsideUntouched();
        for (long i = 4096 - 32; i < 4096; i++) {
            assertEquals(SENTINEL, memory.get(ValueLayout.JAVA_BYTE, 4096 + i), "a refused write landed partly");
        }
    }

    /**
     * A server whose queue pair stops answering while its bootstrap socket stays open: the client's
     * SEND is never acknowledged, and the failure says so rather than only naming the status.
     */
    @Test
    void aServerQueuePairThatStopsAnsweringIsNamedInTheFailure() {
        server.link.breakLink();
        long ticket = submit();
        OflConnectionException e = assertThrows(OflConnectionException.class,
                () -> client.await(ticket, client.clock().nanoTime() + TestEnvironment.nanos(30), new Completion()));
        assertTrue(e.getMessage().contains("IBV_WC_RETRY_EXC_ERR")
                && e.getMessage().contains("the server's queue pair did not acknowledge"), e::getMessage);
        assertTrue(client.isBroken());
        assertEquals(0, client.statistics().protocolErrors(), "not a protocol error");
    }

    /**
     * A server that closes its bootstrap socket while a request is outstanding: the client's queue
     * pair is broken by its liveness watch, and the failure names the lost peer, not the flush.
     */
    @Test
    void aServerThatLeavesIsTheReasonTheClientGives() throws Exception {
        long ticket = submit();
        takeRequest();
        server.channel.close();
        OflConnectionException e = assertThrows(OflConnectionException.class,
                () -> client.await(ticket, client.clock().nanoTime() + TestEnvironment.nanos(30), new Completion()));
        assertTrue(e.getMessage().contains("the peer closed the bootstrap connection"), e::getMessage);
        assertFalse(e.getMessage().contains("FLUSH"), e::getMessage);
        assertTrue(client.isBroken());
        assertOutsideUntouched();
    }
}
