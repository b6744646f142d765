package dev.ofl.api.spi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ofl.api.ClientConfig;
import dev.ofl.api.Completion;
import dev.ofl.api.Limits;
import dev.ofl.api.OflConnectionException;
import dev.ofl.api.OflStatus;
import dev.ofl.api.Region;
import dev.ofl.api.ResponseRanges;
import dev.ofl.api.WaitMode;
import dev.ofl.api.wire.MessageHeader;
import dev.ofl.api.wire.MessageType;
import dev.ofl.api.wire.ProtocolException;
import dev.ofl.api.wire.WireStatus;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A completion and the peer's leaving noticed between one poll and the loss check: the response
 * that arrived before the peer left is returned, and the client is broken afterwards.
 */
class ClientSessionLossTest {
    private static final Limits LIMITS = new Limits(64, 64, 1, 2);

    /** Polls nothing the first time, and then reports the peer gone with the completion already queued. */
    private static final class LateLossTransport implements ClientTransport {
        private final MemorySegment response = Arena.ofAuto().allocate(MessageHeader.LENGTH);
        private final boolean deliverAfterLoss;
        private final boolean failAfterCompletion;
        private int polls;
        private boolean completionQueued;
        private String lost;

        LateLossTransport(boolean deliverAfterLoss) {
            this(deliverAfterLoss, false);
        }

        LateLossTransport(boolean deliverAfterLoss, boolean failAfterCompletion) {
            this.deliverAfterLoss = deliverAfterLoss;
            this.failAfterCompletion = failAfterCompletion;
        }

        @Override
        public int poll(ResponseSink sink) throws ProtocolException {
            polls++;
            if (failAfterCompletion) {
                // One poll completes the ticket, then meets what the broken queue pair flushed.
                lost = "the peer closed the bootstrap connection";
                new MessageHeader().wrap(response, 0).reset(MessageType.RESPONSE, sink.receivingSequence())
                        .status(WireStatus.OK).responseLength(0);
                sink.complete(new MessageHeader().wrap(response, 0));
                throw new OflConnectionException(lost);
            }
            if (polls == 1) {
                // Both arrive right after this poll looked.
                completionQueued = deliverAfterLoss;
                lost = "the peer closed the bootstrap connection";
                return 0;
            }
            if (completionQueued) {
                completionQueued = false;
                new MessageHeader().wrap(response, 0).reset(MessageType.RESPONSE, sink.receivingSequence())
                        .status(WireStatus.OK).responseLength(0);
                sink.complete(new MessageHeader().wrap(response, 0));
                return 1;
            }
            return 0;
        }

        @Override
        public boolean failureReasons() {
            return false;
        }

        @Override
        public String lossReason() {
            return lost;
        }

        @Override
        public void connect(List<Region> regions, long deadlineNs) {
        }

        @Override
        public void register(Region region) {
        }

        @Override
        public long rangeAddress(Region region, long offset) {
            return 0;
        }

        @Override
        public int rangeKey(Region region) {
            return 0;
        }

        @Override
        public void send(int slot, MemorySegment message, long length, ResponseSink sink) {
        }

        @Override
        public int awaitProgress(ResponseSink sink, long deadlineNs, long nowNs) {
            return 0;
        }

        @Override
        public boolean countsPlacedBytes() {
            return false;
        }

        @Override
        public void breakConnection() {
        }

        @Override
        public void disconnect() {
        }

        @Override
        public boolean close() {
            return true;
        }

        @Override
        public String backend() {
            return "scripted";
        }
    }

    private static ClientConfig config() {
        return ClientConfig.builder().backend("scripted").server(new InetSocketAddress("127.0.0.1", 1))
                .serviceName("loss").limits(LIMITS).waitMode(WaitMode.BUSY_POLL)
                .connectTimeout(Duration.ofSeconds(1)).build();
    }

    @Test
    void aCompletionThatArrivedBeforeTheLossIsReturned() {
        try (Arena arena = Arena.ofConfined();
                ClientSession client = new ClientSession(config(), (c, slots, bytes) -> new LateLossTransport(true))) {
            Region region = client.registerRegion(arena.allocate(64));
            long ticket = client.submit(1, 0, 0, ResponseRanges.of(region));
            Completion completion = new Completion();
            assertEquals(OflStatus.OK, client.await(ticket, System.nanoTime() + 1_000_000_000L, completion));
            assertEquals(1, client.statistics().peerLosses(), "the loss is still counted");
            assertTrue(client.isBroken(), "the client is broken after the loss");
        }
    }

    @Test
    void aCompletionBeforeAFailureInTheSamePollIsReturned() {
        try (Arena arena = Arena.ofConfined();
                ClientSession client = new ClientSession(config(),
                        (c, slots, bytes) -> new LateLossTransport(false, true))) {
            Region region = client.registerRegion(arena.allocate(64));
            long ticket = client.submit(1, 0, 0, ResponseRanges.of(region));
            assertEquals(OflStatus.OK, client.await(ticket, System.nanoTime() + 1_000_000_000L, new Completion()));
            assertEquals(1, client.statistics().peerLosses(), "the loss is counted once");
            assertEquals(0, client.statistics().transportFailures());
            assertTrue(client.isBroken(), "the client is broken after the failure");
        }
    }

    @Test
    void withoutACompletionTheTicketIsLost() {
        try (Arena arena = Arena.ofConfined();
                ClientSession client = new ClientSession(config(), (c, slots, bytes) -> new LateLossTransport(false))) {
            Region region = client.registerRegion(arena.allocate(64));
            long ticket = client.submit(1, 0, 0, ResponseRanges.of(region));
            OflConnectionException e = assertThrows(OflConnectionException.class,
                    () -> client.await(ticket, System.nanoTime() + 1_000_000_000L, new Completion()));
            assertTrue(e.getMessage().contains("the peer closed the bootstrap connection"), e.getMessage());
        }
    }
}
