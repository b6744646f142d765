package dev.ofl.api;

/**
 * The connection is broken: the peer closed or died, sent something that violates the protocol,
 * or an earlier timeout broke it. The client stays unusable until {@link OflClient#reconnect()}.
 */
public class OflConnectionException extends OflException {
    private static final long serialVersionUID = 1L;

    /**
     * Creates the exception.
     *
     * @param message what broke the connection
     */
    public OflConnectionException(String message) {
        super(message);
    }

    /**
     * Creates the exception with a cause.
     *
     * @param message what broke the connection
     * @param cause the underlying failure
     */
    public OflConnectionException(String message, Throwable cause) {
        super(message, cause);
    }
}
