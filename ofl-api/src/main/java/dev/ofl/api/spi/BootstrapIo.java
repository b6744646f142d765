package dev.ofl.api.spi;

import dev.ofl.api.NanoClock;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;

/**
 * Blocking bootstrap I/O for backends: reads bounded by one overall deadline, so that a peer that
 * trickles bytes cannot hold a connection past it. Not for the data path.
 */
public final class BootstrapIo {
    private BootstrapIo() {
    }

    /**
     * Reads exactly {@code length} bytes from a channel in blocking mode.
     *
     * @param channel a blocking channel
     * @param length bytes to read
     * @param deadlineNs instant on {@code clock} by which all must have arrived
     * @param clock the clock of the deadline
     * @return the bytes
     * @throws IOException on EOF, a deadline miss ({@link SocketTimeoutException}) or an I/O error
     */
    public static byte[] readFully(SocketChannel channel, int length, long deadlineNs, NanoClock clock)
            throws IOException {
        byte[] bytes = new byte[length];
        Socket socket = channel.socket();
        InputStream in = socket.getInputStream();
        int at = 0;
        while (at < length) {
            long remainingNs = deadlineNs - clock.nanoTime();
            if (remainingNs <= 0) {
                throw new SocketTimeoutException("bootstrap not complete by its deadline (" + at + " of " + length
                        + " bytes read)");
            }
            socket.setSoTimeout((int) Math.max(1, Math.min(Integer.MAX_VALUE, remainingNs / 1_000_000)));
            int n = in.read(bytes, at, length - at);
            if (n < 0) {
                throw new EOFException("peer closed the connection during the bootstrap (" + at + " of " + length
                        + " bytes read)");
            }
            at += n;
        }
        return bytes;
    }

    /**
     * Reads and discards until the peer closes or the deadline passes.
     *
     * @param channel a blocking channel
     * @param deadlineNs instant on {@code clock} to give up at
     * @param clock the clock of the deadline
     */
    public static void drain(SocketChannel channel, long deadlineNs, NanoClock clock) {
        byte[] sink = new byte[4096];
        try {
            Socket socket = channel.socket();
            InputStream in = socket.getInputStream();
            long remainingNs;
            while ((remainingNs = deadlineNs - clock.nanoTime()) > 0) {
                socket.setSoTimeout((int) Math.max(1, Math.min(Integer.MAX_VALUE, remainingNs / 1_000_000)));
                if (in.read(sink) < 0) {
                    return;
                }
            }
        } catch (IOException e) {
            // The peer reset or the wait ran out: either way the connection is done.
        }
    }

    /**
     * Writes all bytes to a blocking channel.
     *
     * @param channel a blocking channel
     * @param bytes what to write
     * @throws IOException if writing fails
     */
    public static void writeFully(SocketChannel channel, byte[] bytes) throws IOException {
        ByteBuffer buffer = ByteBuffer.wrap(bytes);
        while (buffer.hasRemaining()) {
            channel.write(buffer);
        }
    }

    /**
     * Closes, ignoring failures: for connections being abandoned anyway.
     *
     * @param closeable what to close, or {@code null}
     */
    public static void closeQuietly(AutoCloseable closeable) {
        if (closeable == null) {
            return;
        }
        try {
            closeable.close();
        } catch (Exception ignored) {
            // Closing is best effort: the connection is being abandoned either way.
        }
    }
}
