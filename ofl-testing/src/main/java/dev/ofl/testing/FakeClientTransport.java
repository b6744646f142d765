package dev.ofl.testing;

import dev.ofl.api.ClientConfig;
import dev.ofl.api.OflConnectionException;
import dev.ofl.api.OflException;
import dev.ofl.api.RefusalCode;
import dev.ofl.api.Region;
import dev.ofl.api.spi.BootstrapIo;
import dev.ofl.api.spi.ClientBootstrap;
import dev.ofl.api.spi.ClientTransport;
import dev.ofl.api.spi.LivenessWatcher;
import dev.ofl.api.spi.ResponseSink;
import dev.ofl.api.wire.Bootstrap;
import dev.ofl.api.wire.MessageHeader;
import dev.ofl.api.wire.ProtocolException;
import dev.ofl.api.wire.TransportKind;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.channels.SocketChannel;
import java.util.List;

/**
 * The fake client transport: the bootstrap and liveness use a real TCP connection, as RDMA's do;
 * requests and completions move through a {@link FakeLink}, and the server writes response bytes
 * straight into the caller's regions, as an RDMA NIC would. Like RDMA, it cannot count what the
 * server placed. Test fixture: it allocates per request and is not built for speed.
 */
final class FakeClientTransport implements ClientTransport {
    private final ClientConfig config;
    private final FakeFaults faults;
    private final MessageHeader header = new MessageHeader();
    private final MemorySegment headerCopy = MemorySegment.ofArray(new byte[MessageHeader.LENGTH]);
    private final MemorySegment slots;
    private final long slotBytes;
    private FakeLink link;
    private SocketChannel socket;
    private volatile String lossReason;
    /** Whether the current connection's server sends failure reasons; set by connect. */
    private boolean failureReasons;

    FakeClientTransport(ClientConfig config, MemorySegment slots, long slotBytes) {
        this.config = config;
        this.faults = FakeFaults.of(config.serviceName());
        this.slots = slots;
        this.slotBytes = slotBytes;
    }

    @Override
    public void connect(List<Region> regions, long deadlineNs) {
        SocketChannel channel = null;
        FakeLink created = FakeLink.open(faults);
        try {
            for (Region region : regions) {
                created.exposeClientMemory(region.id(), region.segment());
            }
            channel = ClientBootstrap.open(config);
            Bootstrap.Endpoint hello = new Bootstrap.Endpoint(RefusalCode.ACCEPTED, TransportKind.IN_PROCESS,
                    config.serviceName(), config.limits(), created.id, 0, null, 0, 0, 0, "", null);
            failureReasons = ClientBootstrap.failureReasons(ClientBootstrap.exchange(channel, config.server(), hello,
                    deadlineNs, config.clock(), config.authentication()));
            lossReason = null;
            LivenessWatcher.shared().watch(channel, reason -> {
                lossReason = reason;
                created.breakClient();
            });
            link = created;
            socket = channel;
        } catch (IOException e) {
            created.forget();
            BootstrapIo.closeQuietly(channel);
            throw new OflConnectionException("cannot connect to " + config.server() + ": " + e, e);
        } catch (RuntimeException e) {
            created.forget();
            BootstrapIo.closeQuietly(channel);
            throw e;
        }
    }

    @Override
    public void register(Region region) {
        if (faults.takeFailedRegistration()) {
            throw new OflException("registering " + region + " failed: injected by FakeFaults.failRegistrations");
        }
        if (link != null) {
            link.exposeClientMemory(region.id(), region.segment());
        }
    }

    /** Ranges are named by region and offset: the fake server writes through the link. */
    @Override
    public long rangeAddress(Region region, long offset) {
        return offset;
    }

    @Override
    public int rangeKey(Region region) {
        return region.id();
    }

    /** A request is copied onto the link before {@link #send} returns. */
    @Override
    public boolean sendCopiesMessage() {
        return true;
    }

    @Override
    public void send(int slot, MemorySegment message, long length, ResponseSink sink) {
        // The session names the slot so that no transport divides to find it: hold it to the message.
        if (message.address() != slots.address() + slot * slotBytes) {
            throw new IllegalStateException("send names slot " + slot + " for a message at offset "
                    + (message.address() - slots.address()) + " of the send slots (" + slotBytes + " bytes each)");
        }
        if (faults.takeFailedPost()) {
            throw new OflConnectionException("posting a request failed: injected by FakeFaults.failPosts");
        }
        if (!link.sendRequest(message.asSlice(0, length).toArray(ValueLayout.JAVA_BYTE))) {
            if (link.serverBroken()) {
                throw serverGone();
            }
            throw new OflConnectionException("the fake link is broken");
        }
    }

    @Override
    public int poll(ResponseSink sink) throws ProtocolException {
        // Read before the completions and the clock: the server queues its last completion before it
        // breaks the link, so a completion sent before the break is taken rather than lost to it.
        boolean broken = link.serverBroken();
        // The link's delays are in real time on both sides: the peers' injected clocks need not agree.
        byte[] completion = link.takeCompletion(System.nanoTime());
        if (completion == null) {
            if (broken) {
                throw serverGone();
            }
            return 0;
        }
        if (sink.receivingSequence() < 0) {
            throw new ProtocolException("completion", 0, "a completion arrived while no request was outstanding");
        }
        MemorySegment.copy(MemorySegment.ofArray(completion), 0, headerCopy, 0, MessageHeader.LENGTH);
        sink.complete(header.wrap(headerCopy, 0));
        return 1;
    }

    /**
     * The server ended the link (closed, or broke the connection): a lost peer, as a TCP socket
     * that ends is, recorded at once rather than when the liveness watcher sees the socket close.
     */
    private OflConnectionException serverGone() {
        if (lossReason == null) {
            lossReason = "the server broke the connection";
        }
        return new OflConnectionException("the server broke the connection");
    }

    @Override
    public int awaitProgress(ResponseSink sink, long deadlineNs, long nowNs) {
        try {
            link.awaitCompletion(Math.min(deadlineNs - nowNs, 1_000_000L));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return 0;
    }

    @Override
    public boolean countsPlacedBytes() {
        return false;
    }

    @Override
    public boolean failureReasons() {
        return failureReasons;
    }

    @Override
    public String lossReason() {
        return link == null ? "not connected" : lossReason;
    }

    @Override
    public void breakConnection() {
        FakeLink l = link;
        if (l != null) {
            l.breakClient();
        }
        BootstrapIo.closeQuietly(socket);
    }

    @Override
    public void disconnect() {
        breakConnection();
        FakeLink l = link;
        if (l != null) {
            l.forget();
        }
        link = null;
        socket = null;
    }

    @Override
    public boolean close() {
        disconnect();
        return true;
    }

    @Override
    public String backend() {
        return FakeBackend.NAME;
    }
}
