package dev.ofl.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.ofl.api.ClientConfig;
import dev.ofl.api.Completion;
import dev.ofl.api.Limits;
import dev.ofl.api.Ofl;
import dev.ofl.api.OflClient;
import dev.ofl.api.OflRefusedException;
import dev.ofl.api.OflStatus;
import dev.ofl.api.RefusalCode;
import dev.ofl.api.Region;
import dev.ofl.api.ResponseRanges;
import dev.ofl.api.ServerConfig;
import dev.ofl.api.spi.BootstrapServer;
import dev.ofl.api.spi.ServerTransport;
import dev.ofl.api.spi.StagingPool;
import java.lang.foreign.Arena;
import java.lang.foreign.ValueLayout;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Peer authentication through the fake backend (docs/PROTOCOL.md 3.8): the engine authenticates
 * whatever transport runs under it, and an unauthenticated peer never reaches the transport's
 * {@code accept}, which is where the fake link, like an RDMA queue pair, is made.
 */
@Timeout(60)
class FakePeerAuthenticationTest {
    private static final Limits LIMITS = new Limits(1024, 1 << 16, 4, 4);
    private static final String SERVICE = "fake-guarded";
    private static final byte[] OLD_KEY = "an old key of thirty-two bytes!!".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] NEW_KEY = "a new key, also thirty-two bytes".getBytes(StandardCharsets.US_ASCII);

    private final List<AutoCloseable> closeables = new ArrayList<>();
    private final AtomicInteger accepts = new AtomicInteger();
    private final Arena arena = Arena.ofShared();

    @AfterEach
    void tearDown() throws Exception {
        for (int i = closeables.size() - 1; i >= 0; i--) {
            closeables.get(i).close();
        }
        arena.close();
    }

    private BootstrapServer serve(ServerConfig.Builder builder) {
        ServerConfig config = builder.backend(FakeBackend.NAME).bind(new InetSocketAddress("127.0.0.1", 0))
                .serviceName(SERVICE).limits(LIMITS).build();
        StagingPool pool = new StagingPool(config.stagingBudgetBytes(), StagingPool.Memory.offHeap(), config.clock());
        BootstrapServer server = BootstrapServer.start(config, FakeBackend.NAME, (request, response) -> {
            response.write(request.payload());
            return 0;
        }, (c, channel, id) -> countingAccepts(new FakeServerTransport(c, channel, pool)), s -> pool.close());
        closeables.add(server);
        return server;
    }

    /** The transport with every call passed through, {@code accept} counted. */
    private ServerTransport countingAccepts(ServerTransport inner) {
        return (ServerTransport) Proxy.newProxyInstance(ServerTransport.class.getClassLoader(),
                new Class<?>[] {ServerTransport.class}, (proxy, method, args) -> {
                    if (method.getName().equals("accept")) {
                        accepts.incrementAndGet();
                    }
                    try {
                        return method.invoke(inner, args);
                    } catch (InvocationTargetException e) {
                        throw e.getCause();
                    }
                });
    }

    private ClientConfig.Builder client(BootstrapServer server) {
        return ClientConfig.builder().backend(FakeBackend.NAME).server(server.localAddress()).serviceName(SERVICE)
                .limits(LIMITS);
    }

    private void assertEchoes(ClientConfig.Builder builder) {
        OflClient client = Ofl.connect(builder.build());
        closeables.add(client);
        Region region = client.registerRegion(arena.allocate(8));
        client.requestPayload().set(ValueLayout.JAVA_LONG_UNALIGNED, 0, 77L);
        assertEquals(OflStatus.OK, client.call(1, 0, 8, new ResponseRanges().add(region, 0, 8),
                TimeUnit.SECONDS.toNanos(10), new Completion()));
        assertEquals(77L, region.segment().get(ValueLayout.JAVA_LONG_UNALIGNED, 0));
    }

    private void assertRefused(RefusalCode code, ClientConfig.Builder builder) {
        OflRefusedException e = assertThrows(OflRefusedException.class, () -> Ofl.connect(builder.build()).close());
        assertEquals(code, e.code(), e::getMessage);
    }

    @Test
    void rotationAcceptsBothKeysAndUnauthenticatedPeersGetNothing() {
        BootstrapServer server = serve(ServerConfig.builder().authenticationKey(1, OLD_KEY)
                .authenticationKey(2, NEW_KEY));
        assertEchoes(client(server).authenticationKey(1, OLD_KEY));
        assertEchoes(client(server).authenticationKey(2, NEW_KEY));
        assertEquals(2, accepts.get());
        assertRefused(RefusalCode.AUTHENTICATION_REQUIRED, client(server));
        assertRefused(RefusalCode.AUTHENTICATION_FAILED, client(server).authenticationKey(2, OLD_KEY));
        assertRefused(RefusalCode.AUTHENTICATION_FAILED, client(server).authenticationKey(9, NEW_KEY));
        assertEquals(2, accepts.get(), "no refused peer reached the transport");
        assertEquals(3, server.statistics().connectionsRefused());
    }

    @Test
    void afterRotationTheOldKeyIsRefused() {
        BootstrapServer server = serve(ServerConfig.builder().authenticationKey(2, NEW_KEY));
        assertRefused(RefusalCode.AUTHENTICATION_FAILED, client(server).authenticationKey(1, OLD_KEY));
        assertEchoes(client(server).authenticationKey(2, NEW_KEY));
    }

    @Test
    void aServerWithoutKeysRefusesAClientThatRequiresThem() {
        BootstrapServer server = serve(ServerConfig.builder());
        assertRefused(RefusalCode.UNSUPPORTED_EXTENSION, client(server).authenticationKey(1, OLD_KEY));
        assertEquals(0, accepts.get());
        assertEchoes(client(server));
    }
}
