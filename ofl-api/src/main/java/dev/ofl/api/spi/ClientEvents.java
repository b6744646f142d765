package dev.ofl.api.spi;

import dev.ofl.api.ClientConfig;
import dev.ofl.api.OflStatus;
import dev.ofl.api.spi.ClientCounters.Counter;
import dev.ofl.api.wire.WireStatus;

/**
 * The JFR events of one client: {@code dev.ofl.Call}, {@code dev.ofl.Connect} and
 * {@code dev.ofl.ConnectionBroken}. Used by the thread using the client, like the session.
 *
 * <p>The per-call event is free when off: whether it is on is read from a probe instance made
 * once, so nothing is allocated per request unless a recording enabled {@code dev.ofl.Call}; then
 * each call allocates one event at submit, kept in its slot until the outcome is known.
 */
final class ClientEvents {
    private final CallEvent callProbe = new CallEvent();
    private final CallEvent[] calls;
    private final String server;
    private final String service;
    private final String backend;
    private ConnectEvent connecting;
    /** The cause of the current connection's break, for the calls it loses. */
    private Counter breakCause;

    ClientEvents(ClientConfig config, int slots) {
        this.calls = new CallEvent[slots];
        this.server = String.valueOf(config.server());
        this.service = config.serviceName();
        this.backend = config.backend();
    }

    void submitted(int slot, long ticket, int op, long generation, int payloadLength) {
        if (!callProbe.isEnabled()) {
            calls[slot] = null;
            return;
        }
        CallEvent event = new CallEvent();
        event.begin();
        event.backend = backend;
        event.server = server;
        event.ticket = ticket;
        event.op = op;
        event.generation = generation;
        event.requestBytes = payloadLength;
        calls[slot] = event;
    }

    /**
     * The call in {@code slot} ended: with a response when {@code done}, otherwise lost to the
     * connection's break.
     */
    void callEnded(int slot, boolean done, int wireStatus, int handlerStatus, long length) {
        CallEvent event = calls[slot];
        if (event == null) {
            return;
        }
        calls[slot] = null;
        event.end();
        if (event.shouldCommit()) {
            if (done) {
                int status = WireStatus.toOflStatus(wireStatus);
                event.status = OflStatus.name(status);
                event.handlerStatus = handlerStatus;
                event.responseBytes = status == OflStatus.OK ? length : 0;
            } else {
                event.status = breakCause == Counter.TIMEOUTS ? OflStatus.name(OflStatus.TIMED_OUT) : "LOST";
            }
            event.commit();
        }
    }

    void connecting() {
        ConnectEvent event = new ConnectEvent();
        if (event.isEnabled()) {
            event.begin();
            connecting = event;
        }
    }

    void connected(ClientTransport transport, boolean reconnect) {
        breakCause = null;
        endConnect(reconnect, transport.path(), "");
    }

    void connectFailed(boolean reconnect, Throwable failure) {
        endConnect(reconnect, "", String.valueOf(failure));
    }

    private void endConnect(boolean reconnect, String path, String failure) {
        ConnectEvent event = connecting;
        if (event == null) {
            return;
        }
        connecting = null;
        event.end();
        if (event.shouldCommit()) {
            event.backend = backend;
            event.server = server;
            event.service = service;
            event.reconnect = reconnect;
            event.path = path;
            event.failure = failure;
            event.commit();
        }
    }

    void broken(Counter cause, String reason) {
        breakCause = cause;
        ConnectionBrokenEvent event = new ConnectionBrokenEvent();
        if (event.shouldCommit()) {
            event.backend = backend;
            event.server = server;
            event.cause = switch (cause) {
                case TIMEOUTS -> "TIMEOUT";
                case PEER_LOSSES -> "PEER_LOSS";
                case TRANSPORT_FAILURES -> "TRANSPORT_FAILURE";
                case PROTOCOL_ERRORS -> "PROTOCOL_ERROR";
                case INTERRUPTS -> "INTERRUPT";
                case FREED_REGIONS -> "FREED_REGION";
                case LINK_FAILURES -> "LINK_FAILURE";
                default -> cause.name();
            };
            event.reason = reason;
            event.commit();
        }
    }
}
