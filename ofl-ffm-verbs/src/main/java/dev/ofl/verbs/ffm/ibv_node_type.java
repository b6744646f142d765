package dev.ofl.verbs.ffm;

/**
 * Device node types ({@code enum ibv_node_type}).
 *
 * <p>Values as in {@code <infiniband/verbs.h>} (rdma-core 44); pinned by {@code VerbsLayoutTest}.
 */
public final class ibv_node_type {

    /** {@code IBV_NODE_UNKNOWN}. */
    public static final int IBV_NODE_UNKNOWN = -1;

    /** {@code IBV_NODE_CA}. */
    public static final int IBV_NODE_CA = 1;

    /** {@code IBV_NODE_SWITCH}. */
    public static final int IBV_NODE_SWITCH = 2;

    /** {@code IBV_NODE_ROUTER}. */
    public static final int IBV_NODE_ROUTER = 3;

    /** {@code IBV_NODE_RNIC}. */
    public static final int IBV_NODE_RNIC = 4;

    /** {@code IBV_NODE_USNIC}. */
    public static final int IBV_NODE_USNIC = 5;

    /** {@code IBV_NODE_USNIC_UDP}. */
    public static final int IBV_NODE_USNIC_UDP = 6;

    /** {@code IBV_NODE_UNSPECIFIED}. */
    public static final int IBV_NODE_UNSPECIFIED = 7;

    private ibv_node_type() {
    }

    /**
     * Returns the C name of a value, for messages.
     *
     * @param value a value of this enum
     * @return the C identifier, or {@code "unknown(<value>)"}
     */
    public static String name(int value) {
        return switch (value) {
            case IBV_NODE_UNKNOWN -> "IBV_NODE_UNKNOWN";
            case IBV_NODE_CA -> "IBV_NODE_CA";
            case IBV_NODE_SWITCH -> "IBV_NODE_SWITCH";
            case IBV_NODE_ROUTER -> "IBV_NODE_ROUTER";
            case IBV_NODE_RNIC -> "IBV_NODE_RNIC";
            case IBV_NODE_USNIC -> "IBV_NODE_USNIC";
            case IBV_NODE_USNIC_UDP -> "IBV_NODE_USNIC_UDP";
            case IBV_NODE_UNSPECIFIED -> "IBV_NODE_UNSPECIFIED";
            default -> "unknown(" + value + ")";
        };
    }
}
