package dev.ofl.api.spi;

import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;

/**
 * A client's connect or reconnect, successful or not; its duration is the connect (bootstrap
 * included). On by default: there is one per connection.
 */
@Name("dev.ofl.Connect")
@Label("ofl Connect")
@Category({"ofl", "Client"})
@Description("A client connecting or reconnecting to its server")
@StackTrace(false)
final class ConnectEvent extends jdk.jfr.Event {
    @Label("Backend")
    String backend;

    @Label("Server")
    String server;

    @Label("Service")
    String service;

    @Label("Reconnect")
    @Description("False for the client's first connection, true for reconnect()")
    boolean reconnect;

    @Label("Path")
    @Description("What the backend chose for the connection: for rdma the device, port and GID")
    String path;

    @Label("Failure")
    @Description("Why the connect failed; empty when it succeeded")
    String failure;
}
