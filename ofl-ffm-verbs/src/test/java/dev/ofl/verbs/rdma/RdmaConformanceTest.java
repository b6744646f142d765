package dev.ofl.verbs.rdma;

import dev.ofl.conformance.OflConformanceSuite;
import dev.ofl.conformance.TransportUnderTest;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeAll;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Every conformance behaviour over the RDMA backend, running for real on softverbs (the
 * user-space libibverbs built by ofl-softverbs, named by the surefire configuration), or on the
 * library, address and backend properties {@code ofl.verbs.library} and {@link TestEnvironment}
 * name (the kernel's soft-RoCE under {@code ./ofl test-rxe}). The backend finds its RoCE v2 GID
 * from an IPv4 address, so it documents refusing IPv6.
 */
class RdmaConformanceTest extends OflConformanceSuite {
    RdmaConformanceTest() {
        super(TransportUnderTest.named(RdmaBackend.NAME).refusingIpv6()
                .withClientProperties(TestEnvironment.rdmaProperties())
                .withServerProperties(TestEnvironment.rdmaProperties())
                .withBindAddress(TestEnvironment.address()));
    }

    @BeforeAll
    static void verbsLibraryIsThere() {
        String library = System.getProperty("ofl.verbs.library", "");
        assertTrue(Files.isRegularFile(Path.of(library)), "no verbs library at ofl.verbs.library = '" + library
                + "': build softverbs first with make -C ofl-softverbs (./ofl test does)");
    }
}
