package dev.ofl.tcp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ofl.api.ClientConfig;
import dev.ofl.api.Completion;
import dev.ofl.api.Limits;
import dev.ofl.api.NanoClock;
import dev.ofl.api.Ofl;
import dev.ofl.api.OflClient;
import dev.ofl.api.OflConnectionException;
import dev.ofl.api.OflServer;
import dev.ofl.api.OflStatus;
import dev.ofl.api.Region;
import dev.ofl.api.ResponseRanges;
import dev.ofl.api.ServerConfig;
import dev.ofl.api.WaitMode;
import dev.ofl.api.spi.ClientSession;
import dev.ofl.api.spi.StagingPool;
import dev.ofl.api.RefusalCode;
import dev.ofl.api.wire.Bootstrap;
import dev.ofl.api.wire.MessageHeader;
import dev.ofl.conformance.Conditions;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Busy-polling connections read and write with direct {@code recv}/{@code send} calls on their own
 * duplicate of the socket's descriptor ({@link NativeSocket}): the descriptor found is the right
 * one even with both ends of a connection and many other sockets in one process, the calls map
 * "nothing yet", the end of the stream, a reset and a closed descriptor as NIO would, failures
 * that last are found, the property
 * turns them off, and a break from another thread still ends a connection whose socket the
 * duplicate holds open.
 */
@Timeout(120)
class TcpDirectSocketCallsTest {
    private static final String SERVICE = "direct";
    private static final long DEADLINE_NS = TimeUnit.SECONDS.toNanos(30);

    private ServerSocketChannel listener;
    private SocketChannel client;
    private SocketChannel accepted;
    private final List<AutoCloseable> closing = new ArrayList<>();
    private Arena arena;
    private StagingPool pool;

    @BeforeEach
    void setUp() throws IOException {
        listener = ServerSocketChannel.open().bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
        client = SocketChannel.open(listener.getLocalAddress());
        accepted = listener.accept();
        arena = Arena.ofShared();
        pool = new StagingPool(1 << 20, StagingPool.Memory.offHeap(), NanoClock.SYSTEM);
    }

    @AfterEach
    void tearDown() throws Exception {
        for (AutoCloseable c : closing) {
            c.close();
        }
        accepted.close();
        client.close();
        listener.close();
        arena.close();
        pool.close();
    }

