package dev.ofl.verbs.rdma;

import dev.ofl.verbs.RtsParameters;
import java.util.Map;
import java.util.OptionalInt;

/** The backend properties, parsed and checked once. */
record RdmaSettings(String device, OptionalInt gidIndex, int timeout, int retryCount) {
    static final String DEVICE = "rdma.device";
    static final String GID_INDEX = "rdma.gidIndex";
    static final String TIMEOUT = "rdma.timeout";
    static final String RETRY_COUNT = "rdma.retryCount";

    static RdmaSettings from(Map<String, String> properties) {
        for (String key : properties.keySet()) {
            if (key.startsWith("rdma.") && !key.equals(DEVICE) && !key.equals(GID_INDEX) && !key.equals(TIMEOUT)
                    && !key.equals(RETRY_COUNT)) {
                throw new IllegalArgumentException("unknown RDMA property '" + key + "'; known: " + DEVICE + ", "
                        + GID_INDEX + ", " + TIMEOUT + ", " + RETRY_COUNT);
            }
        }
        String gid = properties.get(GID_INDEX);
        return new RdmaSettings(properties.get(DEVICE),
                gid == null ? OptionalInt.empty() : OptionalInt.of(number(GID_INDEX, gid, 0, 255)),
                number(TIMEOUT, properties.getOrDefault(TIMEOUT, "14"), 1, 31),
                number(RETRY_COUNT, properties.getOrDefault(RETRY_COUNT, "7"), 0, 7));
    }

    /** Retry a peer that is not ready to receive forever: bounded by the caller's own deadline. */
    static final int RNR_RETRY_FOREVER = 7;
    /** Six retries of the peer's RNR timer: long enough for any transient gap, then an error. */
    static final int RNR_RETRY_BOUNDED = 6;

    RtsParameters rts(int psn, int rnrRetry) {
        return new RtsParameters(psn, timeout, retryCount, rnrRetry, 1);
    }

    /**
     * How long a requester keeps retrying an unacknowledged packet before RETRY_EXC_ERR, by the
     * specification: 4.096 us x 2^timeout per try, retryCount + 1 tries.
     */
    long retryExhaustionNs() {
        return (4096L << timeout) * (retryCount + 1);
    }

    private static int number(String key, String value, int min, int max) {
        int n;
        try {
            n = Integer.parseInt(value.strip());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(key + " = '" + value + "' is not a number", e);
        }
        if (n < min || n > max) {
            throw new IllegalArgumentException(key + " = " + n + " is outside " + min + ".." + max);
        }
        return n;
    }
}
