package dev.ofl.api;


/**
 * The server refused the connection during the bootstrap: service name, protocol version, limits
 * or transport do not match, or it is at its connection cap or shutting down. The message carries
 * the server's reason; {@link #code()} says which check failed.
 */
public class OflRefusedException extends OflException {
    private static final long serialVersionUID = 1L;

    private final RefusalCode code;

    /**
     * Creates the exception.
     *
     * @param code the check that failed
     * @param message the reason, including the values that did not match
     */
    public OflRefusedException(RefusalCode code, String message) {
        super(message);
        this.code = code;
    }

    /**
     * Which check refused the connection.
     *
     * @return the refusal code
     */
    public RefusalCode code() {
        return code;
    }
}
