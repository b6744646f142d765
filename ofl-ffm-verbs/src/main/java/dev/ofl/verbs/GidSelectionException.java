package dev.ofl.verbs;

/**
 * No usable RoCE v2 GID for the bound address; {@link #reason()} says why and the message names
 * the fix. Thrown by {@link GidSelector}. Immutable.
 */
public final class GidSelectionException extends VerbsException {
    private static final long serialVersionUID = 1L;

    /** Why no GID was selected. */
    public enum Reason {
        /** The address is the wildcard; a server must bind an explicit address. */
        WILDCARD_ADDRESS,
        /** No local interface has the address. */
        ADDRESS_NOT_LOCAL,
        /** No GID table entry carries the address. */
        NO_GID_FOR_ADDRESS,
        /** Only RoCE v1 (or IB) entries carry the address. */
        ROCE_V1_ONLY,
        /** RoCE v2 entries carry the address, but for another netdev than the one that owns it. */
        NETDEV_MISMATCH,
        /** The port of the matching entry is not active. */
        PORT_DOWN,
        /** The configured GID index override does not carry the address as RoCE v2. */
        OVERRIDE_MISMATCH
    }

    private final Reason reason;

    GidSelectionException(Reason reason, String values, String fix) {
        super(null, NO_CODE, NO_CODE, values, fix, null);
        this.reason = reason;
    }

    /**
     * Returns why no GID was selected.
     *
     * @return the reason
     */
    public Reason reason() {
        return reason;
    }
}
