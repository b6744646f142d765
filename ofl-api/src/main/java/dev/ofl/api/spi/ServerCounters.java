package dev.ofl.api.spi;

import dev.ofl.api.ServerStatistics;
import java.util.concurrent.atomic.LongAdder;

/**
 * The counters behind {@link dev.ofl.api.OflServer#statistics()}, updated by connection threads.
 * Thread-safe and allocation-free to update.
 */
public final class ServerCounters {
    private final LongAdder connectionsAccepted = new LongAdder();
    private final LongAdder connectionsRefused = new LongAdder();
    private final LongAdder requests = new LongAdder();
    private final LongAdder refusals = new LongAdder();
    private final LongAdder handlerFailures = new LongAdder();
    private final LongAdder protocolViolations = new LongAdder();
    private final LongAdder undeliveredResponses = new LongAdder();
    private final LongAdder busyResponses = new LongAdder();
    private final LongAdder sendTimeouts = new LongAdder();
    private final LongAdder linkFailures = new LongAdder();

    /** Creates zeroed counters. */
    public ServerCounters() {
    }

    void connectionAccepted() {
        connectionsAccepted.increment();
    }

    void connectionRefused() {
        connectionsRefused.increment();
    }

    /**
     * Counts a request handed to the handler, with its outcome.
     *
     * @param outcome a {@link dev.ofl.api.wire.WireStatus} value
     */
    public void request(int outcome) {
        requests.increment();
        switch (outcome) {
            case dev.ofl.api.wire.WireStatus.REFUSED -> refusals.increment();
            case dev.ofl.api.wire.WireStatus.HANDLER_FAILED -> handlerFailures.increment();
            default -> {
            }
        }
    }

    /** Counts a connection closed for a protocol or limit violation. */
    public void protocolViolation() {
        protocolViolations.increment();
    }

    /** Counts a response the client's side did not accept. */
    public void undeliveredResponse() {
        undeliveredResponses.increment();
    }

    /** Counts a request answered BUSY because no staging could be had for it; its handler did not run. */
    public void busyResponse() {
        busyResponses.increment();
    }

    /** Counts a connection broken because its response could not be sent within the send timeout. */
    void sendTimeout() {
        sendTimeouts.increment();
    }

    /** Counts a connection broken because the device said its link failed. */
    void linkFailure() {
        linkFailures.increment();
    }

    /**
     * Reads the counters.
     *
     * @return a snapshot
     */
    public ServerStatistics snapshot() {
        return new ServerStatistics(connectionsAccepted.sum(), connectionsRefused.sum(), requests.sum(),
                refusals.sum(), handlerFailures.sum(), protocolViolations.sum(), undeliveredResponses.sum(),
                busyResponses.sum(), sendTimeouts.sum(), linkFailures.sum());
    }
}
