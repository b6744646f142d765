package dev.ofl.tcp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.ofl.api.ClientConfig;
import dev.ofl.api.Completion;
import dev.ofl.api.Limits;
import dev.ofl.api.Ofl;
import dev.ofl.api.OflClient;
import dev.ofl.api.OflServer;
import dev.ofl.api.OflStatus;
import dev.ofl.api.RefusalCode;
import dev.ofl.api.Region;
import dev.ofl.api.ResponseRanges;
import dev.ofl.api.ServerConfig;
import dev.ofl.api.WaitMode;
import dev.ofl.api.wire.Bootstrap;
import dev.ofl.api.wire.MessageHeader;
import dev.ofl.api.wire.MessageType;
import dev.ofl.api.wire.ProtocolException;
import dev.ofl.api.wire.RangeDescriptor;
import java.io.DataInputStream;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Raw-socket peers that stall a TCP server's connection mid-transfer, with an injected server
 * clock: one that asks for 16 MiB and never reads, and one that sends half a request. Each is
 * broken once its transfer made no progress for the send timeout, in both wait modes; a
 * well-behaved client is served before and after.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class StalledPeerTest {
    private static final String SERVICE = "stalled-peer";
    private static final int RANGE_BYTES = 1 << 20;
    private static final Limits LIMITS = new Limits(4096, 16 * RANGE_BYTES, 16, 4);
    private static final long WAIT_NS = TimeUnit.SECONDS.toNanos(30);

    private final List<AutoCloseable> resources = new ArrayList<>();
    private final AtomicLong offsetNs = new AtomicLong();
    private final Arena arena = Arena.ofShared();

    @AfterEach
    void closeEverything() throws Exception {
        for (int i = resources.size() - 1; i >= 0; i--) {
            resources.get(i).close();
        }
        arena.close();
    }

    private OflServer serve(WaitMode mode) {
        return serve(mode, LIMITS);
    }

    private OflServer serve(WaitMode mode, Limits limits) {
        OflServer server = Ofl.serve(ServerConfig.builder()
                .backend(TcpBackend.NAME)
                .bind(new InetSocketAddress("127.0.0.1", 0))
                .serviceName(SERVICE)
                .limits(limits)
                .waitMode(mode)
                .sendTimeout(Duration.ofSeconds(5))
                // The test moves the clock by whole seconds: nothing else may time out meanwhile.
                .idleTimeout(Duration.ofDays(1))
                .clock(() -> System.nanoTime() + offsetNs.get())
                .build(), (request, response) -> {
                    // Fills whatever capacity the client gave, as a table lookup would.
                    MemorySegment buffer = response.buffer();
                    buffer.asSlice(0, response.capacity()).fill((byte) 7);
                    response.commit(response.capacity());
                    return 0;
                });
        resources.add(server);
        return server;
    }

    /** A client of the same server that keeps working. */
    private void assertWellBehavedClientWorks(OflServer server) {
        OflClient client = Ofl.connect(ClientConfig.builder().backend(TcpBackend.NAME)
                .server(server.localAddress()).serviceName(SERVICE).limits(LIMITS).build());
        resources.add(client);
        MemorySegment memory = arena.allocate(RANGE_BYTES);
        Region region = client.registerRegion(memory);
        Completion completion = new Completion();
        assertEquals(OflStatus.OK, client.call(1, 0, 0, new ResponseRanges().add(region, 0, RANGE_BYTES),
                WAIT_NS, completion), completion::toString);
        assertEquals(RANGE_BYTES, completion.responseLength());
        assertEquals((byte) 7, memory.get(ValueLayout.JAVA_BYTE, RANGE_BYTES - 1));
        client.close();
    }

    @ParameterizedTest
    @EnumSource(WaitMode.class)
    void aClientThatAsksAndNeverReadsIsBrokenAfterTheSendTimeout(WaitMode mode) throws Exception {
        OflServer server = serve(mode);
        assertWellBehavedClientWorks(server);
        try (Socket socket = accepted(server)) {
            int[] ranges = new int[16];
            java.util.Arrays.fill(ranges, RANGE_BYTES);
            socket.getOutputStream().write(request(0, 0, ranges));
            // 16 MiB cannot all fit the two sockets' buffers: the server's write blocks. Each look
            // moves the server's clock a second, so the send timeout passes once it does.
            awaitWhileTheClockMoves(() -> server.statistics().sendTimeouts() == 1, "the send timeout");
            assertClosedAfterSomeOfTheResponse(socket);
        }
        awaitWhileTheClockMoves(() -> server.connectionCount() == 0, "the stalled connection to end");
        // Counted as the connection ended, before it gave its place back.
        assertEquals(1, server.statistics().undeliveredResponses());
        assertWellBehavedClientWorks(server);
    }

    /**
     * A client that reads a MiB of a 64 MiB response per second of the server's clock takes far
     * longer than the send timeout for the whole (and for what the sockets' buffers do not hold),
     * but its bytes keep moving: it is slow, not stalled, and is served to the end.
     */
    @ParameterizedTest
    @EnumSource(WaitMode.class)
    void aClientThatReadsSlowlyButSteadilyIsNotBroken(WaitMode mode) throws Exception {
        Limits large = new Limits(4096, 64 * RANGE_BYTES, 16, 4);
        OflServer server = serve(mode, large);
        try (Socket socket = accepted(server, large)) {
            int[] ranges = new int[16];
            java.util.Arrays.fill(ranges, 4 * RANGE_BYTES);
            socket.getOutputStream().write(request(0, 0, ranges));
            long total = 64L * RANGE_BYTES;
            long read = 0;
            byte[] chunk = new byte[64 << 10];
            while (read < total) {
                for (long step = 0; step < RANGE_BYTES && read < total; ) {
                    int n = socket.getInputStream().read(chunk);
                    assertTrue(n >= 0, "the server ended the connection after " + read + " bytes");
                    step += n;
                    read += n;
                }
                offsetNs.addAndGet(TimeUnit.SECONDS.toNanos(1));
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(20));
            }
            assertEquals(0, server.statistics().sendTimeouts(), "a slow reader was taken for a stalled one");
            assertEquals(1, server.connectionCount());
            assertEquals(0, server.statistics().undeliveredResponses());
        }
    }

    @ParameterizedTest
    @EnumSource(WaitMode.class)
    void aClientThatSendsHalfARequestIsBrokenAfterTheSendTimeout(WaitMode mode) throws Exception {
        OflServer server = serve(mode);
        try (Socket socket = accepted(server)) {
            byte[] request = request(0, 1000, 4096);
            socket.getOutputStream().write(request, 0, MessageHeader.LENGTH + 10);
            awaitWhileTheClockMoves(() -> server.statistics().sendTimeouts() == 1, "the send timeout");
            assertEquals(-1, readPastEverything(socket), "the server closed the connection");
        }
        assertEquals(0, server.statistics().requests(), "the half request never reached the handler");
        assertWellBehavedClientWorks(server);
    }

    /** A raw socket whose HELLO was accepted with {@link #LIMITS}. */
    private Socket accepted(OflServer server) throws IOException, ProtocolException {
        return accepted(server, LIMITS);
    }

    /** A raw socket whose HELLO was accepted with the given limits. */
    private Socket accepted(OflServer server, Limits limits) throws IOException, ProtocolException {
        Socket socket = new Socket();
        resources.add(socket);
        socket.setReceiveBufferSize(64 << 10);
        socket.connect(server.localAddress());
        socket.setSoTimeout((int) TimeUnit.NANOSECONDS.toMillis(WAIT_NS));
        socket.getOutputStream().write(Bootstrap.encode(Bootstrap.HELLO,
                Bootstrap.Endpoint.tcp(RefusalCode.ACCEPTED, SERVICE, limits, "")));
        DataInputStream in = new DataInputStream(socket.getInputStream());
        byte[] frame = new byte[Bootstrap.FRAME_LENGTH];
        in.readFully(frame);
        byte[] body = new byte[Bootstrap.decodeFrame(frame, Bootstrap.WELCOME).bodyLength()];
        in.readFully(body);
        assertEquals(RefusalCode.ACCEPTED, Bootstrap.decodeBody(body).status());
        return socket;
    }

    private static byte[] request(long sequence, int payloadLength, int... rangeLengths) {
        byte[] message = new byte[(int) MessageHeader.requestLength(payloadLength, rangeLengths.length)];
        MemorySegment segment = MemorySegment.ofArray(message);
        new MessageHeader().wrap(segment, 0).reset(MessageType.REQUEST, sequence)
                .op(1).payloadLength(payloadLength).rangeCount(rangeLengths.length);
        long at = MessageHeader.rangesOffset(payloadLength);
        for (int length : rangeLengths) {
            RangeDescriptor.write(segment, at, 0, length, 0);
            at += RangeDescriptor.LENGTH;
        }
        return message;
    }

    /** Reads on after the break: some of the response, then the end (or a reset), never all 16 MiB. */
    private static void assertClosedAfterSomeOfTheResponse(Socket socket) throws IOException {
        long read = 0;
        byte[] chunk = new byte[1 << 20];
        try {
            for (int n; (n = socket.getInputStream().read(chunk)) >= 0; ) {
                read += n;
            }
        } catch (SocketException reset) {
            // Broken all the same.
        }
        assertTrue(read < 16L * RANGE_BYTES, "the whole response arrived: " + read + " bytes");
    }

    /** Reads until the end of the stream or a reset; returns -1 then. */
    private static int readPastEverything(Socket socket) throws IOException {
        try {
            while (socket.getInputStream().read() >= 0) {
                // Nothing is expected, but nothing here may hang either.
            }
        } catch (SocketException reset) {
            // Broken all the same.
        } catch (SocketTimeoutException e) {
            fail("the connection stayed open");
        }
        return -1;
    }

    /** Moves the server's clock a second every 20 ms until the condition holds; fails after 30 s. */
    private void awaitWhileTheClockMoves(BooleanSupplier condition, String what) {
        long deadlineNs = System.nanoTime() + WAIT_NS;
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadlineNs >= 0) {
                fail("waited 30 s for " + what);
            }
            offsetNs.addAndGet(TimeUnit.SECONDS.toNanos(1));
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(20));
        }
    }
}
