package dev.ofl.conformance;

import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Timeout;

/**
 * What every behaviour class shares: a fresh {@link Fixture} per test for the transport under test,
 * closed after it, and the per-test {@link Timeout} that bounds a hang. Not thread-safe; JUnit runs
 * one test of an instance at a time.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
abstract class ConformanceBehaviour {
    private final TransportUnderTest transport;
    /** This test's servers, clients and memory. */
    Fixture fixture;

    ConformanceBehaviour(TransportUnderTest transport) {
        this.transport = transport;
    }

    @BeforeEach
    final void openFixture() {
        fixture = new Fixture(transport);
    }

    @AfterEach
    final void closeFixture() throws Exception {
        fixture.close();
    }
}
