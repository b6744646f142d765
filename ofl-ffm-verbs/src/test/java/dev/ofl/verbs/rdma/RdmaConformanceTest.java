package dev.ofl.verbs.rdma;

import dev.ofl.conformance.OflConformanceSuite;
import dev.ofl.conformance.TransportUnderTest;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeAll;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Every conformance behaviour over the RDMA backend, running for real on softverbs (the
 * user-space libibverbs built by ofl-softverbs, named by the surefire configuration). The backend
 * finds its RoCE v2 GID from an IPv4 address, so it documents refusing IPv6.
 */
class RdmaConformanceTest extends OflConformanceSuite {
    RdmaConformanceTest() {
        super(TransportUnderTest.named(RdmaBackend.NAME).refusingIpv6());
    }

    @BeforeAll
    static void softverbsIsBuilt() {
        String library = System.getProperty("ofl.verbs.library", "");
        assertTrue(Files.isRegularFile(Path.of(library)), "softverbs is not built at '" + library
                + "': build it first with make -C ofl-softverbs (./ofl test does)");
    }
}
