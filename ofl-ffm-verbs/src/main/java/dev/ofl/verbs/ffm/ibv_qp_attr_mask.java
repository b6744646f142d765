package dev.ofl.verbs.ffm;

/**
 * Attribute mask bits for {@code ibv_modify_qp} and {@code ibv_query_qp} ({@code enum ibv_qp_attr_mask}).
 *
 * <p>Values as in {@code <infiniband/verbs.h>} (rdma-core 44); pinned by {@code VerbsLayoutTest}.
 */
public final class ibv_qp_attr_mask {

    /** {@code IBV_QP_STATE}. */
    public static final int IBV_QP_STATE = 1;

    /** {@code IBV_QP_CUR_STATE}. */
    public static final int IBV_QP_CUR_STATE = 2;

    /** {@code IBV_QP_EN_SQD_ASYNC_NOTIFY}. */
    public static final int IBV_QP_EN_SQD_ASYNC_NOTIFY = 4;

    /** {@code IBV_QP_ACCESS_FLAGS}. */
    public static final int IBV_QP_ACCESS_FLAGS = 8;

    /** {@code IBV_QP_PKEY_INDEX}. */
    public static final int IBV_QP_PKEY_INDEX = 16;

    /** {@code IBV_QP_PORT}. */
    public static final int IBV_QP_PORT = 32;

    /** {@code IBV_QP_QKEY}. */
    public static final int IBV_QP_QKEY = 64;

    /** {@code IBV_QP_AV}. */
    public static final int IBV_QP_AV = 128;

    /** {@code IBV_QP_PATH_MTU}. */
    public static final int IBV_QP_PATH_MTU = 256;

    /** {@code IBV_QP_TIMEOUT}. */
    public static final int IBV_QP_TIMEOUT = 512;

    /** {@code IBV_QP_RETRY_CNT}. */
    public static final int IBV_QP_RETRY_CNT = 0x400;

    /** {@code IBV_QP_RNR_RETRY}. */
    public static final int IBV_QP_RNR_RETRY = 0x800;

    /** {@code IBV_QP_RQ_PSN}. */
    public static final int IBV_QP_RQ_PSN = 0x1000;

    /** {@code IBV_QP_MAX_QP_RD_ATOMIC}. */
    public static final int IBV_QP_MAX_QP_RD_ATOMIC = 0x2000;

    /** {@code IBV_QP_ALT_PATH}. */
    public static final int IBV_QP_ALT_PATH = 0x4000;

    /** {@code IBV_QP_MIN_RNR_TIMER}. */
    public static final int IBV_QP_MIN_RNR_TIMER = 0x8000;

    /** {@code IBV_QP_SQ_PSN}. */
    public static final int IBV_QP_SQ_PSN = 0x10000;

    /** {@code IBV_QP_MAX_DEST_RD_ATOMIC}. */
    public static final int IBV_QP_MAX_DEST_RD_ATOMIC = 0x20000;

    /** {@code IBV_QP_PATH_MIG_STATE}. */
    public static final int IBV_QP_PATH_MIG_STATE = 0x40000;

    /** {@code IBV_QP_CAP}. */
    public static final int IBV_QP_CAP = 0x80000;

    /** {@code IBV_QP_DEST_QPN}. */
    public static final int IBV_QP_DEST_QPN = 0x100000;

    /** {@code IBV_QP_RATE_LIMIT}. */
    public static final int IBV_QP_RATE_LIMIT = 0x2000000;

    private ibv_qp_attr_mask() {
    }
}
