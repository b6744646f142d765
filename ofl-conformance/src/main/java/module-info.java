/**
 * The conformance suite every ofl backend runs: one transport-agnostic set of JUnit tests, written
 * against the public API only ({@link dev.ofl.api.Ofl#serve} and {@link dev.ofl.api.Ofl#connect}),
 * that a backend's test module subclasses with the backend's name.
 */
module dev.ofl.conformance {
    requires transitive dev.ofl.api;
    requires transitive org.junit.jupiter.api;
    requires org.junit.jupiter.params;

    exports dev.ofl.conformance;

    opens dev.ofl.conformance to org.junit.platform.commons;
}
