package dev.ofl.tcp;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ofl.api.Limits;
import dev.ofl.api.NanoClock;
import dev.ofl.api.Ofl;
import dev.ofl.api.OflServer;
import dev.ofl.api.RefusalCode;
import dev.ofl.api.ServerConfig;
import dev.ofl.api.WaitMode;
import dev.ofl.api.spi.BootstrapIo;
import dev.ofl.api.spi.ClientBootstrap;
import dev.ofl.api.spi.RangeCursor;
import dev.ofl.api.spi.ServerMemory;
import dev.ofl.api.spi.StagingPool;
import dev.ofl.api.wire.Bootstrap;
import dev.ofl.api.wire.MessageHeader;
import dev.ofl.api.wire.MessageType;
import dev.ofl.api.wire.RangeDescriptor;
import dev.ofl.api.wire.WireStatus;
import dev.ofl.conformance.Conditions;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The server transport driven by hand over a loopback socket pair: what its receive buffer
 * commits as it grows (and frees when replaced or closed), which pieces go out copied next to their
 * headers and which straight from staging (the writes counted through the idle strategy, which each
 * write resets once), staging larger than a byte buffer views, and the blocking mode's spin;
 * and, through a real server, small commits gathered into one piece.
 */
@Timeout(120)
class TcpServerTransportTest {
    private static final String SERVICE = "server-transport";
    private static final long SECOND_NS = TimeUnit.SECONDS.toNanos(1);
    /** TcpServerTransport.COPY_BYTES: pieces up to this size are copied next to their headers. */
    private static final int COPY_BYTES = 8 << 10;
    /** TcpServerTransport.TX_BYTES: a DATA header, a piece of up to COPY_BYTES, a RESPONSE header. */
    private static final long TX_BYTES = COPY_BYTES + 2L * MessageHeader.LENGTH;
    /** TcpServerTransport.INITIAL_RX_BYTES. */
    private static final long INITIAL_RX_BYTES = 4096;
    /** The largest request is 64 + 40,000 + 4 * 16 = 40,128 bytes: not a power of two. */
    private static final Limits LIMITS = new Limits(40_000, 1 << 20, 4, 4);

    private ServerSocketChannel listener;
    private SocketChannel client;
    private SocketChannel accepted;

    @BeforeEach
    void setUp() throws IOException {
        listener = ServerSocketChannel.open().bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
        client = SocketChannel.open(listener.getLocalAddress());
        accepted = listener.accept();
    }

    @AfterEach
    void tearDown() throws IOException {
        accepted.close();
        client.close();
        listener.close();
    }

    private ServerConfig config(WaitMode mode, TcpWireTest.CountingIdle idle) throws IOException {
        return ServerConfig.builder().bind((InetSocketAddress) listener.getLocalAddress()).serviceName(SERVICE)
                .limits(LIMITS).waitMode(mode).idleStrategy(idle).build();
    }

    private static Bootstrap.Endpoint hello() {
        return Bootstrap.Endpoint.tcp(RefusalCode.ACCEPTED, SERVICE, LIMITS, "");
    }

    /** A request header naming {@code payloadBytes} and {@code ranges}, then bytes telling request and offset apart. */
    private static byte[] request(int number, int payloadBytes, int ranges) {
        byte[] message = new byte[(int) MessageHeader.requestLength(payloadBytes, ranges)];
        for (int i = MessageHeader.LENGTH; i < message.length; i++) {
            message[i] = (byte) (i * 7 + number * 13);
        }
        new MessageHeader().wrap(MemorySegment.ofArray(message), 0).reset(MessageType.REQUEST, number)
                .payloadLength(payloadBytes).rangeCount(ranges);
        return message;
    }

