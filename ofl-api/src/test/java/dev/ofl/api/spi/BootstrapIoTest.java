package dev.ofl.api.spi;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ofl.api.NanoClock;
import java.io.EOFException;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The blocking socket helpers of the bootstrap, over a loopback socket pair. */
@Timeout(60)
class BootstrapIoTest {
    private static final long SECOND_NS = TimeUnit.SECONDS.toNanos(1);

    private SocketChannel reader;
    private SocketChannel writer;

    @BeforeEach
    void connect() throws IOException {
        try (ServerSocketChannel listener = ServerSocketChannel.open()
                .bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))) {
            writer = SocketChannel.open(listener.getLocalAddress());
            reader = listener.accept();
        }
    }

    @AfterEach
    void close() {
        BootstrapIo.closeQuietly(reader);
        BootstrapIo.closeQuietly(writer);
    }

    @Test
    void readFullyAssemblesBytesThatArriveInParts() throws Exception {
        writer.write(ByteBuffer.wrap(new byte[] {1, 2, 3}));
        Thread later = Thread.ofPlatform().start(() -> {
            try {
                Thread.sleep(50);
                BootstrapIo.writeFully(writer, new byte[] {4, 5});
            } catch (IOException | InterruptedException e) {
                throw new IllegalStateException(e);
            }
        });
        assertArrayEquals(new byte[] {1, 2, 3, 4, 5},
                BootstrapIo.readFully(reader, 5, System.nanoTime() + 10 * SECOND_NS, NanoClock.SYSTEM));
        later.join();
    }

    @Test
    void readFullyNamesHowMuchArrivedWhenThePeerCloses() throws IOException {
        BootstrapIo.writeFully(writer, new byte[] {9, 9, 9});
        writer.close();
        EOFException e = assertThrows(EOFException.class,
                () -> BootstrapIo.readFully(reader, 8, System.nanoTime() + 10 * SECOND_NS, NanoClock.SYSTEM));
        assertEquals("peer closed the connection during the bootstrap (3 of 8 bytes read)", e.getMessage());
    }

    @Test
    void readFullyGivesUpAtTheDeadline() throws IOException {
        BootstrapIo.writeFully(writer, new byte[] {7});
        assertThrows(SocketTimeoutException.class,
                () -> BootstrapIo.readFully(reader, 4, System.nanoTime() + 100_000_000L, NanoClock.SYSTEM));
        SocketTimeoutException past = assertThrows(SocketTimeoutException.class,
                () -> BootstrapIo.readFully(reader, 4, System.nanoTime() - 1, NanoClock.SYSTEM));
        assertEquals("bootstrap not complete by its deadline (0 of 4 bytes read)", past.getMessage());
    }

    @Test
    void readFullyOfNothingReturnsAtOnce() throws IOException {
        assertEquals(0, BootstrapIo.readFully(reader, 0, System.nanoTime() - 1, NanoClock.SYSTEM).length);
    }

    @Test
    void drainReturnsWhenThePeerClosesBeforeTheDeadline() throws IOException {
        BootstrapIo.writeFully(writer, new byte[10_000]);
        writer.close();
        long deadlineNs = System.nanoTime() + 30 * SECOND_NS;
        BootstrapIo.drain(reader, deadlineNs, NanoClock.SYSTEM);
        assertTrue(System.nanoTime() - deadlineNs < 0, "drain returned at the peer's close, not at the deadline");
        assertEquals(-1, reader.read(ByteBuffer.allocate(1)), "everything was consumed up to the end");
    }

    @Test
    void drainGivesUpOnAPeerThatStaysOpen() {
        // Returning at all is the contract here: the socket timeout ends the wait near the deadline.
        BootstrapIo.drain(reader, System.nanoTime() + 100_000_000L, NanoClock.SYSTEM);
        assertTrue(reader.isOpen(), "drain leaves closing to its caller");
    }

    @Test
    void closeQuietlyClosesAndSwallowsFailures() {
        AtomicInteger closes = new AtomicInteger();
        BootstrapIo.closeQuietly(() -> {
            closes.incrementAndGet();
            throw new IOException("close failed");
        });
        assertEquals(1, closes.get());
        BootstrapIo.closeQuietly(null);
        BootstrapIo.closeQuietly(writer);
        assertFalse(writer.isOpen());
    }
}
