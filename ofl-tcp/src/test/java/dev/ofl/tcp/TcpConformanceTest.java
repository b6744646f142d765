package dev.ofl.tcp;

import dev.ofl.conformance.OflConformanceSuite;
import dev.ofl.conformance.TransportUnderTest;

/** Runs every conformance behaviour against the TCP backend, in every wait mode, on the loopback address. */
class TcpConformanceTest extends OflConformanceSuite {
    TcpConformanceTest() {
        super(TransportUnderTest.named(TcpBackend.NAME));
    }
}
