package dev.ofl.verbs.rdma;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

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
import dev.ofl.api.WaitMode;
import dev.ofl.api.spi.ServerMemory;
import dev.ofl.api.spi.StagingPool;
import dev.ofl.api.wire.MessageHeader;
import dev.ofl.api.wire.PayloadRead;
import dev.ofl.api.wire.RangeDescriptor;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.Stream;
import java.util.zip.CRC32;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Large request payloads read by the server (docs/PROTOCOL.md 7.3): a client that offers it sends
 * a payload above the server's inline limit as a descriptor of its send slot, and the server reads
 * it by RDMA READ into staging it borrows for that request. So a connection that sends nothing
 * commits receive slots for small requests only, every payload still arrives byte for byte, a
 * server short of staging answers BUSY, and the knob that turns it off restores whole-request slots.
 */
@Timeout(120)
class RdmaPayloadReadTest {
    private static final String SERVICE = "payload-read";
    private static final int OP_ECHO = 1;
    private static final int OP_HOLD = 2;
    /** The memory target for a connection that sent no request (issue: at most 64 KiB per HELLO). */
    private static final long PER_HELLO_BYTES = 64 << 10;

    private static ServerConfig.Builder server(Limits limits) {
        return ServerConfig.builder().backend(RdmaBackend.NAME)
                .bind(new InetSocketAddress(TestEnvironment.address(), 0)).serviceName(SERVICE).limits(limits)
                .bootstrapTimeout(TestEnvironment.duration(5)).properties(TestEnvironment.rdmaProperties());
    }

    private static OflClient connect(OflServer server, Limits limits) {
        return Ofl.connect(ClientConfig.builder().backend(RdmaBackend.NAME).server(server.localAddress())
                .serviceName(SERVICE).limits(limits).connectTimeout(TestEnvironment.duration(5))
                .properties(TestEnvironment.rdmaProperties()).build());
    }

    /** Echoes the payload, or holds until {@code release} and answers without data. */
    private static OflServer serve(ServerConfig config, CountDownLatch entered, CountDownLatch release) {
        return Ofl.serve(config, (request, response) -> {
            if (request.op() == OP_HOLD) {
                entered.countDown();
                // Answered without data: only its payload's staging matters.
                return release.await(TestEnvironment.seconds(30), TimeUnit.SECONDS) ? 0 : 99;
            }
            response.write(request.payload());
            return 0;
        });
    }

    /** Fills the next payload with a pattern of {@code seed} and calls; checks the echo byte for byte. */
    private static void assertEcho(OflClient client, Region region, MemorySegment memory, int length, int seed) {
        MemorySegment payload = client.requestPayload();
        for (int i = 0; i < length; i++) {
            payload.set(ValueLayout.JAVA_BYTE, i, (byte) (i * 7 + seed + (i >>> 9)));
        }
        memory.fill((byte) 0x5A);
        Completion completion = new Completion();
        ResponseRanges ranges = new ResponseRanges();
        if (length > 0) {
            ranges.add(region, 0, length);
        }
        assertEquals(OflStatus.OK, client.call(OP_ECHO, seed, length, ranges, TestEnvironment.nanos(20),
                completion), () -> length + " bytes: " + completion);
        assertEquals(length, completion.responseLength());
        for (int i = 0; i < length; i++) {
            if (memory.get(ValueLayout.JAVA_BYTE, i) != (byte) (i * 7 + seed + (i >>> 9))) {
                fail("payload of " + length + " bytes (seed " + seed + "): byte " + i + " differs");
            }
        }
        assertEquals((byte) 0x5A, memory.get(ValueLayout.JAVA_BYTE, length), "the byte after the echo");
    }

