package dev.ofl.verbs;

import java.util.Objects;

/**
 * What moving an RC queue pair to ready-to-receive needs: the peer's queue pair and the path to
 * it. On RoCE the address vector is always global (GRH with the peer's GID). Immutable.
 *
 * @param remoteQpNumber the peer's queue pair number (24 bits)
 * @param remotePsn the peer's initial send packet sequence number (24 bits), our {@code rq_psn}
 * @param pathMtu the path MTU code, see {@link PathMtu#pathMtu(int, int)}
 * @param remoteGid the peer's GID
 * @param sgidIndex our GID index, see {@link GidSelector}
 * @param port our port number, from 1
 * @param hopLimit the GRH hop limit
 * @param trafficClass the GRH traffic class (DSCP and ECN bits)
 * @param maxDestRdAtomic outstanding RDMA reads and atomics the peer may send us
 * @param minRnrTimer the receiver-not-ready NAK timer code (12 = 0.64 ms)
 */
public record RtrParameters(int remoteQpNumber, int remotePsn, int pathMtu, Gid remoteGid, int sgidIndex, int port,
        int hopLimit, int trafficClass, int maxDestRdAtomic, int minRnrTimer) {
    /**
     * Validates the parameters.
     *
     * @param remoteQpNumber the peer's queue pair number
     * @param remotePsn the peer's initial PSN
     * @param pathMtu the path MTU code
     * @param remoteGid the peer's GID
     * @param sgidIndex our GID index
     * @param port our port
     * @param hopLimit the hop limit
     * @param trafficClass the traffic class
     * @param maxDestRdAtomic incoming reads and atomics
     * @param minRnrTimer the RNR NAK timer code
     */
    public RtrParameters {
        Objects.requireNonNull(remoteGid, "remoteGid");
        checkRange("remote QP number", remoteQpNumber, 0xff_ffff);
        checkRange("remote PSN", remotePsn, 0xff_ffff);
        PathMtu.toBytes(pathMtu);
        checkRange("source GID index", sgidIndex, 0xff);
        checkRange("port", port, 0xff);
        checkRange("hop limit", hopLimit, 0xff);
        checkRange("traffic class", trafficClass, 0xff);
        checkRange("max_dest_rd_atomic", maxDestRdAtomic, 0xff);
        checkRange("min_rnr_timer", minRnrTimer, 31);
    }

    /**
     * Parameters for a RoCE peer with ofl's defaults: hop limit 64, traffic class 0, one
     * outstanding incoming read, RNR timer 12 (0.64 ms).
     *
     * @param remoteQpNumber the peer's queue pair number
     * @param remotePsn the peer's initial PSN
     * @param pathMtu the path MTU code
     * @param remoteGid the peer's GID
     * @param sgidIndex our GID index
     * @param port our port
     * @return the parameters
     */
    public static RtrParameters roce(int remoteQpNumber, int remotePsn, int pathMtu, Gid remoteGid, int sgidIndex,
            int port) {
        return new RtrParameters(remoteQpNumber, remotePsn, pathMtu, remoteGid, sgidIndex, port, 64, 0, 1, 12);
    }

    static void checkRange(String what, int value, int max) {
        if (value < 0 || value > max) {
            throw new IllegalArgumentException(what + " " + value + " is outside 0.." + max);
        }
    }
}
