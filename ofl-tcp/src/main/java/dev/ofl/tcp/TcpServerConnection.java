package dev.ofl.tcp;

import dev.ofl.api.Limits;
import dev.ofl.api.OflConnectionException;
import dev.ofl.api.OflHandler;
import dev.ofl.api.ServerConfig;
import dev.ofl.api.WaitMode;
import dev.ofl.api.spi.AbstractResponse;
import dev.ofl.api.spi.BootstrapIo;
import dev.ofl.api.spi.BootstrapServer;
import dev.ofl.api.spi.DrainGate;
import dev.ofl.api.spi.RequestView;
import dev.ofl.api.wire.Bootstrap;
import dev.ofl.api.wire.MessageChecks;
import dev.ofl.api.wire.MessageHeader;
import dev.ofl.api.wire.MessageType;
import dev.ofl.api.wire.ProtocolException;
import dev.ofl.api.wire.RefusalCode;
import dev.ofl.api.wire.TransportKind;
import dev.ofl.api.wire.WireStatus;
import java.io.EOFException;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.SocketChannel;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One server-side connection, run on its own thread: bootstrap, then read a request, run the
 * handler, send its response, in order, until the client leaves or the server closes.
 *
 * <p>Memory: the receive and response buffers belong to a confined arena of this thread, freed
 * when the thread ends.
 */
final class TcpServerConnection implements BootstrapServer.Connection {
    private static final Logger LOG = LoggerFactory.getLogger(TcpServerConnection.class);
    /**
     * Pieces travel once this many bytes are committed: each costs system calls on both sides, so
     * fewer, larger writes reach the socket's throughput (measured on loopback: 16 KiB pieces gave
     * about 60% of a plain C peer's MB/s on 12 MiB responses, 512 KiB about 100%).
     */
    private static final int FLUSH_BYTES = 512 << 10;
    /** Pieces up to this size are copied next to their headers and written in one system call. */
    private static final int COPY_BYTES = 8 << 10;
    /** A DATA header, a piece of up to COPY_BYTES, and the RESPONSE header. */
    private static final int TX_BYTES = COPY_BYTES + 2 * MessageHeader.LENGTH;

    private final BootstrapServer server;
    private final OflHandler handler;
    private final ServerConfig config;
    private final SocketChannel channel;
    private final long id;
    private final String peer;
    private final DrainGate drain = new DrainGate();
    private boolean admitted;

    private Limits limits;
    private MemorySegment rx;
    private ByteBuffer rxBuffer;
    private int rxEnd;
    private final MessageHeader header = new MessageHeader();
    private final RequestView request = new RequestView(1);
    private Response response;

    TcpServerConnection(BootstrapServer server, OflHandler handler, SocketChannel channel, long id) {
        this.server = server;
        this.handler = handler;
        this.config = server.config();
        this.channel = channel;
        this.id = id;
        this.peer = BootstrapServer.remote(channel);
    }

    @Override
    public void run() {
        try (Arena arena = Arena.ofConfined()) {
            Bootstrap.Endpoint hello = server.acceptHello(channel, TransportKind.TCP, id);
            if (hello == null) {
                return;
            }
            admitted = true;
            limits = hello.limits();
            server.welcome(channel, Bootstrap.Endpoint.tcp(RefusalCode.ACCEPTED, config.serviceName(), limits, ""));
            LOG.debug("connection {} from {} accepted with {}", id, peer, limits);
            allocate(arena);
            serve();
        } catch (ProtocolException e) {
            server.counters().protocolViolation();
            LOG.warn("closing connection {} from {}: {}", id, peer, e.getMessage());
        } catch (ClosedChannelException e) {
            LOG.debug("connection {} from {} closed by the server", id, peer);
        } catch (EOFException e) {
            LOG.debug("connection {} from {} ended: {}", id, peer, e.getMessage());
        } catch (IOException e) {
            LOG.info("connection {} from {} failed: {}", id, peer, e.toString());
        } catch (OflConnectionException e) {
            server.counters().undeliveredResponse();
            LOG.info("connection {} from {} broke while a handler wrote its response: {}", id, peer, e.getMessage());
        } catch (RuntimeException | Error e) {
            LOG.error("connection {} from {} ended by an unexpected failure", id, peer, e);
        } finally {
            BootstrapIo.closeQuietly(channel);
            if (admitted) {
                server.release();
            }
        }
    }

    private void allocate(Arena arena) throws IOException {
        long rxBytes = MessageHeader.requestLength(limits.maxRequestBytes(), limits.maxRanges());
        rx = arena.allocate(rxBytes, 64);
        rxBuffer = rx.asByteBuffer();
        response = new Response(arena, limits.maxResponseBytes());
        if (config.waitMode() == WaitMode.BUSY_POLL) {
            channel.configureBlocking(false);
        }
    }

