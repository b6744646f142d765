package dev.ofl.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ofl.api.ClientConfig;
import dev.ofl.api.Completion;
import dev.ofl.api.IdleStrategy;
import dev.ofl.api.Ofl;
import dev.ofl.api.OflClient;
import dev.ofl.api.OflHandler;
import dev.ofl.api.OflServer;
import dev.ofl.api.OflStatus;
import dev.ofl.api.Region;
import dev.ofl.api.ResponseRanges;
import dev.ofl.api.ServerConfig;
import dev.ofl.api.WaitMode;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.management.ManagementFactory;
import java.net.InetSocketAddress;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A client's call over TCP allocates nothing on the calling thread once the JIT has compiled it:
 * submit, the busy-polling await, the response checks and the one-thread-at-a-time owner check.
 * Measured with the JVM's per-thread allocation counter, which counts every byte the thread
 * allocates. (The fake backend copies messages into arrays by design, so it cannot show this.)
 */
@Timeout(120)
class ClientCallAllocationTest {
    private static final int WARM_UP_CALLS = 60_000;
    private static final int MEASURED_CALLS = 20_000;

    private static final com.sun.management.ThreadMXBean THREADS =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();

    @Test
    void aWarmCallAllocatesNothingOnTheCallingThread() {
        assertTrue(THREADS.isThreadAllocatedMemorySupported() && THREADS.isThreadAllocatedMemoryEnabled(),
                "this JVM does not count allocated bytes per thread");
        long allocated = allocatedOverWarmCalls(WaitMode.BLOCKING, (request, response) -> {
            response.write(request.payload());
            return 0;
        }, () -> THREADS::getCurrentThreadAllocatedBytes);
        assertEquals(0, allocated, "bytes the calling thread allocated over " + MEASURED_CALLS + " warm calls");
    }

    /**
     * The same for a busy-polling server's connection thread: reading the request, a handler that
     * answers in place, and sending the response. (A handler that allocated 8 bytes per request
     * made it fail with 480,000 bytes.)
     */
    @Test
    void aWarmBusyPollingServerConnectionAllocatesNothing() {
        long allocated = allocatedOverWarmCalls(WaitMode.BUSY_POLL, (request, response) -> {
            MemorySegment.copy(request.payload(), 0, response.buffer(), 0, request.payload().byteSize());
            response.commit(request.payload().byteSize());
            return 0;
        }, () -> {
            long connection = Thread.getAllStackTraces().keySet().stream()
                    .filter(t -> t.getName().startsWith("ofl-tcp-conn-")).mapToLong(Thread::threadId)
                    .reduce((x, y) -> {
                        throw new AssertionError("more than one connection thread");
                    }).orElseThrow(() -> new AssertionError("no connection thread"));
            return () -> THREADS.getThreadAllocatedBytes(connection);
        });
        assertEquals(0, allocated, "bytes the connection thread allocated over " + MEASURED_CALLS + " warm calls");
    }

    /**
     * Serves {@code handler} over TCP in {@code serverWait} mode to a client in the other mode, warms
     * the call up, and returns how far the allocation counter that {@code counter} picks once the
     * warm-up is over moved over the measured calls.
     */
    private static long allocatedOverWarmCalls(WaitMode serverWait, OflHandler handler,
            Supplier<LongSupplier> counter) {
        try (Arena arena = Arena.ofShared();
             // Exactly one side busy-polls (yielding when idle): two spinning threads that land on
             // one core of a loaded machine take a scheduler slice per call (a run under two CPU
             // hogs took over 120 s instead of 16 s).
             OflServer server = Ofl.serve(ServerConfig.builder().backend("tcp")
                     .bind(new InetSocketAddress("127.0.0.1", 0)).serviceName("allocation").waitMode(serverWait)
                     .idleStrategy(IdleStrategy.YIELD).build(), handler);
             OflClient client = Ofl.connect(ClientConfig.builder().backend("tcp")
                     .server(server.localAddress()).serviceName("allocation")
                     .waitMode(serverWait == WaitMode.BUSY_POLL ? WaitMode.BLOCKING : WaitMode.BUSY_POLL)
                     .idleStrategy(IdleStrategy.YIELD).build())) {
            Region region = client.registerRegion(arena.allocate(4096));
            ResponseRanges ranges = new ResponseRanges().add(region, 0, 64);
            Completion completion = new Completion();
            long timeoutNs = 30_000_000_000L;
            calls(client, ranges, completion, timeoutNs, WARM_UP_CALLS);
            LongSupplier allocatedBytes = counter.get();
            long before = allocatedBytes.getAsLong();
            calls(client, ranges, completion, timeoutNs, MEASURED_CALLS);
            return allocatedBytes.getAsLong() - before;
        }
    }

    private static void calls(OflClient client, ResponseRanges ranges, Completion completion, long timeoutNs,
            int count) {
        for (int i = 0; i < count; i++) {
            client.requestPayload().set(java.lang.foreign.ValueLayout.JAVA_LONG_UNALIGNED, 0, i);
            int status = client.call(1, 0, 8, ranges, timeoutNs, completion);
            if (status != OflStatus.OK) {
                throw new AssertionError("call " + i + ": " + completion);
            }
        }
    }
}
