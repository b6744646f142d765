package dev.ofl.tcp;

import static org.junit.jupiter.api.Assertions.assertEquals;

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
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A server connection's receive buffer starts small and is replaced by a larger one, the old one
 * freed, when a longer request arrives. Every request after a growth, of a length seen before it
 * or not, must reach its handler whole from the new buffer.
 */
@Timeout(60)
class TcpReceiveGrowthTest {
    @Test
    void aRequestAfterTheBufferGrewIsReadFromTheNewBuffer() {
        Limits limits = new Limits(64 << 10, 64 << 10, 4, 1);
        try (OflServer server = Ofl.serve(ServerConfig.builder()
                .bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0)).serviceName("growth")
                .limits(limits).build(), (request, response) -> {
                    response.write(request.payload());
                    return 0;
                });
                OflClient client = Ofl.connect(ClientConfig.builder().server(server.localAddress())
                        .serviceName("growth").limits(limits).build());
                Arena arena = Arena.ofConfined()) {
            MemorySegment memory = arena.allocate(64 << 10);
            Region region = client.registerRegion(memory);
            int seed = 0;
            // 100 bytes fit the first buffer; 10,000 and 40,000 grow it, each time freeing the old one.
            for (int length : new int[] {100, 10_000, 100, 10_000, 40_000, 100, 10_000}) {
                seed++;
                MemorySegment payload = client.requestPayload();
                for (int i = 0; i < length; i++) {
                    payload.set(ValueLayout.JAVA_BYTE, i, (byte) (i + seed * 13));
                }
                Completion completion = new Completion();
                assertEquals(OflStatus.OK, client.call(1, 0, length, new ResponseRanges().add(region, 0, length),
                        System.nanoTime() + 10_000_000_000L, completion), length + " bytes: " + completion);
                for (int i = 0; i < length; i++) {
                    assertEquals((byte) (i + seed * 13), memory.get(ValueLayout.JAVA_BYTE, i),
                            "request " + seed + " (" + length + " bytes), byte " + i);
                }
            }
        }
    }
}
