package dev.ofl.verbs.rdma;

import dev.ofl.conformance.OflConformanceSuite;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The shared conformance suite over the RDMA backend, running for real on softverbs (the
 * user-space libibverbs built by ofl-softverbs, named by the surefire configuration), or on the
 * library, address and backend properties {@code ofl.verbs.library} and {@link TestEnvironment}
 * name (the kernel's soft-RoCE under {@code ./ofl test-rxe}).
 */
class RdmaConformanceTest extends OflConformanceSuite {
    @BeforeAll
    static void softverbsIsBuilt() {
        String library = System.getProperty("ofl.verbs.library", "");
        assertTrue(Files.isRegularFile(Path.of(library)), "no verbs library at ofl.verbs.library = '" + library
                + "': build softverbs first with make -C ofl-softverbs (./ofl test does)");
    }

    @Override
    protected String backend() {
        return RdmaBackend.NAME;
    }

    @Override
    protected Map<String, String> clientProperties() {
        return TestEnvironment.rdmaProperties();
    }

    @Override
    protected Map<String, String> serverProperties() {
        return TestEnvironment.rdmaProperties();
    }

    @Override
    protected InetAddress bindAddress() {
        return TestEnvironment.address();
    }
}
