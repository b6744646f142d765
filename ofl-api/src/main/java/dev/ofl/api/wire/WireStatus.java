package dev.ofl.api.wire;

import dev.ofl.api.OflStatus;

/** Values of a RESPONSE header's {@code status} field: the transport's outcome of a request. */
public final class WireStatus {
    /** The handler completed; {@code responseLength} bytes were placed. */
    public static final int OK = 0;
    /** The handler refused; {@code handlerStatus} carries its non-zero value; no data. */
    public static final int REFUSED = 1;
    /** The handler threw; no data. */
    public static final int HANDLER_FAILED = 2;
    /**
     * The server had no response staging memory for the request within its bound; the handler did
     * not run; no data, no handler status. The connection stays open.
     */
    public static final int BUSY = 3;

    private WireStatus() {
    }

    /**
     * Maps a wire status to the value {@code await} returns.
     *
     * @param wireStatus a checked wire status
     * @return the matching {@link OflStatus} value
     */
    public static int toOflStatus(int wireStatus) {
        return switch (wireStatus) {
            case OK -> OflStatus.OK;
            case REFUSED -> OflStatus.REFUSED;
            case HANDLER_FAILED -> OflStatus.HANDLER_FAILED;
            case BUSY -> OflStatus.BUSY;
            default -> throw new IllegalArgumentException("unchecked wire status " + wireStatus);
        };
    }
}
