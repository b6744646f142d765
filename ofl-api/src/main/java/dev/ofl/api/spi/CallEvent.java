package dev.ofl.api.spi;

import jdk.jfr.Category;
import jdk.jfr.DataAmount;
import jdk.jfr.Description;
import jdk.jfr.Enabled;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;

/**
 * One client call, from submit until await saw its outcome: the event's duration is the round
 * trip as the caller experienced it (a caller that awaits late adds its own delay). Off by
 * default because there is one per request; when off it costs one flag read per submit and
 * allocates nothing (see {@link ClientEvents}).
 */
@Name("dev.ofl.Call")
@Label("ofl Call")
@Category({"ofl", "Client"})
@Description("A request and its response, from submit until await saw the outcome")
@Enabled(false)
@StackTrace(false)
final class CallEvent extends jdk.jfr.Event {
    @Label("Backend")
    String backend;

    @Label("Server")
    String server;

    @Label("Op")
    int op;

    @Label("Generation")
    long generation;

    @Label("Ticket")
    long ticket;

    @Label("Status")
    @Description("OK, REFUSED, HANDLER_FAILED, TIMED_OUT, or LOST when the connection broke first")
    String status;

    @Label("Handler Status")
    @Description("The handler's non-zero status of a refusal, otherwise 0")
    int handlerStatus;

    @Label("Request Bytes")
    @DataAmount
    long requestBytes;

    @Label("Response Bytes")
    @DataAmount
    long responseBytes;
}