    @Test
    void payloadsOnBothSidesOfTheInlineLimitArriveWhole() {
        Limits limits = Limits.CLIENT_DEFAULTS;
        try (OflServer server = serve(server(limits).build(), new CountDownLatch(0), new CountDownLatch(0));
                Arena arena = Arena.ofShared(); OflClient client = connect(server, limits)) {
            MemorySegment memory = arena.allocate(limits.maxRequestBytes() + 1L, 4096);
            Region region = client.registerRegion(memory);
            int limit = RdmaSettings.DEFAULT_INLINE_REQUEST_BYTES;
            // Sizes in an order that moves between inline and read, and repeats a size with new
            // bytes (a payload view kept by slot and length alone would show the old ones).
            int[] sizes = {0, 1, limit, limit + 1, limit - 1, 65_537, limit + 1, limits.maxRequestBytes(), 100,
                    limits.maxRequestBytes(), 9, limit + 8};
            int seed = 1;
            for (int size : sizes) {
                assertEcho(client, region, memory, size, seed++);
            }
            assertFalse(client.isBroken());
            assertEquals(0, server.statistics().protocolViolations());
        }
    }

    /**
     * A payload read by descriptor keeps every range of its request: the echo is scattered over
     * four ranges, in an order that is not the memory's, and each lands where its range says.
     */
    @Test
    void aReadPayloadsResponseFollowsEveryOneOfItsRanges() {
        Limits limits = new Limits(64 << 10, 64 << 10, 4, 2);
        try (OflServer server = serve(server(limits).build(), new CountDownLatch(0), new CountDownLatch(0));
                Arena arena = Arena.ofShared(); OflClient client = connect(server, limits)) {
            int length = 4 * 4096;
            assertTrue(length > RdmaSettings.DEFAULT_INLINE_REQUEST_BYTES, "the payload goes by descriptor");
            MemorySegment memory = arena.allocate(5 * 4096L, 4096);
            Region region = client.registerRegion(memory);
            for (int seed = 1; seed <= 2; seed++) {
                MemorySegment payload = client.requestPayload();
                for (int i = 0; i < length; i++) {
                    payload.set(ValueLayout.JAVA_BYTE, i, (byte) (i * 3 + seed + (i >>> 12)));
                }
                memory.fill((byte) 0x5A);
                // Quarter q of the response goes to page order[q] of the memory; page 4 stays untouched.
                int[] order = {3, 0, 2, 1};
                ResponseRanges ranges = new ResponseRanges();
                for (int page : order) {
                    ranges.add(region, page * 4096L, 4096);
                }
                Completion completion = new Completion();
                assertEquals(OflStatus.OK, client.call(OP_ECHO, 0, length, ranges, TestEnvironment.nanos(20),
                        completion), completion::toString);
                for (int q = 0; q < order.length; q++) {
                    for (int i = 0; i < 4096; i++) {
                        int at = q * 4096 + i;
                        if (memory.get(ValueLayout.JAVA_BYTE, order[q] * 4096L + i)
                                != (byte) (at * 3 + seed + (at >>> 12))) {
                            fail("seed " + seed + ": byte " + at + " of the echo is not at its range");
                        }
                    }
                }
                for (long i = 4 * 4096L; i < 5 * 4096L; i++) {
                    assertEquals((byte) 0x5A, memory.get(ValueLayout.JAVA_BYTE, i), "outside every range");
                }
            }
            assertEquals(0, server.statistics().protocolViolations());
        }
    }

    /** A payload read by descriptor with no response range at all: its announcement is the shortest one. */
    @Test
    void aReadPayloadWithoutResponseRangesIsServed() {
        Limits limits = new Limits(64 << 10, 64 << 10, 4, 2);
        try (OflServer server = serve(server(limits).build(), new CountDownLatch(0), new CountDownLatch(0));
                OflClient client = connect(server, limits)) {
            Completion completion = new Completion();
            for (int round = 0; round < 2; round++) {
                assertEquals(OflStatus.OK, client.call(OP_HOLD, 0, 3 * 4096, new ResponseRanges(),
                        TestEnvironment.nanos(20), completion), completion::toString);
                assertEquals(0, completion.responseLength());
            }
            assertEquals(0, server.statistics().protocolViolations());
        }
    }

    @Test
    void aConnectionThatSendsNothingCommitsAtMost64KiB() {
        Limits limits = Limits.CLIENT_DEFAULTS;
        try (OflServer server = serve(server(limits).build(), new CountDownLatch(0), new CountDownLatch(0))) {
            long before = ServerMemory.receiveBytes();
            try (OflClient client = connect(server, limits)) {
                long committed = awaitReceiveBytesAbove(before);
                assertTrue(committed <= PER_HELLO_BYTES, "a HELLO with the client defaults committed " + committed
                        + " bytes; the target is at most " + PER_HELLO_BYTES);
                assertFalse(client.isBroken());
            }
        }
    }

