package dev.ofl.testing;

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
import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * What a handler that commits bytes it did not write sends (OflResponse, "Staging holds other
 * responses' bytes"): by default the previous borrower's bytes, with {@code zeroStaging} zeros.
 */
class StagingContentTest {
    private static final int BYTES = 4096;
    private static final int OP_WRITE = 1;
    private static final int OP_COMMIT_UNWRITTEN = 2;

    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void committedButUnwrittenBytesAreTheLastBorrowersUnlessStagingIsZeroed(boolean zero) {
        Limits limits = new Limits(64, BYTES, 1, 1);
        try (Arena arena = Arena.ofShared();
             OflServer server = Ofl.serve(ServerConfig.builder().backend(FakeBackend.NAME)
                     .bind(new InetSocketAddress("127.0.0.1", 0)).serviceName("staging-content-" + zero)
                     .limits(limits).stagingBudgetBytes(BYTES).zeroStaging(zero).build(),
                     (request, response) -> {
                         if (request.op() == OP_WRITE) {
                             response.buffer().asSlice(0, BYTES).fill((byte) 0xAA);
                         }
                         response.commit(BYTES);
                         return 0;
                     });
             OflClient client = Ofl.connect(ClientConfig.builder().backend(FakeBackend.NAME)
                     .server(server.localAddress()).serviceName("staging-content-" + zero).limits(limits).build())) {
            MemorySegment memory = arena.allocate(BYTES);
            Region region = client.registerRegion(memory);
            Completion completion = new Completion();
            long timeoutNs = TimeUnit.SECONDS.toNanos(30);
            assertEquals(OflStatus.OK, client.call(OP_WRITE, 0, 0, ResponseRanges.of(region), timeoutNs, completion));
            memory.fill((byte) 0x55);
            assertEquals(OflStatus.OK, client.call(OP_COMMIT_UNWRITTEN, 0, 0, ResponseRanges.of(region), timeoutNs,
                    completion));
            byte expected = zero ? 0 : (byte) 0xAA;
            for (int i = 0; i < BYTES; i++) {
                assertEquals(expected, memory.get(ValueLayout.JAVA_BYTE, i), "byte " + i + " of the unwritten response");
            }
        }
    }
}