    private static void write(SocketChannel channel, byte[] bytes) {
        try {
            ByteBuffer buffer = ByteBuffer.wrap(bytes);
            while (buffer.hasRemaining()) {
                channel.write(buffer);
            }
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    private byte[] read(int length) throws IOException {
        return read(client, length);
    }

    private static byte[] read(SocketChannel channel, int length) throws IOException {
        return BootstrapIo.readFully(channel, length, System.nanoTime() + 10 * SECOND_NS, NanoClock.SYSTEM);
    }

    /**
     * Requests of 168 bytes, of exactly 8,192 (twice), and of the largest length, written at once:
     * the buffer grows to the next power of two of a longer request (8,192 to itself, not to 16,384),
     * not again for one that fits exactly, and to the largest request rather than past it; the old
     * buffer is freed when replaced, every request arrives whole (also the part of the next one read
     * with the first), and the process-wide accounting follows each step to zero after close.
     */
    @Test
    void theReceiveBufferGrowsToWhatARequestNeedsAndCommitsExactlyWhatItHolds() throws Exception {
        TcpWireTest.CountingIdle idle = new TcpWireTest.CountingIdle();
        StagingPool pool = new StagingPool(1 << 20, StagingPool.Memory.offHeap(), NanoClock.SYSTEM);
        TcpServerTransport transport = new TcpServerTransport(config(WaitMode.BLOCKING, idle), accepted, pool, 0);
        long before = ServerMemory.receiveBytes();
        try {
            transport.accept(hello());
            assertEquals(TX_BYTES + INITIAL_RX_BYTES, transport.committedBytes(), "an accepted HELLO");
            assertEquals(transport.committedBytes(), ServerMemory.receiveBytes() - before);
            long largest = MessageHeader.requestLength(LIMITS.maxRequestBytes(), LIMITS.maxRanges());
            int exact = 8192 - MessageHeader.LENGTH;
            byte[][] requests = {request(1, 100, 0), request(2, exact, 0), request(3, exact, 0),
                request(4, LIMITS.maxRequestBytes(), LIMITS.maxRanges())};
            long[] buffer = {INITIAL_RX_BYTES, 8192, 8192, largest};
            boolean[] replaced = {false, true, false, true};
            ByteArrayOutputStream all = new ByteArrayOutputStream();
            for (byte[] request : requests) {
                all.write(request);
            }
            CompletableFuture<Void> writer = CompletableFuture.runAsync(() -> write(client, all.toByteArray()));
            MemorySegment held = transport.message(0);
            for (int i = 0; i < requests.length; i++) {
                String what = "request " + (i + 1) + " of " + requests[i].length + " bytes";
                assertEquals(0, transport.nextRequest());
                MemorySegment now = transport.message(0);
                assertEquals(TX_BYTES + buffer[i], transport.committedBytes(), what);
                assertEquals(transport.committedBytes(), ServerMemory.receiveBytes() - before, what);
                assertEquals(buffer[i], now.byteSize(), what);
                if (replaced[i]) {
                    assertNotSame(held, now, what + ": a new buffer");
                    assertFalse(held.scope().isAlive(), what + ": the old buffer is freed");
                } else {
                    assertSame(held, now, what + ": the same buffer");
                }
                assertTrue(transport.completeRequest(0, requests[i].length), what);
                assertArrayEquals(requests[i], now.asSlice(0, requests[i].length).toArray(ValueLayout.JAVA_BYTE),
                        what);
                held = now;
            }
            writer.get(10, TimeUnit.SECONDS);
            assertTrue(transport.close());
            assertEquals(0, transport.committedBytes());
            assertEquals(before, ServerMemory.receiveBytes(), "the buffers are freed");
            assertFalse(held.scope().isAlive(), "close frees the receive buffer");
            // And the transmit buffer: a late send fails on its freed memory before it reaches the socket.
            assertThrows(IllegalStateException.class, () -> transport.sendEnd(5, 0, 0, 0, WireStatus.OK, 0, 0,
                    new RangeCursor(), 0, 0));
        } finally {
            transport.close();
            pool.close();
        }
    }

    /**
     * A piece of exactly {@value #COPY_BYTES} bytes goes out in one write with its headers. Of a
     * larger one, the first {@value #COPY_BYTES} bytes go with its header, the rest straight from
     * staging, except that the last piece's last bytes go with the RESPONSE header. So one byte
     * more takes two writes with or without the end; twice {@value #COPY_BYTES} with the end takes
     * two (no middle), one byte more three. An end without bytes after a piece already sent is
     * the RESPONSE header alone. The bytes arrive exact every way, the blocks go back to the pool.
     */
    @Test
    void piecesUpToCopyBytesAreCopiedNextToTheirHeadersAndLargerOnesWrittenFromStaging() throws Exception {
        TcpWireTest.CountingIdle idle = new TcpWireTest.CountingIdle();
        StagingPool pool = new StagingPool(1 << 20, StagingPool.Memory.offHeap(), NanoClock.SYSTEM);
        TcpServerTransport transport = new TcpServerTransport(config(WaitMode.BLOCKING, idle), accepted, pool, 0);
        try {
            transport.accept(hello());
            transport.start();
            long sequence = 0;
            for (int piece : new int[] {COPY_BYTES, COPY_BYTES + 1, 2 * COPY_BYTES, 2 * COPY_BYTES + 1, 3 * COPY_BYTES}) {
                for (boolean last : new boolean[] {false, true}) {
                    sequence++;
                    int writes = piece <= COPY_BYTES ? 1 : last && piece > 2 * COPY_BYTES ? 3 : 2;
                    idle.resets.set(0);
                    sendAndCheck(transport, pool, sequence, piece, last);
                    assertEquals(writes, idle.resets.get(), piece + " bytes, last " + last + ": writes");
                    assertEquals(0, pool.inUseBytes(), "the blocks went back to the pool");
                }
            }
            idle.resets.set(0);
            sendAndCheck(transport, pool, ++sequence, 0, true);
            assertEquals(1, idle.resets.get(), "an end without bytes: its header alone");
        } finally {
            transport.close();
            pool.close();
        }
    }

    /**
     * Staging of more than 2 GiB cannot be viewed as one byte buffer: a piece is written through a
     * slice. Only the first extent of the (reinterpreted, mostly unbacked) memory is ever touched.
     */
    @Test
    @SuppressWarnings("restricted")
    void stagingLargerThanAByteBufferViewsIsWrittenThroughSlices() throws Exception {
        TcpWireTest.CountingIdle idle = new TcpWireTest.CountingIdle();
        try (Arena backing = Arena.ofShared()) {
            MemorySegment real = backing.allocate(64 << 10, StagingPool.BLOCK_BYTES);
            StagingPool pool = new StagingPool(3L << 30, new StagingPool.Memory() {
                @Override
                public MemorySegment allocate(long bytes) {
                    return real.reinterpret(bytes);
                }

                @Override
                public void free() {
                }
            }, NanoClock.SYSTEM);
            TcpServerTransport transport = new TcpServerTransport(config(WaitMode.BLOCKING, idle), accepted, pool, 0);
            try {
                transport.accept(hello());
                idle.resets.set(0);
                sendAndCheck(transport, pool, 1, 3 * COPY_BYTES, true);
                assertEquals(3, idle.resets.get(), "the header with the head, the middle through a slice, the end");
            } finally {
                transport.close();
                pool.close();
            }
        }
    }

    /** Byte {@code i} of a staged piece: no two offsets of a piece under 64 KiB apart by a multiple of 256 agree. */
    private static byte stagedByte(int i, long sequence) {
        return (byte) (i * 31 + (i >>> 8) + sequence);
    }

    /**
     * Sends bytes [100, 100 + piece) of a response staged in a fresh extent (no DATA message when
     * {@code piece} is 0), the end too if {@code last}, and checks what the client reads.
     */
    private void sendAndCheck(TcpServerTransport transport, StagingPool pool, long sequence, int piece, boolean last)
            throws IOException {
        int from = 100;
        long extentBytes = StagingPool.blocksFor(from + piece) * StagingPool.BLOCK_BYTES;
        long extent = pool.reserve(extentBytes, -1, 10 * SECOND_NS);
        assertTrue(extent >= 0 && extent + extentBytes <= 64 << 10, "extent " + extent);
        MemorySegment staging = pool.memory();
        for (int i = 0; i < piece; i++) {
            staging.set(ValueLayout.JAVA_BYTE, extent + from + i, stagedByte(i, sequence));
        }
        if (last) {
            transport.sendEnd(sequence, extent, from, from + piece, WireStatus.OK, 7, from + piece, new RangeCursor(),
                    extent, extentBytes);
        } else {
            transport.sendPiece(sequence, extent, from, from + piece, new RangeCursor(), extent, extentBytes);
        }
        if (piece > 0) {
            MessageHeader header = new MessageHeader().wrap(MemorySegment.ofArray(read(MessageHeader.LENGTH)), 0);
            assertEquals(MessageType.DATA, header.type());
            assertEquals(sequence, header.sequence());
            assertEquals(piece, header.payloadLength());
            assertEquals(from, header.responseOffset());
            byte[] bytes = read(piece);
            for (int i = 0; i < piece; i++) {
                assertEquals(stagedByte(i, sequence), bytes[i], "piece of " + piece + " bytes, byte " + i);
            }
        }
        if (last) {
            MessageHeader end = new MessageHeader().wrap(MemorySegment.ofArray(read(MessageHeader.LENGTH)), 0);
            assertEquals(MessageType.RESPONSE, end.type());
            assertEquals(sequence, end.sequence());
            assertEquals(WireStatus.OK, end.status());
            assertEquals(7, end.handlerStatus());
            assertEquals(from + piece, end.responseLength());
        }
    }

    /**
     * Through a real server: three commits of 1,000 bytes, far below a piece (512 KiB), travel as
     * one DATA message when the handler returns, then the RESPONSE.
     */
    @Test
    void commitsSmallerThanAPieceTravelTogetherAsOneDataMessage() throws Exception {
        try (OflServer server = Ofl.serve(ServerConfig.builder()
                .bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0)).serviceName(SERVICE).limits(LIMITS)
                .build(), (request, response) -> {
                    for (int i = 0; i < 3; i++) {
                        response.buffer().asSlice(response.committed(), 1000).fill((byte) (i + 1));
                        response.commit(1000);
                    }
                    return 0;
                });
                SocketChannel raw = SocketChannel.open(server.localAddress())) {
            ClientBootstrap.exchange(raw, server.localAddress(), hello(), System.nanoTime() + 10 * SECOND_NS,
                    NanoClock.SYSTEM);
            byte[] request = new byte[(int) MessageHeader.requestLength(0, 1)];
            MemorySegment segment = MemorySegment.ofArray(request);
            new MessageHeader().wrap(segment, 0).reset(MessageType.REQUEST, 0).op(1).payloadLength(0).rangeCount(1);
            RangeDescriptor.write(segment, MessageHeader.rangesOffset(0), 0, 3000, 0);
            write(raw, request);
            MessageHeader data = new MessageHeader().wrap(MemorySegment.ofArray(read(raw, MessageHeader.LENGTH)), 0);
            assertEquals(MessageType.DATA, data.type());
            assertEquals(3000, data.payloadLength(), "one piece for the three commits");
            assertEquals(0, data.responseOffset());
            byte[] bytes = read(raw, 3000);
            for (int i = 0; i < bytes.length; i++) {
                assertEquals((byte) (i / 1000 + 1), bytes[i], "byte " + i);
            }
            MessageHeader end = new MessageHeader().wrap(MemorySegment.ofArray(read(raw, MessageHeader.LENGTH)), 0);
            assertEquals(MessageType.RESPONSE, end.type());
            assertEquals(WireStatus.OK, end.status());
            assertEquals(3000, end.responseLength());
        }
    }