    @Test
    void anInlineLimitAboveTheLargestRequestKeepsWholeRequestsInTheSlots() {
        Limits limits = Limits.CLIENT_DEFAULTS;
        Map<String, String> properties = new HashMap<>(TestEnvironment.rdmaProperties());
        properties.put(RdmaSettings.INLINE_REQUEST_BYTES, Integer.toString(limits.maxRequestBytes()));
        try (OflServer server = serve(server(limits).properties(properties).build(), new CountDownLatch(0),
                new CountDownLatch(0)); Arena arena = Arena.ofShared()) {
            long before = ServerMemory.receiveBytes();
            try (OflClient client = connect(server, limits)) {
                long committed = awaitReceiveBytesAbove(before);
                long slots = (long) limits.maxInFlight() * ((limits.maxRequestBytes() + 64 + 16 * 16 + 63) & ~63L);
                assertTrue(committed >= slots, "whole-request slots need " + slots + " bytes, committed " + committed);
                MemorySegment memory = arena.allocate(limits.maxRequestBytes() + 1L, 4096);
                assertEcho(client, client.registerRegion(memory), memory, limits.maxRequestBytes(), 3);
            }
        }
    }

    /**
     * A read request keeps its extent while its response borrows staging: a budget that cannot
     * hold the largest request and the largest response at once would answer such a request BUSY
     * for ever, so that server keeps whole requests in its slots, and the request succeeds.
     */
    @Test
    void aBudgetTooSmallForRequestAndResponseKeepsWholeRequestsInTheSlots() {
        Limits limits = new Limits(64 << 10, 64 << 10, 4, 2);
        ServerConfig config = server(limits).stagingBudgetBytes(limits.maxResponseBytes()).build();
        try (OflServer server = serve(config, new CountDownLatch(0), new CountDownLatch(0));
                Arena arena = Arena.ofShared()) {
            long before = ServerMemory.receiveBytes();
            try (OflClient client = connect(server, limits)) {
                long committed = awaitReceiveBytesAbove(before);
                long slots = 2L * ((limits.maxRequestBytes() + 64 + 4 * 16 + 63) & ~63L);
                assertTrue(committed >= slots, "whole-request slots need " + slots + " bytes, committed " + committed);
                MemorySegment memory = arena.allocate(limits.maxRequestBytes() + 1L, 4096);
                assertEcho(client, client.registerRegion(memory), memory, limits.maxRequestBytes(), 4);
            }
        }
    }

    /**
     * Several read requests in flight at once, each answered while the previous responses' writes
     * may still be posted: every payload is read whole into its own extent and echoed into its own
     * range.
     */
    @Test
    void pipelinedReadRequestsAreEachEchoedWhole() {
        int inFlight = 4;
        Limits limits = new Limits(32 << 10, 32 << 10, 1, inFlight);
        try (OflServer server = serve(server(limits).waitMode(WaitMode.BLOCKING).build(), new CountDownLatch(0),
                new CountDownLatch(0)); Arena arena = Arena.ofShared(); OflClient client = connect(server, limits)) {
            MemorySegment memory = arena.allocate((long) inFlight * limits.maxRequestBytes(), 4096);
            Region region = client.registerRegion(memory);
            Completion completion = new Completion();
            long[] tickets = new long[inFlight];
            int[] lengths = new int[inFlight];
            for (int round = 0; round < 3; round++) {
                memory.fill((byte) 0x5A);
                for (int i = 0; i < inFlight; i++) {
                    lengths[i] = 5_000 + 7_001 * i + round;
                    MemorySegment payload = client.requestPayload();
                    for (int b = 0; b < lengths[i]; b++) {
                        payload.set(ValueLayout.JAVA_BYTE, b, (byte) (b + 31 * i + 7 * round));
                    }
                    tickets[i] = client.submit(OP_ECHO, i, lengths[i], new ResponseRanges().add(region,
                            (long) i * limits.maxRequestBytes(), lengths[i]));
                    assertTrue(tickets[i] >= 0, "submit " + i + ": " + tickets[i]);
                }
                for (int i = 0; i < inFlight; i++) {
                    assertEquals(OflStatus.OK, client.await(tickets[i], System.nanoTime() + TestEnvironment.nanos(20),
                            completion), completion::toString);
                    assertEquals(lengths[i], completion.responseLength());
                    long base = (long) i * limits.maxRequestBytes();
                    for (int b = 0; b < lengths[i]; b++) {
                        if (memory.get(ValueLayout.JAVA_BYTE, base + b) != (byte) (b + 31 * i + 7 * round)) {
                            fail("round " + round + ", request " + i + ": byte " + b + " differs");
                        }
                    }
                }
            }
            assertEquals(0, server.statistics().protocolViolations());
        }
    }

