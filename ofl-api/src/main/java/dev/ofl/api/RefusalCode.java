package dev.ofl.api;

/** Why a server refused a connection: the {@code status} of a WELCOME. */
public enum RefusalCode {
    /** Accepted. */
    ACCEPTED(0),
    /** The client named another service. */
    SERVICE_MISMATCH(1),
    /** The client speaks another protocol version. */
    VERSION_MISMATCH(2),
    /** A proposed limit exceeds the server's maximum. */
    LIMITS_EXCEEDED(3),
    /** The client asked for another transport than the server runs. */
    TRANSPORT_MISMATCH(4),
    /** The server is at its connection cap. */
    SERVER_BUSY(5),
    /** The HELLO was malformed. */
    MALFORMED(6),
    /** The server is shutting down. */
    SHUTTING_DOWN(7),
    /** The server could not set up its side of the transport (for RDMA: its queue pair). */
    TRANSPORT_SETUP_FAILED(8),
    /** The HELLO carried a critical extension the server does not understand. */
    UNSUPPORTED_EXTENSION(9),
    /** The server requires peer authentication and the HELLO did not offer it. */
    AUTHENTICATION_REQUIRED(10),
    /** The client named a key id the server does not hold, or its proof of the key was wrong. */
    AUTHENTICATION_FAILED(11);

    private final int wire;

    RefusalCode(int wire) {
        this.wire = wire;
    }

    /**
     * The value on the wire.
     *
     * @return the u16 status value
     */
    public int wire() {
        return wire;
    }

    /**
     * Finds a code by its wire value.
     *
     * @param wire the value read
     * @return the code, or {@code null} if unknown
     */
    public static RefusalCode fromWire(int wire) {
        for (RefusalCode code : values()) {
            if (code.wire == wire) {
                return code;
            }
        }
        return null;
    }
}
