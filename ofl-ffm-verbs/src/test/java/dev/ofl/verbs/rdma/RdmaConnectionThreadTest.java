package dev.ofl.verbs.rdma;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ofl.api.ClientConfig;
import dev.ofl.api.Completion;
import dev.ofl.api.IdleStrategy;
import dev.ofl.api.Ofl;
import dev.ofl.api.OflClient;
import dev.ofl.api.OflServer;
import dev.ofl.api.OflStatus;
import dev.ofl.api.Region;
import dev.ofl.api.ResponseRanges;
import dev.ofl.api.ServerConfig;
import dev.ofl.api.WaitMode;
import dev.ofl.conformance.Conditions;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetSocketAddress;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The thread of an RDMA connection: in BUSY_POLL mode it keeps a platform thread and spins through
 * the configured idle strategy while it waits (its handler does not run on a virtual thread, and
 * the strategy is told of the empty polls between requests); in BLOCKING mode an interrupt a
 * handler leaves set is cleared and reported once, and the connection goes on answering.
 */
@Timeout(60)
class RdmaConnectionThreadTest {
    /** Counts what the connection's loop tells it; yields so that a busy connection shares the machine. */
    private static final class CountingIdle implements IdleStrategy {
        final AtomicLong idles = new AtomicLong();
        final AtomicLong resets = new AtomicLong();

        @Override
        public void idle(int workCount) {
            if (workCount == 0) {
                idles.incrementAndGet();
                Thread.yield();
            }
        }

        @Override
        public void reset() {
            resets.incrementAndGet();
        }
    }

    @Test
    void aBusyPollConnectionSpinsThroughItsIdleStrategyOnAPlatformThread() {
        CountingIdle idle = new CountingIdle();
        AtomicBoolean virtual = new AtomicBoolean(true);
        ServerConfig config = ServerConfig.builder().backend(RdmaBackend.NAME)
                .bind(new InetSocketAddress(TestEnvironment.address(), 0)).serviceName("busy-poll")
                .waitMode(WaitMode.BUSY_POLL).idleStrategy(idle)
                .properties(TestEnvironment.rdmaProperties()).build();
        try (OflServer server = Ofl.serve(config, (request, response) -> {
            virtual.set(Thread.currentThread().isVirtual());
            response.write(request.payload());
            return 0;
        }); Arena arena = Arena.ofShared()) {
            try (OflClient client = Ofl.connect(ClientConfig.builder().backend(RdmaBackend.NAME)
                    .server(server.localAddress()).serviceName("busy-poll")
                    .properties(TestEnvironment.rdmaProperties()).build())) {
                MemorySegment memory = arena.allocate(8, 8);
                Region region = client.registerRegion(memory);
                Completion completion = new Completion();
                for (long value = 1; value <= 3; value++) {
                    long before = idle.idles.get();
                    // The connection waits for this request: it polls, finds nothing, and idles.
                    Conditions.await(() -> idle.idles.get() > before, "the waiting connection to idle");
                    client.requestPayload().set(ValueLayout.JAVA_LONG_UNALIGNED, 0, value);
                    assertEquals(OflStatus.OK, client.call(1, 0, 8, new ResponseRanges().add(region, 0, 8),
                            TestEnvironment.nanos(10), completion), completion::toString);
                    assertEquals(value, memory.get(ValueLayout.JAVA_LONG_UNALIGNED, 0));
                }
            }
            assertFalse(virtual.get(), "a BUSY_POLL connection's handler runs on its platform thread");
            assertTrue(idle.resets.get() >= 3, "each wait for a request restarts the strategy: " + idle.resets);
        }
    }

    @Test
    void anInterruptAHandlerLeavesIsClearedAndReportedOnce() {
        String warning = "interrupts of a BLOCKING RDMA connection thread are cleared and ignored";
        ServerConfig config = ServerConfig.builder().backend(RdmaBackend.NAME)
                .bind(new InetSocketAddress(TestEnvironment.address(), 0)).serviceName("interrupted")
                .waitMode(WaitMode.BLOCKING).properties(TestEnvironment.rdmaProperties()).build();
        String log;
        try (OflServer server = Ofl.serve(config, (request, response) -> {
            // A handler that leaves its thread interrupted: every later park would return at once.
            Thread.currentThread().interrupt();
            response.write(request.payload());
            return 0;
        }); Arena arena = Arena.ofShared()) {
            StderrCapture stderr = StderrCapture.start();
            try (stderr; OflClient client = Ofl.connect(ClientConfig.builder().backend(RdmaBackend.NAME)
                    .server(server.localAddress()).serviceName("interrupted")
                    .properties(TestEnvironment.rdmaProperties()).build())) {
                MemorySegment memory = arena.allocate(8, 8);
                Region region = client.registerRegion(memory);
                Completion completion = new Completion();
                for (long value = 1; value <= 4; value++) {
                    client.requestPayload().set(ValueLayout.JAVA_LONG_UNALIGNED, 0, value);
                    assertEquals(OflStatus.OK, client.call(1, 0, 8, new ResponseRanges().add(region, 0, 8),
                            TestEnvironment.nanos(10), completion), completion::toString);
                    assertEquals(value, memory.get(ValueLayout.JAVA_LONG_UNALIGNED, 0));
                }
                // The check comes when the connection thread next parks: a thread that found every
                // request without parking reports it once idle, before its client leaves.
                Conditions.await(() -> stderr.text().contains(warning),
                        "the idle connection thread to report the interrupt its handler left");
            }
            log = stderr.text();
        }
        int reports = log.split(java.util.regex.Pattern.quote(warning), -1).length - 1;
        assertEquals(1, reports, "the interrupt is reported once per connection:\n" + log);
    }
}
