package dev.ofl.verbs.ffm;

/**
 * Path MTU codes ({@code enum ibv_mtu}); {@code dev.ofl.verbs.PathMtu} converts them to bytes.
 *
 * <p>Values as in {@code <infiniband/verbs.h>} (rdma-core 44); pinned by {@code VerbsLayoutTest}.
 */
public final class ibv_mtu {

    /** {@code IBV_MTU_256}. */
    public static final int IBV_MTU_256 = 1;

    /** {@code IBV_MTU_512}. */
    public static final int IBV_MTU_512 = 2;

    /** {@code IBV_MTU_1024}. */
    public static final int IBV_MTU_1024 = 3;

    /** {@code IBV_MTU_2048}. */
    public static final int IBV_MTU_2048 = 4;

    /** {@code IBV_MTU_4096}. */
    public static final int IBV_MTU_4096 = 5;

    private ibv_mtu() {
    }

    /**
     * Returns the C name of a value, for messages.
     *
     * @param value a value of this enum
     * @return the C identifier, or {@code "unknown(<value>)"}
     */
    public static String name(int value) {
        return switch (value) {
            case IBV_MTU_256 -> "IBV_MTU_256";
            case IBV_MTU_512 -> "IBV_MTU_512";
            case IBV_MTU_1024 -> "IBV_MTU_1024";
            case IBV_MTU_2048 -> "IBV_MTU_2048";
            case IBV_MTU_4096 -> "IBV_MTU_4096";
            default -> "unknown(" + value + ")";
        };
    }
}