    private void serve() throws IOException, ProtocolException {
        long sequence = 0;
        while (!server.closing()) {
            rxEnd = 0;
            fill(MessageHeader.LENGTH);
            header.wrap(rx, 0);
            long length = MessageChecks.checkRequest(header, limits, sequence);
            fill((int) length);
            long capacity = MessageChecks.checkRanges(rx, 0, header, limits);
            request.set(0, rx, header, capacity);
            response.begin(sequence, capacity);
            if (!drain.enter()) {
                return;
            }
            // Draining lets a request that got in finish: its handler and its response.
            try {
                int outcome = response.run(handler, request);
                server.counters().request(outcome);
                response.finish(outcome);
            } catch (IOException e) {
                server.counters().undeliveredResponse();
                throw e;
            } finally {
                drain.exit();
            }
            sequence++;
        }
    }

    /** Reads until the receive buffer holds at least {@code length} bytes of the current message. */
    private void fill(int length) throws IOException {
        rxBuffer.limit(length).position(rxEnd);
        while (rxBuffer.hasRemaining()) {
            int n = channel.read(rxBuffer);
            if (n < 0) {
                if (rxEnd == 0 && rxBuffer.position() == 0) {
                    throw new EOFException("the client closed the connection");
                }
                throw new EOFException("the client closed the connection in the middle of a request ("
                        + rxBuffer.position() + " of " + length + " bytes)");
            }
            if (n == 0) {
                config.idleStrategy().idle(0);
            }
        }
        rxEnd = length;
    }

    @Override
    public void closeIfIdle() {
        if (drain.closeIfIdle()) {
            BootstrapIo.closeQuietly(channel);
        }
    }

    @Override
    public void forceClose() {
        BootstrapIo.closeQuietly(channel);
    }

    private void writeFully(ByteBuffer buffer) throws IOException {
        while (buffer.hasRemaining()) {
            if (channel.write(buffer) == 0) {
                config.idleStrategy().idle(0);
            }
        }
    }

    /** Sends pieces and the completion over the socket, small ones with their headers in one write. */
    private final class Response extends AbstractResponse {
        private final ByteBuffer stagingBuffer;
        private final MemorySegment tx;
        private final ByteBuffer txBuffer;
        private final MessageHeader out = new MessageHeader();
        private long sequence;

        Response(Arena arena, int maxResponseBytes) {
            super(arena.allocate(Math.max(1, maxResponseBytes), 64), FLUSH_BYTES);
            stagingBuffer = staging().asByteBuffer();
            tx = arena.allocate(TX_BYTES, 64);
            txBuffer = tx.asByteBuffer();
        }

        void begin(long requestSequence, long responseCapacity) {
            sequence = requestSequence;
            begin(responseCapacity);
        }

        @Override
        protected void sendPiece(long from, long to) throws IOException {
            send(from, to, false, 0, 0);
        }

        @Override
        protected void sendEnd(long from, long to, int wireStatus, int handlerStatus) throws IOException {
            send(from, to, true, wireStatus, handlerStatus);
        }

        /*
         * Small pieces are copied with their headers into one transmit buffer and written at once:
         * one system call, and no gathering write (which allocates per buffer for arena memory).
         * Larger pieces are written from the staging buffer directly, after their header.
         */
        private void send(long from, long to, boolean last, int status, int handlerStatus) throws IOException {
            long piece = to - from;
            int at = 0;
            if (piece > 0) {
                out.wrap(tx, 0).reset(MessageType.DATA, sequence)
                        .payloadLength((int) piece)
                        .responseOffset(from);
                at = MessageHeader.LENGTH;
                if (piece <= COPY_BYTES) {
                    MemorySegment.copy(staging(), from, tx, at, piece);
                    at += (int) piece;
                } else {
                    txBuffer.limit(at).position(0);
                    writeFully(txBuffer);
                    stagingBuffer.limit((int) to).position((int) from);
                    writeFully(stagingBuffer);
                    at = 0;
                }
            }
            if (last) {
                out.wrap(tx, at).reset(MessageType.RESPONSE, sequence)
                        .status(status)
                        .handlerStatus(handlerStatus)
                        .responseLength(status == WireStatus.OK ? to : 0);
                at += MessageHeader.LENGTH;
            }
            if (at > 0) {
                txBuffer.limit(at).position(0);
                writeFully(txBuffer);
            }
        }
    }
}
