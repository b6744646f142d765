package dev.ofl.testing;

import dev.ofl.conformance.OflConformanceSuite;

/** The conformance suite over the fake transport: the engine's behaviour without sockets or verbs. */
class FakeConformanceTest extends OflConformanceSuite {
    @Override
    protected String backend() {
        return FakeBackend.NAME;
    }
}
