package dev.ofl.tcp;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ofl.api.ClientConfig;
import dev.ofl.api.Completion;
import dev.ofl.api.Limits;
import dev.ofl.api.Ofl;
import dev.ofl.api.OflClient;
import dev.ofl.api.OflConnectionException;
import dev.ofl.api.OflServer;
import dev.ofl.api.OflStatus;
import dev.ofl.api.RefusalCode;
import dev.ofl.api.Region;
import dev.ofl.api.ResponseRanges;
import dev.ofl.api.ServerConfig;
import dev.ofl.api.wire.Bootstrap;
import dev.ofl.api.wire.FailureReason;
import dev.ofl.api.wire.MessageHeader;
import dev.ofl.api.wire.MessageType;
import dev.ofl.api.wire.ProtocolException;
import dev.ofl.api.wire.RangeDescriptor;
import dev.ofl.api.wire.TransportKind;
import dev.ofl.api.wire.WireStatus;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The failure reason on the TCP wire (docs/PROTOCOL.md 3.7, 4.6), byte by byte: a raw peer that
 * does not offer it (a client that predates it) gets a bare HANDLER_FAILED, one that offers gets
 * the reason as a DATA piece and its length in the RESPONSE; and a real client refuses a reason
 * that a server sends without having agreed to, or whose length is not what arrived.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class FailureReasonWireTest {
    private static final String SERVICE = "reasons";
    private static final Limits LIMITS = new Limits(1024, 4096, 4, 4);
    private static final int WAIT_MS = 20_000;
    private static final long CALL_TIMEOUT_NS = TimeUnit.MILLISECONDS.toNanos(WAIT_MS);
    private static final int OP_THROW = 2;
    private static final String REASON = "java.lang.IllegalStateException: row 9 is not loaded";

    private static OflServer serve(Consumer<ServerConfig.Builder> settings) {
        ServerConfig.Builder builder = ServerConfig.builder()
                .backend(TcpBackend.NAME)
                .bind(new InetSocketAddress("127.0.0.1", 0))
                .serviceName(SERVICE);
        settings.accept(builder);
        return Ofl.serve(builder.build(), (request, response) -> {
            if (request.op() == OP_THROW) {
                response.write(MemorySegment.ofArray(new byte[] {1, 2, 3}));
                throw new IllegalStateException("row 9 is not loaded");
            }
            response.write(request.payload());
            return 0;
        });
    }

    @Test
    void aClientThatDoesNotOfferItGetsABareFailureAndNoByte() throws Exception {
        try (OflServer server = serve(b -> { }); Socket socket = connect(server)) {
            Bootstrap.Endpoint welcome = bootstrap(socket, false);
            assertFalse(FailureReason.present(welcome.extensions()), "no answer to a client that did not offer");
            write(socket, request(0, OP_THROW, new byte[8], 100));
            MessageHeader header = readHeader(socket);
            assertEquals(MessageType.RESPONSE, header.type(), "no DATA before the failure");
            assertEquals(WireStatus.HANDLER_FAILED, header.status());
            assertEquals(0, header.responseLength());
            byte[] payload = "still usable".getBytes(StandardCharsets.US_ASCII);
            write(socket, request(1, 1, payload, 100));
            assertEcho(socket, 1, payload);
        }
    }

    @Test
    void aClientThatOffersItGetsTheReasonAsTheStreamsFirstBytes() throws Exception {
        try (OflServer server = serve(b -> { }); Socket socket = connect(server)) {
            Bootstrap.Endpoint welcome = bootstrap(socket, true);
            assertTrue(FailureReason.present(welcome.extensions()), "the WELCOME answers the offer");
            write(socket, request(0, OP_THROW, new byte[8], 100));
            MessageHeader data = readHeader(socket);
            assertEquals(MessageType.DATA, data.type());
            assertEquals(0, data.responseOffset());
            byte[] reason = REASON.getBytes(StandardCharsets.UTF_8);
            assertEquals(reason.length, data.payloadLength(), "one piece, the reason");
            assertArrayEquals(reason, new DataInputStream(socket.getInputStream()).readNBytes(reason.length));
            MessageHeader end = readHeader(socket);
            assertEquals(MessageType.RESPONSE, end.type());
            assertEquals(WireStatus.HANDLER_FAILED, end.status());
            assertEquals(reason.length, end.responseLength(), "the RESPONSE carries the reason's length");
        }
    }

    @Test
    void aServerConfiguredWithoutReasonsLeavesTheOfferUnanswered() throws Exception {
        try (OflServer server = serve(b -> b.failureReasons(false)); Socket socket = connect(server)) {
            assertFalse(FailureReason.present(bootstrap(socket, true).extensions()));
            write(socket, request(0, OP_THROW, new byte[8], 100));
            MessageHeader header = readHeader(socket);
            assertEquals(MessageType.RESPONSE, header.type());
            assertEquals(0, header.responseLength());
        }
    }

    @Test
    void aHelloWithTheRecordTwiceIsMalformedWhateverTheServersSetting() throws Exception {
        byte[] twice = new byte[8];
        System.arraycopy(FailureReason.record(), 0, twice, 0, 4);
        System.arraycopy(FailureReason.record(), 0, twice, 4, 4);
        for (boolean reasons : new boolean[] {true, false}) {
            try (OflServer server = serve(b -> b.failureReasons(reasons)); Socket socket = connect(server)) {
                write(socket, Bootstrap.encode(Bootstrap.HELLO, new Bootstrap.Endpoint(RefusalCode.ACCEPTED,
                        TransportKind.TCP, SERVICE, LIMITS, 0, 0, null, 0, 0, 0, "", twice)));
                DataInputStream in = new DataInputStream(socket.getInputStream());
                byte[] frame = in.readNBytes(Bootstrap.FRAME_LENGTH);
                Bootstrap.Endpoint welcome = Bootstrap.decodeBody(
                        in.readNBytes(Bootstrap.decodeFrame(frame, Bootstrap.WELCOME).bodyLength()));
                assertEquals(RefusalCode.MALFORMED, welcome.status(), () -> "failureReasons " + reasons + ": "
                        + welcome);
                assertTrue(welcome.text().contains("failure reason record count"), welcome::text);
            }
        }
    }

    /**
     * What was agreed holds for one connection: after a reconnect to a server that does not agree,
     * a reason is a violation again (the first connection's agreement is not carried over).
     */
    @Test
    void aReconnectForgetsTheAgreementOfTheConnectionBefore() throws Exception {
        try (ServerSocket fake = new ServerSocket(0, 2, new InetSocketAddress("127.0.0.1", 0).getAddress())) {
            fake.setSoTimeout(WAIT_MS);
            ExecutorService peer = Executors.newSingleThreadExecutor();
            try {
                Future<?> served = peer.submit(() -> {
                    for (boolean answer : new boolean[] {true, false}) {
                        try (Socket socket = fake.accept()) {
                            socket.setSoTimeout(WAIT_MS);
                            acceptAndFail(socket, answer);
                        }
                    }
                    return null;
                });
                try (OflClient client = Ofl.connect(clientConfig(
                        new InetSocketAddress(fake.getInetAddress(), fake.getLocalPort())).build());
                        Arena arena = Arena.ofConfined()) {
                    Region region = client.registerRegion(arena.allocate(100));
                    Completion completion = new Completion();
                    assertEquals(OflStatus.HANDLER_FAILED, client.call(OP_THROW, 0, 0, ResponseRanges.of(region),
                            CALL_TIMEOUT_NS, completion));
                    assertEquals("r".repeat(20), completion.failureReason(), "agreed on the first connection");
                    client.reconnect();
                    OflConnectionException failure = assertThrows(OflConnectionException.class, () -> client.call(
                            OP_THROW, 0, 0, ResponseRanges.of(region), CALL_TIMEOUT_NS, completion));
                    assertTrue(failure.getMessage().contains("no failure reason was negotiated"),
                            failure::getMessage);
                }
                served.get(WAIT_MS, TimeUnit.MILLISECONDS);
            } finally {
                peer.shutdownNow();
            }
        }
    }

    /** Accepts a HELLO (answering the offer or not), reads one REQUEST and fails it with a 20-byte reason. */
    private static void acceptAndFail(Socket socket, boolean answer) throws IOException, ProtocolException {
        DataInputStream in = new DataInputStream(socket.getInputStream());
        byte[] frame = in.readNBytes(Bootstrap.FRAME_LENGTH);
        Bootstrap.Endpoint hello = Bootstrap.decodeBody(
                in.readNBytes(Bootstrap.decodeFrame(frame, Bootstrap.HELLO).bodyLength()));
        write(socket, Bootstrap.encode(Bootstrap.WELCOME, new Bootstrap.Endpoint(RefusalCode.ACCEPTED,
                hello.transport(), hello.serviceName(), hello.limits(), 0, 0, null, 0, 0, 0, "",
                answer ? FailureReason.record() : null)));
        MessageHeader request = new MessageHeader().wrap(MemorySegment.ofArray(in.readNBytes(MessageHeader.LENGTH)), 0);
        in.readNBytes((int) (MessageHeader.requestLength((int) request.payloadLength(), request.rangeCount())
                - MessageHeader.LENGTH));
        OutputStream out = socket.getOutputStream();
        out.write(data(0, 20));
        out.write(failed(0, 20));
        out.flush();
        in.readAllBytes();
    }

    @Test
    void aReasonFromAServerThatDidNotAgreeBreaksTheClient() throws Exception {
        assertClientRefuses(false, "no failure reason was negotiated", out -> {
            out.write(data(0, 20));
            out.write(failed(0, 20));
        });
    }

    @Test
    void aReasonWhoseLengthIsNotWhatArrivedBreaksTheClient() throws Exception {
        assertClientRefuses(true, "all of the 20 bytes received", out -> {
            out.write(data(0, 20));
            out.write(failed(0, 30));
        });
    }

    @Test
    void aReasonThatArrivedIsShownToTheCaller() throws Exception {
        try (OflServer server = serve(b -> { });
                OflClient client = Ofl.connect(clientConfig(server.localAddress()).build());
                Arena arena = Arena.ofConfined()) {
            Region region = client.registerRegion(arena.allocate(4096));
            Completion completion = new Completion();
            assertEquals(OflStatus.HANDLER_FAILED, client.call(OP_THROW, 0, 0, ResponseRanges.of(region),
                    CALL_TIMEOUT_NS, completion));
            assertEquals(REASON, completion.failureReason());
            assertEquals(0, completion.responseLength());
            assertEquals(OflStatus.HANDLER_FAILED, client.call(OP_THROW, 0, 0, new ResponseRanges(),
                    CALL_TIMEOUT_NS, completion));
            assertNull(completion.failureReason(), "no ranges, no room for a reason");
        }
    }

    /**
     * A fake server that accepts (answering the offer or not), reads one REQUEST and sends the
     * script: the real client must fail the call naming the rule, and be broken.
     */
    private static void assertClientRefuses(boolean answer, String rule, Script script) throws Exception {
        try (ServerSocket fake = new ServerSocket(0, 1, new InetSocketAddress("127.0.0.1", 0).getAddress())) {
            fake.setSoTimeout(WAIT_MS);
            ExecutorService peer = Executors.newSingleThreadExecutor();
            try {
                Future<?> served = peer.submit(() -> {
                    try (Socket socket = fake.accept()) {
                        socket.setSoTimeout(WAIT_MS);
                        DataInputStream in = new DataInputStream(socket.getInputStream());
                        byte[] frame = in.readNBytes(Bootstrap.FRAME_LENGTH);
                        Bootstrap.Endpoint hello = Bootstrap.decodeBody(
                                in.readNBytes(Bootstrap.decodeFrame(frame, Bootstrap.HELLO).bodyLength()));
                        assertTrue(FailureReason.present(hello.extensions()), "every ofl client offers it");
                        write(socket, Bootstrap.encode(Bootstrap.WELCOME, new Bootstrap.Endpoint(RefusalCode.ACCEPTED,
                                hello.transport(), hello.serviceName(), hello.limits(), 0, 0, null, 0, 0, 0, "",
                                answer ? FailureReason.record() : null)));
                        MessageHeader request = new MessageHeader().wrap(MemorySegment.ofArray(
                                in.readNBytes(MessageHeader.LENGTH)), 0);
                        in.readNBytes((int) (MessageHeader.requestLength((int) request.payloadLength(),
                                request.rangeCount()) - MessageHeader.LENGTH));
                        OutputStream out = socket.getOutputStream();
                        script.send(out);
                        out.flush();
                        in.readAllBytes();
                    }
                    return null;
                });
                try (OflClient client = Ofl.connect(clientConfig(
                        new InetSocketAddress(fake.getInetAddress(), fake.getLocalPort())).build());
                        Arena arena = Arena.ofConfined()) {
                    Region region = client.registerRegion(arena.allocate(100));
                    OflConnectionException failure = assertThrows(OflConnectionException.class,
                            () -> client.call(OP_THROW, 0, 0, ResponseRanges.of(region), CALL_TIMEOUT_NS,
                                    new Completion()));
                    assertTrue(failure.getMessage().contains("response length")
                            && failure.getMessage().contains(rule), failure::getMessage);
                    assertTrue(client.isBroken());
                }
                served.get(WAIT_MS, TimeUnit.MILLISECONDS);
            } finally {
                peer.shutdownNow();
            }
        }
    }

    @FunctionalInterface
    private interface Script {
        void send(OutputStream out) throws IOException;
    }

    private static ClientConfig.Builder clientConfig(InetSocketAddress server) {
        return ClientConfig.builder()
                .backend(TcpBackend.NAME)
                .server(server)
                .serviceName(SERVICE)
                .limits(LIMITS)
                .connectTimeout(Duration.ofMillis(WAIT_MS));
    }

    private static Socket connect(OflServer server) throws IOException {
        Socket socket = new Socket();
        socket.connect(server.localAddress(), WAIT_MS);
        socket.setSoTimeout(WAIT_MS);
        socket.setTcpNoDelay(true);
        return socket;
    }

    /** HELLO (with or without the offer), then the accepting WELCOME, decoded. */
    private static Bootstrap.Endpoint bootstrap(Socket socket, boolean offer) throws IOException, ProtocolException {
        write(socket, Bootstrap.encode(Bootstrap.HELLO, new Bootstrap.Endpoint(RefusalCode.ACCEPTED,
                TransportKind.TCP, SERVICE, LIMITS, 0, 0, null, 0, 0, 0, "",
                offer ? FailureReason.record() : null)));
        DataInputStream in = new DataInputStream(socket.getInputStream());
        byte[] frame = in.readNBytes(Bootstrap.FRAME_LENGTH);
        Bootstrap.Endpoint welcome = Bootstrap.decodeBody(
                in.readNBytes(Bootstrap.decodeFrame(frame, Bootstrap.WELCOME).bodyLength()));
        assertEquals(RefusalCode.ACCEPTED, welcome.status(), welcome::toString);
        return welcome;
    }

    private static MessageHeader readHeader(Socket socket) throws IOException {
        byte[] bytes = new DataInputStream(socket.getInputStream()).readNBytes(MessageHeader.LENGTH);
        assertEquals(MessageHeader.LENGTH, bytes.length, "a whole header");
        return new MessageHeader().wrap(MemorySegment.ofArray(bytes), 0);
    }

    private static void assertEcho(Socket socket, long sequence, byte[] payload) throws IOException {
        MessageHeader data = readHeader(socket);
        assertEquals(MessageType.DATA, data.type());
        assertEquals(sequence, data.sequence());
        assertArrayEquals(payload, new DataInputStream(socket.getInputStream()).readNBytes(payload.length));
        MessageHeader end = readHeader(socket);
        assertEquals(WireStatus.OK, end.status());
        assertEquals(payload.length, end.responseLength());
    }

    private static byte[] request(long sequence, int op, byte[] payload, int rangeLength) {
        byte[] message = new byte[(int) MessageHeader.requestLength(payload.length, 1)];
        MemorySegment segment = MemorySegment.ofArray(message);
        new MessageHeader().wrap(segment, 0).reset(MessageType.REQUEST, sequence)
                .op(op).payloadLength(payload.length).rangeCount(1);
        MemorySegment.copy(payload, 0, segment, ValueLayout.JAVA_BYTE, MessageHeader.LENGTH, payload.length);
        RangeDescriptor.write(segment, MessageHeader.rangesOffset(payload.length), 0, rangeLength, 0);
        return message;
    }

    private static byte[] data(long sequence, int length) {
        byte[] message = new byte[MessageHeader.LENGTH + length];
        new MessageHeader().wrap(MemorySegment.ofArray(message), 0).reset(MessageType.DATA, sequence)
                .payloadLength(length);
        Arrays.fill(message, MessageHeader.LENGTH, message.length, (byte) 'r');
        return message;
    }

    private static byte[] failed(long sequence, long length) {
        byte[] message = new byte[MessageHeader.LENGTH];
        new MessageHeader().wrap(MemorySegment.ofArray(message), 0).reset(MessageType.RESPONSE, sequence)
                .status(WireStatus.HANDLER_FAILED).responseLength(length);
        return message;
    }

    private static void write(Socket socket, byte[] bytes) throws IOException {
        socket.getOutputStream().write(bytes);
        socket.getOutputStream().flush();
    }
}