    /**
     * The payload's staging is borrowed like a response's: with one held request's payload taking
     * nearly the whole budget, a second large request is answered BUSY within the staging timeout,
     * without its handler, and the same request succeeds once the first is done.
     */
    @Test
    void aPayloadWithoutStagingIsAnsweredBusy() throws Exception {
        Limits limits = new Limits(64 << 10, 4096, 4, 2);
        // One payload's extent (64 + 64 KiB + 16, in 4 KiB blocks: 17) and one block for a response.
        long budget = 18 * 4096L;
        CountDownLatch entered = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        ServerConfig config = server(limits).stagingBudgetBytes(budget).stagingTimeout(Duration.ofMillis(200))
                .waitMode(WaitMode.BLOCKING).build();
        try (OflServer server = serve(config, entered, release); Arena arena = Arena.ofShared();
                OflClient holder = connect(server, limits); OflClient other = connect(server, limits)) {
            MemorySegment holderMemory = arena.allocate(8, 8);
            MemorySegment otherMemory = arena.allocate(16, 8);
            Region holderRegion = holder.registerRegion(holderMemory);
            Region otherRegion = other.registerRegion(otherMemory);
            long held = holder.submit(OP_HOLD, 0, limits.maxRequestBytes(),
                    new ResponseRanges().add(holderRegion, 0, 8));
            assertTrue(entered.await(TestEnvironment.seconds(20), TimeUnit.SECONDS), "the held handler never ran");
            Completion completion = new Completion();
            assertEquals(OflStatus.BUSY, other.call(OP_ECHO, 0, limits.maxRequestBytes(),
                    new ResponseRanges().add(otherRegion, 0, 16), TestEnvironment.nanos(20), completion),
                    completion::toString);
            assertEquals(1, server.statistics().busyResponses(), "no staging to read the payload into: BUSY");
            release.countDown();
            assertEquals(OflStatus.OK, holder.await(held, System.nanoTime() + TestEnvironment.nanos(20), completion),
                    completion::toString);
            // The payload's staging is back: the same request gets it (and its handler runs: OK, not BUSY).
            assertEquals(OflStatus.OK, other.call(OP_HOLD, 0, limits.maxRequestBytes(),
                    new ResponseRanges().add(otherRegion, 0, 16), TestEnvironment.nanos(20), completion),
                    completion::toString);
            assertEquals(0, server.statistics().protocolViolations());
        }
    }

