package dev.ofl.verbs.ffm;

/**
 * Asynchronous event types ({@code enum ibv_event_type}), as {@code ibv_get_async_event} reports them.
 *
 * <p>Values as in {@code <infiniband/verbs.h>} (rdma-core 44); pinned by {@code VerbsLayoutTest}.
 */
public final class ibv_event_type {

    /** {@code IBV_EVENT_CQ_ERR}. */
    public static final int IBV_EVENT_CQ_ERR = 0;

    /** {@code IBV_EVENT_QP_FATAL}. */
    public static final int IBV_EVENT_QP_FATAL = 1;

    /** {@code IBV_EVENT_QP_REQ_ERR}. */
    public static final int IBV_EVENT_QP_REQ_ERR = 2;

    /** {@code IBV_EVENT_QP_ACCESS_ERR}. */
    public static final int IBV_EVENT_QP_ACCESS_ERR = 3;

    /** {@code IBV_EVENT_COMM_EST}. */
    public static final int IBV_EVENT_COMM_EST = 4;

    /** {@code IBV_EVENT_SQ_DRAINED}. */
    public static final int IBV_EVENT_SQ_DRAINED = 5;

    /** {@code IBV_EVENT_PATH_MIG}. */
    public static final int IBV_EVENT_PATH_MIG = 6;

    /** {@code IBV_EVENT_PATH_MIG_ERR}. */
    public static final int IBV_EVENT_PATH_MIG_ERR = 7;

    /** {@code IBV_EVENT_DEVICE_FATAL}. */
    public static final int IBV_EVENT_DEVICE_FATAL = 8;

    /** {@code IBV_EVENT_PORT_ACTIVE}. */
    public static final int IBV_EVENT_PORT_ACTIVE = 9;

    /** {@code IBV_EVENT_PORT_ERR}. */
    public static final int IBV_EVENT_PORT_ERR = 10;

    /** {@code IBV_EVENT_LID_CHANGE}. */
    public static final int IBV_EVENT_LID_CHANGE = 11;

    /** {@code IBV_EVENT_PKEY_CHANGE}. */
    public static final int IBV_EVENT_PKEY_CHANGE = 12;

    /** {@code IBV_EVENT_SM_CHANGE}. */
    public static final int IBV_EVENT_SM_CHANGE = 13;

    /** {@code IBV_EVENT_SRQ_ERR}. */
    public static final int IBV_EVENT_SRQ_ERR = 14;

    /** {@code IBV_EVENT_SRQ_LIMIT_REACHED}. */
    public static final int IBV_EVENT_SRQ_LIMIT_REACHED = 15;

    /** {@code IBV_EVENT_QP_LAST_WQE_REACHED}. */
    public static final int IBV_EVENT_QP_LAST_WQE_REACHED = 16;

    /** {@code IBV_EVENT_CLIENT_REREGISTER}. */
    public static final int IBV_EVENT_CLIENT_REREGISTER = 17;

    /** {@code IBV_EVENT_GID_CHANGE}. */
    public static final int IBV_EVENT_GID_CHANGE = 18;

    /** {@code IBV_EVENT_WQ_FATAL}. */
    public static final int IBV_EVENT_WQ_FATAL = 19;

    private ibv_event_type() {
    }

    /**
     * Returns the C name of a value, for messages.
     *
     * @param value a value of this enum
     * @return the C identifier, or {@code "unknown(<value>)"}
     */
    public static String name(int value) {
        return switch (value) {
            case IBV_EVENT_CQ_ERR -> "IBV_EVENT_CQ_ERR";
            case IBV_EVENT_QP_FATAL -> "IBV_EVENT_QP_FATAL";
            case IBV_EVENT_QP_REQ_ERR -> "IBV_EVENT_QP_REQ_ERR";
            case IBV_EVENT_QP_ACCESS_ERR -> "IBV_EVENT_QP_ACCESS_ERR";
            case IBV_EVENT_COMM_EST -> "IBV_EVENT_COMM_EST";
            case IBV_EVENT_SQ_DRAINED -> "IBV_EVENT_SQ_DRAINED";
            case IBV_EVENT_PATH_MIG -> "IBV_EVENT_PATH_MIG";
            case IBV_EVENT_PATH_MIG_ERR -> "IBV_EVENT_PATH_MIG_ERR";
            case IBV_EVENT_DEVICE_FATAL -> "IBV_EVENT_DEVICE_FATAL";
            case IBV_EVENT_PORT_ACTIVE -> "IBV_EVENT_PORT_ACTIVE";
            case IBV_EVENT_PORT_ERR -> "IBV_EVENT_PORT_ERR";
            case IBV_EVENT_LID_CHANGE -> "IBV_EVENT_LID_CHANGE";
            case IBV_EVENT_PKEY_CHANGE -> "IBV_EVENT_PKEY_CHANGE";
            case IBV_EVENT_SM_CHANGE -> "IBV_EVENT_SM_CHANGE";
            case IBV_EVENT_SRQ_ERR -> "IBV_EVENT_SRQ_ERR";
            case IBV_EVENT_SRQ_LIMIT_REACHED -> "IBV_EVENT_SRQ_LIMIT_REACHED";
            case IBV_EVENT_QP_LAST_WQE_REACHED -> "IBV_EVENT_QP_LAST_WQE_REACHED";
            case IBV_EVENT_CLIENT_REREGISTER -> "IBV_EVENT_CLIENT_REREGISTER";
            case IBV_EVENT_GID_CHANGE -> "IBV_EVENT_GID_CHANGE";
            case IBV_EVENT_WQ_FATAL -> "IBV_EVENT_WQ_FATAL";
            default -> "unknown(" + value + ")";
        };
    }
}
