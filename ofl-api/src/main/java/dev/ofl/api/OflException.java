package dev.ofl.api;

/**
 * Base of the exceptions ofl throws: configuration errors, refused connections and broken
 * connections. Hot-path outcomes such as a timeout or a handler refusal are status values, not
 * exceptions (see {@link OflStatus}).
 */
public class OflException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /**
     * Creates an exception with a message that says what failed, with which values, and the fix.
     *
     * @param message the description
     */
    public OflException(String message) {
        super(message);
    }

    /**
     * Creates an exception with a message and a cause.
     *
     * @param message the description
     * @param cause the underlying failure
     */
    public OflException(String message, Throwable cause) {
        super(message, cause);
    }
}