    /**
     * A payload's extent may be held by this connection's own last response, whose blocks come
     * back only once this connection's thread sees that response's writes complete: before
     * waiting for other connections to return staging, the transport waits for its own writes, and
     * the request is served instead of answered BUSY. The budget lets this connection read
     * payloads (a largest request and a largest response fit) and another connection holds a
     * largest request's worth, so the payload fits only once the previous response's blocks are
     * back. That response is 4 MiB, so that its writes are still travelling when the payload,
     * sent right after its request, is taken.
     */
    @Test
    void aPayloadWaitsForTheConnectionsOwnResponseToReturnItsStaging() throws Exception {
        Limits limits = new Limits(64 << 10, 62 * (64 << 10), 1, 2);
        int opFill = 3;
        int opCrc = 4;
        long payloadExtent = StagingPool.blocksFor(MessageHeader.requestLength(limits.maxRequestBytes(), 1))
                * StagingPool.BLOCK_BYTES;
        long budget = payloadExtent + limits.maxResponseBytes();
        CountDownLatch entered = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        ServerConfig config = server(limits).stagingBudgetBytes(budget).stagingTimeout(Duration.ofSeconds(1))
                .build();
        try (OflServer server = Ofl.serve(config, (request, response) -> {
            if (request.op() == OP_HOLD) {
                entered.countDown();
                return release.await(TestEnvironment.seconds(30), TimeUnit.SECONDS) ? 0 : 99;
            }
            if (request.op() == opFill) {
                response.buffer().fill((byte) 0x6B);
                response.commit(response.capacity());
                return 0;
            }
            CRC32 crc = new CRC32();
            crc.update(request.payload().asByteBuffer());
            response.buffer().set(ValueLayout.JAVA_LONG_UNALIGNED, 0, crc.getValue());
            response.commit(8);
            return 0;
        }); Arena arena = Arena.ofShared(); OflClient holder = connect(server, limits);
                OflClient client = connect(server, limits)) {
            MemorySegment memory = arena.allocate(limits.maxResponseBytes() + 8L, 4096);
            Region holderRegion = holder.registerRegion(memory);
            Region region = client.registerRegion(memory);
            // Another connection holds as much staging as a largest payload needs, until the end.
            long held = holder.submit(OP_HOLD, 0, 0, new ResponseRanges().add(holderRegion, 0, payloadExtent));
            assertTrue(entered.await(TestEnvironment.seconds(20), TimeUnit.SECONDS), "the held handler never ran");
            MemorySegment bytes = arena.allocate(limits.maxRequestBytes());
            for (int i = 0; i < limits.maxRequestBytes(); i++) {
                bytes.set(ValueLayout.JAVA_BYTE, i, (byte) (i * 13 + (i >>> 8)));
            }
            CRC32 expected = new CRC32();
            expected.update(bytes.asByteBuffer());
            // A largest response, then at once (one copy, no loop) a largest payload by descriptor:
            // when its extent is borrowed, the response's blocks are still out unless its writes
            // were seen complete.
            long fill = client.submit(opFill, 0, 0, new ResponseRanges().add(region, 0, limits.maxResponseBytes()));
            MemorySegment.copy(bytes, 0, client.requestPayload(), 0, limits.maxRequestBytes());
            long read = client.submit(opCrc, 0, limits.maxRequestBytes(),
                    new ResponseRanges().add(region, limits.maxResponseBytes(), 8));
            assertTrue(fill >= 0 && read >= 0, "submitted: " + fill + ", " + read);
            Completion completion = new Completion();
            assertEquals(OflStatus.OK, client.await(fill, System.nanoTime() + TestEnvironment.nanos(20), completion),
                    completion::toString);
            assertEquals(-1L, memory.asSlice(0, limits.maxResponseBytes()).mismatch(
                    arena.allocate(limits.maxResponseBytes()).fill((byte) 0x6B)), "the large response's bytes");
            assertEquals(OflStatus.OK, client.await(read, System.nanoTime() + TestEnvironment.nanos(20), completion),
                    () -> "the payload after the connection's own response: " + completion);
            assertEquals(expected.getValue(), memory.get(ValueLayout.JAVA_LONG_UNALIGNED, limits.maxResponseBytes()),
                    "the payload's checksum");
            release.countDown();
            assertEquals(OflStatus.OK, holder.await(held, System.nanoTime() + TestEnvironment.nanos(20), completion),
                    completion::toString);
            assertEquals(0, server.statistics().protocolViolations());
        } finally {
            release.countDown();
        }
    }

    /** A request the hostile client sends instead of a valid one; returns the SEND's offset and length. */
    interface Violation {
        long[] send(VerbsPeer peer);
    }

