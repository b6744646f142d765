package dev.ofl.verbs.ffm;

/**
 * Queue pair states ({@code enum ibv_qp_state}).
 *
 * <p>Values as in {@code <infiniband/verbs.h>} (rdma-core 44); pinned by {@code VerbsLayoutTest}.
 */
public final class ibv_qp_state {

    /** {@code IBV_QPS_RESET}. */
    public static final int IBV_QPS_RESET = 0;

    /** {@code IBV_QPS_INIT}. */
    public static final int IBV_QPS_INIT = 1;

    /** {@code IBV_QPS_RTR}. */
    public static final int IBV_QPS_RTR = 2;

    /** {@code IBV_QPS_RTS}. */
    public static final int IBV_QPS_RTS = 3;

    /** {@code IBV_QPS_SQD}. */
    public static final int IBV_QPS_SQD = 4;

    /** {@code IBV_QPS_SQE}. */
    public static final int IBV_QPS_SQE = 5;

    /** {@code IBV_QPS_ERR}. */
    public static final int IBV_QPS_ERR = 6;

    /** {@code IBV_QPS_UNKNOWN}. */
    public static final int IBV_QPS_UNKNOWN = 7;

    private ibv_qp_state() {
    }

    /**
     * Returns the C name of a value, for messages.
     *
     * @param value a value of this enum
     * @return the C identifier, or {@code "unknown(<value>)"}
     */
    public static String name(int value) {
        return switch (value) {
            case IBV_QPS_RESET -> "IBV_QPS_RESET";
            case IBV_QPS_INIT -> "IBV_QPS_INIT";
            case IBV_QPS_RTR -> "IBV_QPS_RTR";
            case IBV_QPS_RTS -> "IBV_QPS_RTS";
            case IBV_QPS_SQD -> "IBV_QPS_SQD";
            case IBV_QPS_SQE -> "IBV_QPS_SQE";
            case IBV_QPS_ERR -> "IBV_QPS_ERR";
            case IBV_QPS_UNKNOWN -> "IBV_QPS_UNKNOWN";
            default -> "unknown(" + value + ")";
        };
    }
}
