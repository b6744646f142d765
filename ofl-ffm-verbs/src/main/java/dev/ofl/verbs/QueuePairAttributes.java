package dev.ofl.verbs;

/**
 * What the device reports of a connected queue pair ({@code ibv_query_qp}): the values the
 * connection actually runs with, as opposed to what was asked for.
 *
 * @param state an {@code IBV_QPS_*} value of {@link dev.ofl.verbs.ffm.ibv_qp_state}
 * @param pathMtu the path MTU, an {@code IBV_MTU_*} code (see {@link PathMtu#toBytes})
 * @param destQpNumber the peer's queue pair number
 * @param sendPsn the next packet sequence number this side sends ({@code sq_psn})
 * @param receivePsn the next packet sequence number this side expects ({@code rq_psn})
 * @param timeout the local ACK timeout code: 4.096 µs × 2^timeout per try
 * @param retryCount how often an unacknowledged packet is sent again ({@code retry_cnt})
 * @param rnrRetry how often a receiver-not-ready NAK is retried ({@code rnr_retry}; 7: for ever)
 * @param minRnrTimer the RNR NAK timer code this side asks peers to wait ({@code min_rnr_timer})
 */
public record QueuePairAttributes(int state, int pathMtu, int destQpNumber, int sendPsn, int receivePsn,
        int timeout, int retryCount, int rnrRetry, int minRnrTimer) {
}