    static Stream<Arguments> violations() {
        int payload = 8192;
        return Stream.of(
                // The key of the ring's registration, which allows remote write only: the READ fails.
                Arguments.of("payload descriptor key", (Violation) p -> announced(p, payload,
                        () -> RangeDescriptor.write(p.send, p.announcementOffset() + PayloadRead.DESCRIPTOR_OFFSET,
                                p.send.address() + 64, payload, p.receiveMr.rkey()))),
                Arguments.of("payload descriptor length", (Violation) p -> announced(p, payload,
                        () -> RangeDescriptor.write(p.send, p.announcementOffset() + PayloadRead.DESCRIPTOR_OFFSET,
                                p.send.address() + 64, payload - 1, p.sendMr.rkey()))),
                // By descriptor, though small enough to go inline.
                Arguments.of("payload length", (Violation) p -> announced(p, 100, () -> { })),
                // By descriptor at exactly the inline limit, which still goes inline.
                Arguments.of("payload length", (Violation) p -> announced(p,
                        RdmaSettings.DEFAULT_INLINE_REQUEST_BYTES, () -> { })),
                // Inline, though above the limit (it still fits the slot's slack for ranges).
                Arguments.of("payload length", (Violation) p -> new long[] {0, request(p, 4100)}),
                // An announcement with bytes after its ranges: longer than its header describes.
                Arguments.of("request byte length", (Violation) p -> lengthened(announced(p, payload, () -> { }), 16)),
                // Cut inside its payload descriptor.
                Arguments.of("request byte length", (Violation) p -> lengthened(announced(p, payload, () -> { }),
                        PayloadRead.RANGES_OFFSET - 8 - (int) PayloadRead.announcementLength(1))));
    }

    private static int request(VerbsPeer peer, int payload) {
        return peer.request(0, payload, new long[] {peer.receive.address() + 4096}, new int[] {64},
                new int[] {peer.receiveMr.rkey()});
    }

    /** The SEND of {@code send}, longer (or shorter) by {@code bytes}. */
    private static long[] lengthened(long[] send, int bytes) {
        send[1] += bytes;
        return send;
    }

    private static long[] announced(VerbsPeer peer, int payload, Runnable spoil) {
        int length = peer.announce(request(peer, payload), payload);
        spoil.run();
        return new long[] {peer.announcementOffset(), length};
    }

    /**
     * Each way a client can break the payload-read rules closes only its connection, with one
     * violation counted and the field named in the server's log.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("violations")
    void aBrokenPayloadReadIsAViolation(String field, Violation violation) throws Exception {
        Limits limits = new Limits(16 << 10, 16 << 10, 4, 2);
        String log;
        try (OflServer server = serve(server(limits).build(), new CountDownLatch(0), new CountDownLatch(0))) {
            StderrCapture stderr = StderrCapture.start();
            try (stderr; VerbsPeer hostile = VerbsPeer.readingClient(server.localAddress(), SERVICE, limits)) {
                assertEquals(RdmaSettings.DEFAULT_INLINE_REQUEST_BYTES, hostile.inlineLimit);
                long[] send = violation.send(hostile);
                hostile.postSend(send[0], (int) send[1]);
                assertTrue(hostile.closedByPeer(20), "the server kept the violating connection");
                long deadlineNs = System.nanoTime() + TestEnvironment.nanos(20);
                while (server.statistics().protocolViolations() != 1 && System.nanoTime() - deadlineNs < 0) {
                    LockSupport.parkNanos(1_000_000L);
                }
            }
            log = stderr.text();
            assertEquals(1, server.statistics().protocolViolations(), "violations counted");
            assertTrue(log.contains("closing connection") && log.contains(field + " = "),
                    "the server's log must name the field '" + field + "':\n" + log);
            // The server goes on serving others, payload reads included.
            try (Arena arena = Arena.ofShared(); OflClient client = connect(server, limits)) {
                MemorySegment memory = arena.allocate(limits.maxRequestBytes() + 1L, 4096);
                assertEcho(client, client.registerRegion(memory), memory, limits.maxRequestBytes(), 7);
            }
        }
    }

    private static long awaitReceiveBytesAbove(long before) {
        // The server accounts the connection before its WELCOME, so connect() has seen it.
        long committed = ServerMemory.receiveBytes() - before;
        assertTrue(committed > 0, "the connection's receive memory is not accounted");
        return committed;
    }
}
