package dev.ofl.verbs.ffm;

/**
 * Port states ({@code enum ibv_port_state}).
 *
 * <p>Values as in {@code <infiniband/verbs.h>} (rdma-core 44); pinned by {@code VerbsLayoutTest}.
 */
public final class ibv_port_state {

    /** {@code IBV_PORT_NOP}. */
    public static final int IBV_PORT_NOP = 0;

    /** {@code IBV_PORT_DOWN}. */
    public static final int IBV_PORT_DOWN = 1;

    /** {@code IBV_PORT_INIT}. */
    public static final int IBV_PORT_INIT = 2;

    /** {@code IBV_PORT_ARMED}. */
    public static final int IBV_PORT_ARMED = 3;

    /** {@code IBV_PORT_ACTIVE}. */
    public static final int IBV_PORT_ACTIVE = 4;

    /** {@code IBV_PORT_ACTIVE_DEFER}. */
    public static final int IBV_PORT_ACTIVE_DEFER = 5;

    private ibv_port_state() {
    }

    /**
     * Returns the C name of a value, for messages.
     *
     * @param value a value of this enum
     * @return the C identifier, or {@code "unknown(<value>)"}
     */
    public static String name(int value) {
        return switch (value) {
            case IBV_PORT_NOP -> "IBV_PORT_NOP";
            case IBV_PORT_DOWN -> "IBV_PORT_DOWN";
            case IBV_PORT_INIT -> "IBV_PORT_INIT";
            case IBV_PORT_ARMED -> "IBV_PORT_ARMED";
            case IBV_PORT_ACTIVE -> "IBV_PORT_ACTIVE";
            case IBV_PORT_ACTIVE_DEFER -> "IBV_PORT_ACTIVE_DEFER";
            default -> "unknown(" + value + ")";
        };
    }
}
