package dev.ofl.verbs.ffm;

/**
 * Work completion status codes ({@code enum ibv_wc_status}).
 *
 * <p>Values as in {@code <infiniband/verbs.h>} (rdma-core 44); pinned by {@code VerbsLayoutTest}.
 */
public final class ibv_wc_status {

    /** {@code IBV_WC_SUCCESS}. */
    public static final int IBV_WC_SUCCESS = 0;

    /** {@code IBV_WC_LOC_LEN_ERR}. */
    public static final int IBV_WC_LOC_LEN_ERR = 1;

    /** {@code IBV_WC_LOC_QP_OP_ERR}. */
    public static final int IBV_WC_LOC_QP_OP_ERR = 2;

    /** {@code IBV_WC_LOC_EEC_OP_ERR}. */
    public static final int IBV_WC_LOC_EEC_OP_ERR = 3;

    /** {@code IBV_WC_LOC_PROT_ERR}. */
    public static final int IBV_WC_LOC_PROT_ERR = 4;

    /** {@code IBV_WC_WR_FLUSH_ERR}. */
    public static final int IBV_WC_WR_FLUSH_ERR = 5;

    /** {@code IBV_WC_MW_BIND_ERR}. */
    public static final int IBV_WC_MW_BIND_ERR = 6;

    /** {@code IBV_WC_BAD_RESP_ERR}. */
    public static final int IBV_WC_BAD_RESP_ERR = 7;

    /** {@code IBV_WC_LOC_ACCESS_ERR}. */
    public static final int IBV_WC_LOC_ACCESS_ERR = 8;

    /** {@code IBV_WC_REM_INV_REQ_ERR}. */
    public static final int IBV_WC_REM_INV_REQ_ERR = 9;

    /** {@code IBV_WC_REM_ACCESS_ERR}. */
    public static final int IBV_WC_REM_ACCESS_ERR = 10;

    /** {@code IBV_WC_REM_OP_ERR}. */
    public static final int IBV_WC_REM_OP_ERR = 11;

    /** {@code IBV_WC_RETRY_EXC_ERR}. */
    public static final int IBV_WC_RETRY_EXC_ERR = 12;

    /** {@code IBV_WC_RNR_RETRY_EXC_ERR}. */
    public static final int IBV_WC_RNR_RETRY_EXC_ERR = 13;

    /** {@code IBV_WC_LOC_RDD_VIOL_ERR}. */
    public static final int IBV_WC_LOC_RDD_VIOL_ERR = 14;

    /** {@code IBV_WC_REM_INV_RD_REQ_ERR}. */
    public static final int IBV_WC_REM_INV_RD_REQ_ERR = 15;

    /** {@code IBV_WC_REM_ABORT_ERR}. */
    public static final int IBV_WC_REM_ABORT_ERR = 16;

    /** {@code IBV_WC_INV_EECN_ERR}. */
    public static final int IBV_WC_INV_EECN_ERR = 17;

    /** {@code IBV_WC_INV_EEC_STATE_ERR}. */
    public static final int IBV_WC_INV_EEC_STATE_ERR = 18;

    /** {@code IBV_WC_FATAL_ERR}. */
    public static final int IBV_WC_FATAL_ERR = 19;

    /** {@code IBV_WC_RESP_TIMEOUT_ERR}. */
    public static final int IBV_WC_RESP_TIMEOUT_ERR = 20;

    /** {@code IBV_WC_GENERAL_ERR}. */
    public static final int IBV_WC_GENERAL_ERR = 21;

    /** {@code IBV_WC_TM_ERR}. */
    public static final int IBV_WC_TM_ERR = 22;

    /** {@code IBV_WC_TM_RNDV_INCOMPLETE}. */
    public static final int IBV_WC_TM_RNDV_INCOMPLETE = 23;

    private ibv_wc_status() {
    }

    /**
     * Returns the C name of a value, for messages.
     *
     * @param value a value of this enum
     * @return the C identifier, or {@code "unknown(<value>)"}
     */
    public static String name(int value) {
        return switch (value) {
            case IBV_WC_SUCCESS -> "IBV_WC_SUCCESS";
            case IBV_WC_LOC_LEN_ERR -> "IBV_WC_LOC_LEN_ERR";
            case IBV_WC_LOC_QP_OP_ERR -> "IBV_WC_LOC_QP_OP_ERR";
            case IBV_WC_LOC_EEC_OP_ERR -> "IBV_WC_LOC_EEC_OP_ERR";
            case IBV_WC_LOC_PROT_ERR -> "IBV_WC_LOC_PROT_ERR";
            case IBV_WC_WR_FLUSH_ERR -> "IBV_WC_WR_FLUSH_ERR";
            case IBV_WC_MW_BIND_ERR -> "IBV_WC_MW_BIND_ERR";
            case IBV_WC_BAD_RESP_ERR -> "IBV_WC_BAD_RESP_ERR";
            case IBV_WC_LOC_ACCESS_ERR -> "IBV_WC_LOC_ACCESS_ERR";
            case IBV_WC_REM_INV_REQ_ERR -> "IBV_WC_REM_INV_REQ_ERR";
            case IBV_WC_REM_ACCESS_ERR -> "IBV_WC_REM_ACCESS_ERR";
            case IBV_WC_REM_OP_ERR -> "IBV_WC_REM_OP_ERR";
            case IBV_WC_RETRY_EXC_ERR -> "IBV_WC_RETRY_EXC_ERR";
            case IBV_WC_RNR_RETRY_EXC_ERR -> "IBV_WC_RNR_RETRY_EXC_ERR";
            case IBV_WC_LOC_RDD_VIOL_ERR -> "IBV_WC_LOC_RDD_VIOL_ERR";
            case IBV_WC_REM_INV_RD_REQ_ERR -> "IBV_WC_REM_INV_RD_REQ_ERR";
            case IBV_WC_REM_ABORT_ERR -> "IBV_WC_REM_ABORT_ERR";
            case IBV_WC_INV_EECN_ERR -> "IBV_WC_INV_EECN_ERR";
            case IBV_WC_INV_EEC_STATE_ERR -> "IBV_WC_INV_EEC_STATE_ERR";
            case IBV_WC_FATAL_ERR -> "IBV_WC_FATAL_ERR";
            case IBV_WC_RESP_TIMEOUT_ERR -> "IBV_WC_RESP_TIMEOUT_ERR";
            case IBV_WC_GENERAL_ERR -> "IBV_WC_GENERAL_ERR";
            case IBV_WC_TM_ERR -> "IBV_WC_TM_ERR";
            case IBV_WC_TM_RNDV_INCOMPLETE -> "IBV_WC_TM_RNDV_INCOMPLETE";
            default -> "unknown(" + value + ")";
        };
    }
}
