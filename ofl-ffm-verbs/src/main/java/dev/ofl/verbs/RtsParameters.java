package dev.ofl.verbs;

/**
 * What moving an RC queue pair to ready-to-send needs. Immutable.
 *
 * @param psn our initial send packet sequence number (24 bits), sent to the peer as its
 *     {@link RtrParameters#remotePsn()}
 * @param timeout the local ACK timeout code: 4.096 us * 2^timeout (14 = 67 ms)
 * @param retryCount transport retries before a {@code IBV_WC_RETRY_EXC_ERR} (0..7)
 * @param rnrRetry receiver-not-ready retries (0..7; 7 = forever)
 * @param maxRdAtomic outstanding RDMA reads and atomics we may issue
 */
public record RtsParameters(int psn, int timeout, int retryCount, int rnrRetry, int maxRdAtomic) {
    /**
     * Validates the parameters.
     *
     * @param psn our initial PSN
     * @param timeout the ACK timeout code
     * @param retryCount transport retries
     * @param rnrRetry RNR retries
     * @param maxRdAtomic outgoing reads and atomics
     */
    public RtsParameters {
        RtrParameters.checkRange("PSN", psn, 0xff_ffff);
        RtrParameters.checkRange("timeout", timeout, 31);
        RtrParameters.checkRange("retry count", retryCount, 7);
        RtrParameters.checkRange("RNR retry", rnrRetry, 7);
        RtrParameters.checkRange("max_rd_atomic", maxRdAtomic, 0xff);
    }

    /**
     * Parameters with ofl's defaults: timeout 14 (67 ms), 7 retries, 7 RNR retries, one
     * outstanding read.
     *
     * @param psn our initial PSN
     * @return the parameters
     */
    public static RtsParameters defaults(int psn) {
        return new RtsParameters(psn, 14, 7, 7, 1);
    }
}
