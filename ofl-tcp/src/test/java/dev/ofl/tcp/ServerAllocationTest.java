package dev.ofl.tcp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ofl.api.ClientConfig;
import dev.ofl.api.Completion;
import dev.ofl.api.Limits;
import dev.ofl.api.Ofl;
import dev.ofl.api.OflClient;
import dev.ofl.api.OflServer;
import dev.ofl.api.OflStatus;
import dev.ofl.api.Region;
import dev.ofl.api.ResponseRanges;
import dev.ofl.api.ServerConfig;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.reflect.Method;
import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The server's data path allocates nothing per request now that each response borrows its
 * staging from the pool: the connection thread's own allocation counter
 * ({@code ThreadMXBean.getCurrentThreadAllocatedBytes}) is read by the handler itself, on that
 * thread, before and after a run of responses that each send a piece while the handler runs, span
 * two ranges and many staging blocks. The two readings box one {@code Long} each (reflection):
 * far less than a byte per request.
 */
@Timeout(120)
class ServerAllocationTest {
    private static final int RESPONSE_BYTES = 520 << 10;
    private static final int WARMUP = 5_000;
    private static final int MEASURED = 2_000;

    @Test
    void aSteadyStreamOfResponsesAllocatesNothingOnTheConnectionThread() throws Exception {
        // Reflection: this module does not read java.management; the tests run on the class path.
        Object threads = Class.forName("java.lang.management.ManagementFactory").getMethod("getThreadMXBean")
                .invoke(null);
        Class<?> bean = Class.forName("com.sun.management.ThreadMXBean");
        assertTrue((Boolean) bean.getMethod("isThreadAllocatedMemorySupported").invoke(threads));
        bean.getMethod("setThreadAllocatedMemoryEnabled", boolean.class).invoke(threads, true);
        Method current = bean.getMethod("getCurrentThreadAllocatedBytes");
        AtomicLong allocated = new AtomicLong();
        Limits limits = new Limits(64, RESPONSE_BYTES, 2, 1);
        ServerConfig config = ServerConfig.builder().bind(new InetSocketAddress("127.0.0.1", 0))
                .serviceName("allocation").limits(limits).build();
        try (OflServer server = Ofl.serve(config, (request, response) -> {
            if (request.op() == 1) {
                allocated.set((Long) current.invoke(threads));
            }
            long capacity = response.capacity();
            assertEquals(capacity, response.buffer().byteSize());
            // In place, in two commits, so that a piece is sent while the handler runs. The capacity is
            // whole blocks, so the buffer is exactly the capacity (a slice would allocate here).
            response.buffer().fill((byte) 1);
            response.commit(capacity / 2);
            response.commit(capacity - capacity / 2);
            return 0;
        });
                Arena arena = Arena.ofShared();
                OflClient client = Ofl.connect(ClientConfig.builder().server(server.localAddress())
                        .serviceName("allocation").limits(limits).build())) {
            MemorySegment memory = arena.allocate(RESPONSE_BYTES);
            Region region = client.registerRegion(memory);
            ResponseRanges ranges = new ResponseRanges().add(region, 0, RESPONSE_BYTES / 3)
                    .add(region, RESPONSE_BYTES / 3, RESPONSE_BYTES - RESPONSE_BYTES / 3);
            Completion completion = new Completion();
            long timeoutNs = TimeUnit.SECONDS.toNanos(10);
            for (int i = 0; i < WARMUP; i++) {
                assertEquals(OflStatus.OK, client.call(0, i, 0, ranges, timeoutNs, completion));
            }
            assertEquals(OflStatus.OK, client.call(1, 0, 0, ranges, timeoutNs, completion));
            long before = allocated.get();
            for (int i = 0; i < MEASURED; i++) {
                assertEquals(OflStatus.OK, client.call(0, i, 0, ranges, timeoutNs, completion));
            }
            assertEquals(OflStatus.OK, client.call(1, 0, 0, ranges, timeoutNs, completion));
            long perRequest = (allocated.get() - before) / MEASURED;
            assertEquals(0, perRequest, "the connection thread allocated " + (allocated.get() - before)
                    + " bytes over " + MEASURED + " responses of " + RESPONSE_BYTES + " bytes");
        }
    }
}