    /** Busy polling reads and writes without blocking; blocking mode leaves the socket blocking. */
    @Test
    void startMakesTheSocketNonBlockingOnlyForBusyPolling() throws Exception {
        for (WaitMode mode : WaitMode.values()) {
            try (SocketChannel peer = SocketChannel.open(listener.getLocalAddress());
                    SocketChannel socket = listener.accept()) {
                assertTrue(peer.isConnected());
                StagingPool pool = new StagingPool(1, StagingPool.Memory.offHeap(), NanoClock.SYSTEM);
                TcpServerTransport transport = new TcpServerTransport(config(mode, new TcpWireTest.CountingIdle()),
                        socket, pool, 0);
                try {
                    transport.accept(hello());
                    transport.start();
                    assertEquals(mode == WaitMode.BLOCKING, socket.isBlocking(), mode.toString());
                } finally {
                    transport.close();
                    pool.close();
                }
            }
        }
    }

    /**
     * In blocking mode on a virtual thread the transport first reads without blocking (the socket
     * is non-blocking while it spins), stops spinning as soon as the request is whole (the spin here
     * is ten minutes long, far beyond any wait of the test), and leaves the socket blocking again; a
     * client that leaves during the spin is reported.
     */
    @Test
    void aVirtualThreadSpinsWithoutBlockingUntilTheRequestIsWholeAndThenBlocksAgain() throws Exception {
        long spinNs = TimeUnit.MINUTES.toNanos(10);
        // A header alone: the spin has exactly what it waits for, and no byte more, when it stops.
        byte[] request = request(1, 0, 0);
        CompletableFuture<String> first = new CompletableFuture<>();
        CompletableFuture<String> second = new CompletableFuture<>();
        Thread worker = Thread.ofVirtual().start(() -> {
            StagingPool pool = new StagingPool(1, StagingPool.Memory.offHeap(), NanoClock.SYSTEM);
            // Confined buffers: every call on this thread.
            TcpServerTransport transport = null;
            try {
                transport = new TcpServerTransport(config(WaitMode.BLOCKING, new TcpWireTest.CountingIdle()), accepted,
                        pool, spinNs);
                transport.accept(hello());
                transport.start();
                transport.nextRequest();
                transport.completeRequest(0, request.length);
                first.complete("blocking " + accepted.isBlocking() + ", request whole " + Arrays.equals(request,
                        transport.message(0).asSlice(0, request.length).toArray(ValueLayout.JAVA_BYTE)));
                try {
                    transport.nextRequest();
                    second.complete("no end of stream");
                } catch (EOFException e) {
                    second.complete(e.getMessage() + ", blocking " + accepted.isBlocking());
                }
            } catch (Throwable e) {
                first.completeExceptionally(e);
                second.completeExceptionally(e);
            } finally {
                if (transport != null) {
                    transport.close();
                }
                pool.close();
            }
        });
        Conditions.await(() -> !accepted.isBlocking() || first.isDone(), "the spin before the first request");
        assertFalse(first.isDone(), () -> "no spin: " + first.join());
        write(client, request);
        assertEquals("blocking true, request whole true", first.get(60, TimeUnit.SECONDS));
        Conditions.await(() -> !accepted.isBlocking() || second.isDone(), "the spin before the second request");
        assertFalse(second.isDone(), () -> "no spin: " + second.join());
        client.shutdownOutput();
        assertEquals("the client closed the connection, blocking true", second.get(60, TimeUnit.SECONDS));
        // The transport's receive memory goes back in the worker's close: before another test counts it.
        assertTrue(worker.join(Duration.ofSeconds(60)), "the worker to close its transport");
    }

