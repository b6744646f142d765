/**
 * The TCP backend of ofl: the whole ofl contract over one TCP connection per client, with
 * responses read from the socket straight into the caller's ranges.
 *
 * <p>Applications do not use this module's types: they name the backend {@code "tcp"} in their
 * {@link dev.ofl.api.ClientConfig} or {@link dev.ofl.api.ServerConfig}.
 */
module dev.ofl.tcp {
    requires dev.ofl.api;
    requires org.slf4j;

    provides dev.ofl.api.spi.OflBackend with dev.ofl.tcp.TcpBackend;
}
