/**
 * Test support: the {@code "fake"} backend ({@link dev.ofl.testing.FakeBackend}) and the faults it
 * can inject ({@link dev.ofl.testing.FakeFaults}).
 *
 * <pre>{@code
 * FakeFaults.of("rows").dropResponses(1);
 * try (OflServer server = Ofl.serve(ServerConfig.builder().backend("fake")
 *         .bind(new InetSocketAddress("127.0.0.1", 0)).serviceName("rows").build(), handler);
 *      OflClient client = Ofl.connect(ClientConfig.builder().backend("fake")
 *         .server(server.localAddress()).serviceName("rows").build())) {
 *     // the first call times out; the client is broken until reconnect()
 * }
 * }</pre>
 */
package dev.ofl.testing;
