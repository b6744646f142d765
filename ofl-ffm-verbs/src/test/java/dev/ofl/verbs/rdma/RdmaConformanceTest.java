package dev.ofl.verbs.rdma;

import dev.ofl.conformance.OflConformanceSuite;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeAll;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The shared conformance suite over the RDMA backend, running for real on softverbs (the
 * user-space libibverbs built by ofl-softverbs, named by the surefire configuration).
 */
class RdmaConformanceTest extends OflConformanceSuite {
    @BeforeAll
    static void softverbsIsBuilt() {
        String library = System.getProperty("ofl.verbs.library", "");
        assertTrue(Files.isRegularFile(Path.of(library)), "softverbs is not built at '" + library
                + "': build it first with make -C ofl-softverbs (./ofl test does)");
    }

    @Override
    protected String backend() {
        return RdmaBackend.NAME;
    }
}
