package dev.ofl.tcp;

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
import java.lang.foreign.ValueLayout;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Large requests pipelined against large responses: more bytes in flight both ways than the
 * socket buffers hold. The server blocks writing a response while the client is still sending the
 * next requests, so the client must keep reading while its send stalls, or both sides wait until
 * the connect timeout breaks the client.
 */
class PipelinedTrafficTest {
    private static final int REQUEST_BYTES = 32 << 20;
    private static final int RESPONSE_BYTES = 32 << 20;
    private static final int IN_FLIGHT = 4;

    @Test
    @Timeout(120)
    void largeRequestsPipelinedAgainstLargeResponsesNeitherDeadlockNorCorrupt() throws Exception {
        InetAddress loopback = InetAddress.getLoopbackAddress();
        Limits limits = new Limits(REQUEST_BYTES, RESPONSE_BYTES, 1, IN_FLIGHT);
        ServerConfig serverConfig = ServerConfig.builder().bind(new InetSocketAddress(loopback, 0))
                .serviceName("pipelined").limits(limits).build();
        try (OflServer server = Ofl.serve(serverConfig, (request, response) -> {
            // Every response byte derives from the request's first word, so a response in the wrong
            // ranges or a torn request shows up as a mismatch.
            long seed = request.payload().get(ValueLayout.JAVA_LONG_UNALIGNED, 0);
            MemorySegment out = response.buffer();
            for (long at = 0; at < response.capacity(); at += 8) {
                out.set(ValueLayout.JAVA_LONG_UNALIGNED, at, seed + at);
            }
            response.commit(response.capacity());
            return 0;
        });
             // The stall bound (connectTimeout) well above the 5 s default: on a loaded machine the handler
             // filling 32 MiB may keep the server from reading that long without any deadlock.
             OflClient client = Ofl.connect(ClientConfig.builder().server(server.localAddress())
                     .serviceName("pipelined").limits(limits).connectTimeout(Duration.ofSeconds(30)).build());
             Arena arena = Arena.ofShared()) {
            Region[] regions = new Region[IN_FLIGHT];
            long[] tickets = new long[IN_FLIGHT];
            for (int round = 0; round < 2; round++) {
                for (int i = 0; i < IN_FLIGHT; i++) {
                    if (regions[i] == null) {
                        regions[i] = client.registerRegion(arena.allocate(RESPONSE_BYTES, 8));
                    }
                    MemorySegment payload = client.requestPayload();
                    payload.fill((byte) 0x7E);
                    payload.set(ValueLayout.JAVA_LONG_UNALIGNED, 0, seed(round, i));
                    tickets[i] = client.submit(1, round, REQUEST_BYTES, ResponseRanges.of(regions[i]));
                    assertEquals(true, tickets[i] >= 0, "submit " + i + " returned " + tickets[i]);
                }
                Completion completion = new Completion();
                for (int i = IN_FLIGHT - 1; i >= 0; i--) {
                    int status = client.await(tickets[i], client.clock().nanoTime() + TimeUnit.SECONDS.toNanos(60),
                            completion);
                    assertEquals(OflStatus.OK, status, completion::toString);
                    assertEquals(RESPONSE_BYTES, completion.responseLength());
                    MemorySegment got = regions[i].segment();
                    for (long at = 0; at < RESPONSE_BYTES; at += 8) {
                        long expected = seed(round, i) + at;
                        long actual = got.get(ValueLayout.JAVA_LONG_UNALIGNED, at);
                        if (actual != expected) {
                            throw new AssertionError("round " + round + ", request " + i + ": word at " + at
                                    + " is " + actual + ", expected " + expected);
                        }
                    }
                }
            }
        }
    }

    private static long seed(int round, int request) {
        return ((long) round << 40) + ((long) request << 32) + 12345;
    }
}
