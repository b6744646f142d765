package dev.ofl.verbs;

import dev.ofl.verbs.ffm.ibv_qp_cap;

import java.lang.foreign.MemorySegment;

/**
 * Queue pair capacities ({@code struct ibv_qp_cap}): requested at creation, and the actual values
 * the device granted afterwards (which may be larger). Immutable.
 *
 * @param maxSendWr outstanding send work requests
 * @param maxRecvWr outstanding receive work requests
 * @param maxSendSge scatter/gather entries per send work request
 * @param maxRecvSge scatter/gather entries per receive work request
 * @param maxInlineData bytes a send can carry inline
 */
public record QueuePairCapabilities(int maxSendWr, int maxRecvWr, int maxSendSge, int maxRecvSge, int maxInlineData) {
    /**
     * Validates the capacities.
     *
     * @param maxSendWr outstanding send work requests, at least 1
     * @param maxRecvWr outstanding receive work requests, at least 1
     * @param maxSendSge scatter/gather entries per send, at least 1
     * @param maxRecvSge scatter/gather entries per receive, at least 1
     * @param maxInlineData inline bytes, at least 0
     */
    public QueuePairCapabilities {
        if (maxSendWr < 1 || maxRecvWr < 1 || maxSendSge < 1 || maxRecvSge < 1 || maxInlineData < 0) {
            throw new IllegalArgumentException("queue pair capacities must be positive (inline data may be 0): " + this);
        }
    }

    static QueuePairCapabilities read(MemorySegment cap) {
        return new QueuePairCapabilities(ibv_qp_cap.max_send_wr(cap), ibv_qp_cap.max_recv_wr(cap),
                ibv_qp_cap.max_send_sge(cap), ibv_qp_cap.max_recv_sge(cap), ibv_qp_cap.max_inline_data(cap));
    }

    void write(MemorySegment cap) {
        ibv_qp_cap.max_send_wr(cap, maxSendWr);
        ibv_qp_cap.max_recv_wr(cap, maxRecvWr);
        ibv_qp_cap.max_send_sge(cap, maxSendSge);
        ibv_qp_cap.max_recv_sge(cap, maxRecvSge);
        ibv_qp_cap.max_inline_data(cap, maxInlineData);
    }
}