    /** A server transport over {@code channel}, driven by hand, closed after the test. */
    private TcpServerTransport serverEnd(SocketChannel channel, WaitMode mode, boolean direct) {
        TcpServerTransport transport = new TcpServerTransport(ServerConfig.builder()
                .bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0)).serviceName(SERVICE)
                .waitMode(mode).build(), channel, pool, 0, direct);
        closing.add(transport::close);
        return transport;
    }

    private NativeSocket adopt(SocketChannel channel) throws IOException {
        NativeSocket socket = NativeSocket.adopt(channel);
        closing.add(socket);
        return socket;
    }

    private MemorySegment bytes(String text) {
        return arena.allocateFrom(ValueLayout.JAVA_BYTE, text.getBytes());
    }

    private static String readNio(SocketChannel channel, int length) throws IOException {
        ByteBuffer buffer = ByteBuffer.allocate(length);
        while (buffer.hasRemaining()) {
            if (channel.read(buffer) < 0) {
                throw new IOException("end of stream after " + buffer.position() + " bytes");
            }
        }
        return new String(buffer.array());
    }

    /** Blocks until the direct read returns something other than "nothing yet". */
    private static int awaitRead(NativeSocket socket, MemorySegment into) throws IOException {
        int[] n = {0};
        IOException[] failure = {null};
        Conditions.await(() -> {
            try {
                n[0] = socket.read(into.address(), (int) into.byteSize());
            } catch (IOException e) {
                failure[0] = e;
                return true;
            }
            return n[0] != 0;
        }, "a direct read to return");
        if (failure[0] != null) {
            throw failure[0];
        }
        return n[0];
    }

    /**
     * Both ends of one loopback connection live in this process, among other connections: each
     * adopted descriptor is its own end (what one end writes directly, the other reads, both ways).
     */
    @Test
    void eachEndOfAConnectionIsFoundAmongTheProcesssOtherSockets() throws IOException {
        for (int i = 0; i < 8; i++) {
            SocketChannel other = SocketChannel.open(listener.getLocalAddress());
            closing.add(other);
            closing.add(listener.accept());
        }
        NativeSocket clientEnd = adopt(client);
        NativeSocket serverEnd = adopt(accepted);
        assertEquals(4, clientEnd.write(bytes("ping").address(), 4));
        assertEquals("ping", readNio(accepted, 4));
        assertEquals(4, serverEnd.write(bytes("pong").address(), 4));
        assertEquals("pong", readNio(client, 4));

        client.write(ByteBuffer.wrap("hello".getBytes()));
        MemorySegment into = arena.allocate(16);
        int n = awaitRead(serverEnd, into);
        assertEquals("hello", new String(into.asSlice(0, n).toArray(ValueLayout.JAVA_BYTE)));
    }

    @Test
    void nothingYetIsZeroAndTheEndOfTheStreamIsMinusOne() throws IOException {
        NativeSocket serverEnd = adopt(accepted);
        MemorySegment into = arena.allocate(16);
        assertEquals(0, serverEnd.read(into.address(), 16), "nothing has arrived");
        client.shutdownOutput();
        assertEquals(-1, awaitRead(serverEnd, into), "the peer ended its stream");
    }

    /**
     * A reset fails the read with a sentence that says so, as NIO's would, although the failed call
     * that met it did not ask why (see {@link NativeSocket#read(long, int)}): the connection's state
     * tells a reset from an orderly end.
     */
    @Test
    void aResetConnectionFailsTheReadNamingTheReset() throws IOException {
        NativeSocket serverEnd = adopt(accepted);
        MemorySegment into = arena.allocate(16);
        client.setOption(StandardSocketOptions.SO_LINGER, 0);
        client.close();
        IOException failure = assertThrows(IOException.class, () -> awaitRead(serverEnd, into));
        assertTrue(failure.getMessage().contains("reset"), failure.getMessage());
    }

    /**
     * After this side's own shutdown the connection can close fully in an orderly way, which leaves
     * it in the same state as a reset: reads see the end, not a failure.
     */
    @Test
    void afterOurShutdownAFullyClosedConnectionReadsAsEnded() throws IOException {
        NativeSocket serverEnd = adopt(accepted);
        serverEnd.shutdown();
        assertEquals(-1, client.read(ByteBuffer.allocate(1)), "the client saw our end");
        client.close();
        Conditions.await(() -> serverEnd.tcpState() == NativeSocket.TCP_CLOSE, "the connection to close both ways");
        assertEquals(-1, serverEnd.read(arena.allocate(16).address(), 16));
    }

    /**
     * Reads take failures for "nothing yet" without asking why, but a failure that lasts is found
     * within {@link NativeSocket#ERRNO_CHECK_EVERY} calls, and a failed write says why at once.
     * The socket's descriptor number is made to name /dev/null, on which every call fails.
     */
    @Test
    @SuppressWarnings("restricted") // the test's own downcalls; native access is enabled for the tests
    void aLastingFailureIsFoundByTheReadThatAsksWhyAndAtOnceByAWrite() throws Throwable {
        NativeSocket serverEnd = adopt(accepted);
        Linker linker = Linker.nativeLinker();
        MethodHandle open = linker.downcallHandle(linker.defaultLookup().find("open").orElseThrow(),
                FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.ADDRESS, ValueLayout.JAVA_INT,
                        ValueLayout.JAVA_INT), Linker.Option.firstVariadicArg(2));
        MethodHandle dup2 = linker.downcallHandle(linker.defaultLookup().find("dup2").orElseThrow(),
                FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.JAVA_INT));
        MethodHandle close = linker.downcallHandle(linker.defaultLookup().find("close").orElseThrow(),
                FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT));
        int devNull = (int) open.invokeExact(arena.allocateFrom("/dev/null"), 0, 0);
        assertTrue(devNull >= 0, "opened /dev/null");
        try {
            assertEquals(serverEnd.descriptor(), (int) dup2.invokeExact(devNull, serverEnd.descriptor()));
        } finally {
            int ignored = (int) close.invokeExact(devNull);
        }
        MemorySegment into = arena.allocate(16);
        int quiet = 0;
        IOException failure = null;
        while (failure == null && quiet < 2 * NativeSocket.ERRNO_CHECK_EVERY) {
            try {
                assertEquals(0, serverEnd.read(into.address(), 16), "a failure not asked about reads as nothing yet");
                quiet++;
            } catch (IOException e) {
                failure = e;
            }
        }
        assertEquals(NativeSocket.ERRNO_CHECK_EVERY - 1, quiet, "reads before the one that asked why");
        assertTrue(failure != null && failure.getMessage().matches("recv failed: errno 88.*"), String.valueOf(failure));
        IOException writeFailure = assertThrows(IOException.class, () -> serverEnd.write(into.address(), 16));
        assertTrue(writeFailure.getMessage().matches("send failed: errno 88.*"), writeFailure.getMessage());
    }

    /** A reset connection fails the next write with a sentence that says so, as NIO's would. */
    @Test
    void aWriteToAResetConnectionFailsNamingTheReset() throws IOException {
        NativeSocket serverEnd = adopt(accepted);
        client.setOption(StandardSocketOptions.SO_LINGER, 0);
        client.close();
        MemorySegment data = bytes("after the reset");
        IOException[] failure = {null};
        Conditions.await(() -> {
            try {
                serverEnd.write(data.address(), (int) data.byteSize());
                return false;
            } catch (IOException e) {
                failure[0] = e;
                return true;
            }
        }, "a write to the reset connection to fail");
        assertTrue(failure[0].getMessage().matches("send failed: errno (104|32) .*reset.*"), failure[0].getMessage());
    }

    /**
     * Closing the duplicate refuses further calls rather than reaching whatever socket gets the
     * number next, and leaves the connection itself to its channel.
     */
    @Test
    void aClosedDescriptorRefusesCallsAndLeavesTheConnectionOpen() throws IOException {
        NativeSocket serverEnd = NativeSocket.adopt(accepted);
        serverEnd.close();
        serverEnd.close();
        IOException read = assertThrows(IOException.class, () -> serverEnd.read(arena.allocate(8).address(), 8));
        assertEquals("the socket was closed", read.getMessage());
        assertThrows(IOException.class, () -> serverEnd.write(bytes("x").address(), 1));
        accepted.write(ByteBuffer.wrap("still".getBytes()));
        assertEquals("still", readNio(client, 5), "the channel still owns an open socket");
    }

    @Test
    void aChannelThatIsNotConnectedIsRefused() throws IOException {
        try (SocketChannel unconnected = SocketChannel.open()) {
            IOException e = assertThrows(IOException.class, () -> NativeSocket.adopt(unconnected));
            assertEquals("the channel is not connected", e.getMessage());
        }
    }

    private ServerConfig.Builder server(WaitMode mode, Map<String, String> properties) {
        return ServerConfig.builder().backend(TcpBackend.NAME)
                .bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0)).serviceName(SERVICE)
                .limits(new Limits(1024, 1 << 20, 4, 4)).waitMode(mode).properties(properties);
    }

    private static ClientConfig.Builder clientOf(OflServer server, Map<String, String> properties) {
        return ClientConfig.builder().backend(TcpBackend.NAME).server(server.localAddress()).serviceName(SERVICE)
                .limits(new Limits(1024, 1 << 20, 4, 4)).waitMode(WaitMode.BUSY_POLL).properties(properties);
    }

    /**
     * Busy-polling ends use direct calls by default and NIO with the property off; responses of
     * 64 bytes and of 300 KiB (read straight into the ranges, written straight from staging)
     * arrive exact either way.
     */
    @Test
    void busyPollingEndsUseDirectCallsUnlessThePropertyTurnsThemOff() throws IOException {
        for (String direct : new String[] {"true", "false"}) {
            Map<String, String> properties = Map.of(TcpBackend.DIRECT_SOCKET_CALLS, direct);
            try (OflServer server = Ofl.serve(server(WaitMode.BUSY_POLL, properties).build(), (request, response) -> {
                int length = request.payload().get(ValueLayout.JAVA_INT_UNALIGNED, 0);
                MemorySegment out = response.buffer();
                for (int i = 0; i < length; i++) {
                    out.set(ValueLayout.JAVA_BYTE, i, (byte) (i * 31 + length));
                }
                response.commit(length);
                return 0;
            }); OflClient c = Ofl.connect(clientOf(server, properties).build())) {
                TcpClientTransport transport = (TcpClientTransport) ((ClientSession) c).transport();
                assertEquals(direct.equals("true"), transport.usesDirectSocketCalls(), "direct socket calls " + direct);
                MemorySegment memory = arena.allocate(300 << 10);
                Region region = c.registerRegion(memory);
                for (int length : new int[] {64, 300 << 10, 64}) {
                    c.requestPayload().set(ValueLayout.JAVA_INT_UNALIGNED, 0, length);
                    Completion completion = new Completion();
                    assertEquals(OflStatus.OK, c.call(1, 0, 4, new ResponseRanges().add(region, 0, length), DEADLINE_NS,
                            completion), completion::toString);
                    for (int i = 0; i < length; i++) {
                        assertEquals((byte) (i * 31 + length), memory.get(ValueLayout.JAVA_BYTE, i),
                                "byte " + i + " of " + length + ", direct " + direct);
                    }
                }
            }
        }
        // The server's end, driven by hand: direct in BUSY_POLL only, and only when asked for.
        for (WaitMode mode : WaitMode.values()) {
            for (boolean direct : new boolean[] {true, false}) {
                SocketChannel c = SocketChannel.open(listener.getLocalAddress());
                closing.add(c);
                SocketChannel a = listener.accept();
                closing.add(a);
                TcpServerTransport transport = serverEnd(a, mode, direct);
                transport.start();
                assertEquals(mode == WaitMode.BUSY_POLL && direct, transport.usesDirectSocketCalls(),
                        mode + ", direct " + direct);
                assertTrue(transport.close());
                assertFalse(transport.usesDirectSocketCalls(), "close gives the descriptor back");
            }
        }
    }

    /**
     * Closing a busy server ends a connection whose socket the connection thread's duplicate
     * descriptor keeps open: the break shuts the socket down rather than only closing the channel,
     * so the connection's reads see the end and the client sees the close at once, not at its deadline.
     */
    @Test
    void closingABusyServerEndsConnectionsThatADuplicateDescriptorHolds() throws Exception {
        OflServer server = Ofl.serve(server(WaitMode.BUSY_POLL, Map.of()).build(), (request, response) -> 0);
        try (OflClient c = Ofl.connect(clientOf(server, Map.of()).build())) {
            Completion completion = new Completion();
            assertEquals(OflStatus.OK, c.call(1, 0, 0, new ResponseRanges(), DEADLINE_NS, completion));
            CompletableFuture<Void> closed = CompletableFuture.runAsync(server::close);
            closed.get(60, TimeUnit.SECONDS);
            // Not TIMED_OUT at the deadline, which is what a socket left open by the duplicate gives.
            OflConnectionException e = assertThrows(OflConnectionException.class,
                    () -> c.call(1, 0, 0, new ResponseRanges(), DEADLINE_NS, completion));
            assertTrue(e.getMessage().contains("the server closed the connection"), e.getMessage());
        } finally {
            server.close();
        }
    }

    /**
     * Closing the server's end gives back its duplicate descriptor: a connection that left it open
     * would keep its socket alive and leak a descriptor.
     */
    @Test
    void closingTheServersEndClosesItsDuplicateDescriptor() throws Exception {
        TcpServerTransport transport = serverEnd(accepted, WaitMode.BUSY_POLL, true);
        transport.start();
        Path duplicate = Path.of("/proc/self/fd", Integer.toString(transport.directDescriptor()));
        Path socket = Files.readSymbolicLink(duplicate);
        assertTrue(socket.toString().startsWith("socket:"), socket.toString());
        assertTrue(transport.close());
        // Closed, the number names nothing, or whatever another thread opened since: not this socket.
        assertFalse(Files.exists(duplicate, LinkOption.NOFOLLOW_LINKS) && socket.equals(readLink(duplicate)),
                "the duplicate descriptor still holds " + socket);
    }

    private static Path readLink(Path link) {
        try {
            return Files.readSymbolicLink(link);
        } catch (IOException e) {
            return null;
        }
    }

    /**
     * A break (from any thread) ends the stream on the socket itself: the client reads the end at
     * once, though the connection thread's duplicate descriptor still holds the socket.
     */
    @Test
    void aBreakEndsTheStreamThoughTheDuplicateStillHoldsTheSocket() throws Exception {
        TcpServerTransport transport = serverEnd(accepted, WaitMode.BUSY_POLL, true);
        transport.start();
        assertTrue(transport.usesDirectSocketCalls());
        CompletableFuture.runAsync(transport::breakConnection).get(30, TimeUnit.SECONDS);
        client.configureBlocking(false);
        ByteBuffer buffer = ByteBuffer.allocate(8);
        Conditions.await(() -> {
            try {
                return client.read(buffer) < 0;
            } catch (IOException e) {
                return true;
            }
        }, "the client to read the end of the broken connection");
    }

    /**
     * The idle timeout closes the connection's channel before it breaks the transport: the break
     * must still end the socket that the duplicate holds (a shutdown of the channel would find it
     * closed), or the client waits for a reply until its deadline; so must the connection thread,
     * whose reads after a break are refused.
     */
    @Test
    void anIdleTimeoutEndsABusyConnectionThoughItClosesTheChannelFirst() {
        try (OflServer server = Ofl.serve(server(WaitMode.BUSY_POLL, Map.of()).idleTimeout(Duration.ofSeconds(1))
                .build(), (request, response) -> 0); OflClient c = Ofl.connect(clientOf(server, Map.of()).build())) {
            Completion completion = new Completion();
            assertEquals(OflStatus.OK, c.call(1, 0, 0, new ResponseRanges(), DEADLINE_NS, completion));
            Conditions.await(() -> server.connectionCount() == 0, "the idle timeout to close the connection");
            OflConnectionException e = assertThrows(OflConnectionException.class,
                    () -> c.call(1, 0, 0, new ResponseRanges(), DEADLINE_NS, completion));
            assertTrue(e.getMessage().contains("the server closed the connection"), e.getMessage());
        }
    }

    /**
     * What the kernel held when the connection was broken is not served: a request already
     * received is refused by the next read as through a closed channel, not handed to a handler.
     */
    @Test
    void aRequestBufferedBeforeABreakIsNotReadAfterIt() throws Exception {
        TcpServerTransport transport = serverEnd(accepted, WaitMode.BUSY_POLL, true);
        transport.accept(Bootstrap.Endpoint.tcp(RefusalCode.ACCEPTED, SERVICE, new Limits(1024, 4096, 4, 4), ""));
        transport.start();
        assertTrue(transport.usesDirectSocketCalls());
        client.write(ByteBuffer.allocate(MessageHeader.LENGTH));
        try (Selector arrived = Selector.open()) {
            accepted.register(arrived, SelectionKey.OP_READ);
            assertEquals(1, arrived.select(TimeUnit.SECONDS.toMillis(30)), "the request to arrive");
        }
        transport.breakConnection();
        assertThrows(IOException.class, transport::nextRequest, "a request read after the break");
    }

    @Test
    void aValueOtherThanTrueOrFalseIsRefusedNamingTheProperty() {
        Map<String, String> yes = Map.of(TcpBackend.DIRECT_SOCKET_CALLS, "yes");
        IllegalArgumentException onServer = assertThrows(IllegalArgumentException.class,
                () -> Ofl.serve(server(WaitMode.BUSY_POLL, yes).build(), (request, response) -> 0));
        assertEquals("tcp.directSocketCalls = 'yes' is neither true nor false", onServer.getMessage());
        try (OflServer server = Ofl.serve(server(WaitMode.BUSY_POLL, Map.of()).build(), (request, response) -> 0)) {
            IllegalArgumentException onClient = assertThrows(IllegalArgumentException.class,
                    () -> Ofl.connect(clientOf(server, yes).build()));
            assertEquals("tcp.directSocketCalls = 'yes' is neither true nor false", onClient.getMessage());
        }
    }
}
