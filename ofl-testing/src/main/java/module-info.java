/**
 * Test support for ofl: the {@code "fake"} backend, whose data path moves inside the process, with
 * fault injection through {@link dev.ofl.testing.FakeFaults}. Put it on a test class path or module
 * path and name the backend {@code "fake"} to test handlers and clients without a network or a
 * verbs device.
 */
module dev.ofl.testing {
    requires transitive dev.ofl.api;
    requires org.slf4j;

    exports dev.ofl.testing;

    provides dev.ofl.api.spi.OflBackend with dev.ofl.testing.FakeBackend;
}
