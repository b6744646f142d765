package dev.ofl.verbs.ffm;

/**
 * GID types of {@code struct ibv_gid_entry} ({@code enum ibv_gid_type}).
 *
 * <p>Values as in {@code <infiniband/verbs.h>} (rdma-core 44); pinned by {@code VerbsLayoutTest}.
 */
public final class ibv_gid_type {

    /** {@code IBV_GID_TYPE_IB}. */
    public static final int IBV_GID_TYPE_IB = 0;

    /** {@code IBV_GID_TYPE_ROCE_V1}. */
    public static final int IBV_GID_TYPE_ROCE_V1 = 1;

    /** {@code IBV_GID_TYPE_ROCE_V2}. */
    public static final int IBV_GID_TYPE_ROCE_V2 = 2;

    private ibv_gid_type() {
    }

    /**
     * Returns the C name of a value, for messages.
     *
     * @param value a value of this enum
     * @return the C identifier, or {@code "unknown(<value>)"}
     */
    public static String name(int value) {
        return switch (value) {
            case IBV_GID_TYPE_IB -> "IBV_GID_TYPE_IB";
            case IBV_GID_TYPE_ROCE_V1 -> "IBV_GID_TYPE_ROCE_V1";
            case IBV_GID_TYPE_ROCE_V2 -> "IBV_GID_TYPE_ROCE_V2";
            default -> "unknown(" + value + ")";
        };
    }
}
