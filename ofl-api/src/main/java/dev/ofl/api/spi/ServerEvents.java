package dev.ofl.api.spi;

import dev.ofl.api.OflStatus;
import dev.ofl.api.wire.MessageHeader;
import dev.ofl.api.wire.WireStatus;

/**
 * The JFR events of one server connection: {@code dev.ofl.Handler}, one per handler invocation.
 * Used by the connection's thread.
 *
 * <p>Free when off: whether it is on is read from a probe instance made once per connection, so
 * nothing is allocated per request unless a recording enabled {@code dev.ofl.Handler}; then each
 * request allocates one event.
 */
final class ServerEvents {
    private final HandlerEvent handlerProbe = new HandlerEvent();
    private final String backend;
    private final String service;
    private final long connection;
    private final String peer;

    ServerEvents(String backend, String service, long connection, String peer) {
        this.backend = backend;
        this.service = service;
        this.connection = connection;
        this.peer = peer;
    }

    /** Starts timing a handler; {@code null} when the event is off. */
    HandlerEvent handlerStarting() {
        if (!handlerProbe.isEnabled()) {
            return null;
        }
        HandlerEvent event = new HandlerEvent();
        event.begin();
        return event;
    }

    /**
     * The handler of the request in {@code header} ended with {@code wireStatus}, having committed
     * {@code committed} bytes.
     */
    void handlerEnded(HandlerEvent event, MessageHeader header, int wireStatus, long committed) {
        if (event == null) {
            return;
        }
        event.end();
        if (event.shouldCommit()) {
            event.backend = backend;
            event.service = service;
            event.connection = connection;
            event.peer = peer;
            event.op = header.op();
            event.generation = header.generation();
            event.requestBytes = header.payloadLength();
            int status = WireStatus.toOflStatus(wireStatus);
            event.status = OflStatus.name(status);
            event.responseBytes = status == OflStatus.OK ? committed : 0;
            event.commit();
        }
    }
}
