package dev.ofl.api.wire;

/**
 * A message read from the wire broke the protocol or exceeded a negotiated limit. The message names
 * the field and the offending value. The connection that sent it is closed; nothing read from it is
 * used.
 */
public final class ProtocolException extends Exception {
    private static final long serialVersionUID = 1L;

    private final String field;
    private final long value;

    /**
     * Creates the exception.
     *
     * @param field the field that failed its check
     * @param value the value read
     * @param rule what the value should have been
     */
    public ProtocolException(String field, long value, String rule) {
        super(field + " = " + value + ": " + rule);
        this.field = field;
        this.value = value;
    }

    /**
     * The field that failed its check.
     *
     * @return the field's name as in {@code docs/PROTOCOL.md}
     */
    public String field() {
        return field;
    }

    /**
     * The value read.
     *
     * @return the offending value
     */
    public long value() {
        return value;
    }
}
