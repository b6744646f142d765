package dev.ofl.verbs.ffm;

/**
 * Queue pair transport types ({@code enum ibv_qp_type}).
 *
 * <p>Values as in {@code <infiniband/verbs.h>} (rdma-core 44); pinned by {@code VerbsLayoutTest}.
 */
public final class ibv_qp_type {

    /** {@code IBV_QPT_RC}. */
    public static final int IBV_QPT_RC = 2;

    /** {@code IBV_QPT_UC}. */
    public static final int IBV_QPT_UC = 3;

    /** {@code IBV_QPT_UD}. */
    public static final int IBV_QPT_UD = 4;

    private ibv_qp_type() {
    }

    /**
     * Returns the C name of a value, for messages.
     *
     * @param value a value of this enum
     * @return the C identifier, or {@code "unknown(<value>)"}
     */
    public static String name(int value) {
        return switch (value) {
            case IBV_QPT_RC -> "IBV_QPT_RC";
            case IBV_QPT_UC -> "IBV_QPT_UC";
            case IBV_QPT_UD -> "IBV_QPT_UD";
            default -> "unknown(" + value + ")";
        };
    }
}
