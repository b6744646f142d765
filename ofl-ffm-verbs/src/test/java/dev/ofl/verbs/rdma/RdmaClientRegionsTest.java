package dev.ofl.verbs.rdma;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.ofl.api.ClientConfig;
import dev.ofl.api.Completion;
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
import java.net.InetSocketAddress;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * An RDMA client registers any number of regions: more than its table first holds, while
 * connected and again after a reconnect, and a response lands in each of them.
 */
@Timeout(60)
class RdmaClientRegionsTest {
    private static final int REGIONS = 9;

    @Test
    void everyOfManyRegionsReceivesItsResponseBeforeAndAfterAReconnect() {
        ServerConfig config = ServerConfig.builder().backend(RdmaBackend.NAME)
                .bind(new InetSocketAddress(TestEnvironment.address(), 0)).serviceName("regions")
                .properties(TestEnvironment.rdmaProperties()).build();
        try (OflServer server = Ofl.serve(config, (request, response) -> {
            response.write(request.payload());
            return 0;
        }); Arena arena = Arena.ofShared(); OflClient client = Ofl.connect(ClientConfig.builder()
                .backend(RdmaBackend.NAME).server(server.localAddress()).serviceName("regions")
                .properties(TestEnvironment.rdmaProperties()).build())) {
            MemorySegment[] memories = new MemorySegment[REGIONS];
            Region[] regions = new Region[REGIONS];
            for (int i = 0; i < REGIONS; i++) {
                memories[i] = arena.allocate(8, 8);
                regions[i] = client.registerRegion(memories[i]);
            }
            Completion completion = new Completion();
            for (int round = 0; round < 2; round++) {
                for (int i = 0; i < REGIONS; i++) {
                    long value = round * 100L + i + 1;
                    client.requestPayload().set(ValueLayout.JAVA_LONG_UNALIGNED, 0, value);
                    assertEquals(OflStatus.OK, client.call(1, 0, 8, new ResponseRanges().add(regions[i], 0, 8),
                            TestEnvironment.nanos(10), completion), completion::toString);
                    assertEquals(value, memories[i].get(ValueLayout.JAVA_LONG_UNALIGNED, 0), "region " + i);
                }
                client.reconnect();
            }
        }
    }
}
