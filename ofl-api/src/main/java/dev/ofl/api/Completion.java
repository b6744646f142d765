package dev.ofl.api;

import dev.ofl.api.internal.ApiAccess;

/**
 * A reusable holder that {@link OflClient#await} fills with the outcome of one request, so that the
 * hot path allocates nothing. Not thread-safe: owned by the thread that uses the client.
 */
public final class Completion {
    static {
        ApiAccess.install(new EngineMembers());
    }

    private long ticket = -1;
    private int status = -1;
    private int handlerStatus;
    private long responseLength;
    private String failureReason;

    /** Creates an empty holder. */
    public Completion() {
    }

    // Package-private so that only the engine, through ApiAccess, reports an outcome.
    void set(long ticket, int status, int handlerStatus, long responseLength, String failureReason) {
        this.ticket = ticket;
        this.status = status;
        this.handlerStatus = handlerStatus;
        this.responseLength = responseLength;
        this.failureReason = failureReason;
    }

    /**
     * The ticket this outcome belongs to.
     *
     * @return the ticket, or -1 before the first fill
     */
    public long ticket() {
        return ticket;
    }

    /**
     * The outcome, as {@code await} returned it.
     *
     * @return an {@link OflStatus} value
     */
    public int status() {
        return status;
    }

    /**
     * The handler's refusal status.
     *
     * @return the non-zero value the handler returned when {@link #status()} is
     *     {@link OflStatus#REFUSED}, otherwise zero
     */
    public int handlerStatus() {
        return handlerStatus;
    }

    /**
     * How many response bytes were placed, laid across the request's ranges in order. Only this
     * many bytes are to be trusted.
     *
     * @return the response length in bytes; zero unless {@link #status()} is {@link OflStatus#OK}
     */
    public long responseLength() {
        return responseLength;
    }

    /**
     * Why the server's handler failed, as the server told it: the exception's class name and
     * message, read from at most 256 bytes, control characters escaped (docs/PROTOCOL.md 4.6). The server
     * places it in the request's ranges, the first bytes of which it then overwrote; the text here
     * is a copy, read once when the outcome was filled.
     *
     * @return the reason when {@link #status()} is {@link OflStatus#HANDLER_FAILED} and the server
     *     sent one; {@code null} otherwise (an older server, one configured not to send reasons
     *     ({@link ServerConfig.Builder#failureReasons(boolean)}), a request without ranges, or a
     *     handler that failed after part of the response had been sent)
     */
    public String failureReason() {
        return failureReason;
    }

    @Override
    public String toString() {
        return "Completion[ticket=" + ticket + ", status=" + OflStatus.name(status)
                + ", handlerStatus=" + handlerStatus + ", responseLength=" + responseLength
                + (failureReason == null ? "" : ", failureReason=" + failureReason) + "]";
    }
}
