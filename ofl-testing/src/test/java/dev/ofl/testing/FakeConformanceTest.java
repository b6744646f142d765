package dev.ofl.testing;

import dev.ofl.conformance.OflConformanceSuite;
import dev.ofl.conformance.TransportUnderTest;

/** Every conformance behaviour over the fake transport: the engine's behaviour without a data-path socket or verbs. */
class FakeConformanceTest extends OflConformanceSuite {
    FakeConformanceTest() {
        super(TransportUnderTest.named(FakeBackend.NAME));
    }
}
