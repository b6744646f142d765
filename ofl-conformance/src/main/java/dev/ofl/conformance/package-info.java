/**
 * The conformance suite: one transport-agnostic set of JUnit tests that every ofl backend runs,
 * written against the public API only ({@link dev.ofl.api.Ofl#serve} and
 * {@link dev.ofl.api.Ofl#connect}, by backend name).
 *
 * <h2>Layout</h2>
 * Each behaviour is a class: echo and ranges, refusal and handler failure, timeouts and late
 * writes, reconnect, limits and bootstrap, concurrency, shutdown, server statistics, and threading
 * and lifecycle (a client shared by two threads, awaiting a server). They share
 * one fixture (servers, clients and sentinel-filled region memory, closed after each test), one set
 * of test handlers with their op codes (distinct, checked when the codes load), and one set of
 * byte checks. {@link dev.ofl.conformance.OflConformanceSuite} runs every behaviour as a nested
 * class for the backend that {@link dev.ofl.conformance.TransportUnderTest} describes.
 *
 * <h2>Adding a backend</h2>
 * In the backend's test sources, one class whose name surefire picks up:
 *
 * <pre>{@code
 * class FakeConformanceTest extends OflConformanceSuite {
 *     FakeConformanceTest() {
 *         super(TransportUnderTest.named("fake"));
 *     }
 * }
 * }</pre>
 *
 * The backend must be on the test class path under that name ({@link dev.ofl.api.Ofl#backends()}),
 * serve on the explicit address the description carries (127.0.0.1 by default), and answer the
 * bootstrap of {@code docs/PROTOCOL.md} on its server's {@code localAddress()} (the statistics
 * behaviour sends a malformed HELLO there). Backend-specific settings go in the description:
 * client and server properties, the address, the wait modes, the idle strategy, and whether the
 * backend serves IPv6 or documents refusing it ({@link dev.ofl.conformance.TransportUnderTest#refusingIpv6()}).
 *
 * <h2>Adding a behaviour</h2>
 * A package-private abstract class extending {@code ConformanceBehaviour}, whose tests use its
 * {@code fixture}, and one nested class for it in {@code OflConformanceSuite}; every backend then
 * runs it.
 */
package dev.ofl.conformance;
