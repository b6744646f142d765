package dev.ofl.verbs.ffm;

/**
 * Device transport types ({@code enum ibv_transport_type}); RoCE devices report IB.
 *
 * <p>Values as in {@code <infiniband/verbs.h>} (rdma-core 44); pinned by {@code VerbsLayoutTest}.
 */
public final class ibv_transport_type {

    /** {@code IBV_TRANSPORT_UNKNOWN}. */
    public static final int IBV_TRANSPORT_UNKNOWN = -1;

    /** {@code IBV_TRANSPORT_IB}. */
    public static final int IBV_TRANSPORT_IB = 0;

    /** {@code IBV_TRANSPORT_IWARP}. */
    public static final int IBV_TRANSPORT_IWARP = 1;

    /** {@code IBV_TRANSPORT_USNIC}. */
    public static final int IBV_TRANSPORT_USNIC = 2;

    /** {@code IBV_TRANSPORT_USNIC_UDP}. */
    public static final int IBV_TRANSPORT_USNIC_UDP = 3;

    /** {@code IBV_TRANSPORT_UNSPECIFIED}. */
    public static final int IBV_TRANSPORT_UNSPECIFIED = 4;

    private ibv_transport_type() {
    }

    /**
     * Returns the C name of a value, for messages.
     *
     * @param value a value of this enum
     * @return the C identifier, or {@code "unknown(<value>)"}
     */
    public static String name(int value) {
        return switch (value) {
            case IBV_TRANSPORT_UNKNOWN -> "IBV_TRANSPORT_UNKNOWN";
            case IBV_TRANSPORT_IB -> "IBV_TRANSPORT_IB";
            case IBV_TRANSPORT_IWARP -> "IBV_TRANSPORT_IWARP";
            case IBV_TRANSPORT_USNIC -> "IBV_TRANSPORT_USNIC";
            case IBV_TRANSPORT_USNIC_UDP -> "IBV_TRANSPORT_USNIC_UDP";
            case IBV_TRANSPORT_UNSPECIFIED -> "IBV_TRANSPORT_UNSPECIFIED";
            default -> "unknown(" + value + ")";
        };
    }
}
