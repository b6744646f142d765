package dev.ofl.api;

/**
 * Status values returned on the hot path by {@link OflClient#submit} and {@link OflClient#await}.
 *
 * <p>{@code submit} returns a ticket ({@code >= 0}) or a negative value below. {@code await}
 * returns {@link #OK}, {@link #REFUSED}, {@link #HANDLER_FAILED}, {@link #BUSY} or {@link #TIMED_OUT}.
 */
public final class OflStatus {
    /** The request completed; {@link Completion#responseLength()} bytes were placed. */
    public static final int OK = 0;
    /**
     * The server's handler refused the request with a non-zero status, available as
     * {@link Completion#handlerStatus()}. No response bytes are to be trusted; the connection
     * stays usable.
     */
    public static final int REFUSED = 1;
    /**
     * The server's handler failed (threw) while handling the request. No response bytes are to be
     * trusted; the connection stays usable.
     */
    public static final int HANDLER_FAILED = 2;
    /**
     * The deadline passed first. The connection was broken <em>before</em> this value was returned,
     * so no byte of this or any other outstanding response can land afterwards. Other outstanding
     * tickets whose responses had fully arrived can still be awaited; the rest are lost. The client
     * stays broken until {@link OflClient#reconnect()}.
     */
    public static final int TIMED_OUT = 3;
    /**
     * Returned by {@code submit} when the negotiated number of requests is already in flight:
     * await an earlier ticket first. Nothing was sent.
     */
    public static final int IN_FLIGHT_FULL = -1;
    /**
     * The server had no response staging memory free for this request within its bound
     * ({@code ServerConfig.stagingTimeout}), so its handler did not run and nothing was placed.
     * The connection stays usable; the request may be retried.
     */
    public static final int BUSY = 4;
    /**
     * Returned by {@code OflClient.poll} when the ticket's outcome has not arrived yet and its
     * deadline has not passed: the ticket stays outstanding; poll again or await it.
     */
    public static final int PENDING = -2;

    private OflStatus() {
    }

    /**
     * Names a status value for logs and messages.
     *
     * @param status a value returned by {@code submit} or {@code await}
     * @return its constant's name, or {@code "UNKNOWN(n)"}
     */
    public static String name(int status) {
        return switch (status) {
            case OK -> "OK";
            case REFUSED -> "REFUSED";
            case HANDLER_FAILED -> "HANDLER_FAILED";
            case TIMED_OUT -> "TIMED_OUT";
            case IN_FLIGHT_FULL -> "IN_FLIGHT_FULL";
            case BUSY -> "BUSY";
            case PENDING -> "PENDING";
            default -> "UNKNOWN(" + status + ")";
        };
    }
}
