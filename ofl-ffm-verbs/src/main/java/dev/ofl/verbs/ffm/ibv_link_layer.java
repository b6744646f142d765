package dev.ofl.verbs.ffm;

/**
 * Port link layers (the anonymous {@code IBV_LINK_LAYER_*} enum); RoCE ports report Ethernet.
 *
 * <p>Values as in {@code <infiniband/verbs.h>} (rdma-core 44); pinned by {@code VerbsLayoutTest}.
 */
public final class ibv_link_layer {

    /** {@code IBV_LINK_LAYER_UNSPECIFIED}. */
    public static final int IBV_LINK_LAYER_UNSPECIFIED = 0;

    /** {@code IBV_LINK_LAYER_INFINIBAND}. */
    public static final int IBV_LINK_LAYER_INFINIBAND = 1;

    /** {@code IBV_LINK_LAYER_ETHERNET}. */
    public static final int IBV_LINK_LAYER_ETHERNET = 2;

    private ibv_link_layer() {
    }

    /**
     * Returns the C name of a value, for messages.
     *
     * @param value a value of this enum
     * @return the C identifier, or {@code "unknown(<value>)"}
     */
    public static String name(int value) {
        return switch (value) {
            case IBV_LINK_LAYER_UNSPECIFIED -> "IBV_LINK_LAYER_UNSPECIFIED";
            case IBV_LINK_LAYER_INFINIBAND -> "IBV_LINK_LAYER_INFINIBAND";
            case IBV_LINK_LAYER_ETHERNET -> "IBV_LINK_LAYER_ETHERNET";
            default -> "unknown(" + value + ")";
        };
    }
}
