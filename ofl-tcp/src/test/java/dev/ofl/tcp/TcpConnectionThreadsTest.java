package dev.ofl.tcp;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.ofl.api.ClientConfig;
import dev.ofl.api.Completion;
import dev.ofl.api.ConnectionThreads;
import dev.ofl.api.IdleStrategy;
import dev.ofl.api.Ofl;
import dev.ofl.api.OflClient;
import dev.ofl.api.OflServer;
import dev.ofl.api.OflStatus;
import dev.ofl.api.Region;
import dev.ofl.api.ResponseRanges;
import dev.ofl.api.ServerConfig;
import dev.ofl.api.WaitMode;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The server runs each connection, and so its handlers, on the kind of thread its configuration
 * names: virtual only in blocking mode with {@link ConnectionThreads#VIRTUAL}, a platform thread
 * otherwise; requests are served alike on both.
 */
class TcpConnectionThreadsTest {
    @ParameterizedTest(name = "{0} {1}: virtual = {2}")
    @CsvSource({
        "BLOCKING, VIRTUAL, true",
        "BLOCKING, PLATFORM, false",
        "BUSY_POLL, VIRTUAL, false",
        "BUSY_POLL, PLATFORM, false",
    })
    void connectionsRunOnTheConfiguredThreads(WaitMode waitMode, ConnectionThreads threads, boolean virtual) {
        AtomicInteger virtualCalls = new AtomicInteger();
        AtomicInteger platformCalls = new AtomicInteger();
        try (Arena arena = Arena.ofConfined();
                OflServer server = Ofl.serve(ServerConfig.builder().backend(TcpBackend.NAME)
                        .bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0)).serviceName("threads")
                        .waitMode(waitMode).idleStrategy(IdleStrategy.YIELD).connectionThreads(threads).build(),
                        (request, response) -> {
                            (Thread.currentThread().isVirtual() ? virtualCalls : platformCalls).incrementAndGet();
                            response.write(request.payload());
                            return 0;
                        });
                OflClient client = Ofl.connect(ClientConfig.builder().backend(TcpBackend.NAME)
                        .server(server.localAddress()).serviceName("threads").waitMode(WaitMode.BLOCKING).build())) {
            MemorySegment memory = arena.allocate(8);
            Region region = client.registerRegion(memory);
            for (long i = 1; i <= 4; i++) {
                client.requestPayload().set(ValueLayout.JAVA_LONG_UNALIGNED, 0, i * 0x0202_0202_0202L);
                int status = client.call(0, 0, 8, new ResponseRanges().add(region, 0, 8), 10_000_000_000L,
                        new Completion());
                assertEquals(OflStatus.OK, status);
                assertEquals(i * 0x0202_0202_0202L, memory.get(ValueLayout.JAVA_LONG_UNALIGNED, 0));
            }
        }
        assertEquals(virtual ? 4 : 0, virtualCalls.get(), "handler calls on a virtual thread");
        assertEquals(virtual ? 0 : 4, platformCalls.get(), "handler calls on a platform thread");
    }
}
