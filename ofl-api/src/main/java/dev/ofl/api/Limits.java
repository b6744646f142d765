package dev.ofl.api;

/**
 * The bounded capacities of one connection: set up front, negotiated in the bootstrap, and
 * enforced on every message read from the wire.
 *
 * <p>A client proposes its limits; the server accepts them only if each is within its own maximum,
 * and then both sides use the client's values (the server refuses the connection otherwise, naming
 * the field). Every value is checked against the protocol's hard caps when constructed.
 *
 * @param maxRequestBytes largest request payload, in bytes ({@code 0..}{@value #MAX_REQUEST_BYTES})
 * @param maxResponseBytes largest response, in bytes ({@code 0..}{@value #MAX_RESPONSE_BYTES})
 * @param maxRanges most destination ranges in one request ({@code 1..}{@value #MAX_RANGES})
 * @param maxInFlight most requests submitted and not yet completed
 *     ({@code 1..}{@value #MAX_IN_FLIGHT})
 */
public record Limits(int maxRequestBytes, int maxResponseBytes, int maxRanges, int maxInFlight) {
    /** Protocol cap on {@link #maxRequestBytes()}: 64 MiB. */
    public static final int MAX_REQUEST_BYTES = 64 << 20;
    /** Protocol cap on {@link #maxResponseBytes()}: 1 GiB. */
    public static final int MAX_RESPONSE_BYTES = 1 << 30;
    /** Protocol cap on {@link #maxRanges()}. */
    public static final int MAX_RANGES = 16;
    /** Protocol cap on {@link #maxInFlight()}. */
    public static final int MAX_IN_FLIGHT = 1024;

    /** A client's defaults: 256 KiB requests, 16 MiB responses, 16 ranges, 8 in flight. */
    public static final Limits CLIENT_DEFAULTS = new Limits(256 << 10, 16 << 20, MAX_RANGES, 8);
    /**
     * A server's default maxima: 1 MiB requests, 32 MiB responses (half the default staging budget, so
     * that one connection holding its largest response leaves the other half to the rest), 16
     * ranges, 64 in flight.
     */
    public static final Limits SERVER_DEFAULTS = new Limits(1 << 20, 32 << 20, MAX_RANGES, 64);

    /**
     * Checks every value against the protocol's caps.
     *
     * @throws IllegalArgumentException naming the field, its value and the allowed range
     */
    public Limits {
        check("maxRequestBytes", maxRequestBytes, 0, MAX_REQUEST_BYTES);
        check("maxResponseBytes", maxResponseBytes, 0, MAX_RESPONSE_BYTES);
        check("maxRanges", maxRanges, 1, MAX_RANGES);
        check("maxInFlight", maxInFlight, 1, MAX_IN_FLIGHT);
    }

    private static void check(String field, long value, long min, long max) {
        if (value < min || value > max) {
            throw new IllegalArgumentException(
                    field + " = " + value + " is outside the protocol's range " + min + ".." + max);
        }
    }

    /**
     * Says why these (proposed) limits do not fit within a server's maxima.
     *
     * @param maxima the server's limits
     * @return {@code null} when every value fits, otherwise a sentence naming the first field that
     *     does not, with both values
     */
    public String exceeds(Limits maxima) {
        if (maxRequestBytes > maxima.maxRequestBytes) {
            return "maxRequestBytes " + maxRequestBytes + " exceeds the server's " + maxima.maxRequestBytes;
        }
        if (maxResponseBytes > maxima.maxResponseBytes) {
            return "maxResponseBytes " + maxResponseBytes + " exceeds the server's " + maxima.maxResponseBytes;
        }
        if (maxRanges > maxima.maxRanges) {
            return "maxRanges " + maxRanges + " exceeds the server's " + maxima.maxRanges;
        }
        if (maxInFlight > maxima.maxInFlight) {
            return "maxInFlight " + maxInFlight + " exceeds the server's " + maxima.maxInFlight;
        }
        return null;
    }
}
