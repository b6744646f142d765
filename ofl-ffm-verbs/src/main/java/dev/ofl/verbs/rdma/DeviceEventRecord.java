package dev.ofl.verbs.rdma;

import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;

/**
 * One asynchronous event of an RDMA device as ofl received it: a port that went down or came
 * back, a fatal device error, a GID table change, a queue pair's or completion queue's error,
 * with how many connections it broke. On by default: such events are rare and each matters.
 */
@Name("dev.ofl.DeviceEvent")
@Label("ofl Device Event")
@Category({"ofl", "RDMA"})
@Description("An asynchronous event of an RDMA device and the connections it broke")
@StackTrace(false)
final class DeviceEventRecord extends jdk.jfr.Event {
    @Label("Device")
    String device;

    @Label("Port")
    @Description("The port of a port event, 0 otherwise")
    int port;

    @Label("Event")
    @Description("The libibverbs event type, for example IBV_EVENT_PORT_ERR")
    String event;

    @Label("Connections Broken")
    @Description("Connections of this process on the device that the event broke")
    int connectionsBroken;

    @Label("Reason")
    @Description("What the broken connections report as their cause")
    String reason;
}
