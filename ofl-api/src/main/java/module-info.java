/**
 * The ofl API: a client asks a neighbour server {@code (op, generation, payload)} and gets back
 * {@code (status, bytes)}, with the bytes placed straight into memory the caller registered.
 *
 * <p>Applications use {@link dev.ofl.api}; transport backends implement {@link dev.ofl.api.spi}
 * and share the wire codec in {@link dev.ofl.api.wire}.
 */
module dev.ofl.api {
    requires org.slf4j;
    // Not static: the sessions touch their JFR event types on every call, so jdk.jfr must be
    // resolved whenever ofl-api is (and a jlink image must contain it).
    requires jdk.jfr;

    exports dev.ofl.api;
    exports dev.ofl.api.spi;
    exports dev.ofl.api.wire;

    uses dev.ofl.api.spi.OflBackend;
}
