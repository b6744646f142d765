package dev.ofl.api.spi;

import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;

/**
 * A client connection broken by a timeout, the peer's loss, a transport failure, a protocol
 * error or an interrupt: the same causes that {@link dev.ofl.api.ClientStatistics} counts, one
 * event per counted break. On by default.
 */
@Name("dev.ofl.ConnectionBroken")
@Label("ofl Connection Broken")
@Category({"ofl", "Client"})
@Description("A client connection broken; it stays broken until reconnect()")
@StackTrace(false)
final class ConnectionBrokenEvent extends jdk.jfr.Event {
    @Label("Backend")
    String backend;

    @Label("Server")
    String server;

    @Label("Cause")
    @Description("TIMEOUT, PEER_LOSS, TRANSPORT_FAILURE, PROTOCOL_ERROR, INTERRUPT, FREED_REGION or LINK_FAILURE")
    String cause;

    @Label("Reason")
    String reason;
}