    /** Busy polling never spins, whatever the spin given: its socket stays non-blocking. */
    @Test
    void busyPollingNeverSpinsWhateverTheSpinGiven() throws Exception {
        byte[] request = request(1, 24, 0);
        write(client, request);
        CompletableFuture<Boolean> blocking = new CompletableFuture<>();
        Thread worker = Thread.ofVirtual().start(() -> {
            StagingPool pool = new StagingPool(1, StagingPool.Memory.offHeap(), NanoClock.SYSTEM);
            TcpServerTransport transport = null;
            try {
                transport = new TcpServerTransport(config(WaitMode.BUSY_POLL, new TcpWireTest.CountingIdle()),
                        accepted, pool, TimeUnit.MINUTES.toNanos(1));
                transport.accept(hello());
                transport.start();
                transport.nextRequest();
                transport.completeRequest(0, request.length);
                blocking.complete(accepted.isBlocking());
            } catch (Throwable e) {
                blocking.completeExceptionally(e);
            } finally {
                if (transport != null) {
                    transport.close();
                }
                pool.close();
            }
        });
        assertFalse(blocking.get(60, TimeUnit.SECONDS), "busy polling leaves the socket non-blocking");
        assertTrue(worker.join(Duration.ofSeconds(60)), "the worker to close its transport");
    }
}
