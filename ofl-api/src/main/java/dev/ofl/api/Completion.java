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

    /** Creates an empty holder. */
    public Completion() {
    }

    // Package-private so that only the engine, through ApiAccess, reports an outcome.
    void set(long ticket, int status, int handlerStatus, long responseLength) {
        this.ticket = ticket;
        this.status = status;
        this.handlerStatus = handlerStatus;
        this.responseLength = responseLength;
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

    @Override
    public String toString() {
        return "Completion[ticket=" + ticket + ", status=" + OflStatus.name(status)
                + ", handlerStatus=" + handlerStatus + ", responseLength=" + responseLength + "]";
    }
}
