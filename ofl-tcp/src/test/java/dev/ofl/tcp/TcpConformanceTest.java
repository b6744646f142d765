package dev.ofl.tcp;

import dev.ofl.conformance.OflConformanceSuite;

/** Runs the conformance suite against the TCP backend, in every wait mode, on the loopback address. */
class TcpConformanceTest extends OflConformanceSuite {
    @Override
    protected String backend() {
        return TcpBackend.NAME;
    }
}
