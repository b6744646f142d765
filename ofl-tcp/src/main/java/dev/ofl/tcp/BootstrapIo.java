package dev.ofl.tcp;

import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;

/**
 * Reads and writes bootstrap frames on a channel in blocking mode, bounded by one overall
 * deadline so that a peer that trickles bytes cannot hold the connection past it.
 */
final class BootstrapIo {
    private BootstrapIo() {
    }

    static byte[] readFully(SocketChannel channel, int length, long deadlineNs) throws IOException {
        byte[] bytes = new byte[length];
        Socket socket = channel.socket();
        InputStream in = socket.getInputStream();
        int at = 0;
        while (at < length) {
            long remainingNs = deadlineNs - System.nanoTime();
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

    /** Reads and discards until the peer closes or the deadline passes. */
    static void drain(SocketChannel channel, long deadlineNs) {
        byte[] sink = new byte[4096];
        try {
            Socket socket = channel.socket();
            InputStream in = socket.getInputStream();
            long remainingNs;
            while ((remainingNs = deadlineNs - System.nanoTime()) > 0) {
                socket.setSoTimeout((int) Math.max(1, remainingNs / 1_000_000));
                if (in.read(sink) < 0) {
                    return;
                }
            }
        } catch (IOException e) {
            // The peer reset or the wait ran out: either way the connection is done.
        }
    }

    static void writeFully(SocketChannel channel, byte[] bytes) throws IOException {
        ByteBuffer buffer = ByteBuffer.wrap(bytes);
        while (buffer.hasRemaining()) {
            channel.write(buffer);
        }
    }

    static void closeQuietly(AutoCloseable closeable) {
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
