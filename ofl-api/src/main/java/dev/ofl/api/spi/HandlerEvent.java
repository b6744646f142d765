package dev.ofl.api.spi;

import jdk.jfr.Category;
import jdk.jfr.DataAmount;
import jdk.jfr.Description;
import jdk.jfr.Enabled;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;

/**
 * One handler invocation on a server connection; its duration is the handler's run (pieces it
 * committed that were sent meanwhile included, the completion excluded). Off by default because
 * there is one per request; when off it costs one flag read per request and allocates nothing.
 */
@Name("dev.ofl.Handler")
@Label("ofl Handler")
@Category({"ofl", "Server"})
@Description("A server handler's run for one request")
@Enabled(false)
@StackTrace(false)
final class HandlerEvent extends jdk.jfr.Event {
    @Label("Backend")
    String backend;

    @Label("Service")
    String service;

    @Label("Connection")
    @Description("The server's number for the connection, as its log lines name it")
    long connection;

    @Label("Peer")
    String peer;

    @Label("Op")
    int op;

    @Label("Generation")
    long generation;

    @Label("Status")
    @Description("OK, REFUSED or HANDLER_FAILED")
    String status;

    @Label("Request Bytes")
    @DataAmount
    long requestBytes;

    @Label("Response Bytes")
    @DataAmount
    @Description("The bytes the handler committed; 0 unless the status is OK")
    long responseBytes;
}
