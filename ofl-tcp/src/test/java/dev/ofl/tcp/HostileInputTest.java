package dev.ofl.tcp;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.ofl.api.ClientConfig;
import dev.ofl.api.Completion;
import dev.ofl.api.Limits;
import dev.ofl.api.Ofl;
import dev.ofl.api.OflClient;
import dev.ofl.api.OflConnectionException;
import dev.ofl.api.OflException;
import dev.ofl.api.OflRefusedException;
import dev.ofl.api.OflServer;
import dev.ofl.api.OflStatus;
import dev.ofl.api.RefusalCode;
import dev.ofl.api.Region;
import dev.ofl.api.ResponseRanges;
import dev.ofl.api.ServerConfig;
import dev.ofl.api.wire.Bootstrap;
import dev.ofl.api.wire.MessageHeader;
import dev.ofl.api.wire.MessageType;
import dev.ofl.api.wire.ProtocolException;
import dev.ofl.api.wire.RangeDescriptor;
import dev.ofl.api.wire.TransportKind;
import dev.ofl.api.wire.WireStatus;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Raw-socket peers against the TCP backend. A live server meets garbage, foreign versions,
 * truncated and trickled bootstraps and malformed requests; each closes only the offending
 * connection while a well-behaved client on the same server keeps working. A fake server feeds a
 * real client malformed DATA and RESPONSE messages; the client fails with
 * {@link OflConnectionException} naming the field, and no byte outside its ranges changes.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class HostileInputTest {
    private static final String SERVICE = "hostile";
    private static final Limits LIMITS = new Limits(1024, 4096, 4, 4);
    private static final int WAIT_MS = 20_000;
    private static final long CALL_TIMEOUT_NS = TimeUnit.MILLISECONDS.toNanos(WAIT_MS);
    private static final byte SENTINEL = (byte) 0xA5;
    private static final byte PIECE = 0x77;
    private static final ValueLayout.OfShort U16_LE =
            ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfInt U32_LE = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    private final List<AutoCloseable> resources = new ArrayList<>();
    private Arena arena;
    private OflServer server;
    private OflClient good;
    private MemorySegment goodMemory;
    private Region goodRegion;
    private int goodCalls;

    @BeforeEach
    void startServerAndWellBehavedClient() {
        arena = Arena.ofShared();
        server = Ofl.serve(ServerConfig.builder()
                .backend(TcpBackend.NAME)
                .bind(new InetSocketAddress(loopback(), 0))
                .serviceName(SERVICE)
                .bootstrapTimeout(Duration.ofMillis(300))
                .build(), (request, response) -> {
                    response.write(request.payload());
                    return 0;
                });
        resources.add(server);
        good = Ofl.connect(clientConfig(server.localAddress()).build());
        resources.add(good);
        goodMemory = arena.allocate(1024);
        goodRegion = good.registerRegion(goodMemory);
        assertWellBehavedClientWorks();
    }

    @AfterEach
    void closeEverything() throws Exception {
        for (int i = resources.size() - 1; i >= 0; i--) {
            resources.get(i).close();
        }
        arena.close();
    }

    // ---------------------------------------------------------------------------------------------
    // Bootstrap

    /** Sixteen bytes of HTTP instead of a HELLO: a MALFORMED WELCOME, then the connection closes. */
    @Test
    void garbageInsteadOfHello() throws IOException {
        try (Socket socket = raw()) {
            write(socket, "GET / HTTP/1.1\r\n".getBytes(StandardCharsets.US_ASCII));
            // Nothing is left unread, so the connection can still be written: the refusal must arrive.
            assertEquals(RefusalCode.MALFORMED, decodeWelcome(readUntilClosed(socket)).status(), "answer to garbage");
        }
        assertOnlyWellBehavedClientRemains();
    }

    /** A HELLO whose frame says version 2 gets a version-1 WELCOME with VERSION_MISMATCH. */
    @Test
    void helloWithAnotherVersionGetsVersionMismatch() throws Exception {
        try (Socket socket = raw()) {
            byte[] hello = hello(LIMITS);
            MemorySegment.ofArray(hello).set(U16_LE, Bootstrap.FRAME_VERSION_OFFSET, (short) 2);
            write(socket, hello);
            byte[] answer = readUntilClosed(socket);
            Bootstrap.Frame frame = Bootstrap.decodeFrame(answer, Bootstrap.WELCOME);
            assertEquals(MessageHeader.VERSION, frame.version(), "the WELCOME speaks the server's version");
            Bootstrap.Endpoint welcome = decodeWelcome(answer);
            assertEquals(RefusalCode.VERSION_MISMATCH, welcome.status(), welcome::toString);
            assertTrue(welcome.text().contains("2"), () -> "the reason names the client's version: " + welcome.text());
        }
        assertOnlyWellBehavedClientRemains();
    }

    /**
     * A version-2 frame whose body length breaks version 1's bound still gets VERSION_MISMATCH: the
     * version is checked right after the magic, before any rule of version 1 (docs/PROTOCOL.md 3.4, 9.1).
     */
    @Test
    void anotherVersionIsJudgedBeforeItsBodyLength() throws Exception {
        try (Socket socket = raw()) {
            byte[] frame = Arrays.copyOf(hello(LIMITS), Bootstrap.FRAME_LENGTH);
            MemorySegment.ofArray(frame).set(U16_LE, Bootstrap.FRAME_VERSION_OFFSET, (short) 2);
            MemorySegment.ofArray(frame).set(U32_LE, Bootstrap.FRAME_BODY_LENGTH_OFFSET, 2000);
            write(socket, frame);
            Bootstrap.Endpoint welcome = decodeWelcome(readUntilClosed(socket));
            assertEquals(RefusalCode.VERSION_MISMATCH, welcome.status(), welcome::toString);
        }
        assertOnlyWellBehavedClientRemains();
    }

    /** A HELLO whose status is no known refusal code breaks a body rule (9.2): MALFORMED, naming the field. */
    @Test
    void helloWithUnknownStatusIsMalformed() throws Exception {
        for (int status : new int[] {12, 0xFFFF}) {
            try (Socket socket = raw()) {
                byte[] hello = hello(LIMITS);
                MemorySegment.ofArray(hello).set(U16_LE, Bootstrap.FRAME_LENGTH + Bootstrap.STATUS_OFFSET,
                        (short) status);
                write(socket, hello);
                Bootstrap.Endpoint welcome = decodeWelcome(readUntilClosed(socket));
                assertEquals(RefusalCode.MALFORMED, welcome.status(), welcome::toString);
                assertTrue(welcome.text().contains("status"), () -> "the reason names the field: " + welcome.text());
            }
        }
        assertOnlyWellBehavedClientRemains();
    }

    /** A HELLO carrying a critical extension gets UNSUPPORTED_EXTENSION. */
    @Test
    void helloWithCriticalExtensionIsRefused() throws Exception {
        try (Socket socket = raw()) {
            byte[] extension = new byte[6];
            MemorySegment.ofArray(extension).set(U16_LE, 0, (short) 0x8001);
            MemorySegment.ofArray(extension).set(U16_LE, 2, (short) 2);
            write(socket, Bootstrap.encode(Bootstrap.HELLO, new Bootstrap.Endpoint(RefusalCode.ACCEPTED,
                    TransportKind.TCP, SERVICE, LIMITS, 0, 0, null, 0, 0, 0, "", extension)));
            Bootstrap.Endpoint welcome = decodeWelcome(readUntilClosed(socket));
            assertEquals(RefusalCode.UNSUPPORTED_EXTENSION, welcome.status(), welcome::toString);
        }
        assertOnlyWellBehavedClientRemains();
    }

    /** A HELLO asking for the RDMA transport of a TCP server gets TRANSPORT_MISMATCH. */
    @Test
    void helloForAnotherTransportIsRefused() throws Exception {
        try (Socket socket = raw()) {
            write(socket, Bootstrap.encode(Bootstrap.HELLO, new Bootstrap.Endpoint(RefusalCode.ACCEPTED,
                    TransportKind.RDMA, SERVICE, LIMITS, 1, 2, null, 1024, 0, 0, "", null)));
            Bootstrap.Endpoint welcome = decodeWelcome(readUntilClosed(socket));
            assertEquals(RefusalCode.TRANSPORT_MISMATCH, welcome.status(), welcome::toString);
        }
        assertOnlyWellBehavedClientRemains();
    }

    /** A HELLO body breaking a field rule (maxRanges 17, above the protocol cap) gets MALFORMED. */
    @Test
    void helloWithMalformedBodyIsRefused() throws Exception {
        try (Socket socket = raw()) {
            byte[] hello = hello(LIMITS);
            MemorySegment.ofArray(hello).set(U16_LE, Bootstrap.FRAME_LENGTH + Bootstrap.MAX_RANGES_OFFSET, (short) 17);
            write(socket, hello);
            Bootstrap.Endpoint welcome = decodeWelcome(readUntilClosed(socket));
            assertEquals(RefusalCode.MALFORMED, welcome.status(), welcome::toString);
        }
        assertOnlyWellBehavedClientRemains();
    }

    /** Part of a HELLO frame, then silence: dropped after the bootstrap timeout, without a WELCOME. */
    @Test
    void truncatedHelloFrameThenSilenceIsDropped() throws IOException {
        try (Socket socket = raw()) {
            write(socket, Arrays.copyOf(hello(LIMITS), 10));
            assertEquals(0, readUntilClosed(socket).length, "a server must not answer a HELLO it never got");
        }
        assertOnlyWellBehavedClientRemains();
    }

    /** A whole frame and part of the body, then silence: dropped after the bootstrap timeout. */
    @Test
    void truncatedHelloBodyThenSilenceIsDropped() throws IOException {
        try (Socket socket = raw()) {
            write(socket, Arrays.copyOf(hello(LIMITS), Bootstrap.FRAME_LENGTH + 20));
            assertEquals(0, readUntilClosed(socket).length, "a server must not answer a HELLO it never got");
        }
        assertOnlyWellBehavedClientRemains();
    }

    /**
     * A HELLO trickled one byte per 50 ms (far less than the 300 ms bootstrap timeout between
     * bytes): one deadline covers the whole bootstrap, so the server drops the client while bytes
     * are still arriving.
     */
    @Test
    void trickledHelloIsDroppedAtTheBootstrapDeadline() throws IOException {
        byte[] hello = hello(LIMITS);
        try (Socket socket = raw()) {
            socket.setSoTimeout(50);
            boolean dropped = false;
            int sent = 0;
            try {
                while (sent < hello.length - 1 && !dropped) {
                    socket.getOutputStream().write(hello[sent++]);
                    socket.getOutputStream().flush();
                    try {
                        int read = socket.getInputStream().read();
                        assertEquals(-1, read, "the server answered an incomplete HELLO");
                        dropped = true;
                    } catch (SocketTimeoutException stillOpen) {
                        // The pace of the trickle: the connection is still open after 50 ms.
                    }
                }
            } catch (SocketException closedWhileWriting) {
                dropped = true;
            }
            assertTrue(dropped, "the server kept a client that trickled " + sent + " bytes over at least "
                    + (sent * 50) + " ms (bootstrap timeout 300 ms)");
        }
        assertOnlyWellBehavedClientRemains();
    }

    /** A frame announcing bodies far beyond the maximum is refused (MALFORMED) from the frame alone. */
    @Test
    void oversizedBodyLengthIsRefused() throws IOException {
        for (long bodyLength : new long[] {Bootstrap.MAX_BODY_LENGTH + 1L, 0xFFFF_FFF0L}) {
            try (Socket socket = raw()) {
                byte[] frame = Arrays.copyOf(hello(LIMITS), Bootstrap.FRAME_LENGTH);
                MemorySegment.ofArray(frame).set(U32_LE, Bootstrap.FRAME_BODY_LENGTH_OFFSET, (int) bodyLength);
                write(socket, frame);
                assertEquals(RefusalCode.MALFORMED, decodeWelcome(readUntilClosed(socket)).status(),
                        "body length " + bodyLength);
            }
        }
        assertOnlyWellBehavedClientRemains();
    }

    // ---------------------------------------------------------------------------------------------
    // Data path, after a valid bootstrap and one valid request

    /** The raw peer's requests are right: a valid REQUEST gets DATA and RESPONSE (control for the cases below). */
    @Test
    void rawValidRequestsAreAnswered() throws IOException {
        try (Socket socket = raw()) {
            bootstrap(socket);
            for (int seq = 0; seq < 3; seq++) {
                byte[] payload = payload(10 + seq);
                write(socket, request(seq, payload, 64, 16));
                assertAnswer(socket, seq, payload);
            }
        }
        assertWellBehavedClientWorks();
    }

    /**
     * Requests cut and joined at arbitrary points are answered in order: the server reads whatever
     * has arrived, so it holds the start of the next request while it answers the current one.
     */
    @Test
    void pipelinedRequestsCutAnywhereAreAnsweredInOrder() throws IOException {
        try (Socket socket = raw()) {
            bootstrap(socket);
            byte[][] payloads = {payload(10), payload(64), payload(1), payload(200)};
            ByteArrayOutputStream stream = new ByteArrayOutputStream();
            int[] ends = new int[payloads.length];
            for (int seq = 0; seq < payloads.length; seq++) {
                stream.write(request(seq, payloads[seq], 256));
                ends[seq] = stream.size();
            }
            byte[] bytes = stream.toByteArray();
            // The first request and half of the second's header: only the first can be answered.
            int cut = ends[0] + MessageHeader.LENGTH / 2;
            socket.getOutputStream().write(bytes, 0, cut);
            assertAnswer(socket, 0, payloads[0]);
            // The rest of the second, all of the third, and a few bytes of the fourth's payload.
            int cut2 = ends[2] + MessageHeader.LENGTH + 3;
            socket.getOutputStream().write(bytes, cut, cut2 - cut);
            assertAnswer(socket, 1, payloads[1]);
            assertAnswer(socket, 2, payloads[2]);
            socket.getOutputStream().write(bytes, cut2, bytes.length - cut2);
            assertAnswer(socket, 3, payloads[3]);
        }
        assertWellBehavedClientWorks();
    }

    /** A REQUEST with a bad magic closes that connection only. */
    @Test
    void badMagicClosesOnlyThatConnection() throws IOException {
        byte[] bad = request(1, payload(8), 64);
        bad[0] = 'X';
        assertViolationClosesOnlyThatConnection(bad);
    }

    /** A REQUEST with a non-zero flags field closes that connection only. */
    @Test
    void nonZeroFlagsCloseOnlyThatConnection() throws IOException {
        byte[] bad = request(1, payload(8), 64);
        MemorySegment.ofArray(bad).set(U16_LE, MessageHeader.FLAGS_OFFSET, (short) 1);
        assertViolationClosesOnlyThatConnection(bad);
    }

    /** A client sending a DATA message (wrong type) is closed. */
    @Test
    void wrongTypeClosesOnlyThatConnection() throws IOException {
        byte[] bad = request(1, payload(8), 64);
        bad[MessageHeader.TYPE_OFFSET] = MessageType.DATA;
        assertViolationClosesOnlyThatConnection(bad);
    }

    /** A REQUEST skipping a sequence number is closed. */
    @Test
    void wrongSequenceClosesOnlyThatConnection() throws IOException {
        assertViolationClosesOnlyThatConnection(request(5, payload(8), 64));
    }

    /** A REQUEST announcing a payload above the negotiated maxRequestBytes is closed. */
    @Test
    void payloadAboveTheLimitClosesOnlyThatConnection() throws IOException {
        assertViolationClosesOnlyThatConnection(request(1, payload(LIMITS.maxRequestBytes() + 1), 64));
    }

    /** A REQUEST announcing a 4 GiB payload is closed from its header, nothing allocated for it. */
    @Test
    void hugePayloadLengthClosesOnlyThatConnection() throws IOException {
        byte[] bad = Arrays.copyOf(request(1, payload(0)), MessageHeader.LENGTH);
        MemorySegment.ofArray(bad).set(U32_LE, MessageHeader.PAYLOAD_LENGTH_OFFSET, -1);
        assertViolationClosesOnlyThatConnection(bad);
    }

    /** A REQUEST with more ranges than the negotiated maxRanges is closed. */
    @Test
    void rangeCountAboveTheLimitClosesOnlyThatConnection() throws IOException {
        assertViolationClosesOnlyThatConnection(request(1, payload(8), 8, 8, 8, 8, 8));
    }

    /** A REQUEST whose ranges sum past the negotiated maxResponseBytes is closed. */
    @Test
    void rangesPastTheResponseLimitCloseOnlyThatConnection() throws IOException {
        assertViolationClosesOnlyThatConnection(request(1, payload(8), 3000, 3000));
    }

    /** A REQUEST with a zero-length range is closed. */
    @Test
    void zeroLengthRangeClosesOnlyThatConnection() throws IOException {
        assertViolationClosesOnlyThatConnection(request(1, payload(8), 64, 0));
    }

    /** A REQUEST carrying a non-zero status field is closed. */
    @Test
    void requestWithStatusClosesOnlyThatConnection() throws IOException {
        byte[] bad = request(1, payload(8), 64);
        MemorySegment.ofArray(bad).set(U32_LE, MessageHeader.STATUS_OFFSET, 1);
        assertViolationClosesOnlyThatConnection(bad);
    }

    /** Half a REQUEST, then the client closes its side: the server closes that connection only. */
    @Test
    void truncatedRequestThenCloseClosesOnlyThatConnection() throws IOException {
        try (Socket socket = raw()) {
            bootstrap(socket);
            byte[] payload = payload(8);
            write(socket, request(0, payload, 64));
            assertAnswer(socket, 0, payload);
            write(socket, Arrays.copyOf(request(1, payload(100), 64), MessageHeader.LENGTH + 50));
            socket.shutdownOutput();
            readUntilClosed(socket);
        }
        assertOnlyWellBehavedClientRemains();
    }

    // ---------------------------------------------------------------------------------------------
    // Edges PROTOCOL.md specifies in §5.2 and §6: in-flight excess, half-close, a request before the WELCOME

    /**
     * More requests than the negotiated in-flight limit, written at once: the server reads one
     * request at a time, so the excess waits in the socket (TCP flow control) and every request is
     * answered in order. Not a violation; nothing is counted.
     */
    @Test
    void inFlightExcessIsAnsweredInOrder() throws IOException {
        long violations = server.statistics().protocolViolations();
        try (Socket socket = raw()) {
            bootstrap(socket);
            ByteArrayOutputStream burst = new ByteArrayOutputStream();
            int requests = 3 * LIMITS.maxInFlight();
            for (int seq = 0; seq < requests; seq++) {
                burst.write(request(seq, payload(20 + seq), 64));
            }
            write(socket, burst.toByteArray());
            for (int seq = 0; seq < requests; seq++) {
                assertAnswer(socket, seq, payload(20 + seq));
            }
        }
        assertOnlyWellBehavedClientRemains();
        assertEquals(violations, server.statistics().protocolViolations());
    }

    /**
     * A client that shuts down its sending side after a complete request still gets the answer;
     * the server then closes the connection quietly (no violation, no undelivered response).
     */
    @Test
    void halfCloseAfterARequestStillGetsTheAnswer() throws IOException {
        long violations = server.statistics().protocolViolations();
        long undelivered = server.statistics().undeliveredResponses();
        try (Socket socket = raw()) {
            bootstrap(socket);
            byte[] payload = payload(33);
            write(socket, request(0, payload, 64));
            socket.shutdownOutput();
            assertAnswer(socket, 0, payload);
            assertEquals(0, readUntilClosed(socket).length, "nothing after the answer");
        }
        assertOnlyWellBehavedClientRemains();
        assertEquals(violations, server.statistics().protocolViolations());
        assertEquals(undelivered, server.statistics().undeliveredResponses());
    }

    /**
     * A REQUEST written with the HELLO, before the WELCOME arrived: the server reads exactly the
     * HELLO's bytes, so the request stays in the socket and is read as the first REQUEST after an
     * accepting WELCOME (PROTOCOL.md §6).
     */
    @Test
    void aRequestSentBeforeTheWelcomeIsReadAfterIt() throws IOException {
        long violations = server.statistics().protocolViolations();
        try (Socket socket = raw()) {
            byte[] payload = payload(17);
            ByteArrayOutputStream early = new ByteArrayOutputStream();
            early.write(hello(LIMITS));
            early.write(request(0, payload, 64));
            write(socket, early.toByteArray());
            DataInputStream in = new DataInputStream(socket.getInputStream());
            byte[] frame = new byte[Bootstrap.FRAME_LENGTH];
            in.readFully(frame);
            try {
                byte[] body = new byte[Bootstrap.decodeFrame(frame, Bootstrap.WELCOME).bodyLength()];
                in.readFully(body);
                assertEquals(RefusalCode.ACCEPTED, Bootstrap.decodeBody(body).status());
            } catch (ProtocolException e) {
                throw new AssertionError("malformed WELCOME", e);
            }
            assertAnswer(socket, 0, payload);
        }
        assertOnlyWellBehavedClientRemains();
        assertEquals(violations, server.statistics().protocolViolations());
    }

    // ---------------------------------------------------------------------------------------------
    // Fake server against a real client

    /** A DATA piece for another sequence: the client fails naming the sequence, nothing lands. */
    @Test
    void fakeServerWrongSequence() throws Exception {
        assertClientRejects("sequence", false, out -> out.write(data(7, 0, 10)));
    }

    /** A second DATA piece that skips ahead: the client fails naming the response offset. */
    @Test
    void fakeServerOffsetOutOfOrder() throws Exception {
        assertClientRejects("response offset", true, out -> {
            out.write(data(0, 0, 10));
            out.write(data(0, 20, 10));
        });
    }

    /** A DATA piece bigger than the ranges: rejected from its header, before any of its bytes land. */
    @Test
    void fakeServerPieceBiggerThanTheRanges() throws Exception {
        assertClientRejects("payload length", false, out -> out.write(data(0, 0, 101)));
    }

    /** A piece that fits, then one that overflows the space left. */
    @Test
    void fakeServerSecondPieceOverflowsTheRanges() throws Exception {
        assertClientRejects("payload length", true, out -> {
            out.write(data(0, 0, 60));
            out.write(data(0, 60, 41));
        });
    }

    /** A RESPONSE with an unknown status. */
    @Test
    void fakeServerBadStatus() throws Exception {
        assertClientRejects("status", false, out -> out.write(response(0, 7, 0, 0)));
    }

    /** An OK RESPONSE whose length differs from the bytes received. */
    @Test
    void fakeServerResponseLengthMismatch() throws Exception {
        assertClientRejects("response length", true, out -> {
            out.write(data(0, 0, 30));
            out.write(response(0, WireStatus.OK, 0, 50));
        });
    }

    /** A valid piece across both ranges, then a RESPONSE with a bad magic. */
    @Test
    void fakeServerBadMagicAfterAPiece() throws Exception {
        assertClientRejects("magic", true, out -> {
            out.write(data(0, 0, 60));
            byte[] bad = response(0, WireStatus.OK, 0, 60);
            bad[0] = 'Z';
            out.write(bad);
        });
    }

    /** A WELCOME in protocol version 2: the client fails naming the version. */
    @Test
    void fakeServerWelcomeInAnotherVersion() throws Exception {
        try (ServerSocket fake = fakeServerSocket()) {
            ExecutorService peer = Executors.newSingleThreadExecutor();
            try {
                Future<?> script = peer.submit(() -> {
                    try (Socket socket = accept(fake)) {
                        Bootstrap.Endpoint hello = readHello(socket);
                        byte[] welcome = Bootstrap.encode(Bootstrap.WELCOME, hello);
                        MemorySegment.ofArray(welcome).set(U16_LE, Bootstrap.FRAME_VERSION_OFFSET, (short) 2);
                        write(socket, welcome);
                        readUntilClosed(socket);
                    }
                    return null;
                });
                OflException failure = assertThrows(OflException.class,
                        () -> Ofl.connect(clientConfig(localAddress(fake)).build()).close());
                assertFalse(failure instanceof OflRefusedException, "a foreign version is not a refusal: " + failure);
                String message = failure.getMessage().toLowerCase(java.util.Locale.ROOT);
                assertTrue(message.contains("version") && message.contains("2"),
                        () -> "the failure names the version: " + failure.getMessage());
                script.get(WAIT_MS, TimeUnit.MILLISECONDS);
            } finally {
                peer.shutdownNow();
            }
        }
    }

    /** A WELCOME accepting other limits than proposed is malformed. */
    @Test
    void fakeServerWelcomeWithOtherLimits() throws Exception {
        try (ServerSocket fake = fakeServerSocket()) {
            ExecutorService peer = Executors.newSingleThreadExecutor();
            try {
                Future<?> script = peer.submit(() -> {
                    try (Socket socket = accept(fake)) {
                        readHello(socket);
                        write(socket, Bootstrap.encode(Bootstrap.WELCOME,
                                Bootstrap.Endpoint.tcp(RefusalCode.ACCEPTED, SERVICE, new Limits(1024, 4096, 4, 2), "")));
                        readUntilClosed(socket);
                    }
                    return null;
                });
                assertThrows(OflException.class, () -> Ofl.connect(clientConfig(localAddress(fake)).build()).close());
                script.get(WAIT_MS, TimeUnit.MILLISECONDS);
            } finally {
                peer.shutdownNow();
            }
        }
    }

    /** A server that never answers the HELLO: the client gives up at its connect timeout. */
    @Test
    void fakeServerSilentAfterHello() throws Exception {
        try (ServerSocket fake = fakeServerSocket()) {
            ExecutorService peer = Executors.newSingleThreadExecutor();
            try {
                Future<?> script = peer.submit(() -> {
                    try (Socket socket = accept(fake)) {
                        readHello(socket);
                        readUntilClosed(socket);
                    }
                    return null;
                });
                assertThrows(OflConnectionException.class, () -> Ofl.connect(clientConfig(localAddress(fake))
                        .connectTimeout(Duration.ofMillis(300)).build()).close());
                script.get(WAIT_MS, TimeUnit.MILLISECONDS);
            } finally {
                peer.shutdownNow();
            }
        }
    }

    // ---------------------------------------------------------------------------------------------
    // Helpers

    @FunctionalInterface
    private interface Script {
        void send(OutputStream out) throws IOException;
    }

    /**
     * Runs a real client against a fake server that accepts, reads the REQUEST, sends the scripted
     * messages and keeps the connection open: the client must fail on the messages themselves.
     * Its ranges are 50 bytes at offset 100 and 50 bytes at offset 300 of a sentinel-filled region.
     */
    private void assertClientRejects(String field, boolean piecesMayLand, Script script) throws Exception {
        try (ServerSocket fake = fakeServerSocket()) {
            ExecutorService peer = Executors.newSingleThreadExecutor();
            try {
                Future<?> served = peer.submit(() -> {
                    try (Socket socket = accept(fake)) {
                        Bootstrap.Endpoint hello = readHello(socket);
                        write(socket, Bootstrap.encode(Bootstrap.WELCOME, hello));
                        DataInputStream in = new DataInputStream(socket.getInputStream());
                        byte[] header = new byte[MessageHeader.LENGTH];
                        in.readFully(header);
                        MessageHeader request = new MessageHeader().wrap(MemorySegment.ofArray(header), 0);
                        in.readFully(new byte[(int) (MessageHeader.requestLength((int) request.payloadLength(),
                                request.rangeCount()) - MessageHeader.LENGTH)]);
                        OutputStream out = socket.getOutputStream();
                        script.send(out);
                        out.flush();
                        readUntilClosed(socket);
                    }
                    return null;
                });
                try (OflClient client = Ofl.connect(clientConfig(localAddress(fake)).build());
                        Arena local = Arena.ofConfined()) {
                    MemorySegment memory = local.allocate(1024).fill(SENTINEL);
                    Region region = client.registerRegion(memory);
                    ResponseRanges ranges = new ResponseRanges().add(region, 100, 50).add(region, 300, 50);
                    Completion completion = new Completion();
                    OflConnectionException failure = assertThrows(OflConnectionException.class,
                            () -> client.call(1, 0, 0, ranges, CALL_TIMEOUT_NS, completion),
                            () -> "a malformed server message must fail the call (" + completion + ")");
                    assertTrue(failure.getMessage().contains(field),
                            () -> "the failure names '" + field + "': " + failure.getMessage());
                    assertTrue(client.isBroken(), "broken after a protocol violation");
                    for (int at = 0; at < memory.byteSize(); at++) {
                        boolean inRange = (at >= 100 && at < 150) || (at >= 300 && at < 350);
                        byte actual = memory.get(ValueLayout.JAVA_BYTE, at);
                        if (inRange && piecesMayLand) {
                            assertTrue(actual == SENTINEL || actual == PIECE, "byte " + at + " is " + actual);
                        } else if (actual != SENTINEL) {
                            fail("byte " + at + (inRange ? " inside" : " outside") + " the ranges changed to " + actual);
                        }
                    }
                }
                served.get(WAIT_MS, TimeUnit.MILLISECONDS);
            } finally {
                peer.shutdownNow();
            }
        }
    }

    /** Bootstraps a raw peer, has one valid request answered, sends the violation and expects the close. */
    private void assertViolationClosesOnlyThatConnection(byte[] violation) throws IOException {
        try (Socket socket = raw()) {
            bootstrap(socket);
            byte[] payload = payload(24);
            write(socket, request(0, payload, 64));
            assertAnswer(socket, 0, payload);
            assertWellBehavedClientWorks();
            try {
                write(socket, violation);
            } catch (SocketException closedEarly) {
                // The server may close as soon as it has read the header.
            }
            readUntilClosed(socket);
        }
        assertOnlyWellBehavedClientRemains();
    }

    private void assertWellBehavedClientWorks() {
        goodCalls++;
        byte[] payload = payload(100 + goodCalls);
        MemorySegment.copy(MemorySegment.ofArray(payload), 0, good.requestPayload(), 0, payload.length);
        Completion completion = new Completion();
        assertEquals(OflStatus.OK, good.call(1, goodCalls, payload.length, new ResponseRanges().add(goodRegion, 0, 512),
                CALL_TIMEOUT_NS, completion), completion::toString);
        assertEquals(payload.length, completion.responseLength());
        assertArrayEquals(payload, goodMemory.asSlice(0, payload.length).toArray(ValueLayout.JAVA_BYTE));
        assertFalse(good.isBroken());
    }

    private void assertOnlyWellBehavedClientRemains() {
        long deadlineNs = System.nanoTime() + CALL_TIMEOUT_NS;
        while (server.connectionCount() != 1) {
            if (System.nanoTime() - deadlineNs >= 0) {
                fail("the server still counts " + server.connectionCount() + " connections");
            }
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
        }
        assertWellBehavedClientWorks();
    }

    private static InetAddress loopback() {
        return new InetSocketAddress("127.0.0.1", 0).getAddress();
    }

    private static ClientConfig.Builder clientConfig(InetSocketAddress server) {
        return ClientConfig.builder()
                .backend(TcpBackend.NAME)
                .server(server)
                .serviceName(SERVICE)
                .limits(LIMITS)
                .connectTimeout(Duration.ofMillis(WAIT_MS));
    }

    private Socket raw() throws IOException {
        Socket socket = new Socket();
        socket.connect(server.localAddress(), WAIT_MS);
        socket.setSoTimeout(WAIT_MS);
        socket.setTcpNoDelay(true);
        return socket;
    }

    private static ServerSocket fakeServerSocket() throws IOException {
        return new ServerSocket(0, 1, loopback());
    }

    private static InetSocketAddress localAddress(ServerSocket socket) {
        return new InetSocketAddress(socket.getInetAddress(), socket.getLocalPort());
    }

    private static Socket accept(ServerSocket fake) throws IOException {
        fake.setSoTimeout(WAIT_MS);
        Socket socket = fake.accept();
        socket.setSoTimeout(WAIT_MS);
        socket.setTcpNoDelay(true);
        return socket;
    }

    private static byte[] hello(Limits limits) {
        return Bootstrap.encode(Bootstrap.HELLO, Bootstrap.Endpoint.tcp(RefusalCode.ACCEPTED, SERVICE, limits, ""));
    }

    private static Bootstrap.Endpoint readHello(Socket socket) throws IOException, ProtocolException {
        DataInputStream in = new DataInputStream(socket.getInputStream());
        byte[] frame = new byte[Bootstrap.FRAME_LENGTH];
        in.readFully(frame);
        byte[] body = new byte[Bootstrap.decodeFrame(frame, Bootstrap.HELLO).bodyLength()];
        in.readFully(body);
        return Bootstrap.decodeBody(body);
    }

    private static void bootstrap(Socket socket) throws IOException {
        write(socket, hello(LIMITS));
        DataInputStream in = new DataInputStream(socket.getInputStream());
        byte[] frame = new byte[Bootstrap.FRAME_LENGTH];
        in.readFully(frame);
        try {
            byte[] body = new byte[Bootstrap.decodeFrame(frame, Bootstrap.WELCOME).bodyLength()];
            in.readFully(body);
            Bootstrap.Endpoint welcome = Bootstrap.decodeBody(body);
            assertEquals(RefusalCode.ACCEPTED, welcome.status(), welcome::toString);
            assertEquals(LIMITS, welcome.limits(), "accepted limits");
        } catch (ProtocolException e) {
            throw new AssertionError("malformed WELCOME", e);
        }
    }

    private static Bootstrap.Endpoint decodeWelcome(byte[] message) {
        try {
            Bootstrap.Frame frame = Bootstrap.decodeFrame(message, Bootstrap.WELCOME);
            assertEquals(Bootstrap.FRAME_LENGTH + frame.bodyLength(), message.length, "WELCOME length");
            return Bootstrap.decodeBody(Arrays.copyOfRange(message, Bootstrap.FRAME_LENGTH, message.length));
        } catch (ProtocolException e) {
            throw new AssertionError("malformed WELCOME: " + e.getMessage(), e);
        }
    }

    private static void write(Socket socket, byte[] bytes) throws IOException {
        socket.getOutputStream().write(bytes);
        socket.getOutputStream().flush();
    }

    /**
     * Reads until the peer closes: end of stream or a reset both count. A read that times out
     * (the socket's bound) fails the test.
     */
    private static byte[] readUntilClosed(Socket socket) throws IOException {
        ByteArrayOutputStream received = new ByteArrayOutputStream();
        InputStream in = socket.getInputStream();
        byte[] buffer = new byte[4096];
        try {
            for (int n; (n = in.read(buffer)) >= 0; ) {
                received.write(buffer, 0, n);
            }
        } catch (SocketTimeoutException e) {
            fail("the peer kept the connection open for " + socket.getSoTimeout() + " ms after receiving "
                    + received.size() + " bytes");
        } catch (SocketException reset) {
            // A close with unread input resets the connection: closed all the same.
        }
        return received.toByteArray();
    }

    private static byte[] payload(int length) {
        byte[] payload = new byte[length];
        for (int i = 0; i < length; i++) {
            payload[i] = (byte) (i * 7 + length);
        }
        return payload;
    }

    /** A valid REQUEST: header, payload, zero padding to 8, range descriptors (address and key zero). */
    private static byte[] request(long sequence, byte[] payload, int... rangeLengths) {
        byte[] message = new byte[(int) MessageHeader.requestLength(payload.length, rangeLengths.length)];
        MemorySegment segment = MemorySegment.ofArray(message);
        new MessageHeader().wrap(segment, 0).reset(MessageType.REQUEST, sequence)
                .op(1).generation(sequence).payloadLength(payload.length).rangeCount(rangeLengths.length);
        System.arraycopy(payload, 0, message, MessageHeader.LENGTH, payload.length);
        long at = MessageHeader.rangesOffset(payload.length);
        for (int length : rangeLengths) {
            RangeDescriptor.write(segment, at, 0, length, 0);
            at += RangeDescriptor.LENGTH;
        }
        return message;
    }

    /** Reads one echo answer: DATA pieces then an OK RESPONSE, all for {@code sequence}. */
    private static void assertAnswer(Socket socket, long sequence, byte[] payload) throws IOException {
        DataInputStream in = new DataInputStream(socket.getInputStream());
        ByteArrayOutputStream received = new ByteArrayOutputStream();
        MessageHeader header = new MessageHeader();
        while (true) {
            byte[] bytes = new byte[MessageHeader.LENGTH];
            in.readFully(bytes);
            header.wrap(MemorySegment.ofArray(bytes), 0);
            assertEquals(MessageHeader.MAGIC, header.magic());
            assertEquals(sequence, header.sequence(), "sequence of the answer");
            if (header.type() == MessageType.RESPONSE) {
                assertEquals(WireStatus.OK, header.status());
                assertEquals(payload.length, header.responseLength());
                break;
            }
            assertEquals(MessageType.DATA, header.type());
            assertEquals(received.size(), header.responseOffset(), "offset of a DATA piece");
            byte[] piece = new byte[(int) header.payloadLength()];
            in.readFully(piece);
            received.write(piece);
        }
        assertArrayEquals(payload, received.toByteArray(), "echoed bytes");
    }

    private static byte[] data(long sequence, long offset, int length) {
        byte[] message = new byte[MessageHeader.LENGTH + length];
        new MessageHeader().wrap(MemorySegment.ofArray(message), 0).reset(MessageType.DATA, sequence)
                .payloadLength(length).responseOffset(offset);
        Arrays.fill(message, MessageHeader.LENGTH, message.length, PIECE);
        return message;
    }

    private static byte[] response(long sequence, int status, int handlerStatus, long responseLength) {
        byte[] message = new byte[MessageHeader.LENGTH];
        new MessageHeader().wrap(MemorySegment.ofArray(message), 0).reset(MessageType.RESPONSE, sequence)
                .status(status).handlerStatus(handlerStatus).responseLength(responseLength);
        return message;
    }
}
