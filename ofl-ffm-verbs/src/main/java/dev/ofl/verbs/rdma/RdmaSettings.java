package dev.ofl.verbs.rdma;

import dev.ofl.api.Limits;
import dev.ofl.verbs.RtsParameters;
import java.util.Map;
import java.util.OptionalInt;

/** The backend properties, parsed and checked once. */
record RdmaSettings(String device, OptionalInt gidIndex, int timeout, int retryCount, int blockingSpinMicros,
        int inlineRequestBytes) {
    static final String DEVICE = "rdma.device";
    static final String GID_INDEX = "rdma.gidIndex";
    static final String TIMEOUT = "rdma.timeout";
    static final String RETRY_COUNT = "rdma.retryCount";
    static final String BLOCKING_SPIN_MICROS = "rdma.blockingSpinMicros";
    static final String INLINE_REQUEST_BYTES = "rdma.inlineRequestBytes";

    /**
     * A server's receive slots hold request payloads up to this many bytes; a client that offers
     * it sends larger ones by descriptor and the server reads them (docs/PROTOCOL.md 7.3). With
     * the client defaults (16 ranges, 8 in flight) a connection then commits 51,712 bytes instead
     * of 2 MiB; a request above it costs one more round trip, the READ.
     */
    static final int DEFAULT_INLINE_REQUEST_BYTES = 4096;

    /**
     * How long a BLOCKING server connection keeps polling after its last completion before it
     * parks. None by default: with a software provider (softverbs, rxe) the spin takes the CPU the
     * provider needs to deliver the very request it waits for, and measured slower there (64 B
     * echo p50 93-111 us against 67-76 us without); on a hardware NIC, which needs no CPU to
     * deliver, a spin of about one client round trip saves the park and the wake-up.
     */
    static final int DEFAULT_BLOCKING_SPIN_MICROS = 0;

    /**
     * Six retries: with the default timeout a write to a peer that stopped answering fails after
     * 7 × 4.096 µs × 2^14 ≈ 0.47 s.
     */
    static final int DEFAULT_RETRY_COUNT = 6;

    static RdmaSettings from(Map<String, String> properties) {
        for (String key : properties.keySet()) {
            if (key.startsWith("rdma.") && !key.equals(DEVICE) && !key.equals(GID_INDEX) && !key.equals(TIMEOUT)
                    && !key.equals(RETRY_COUNT) && !key.equals(BLOCKING_SPIN_MICROS)
                    && !key.equals(INLINE_REQUEST_BYTES)) {
                throw new IllegalArgumentException("unknown RDMA property '" + key + "'; known: " + DEVICE + ", "
                        + GID_INDEX + ", " + TIMEOUT + ", " + RETRY_COUNT + ", " + BLOCKING_SPIN_MICROS + ", "
                        + INLINE_REQUEST_BYTES);
            }
        }
        String gid = properties.get(GID_INDEX);
        return new RdmaSettings(properties.get(DEVICE),
                gid == null ? OptionalInt.empty() : OptionalInt.of(number(GID_INDEX, gid, 0, 255)),
                number(TIMEOUT, properties.getOrDefault(TIMEOUT, "14"), 1, 31),
                retryCount(properties.getOrDefault(RETRY_COUNT, Integer.toString(DEFAULT_RETRY_COUNT))),
                number(BLOCKING_SPIN_MICROS, properties.getOrDefault(BLOCKING_SPIN_MICROS,
                        Integer.toString(DEFAULT_BLOCKING_SPIN_MICROS)), 0, 10_000),
                number(INLINE_REQUEST_BYTES, properties.getOrDefault(INLINE_REQUEST_BYTES,
                        Integer.toString(DEFAULT_INLINE_REQUEST_BYTES)), 0, Limits.MAX_REQUEST_BYTES));
    }

    /**
     * Seven is refused, not passed on: the IB spec reads it as seven retries, but some providers
     * read it as "retry for ever" and would never report a dead peer
     * (rxe_comp.c decrements its retry counter only when it is not 7:
     * https://github.com/torvalds/linux/blob/master/drivers/infiniband/sw/rxe/rxe_comp.c).
     */
    private static int retryCount(String value) {
        if (number(RETRY_COUNT, value, Integer.MIN_VALUE, Integer.MAX_VALUE) == 7) {
            throw new IllegalArgumentException(RETRY_COUNT + " = 7 is refused: some providers (the Linux kernel's"
                    + " soft-RoCE driver rxe among them) read a retry count of 7 as 'retry for ever', so a peer that"
                    + " stopped answering would never be reported and a late response would hold its connection"
                    + " for good; use 0..6 (default " + DEFAULT_RETRY_COUNT + ") and a larger " + TIMEOUT
                    + " if the transport must wait longer");
        }
        return number(RETRY_COUNT, value, 0, 6);
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
