package dev.ofl.verbs.ffm;

/**
 * Work completion opcodes ({@code enum ibv_wc_opcode}); receive completions have {@link #IBV_WC_RECV} set.
 *
 * <p>Values as in {@code <infiniband/verbs.h>} (rdma-core 44); pinned by {@code VerbsLayoutTest}.
 */
public final class ibv_wc_opcode {

    /** {@code IBV_WC_SEND}. */
    public static final int IBV_WC_SEND = 0;

    /** {@code IBV_WC_RDMA_WRITE}. */
    public static final int IBV_WC_RDMA_WRITE = 1;

    /** {@code IBV_WC_RDMA_READ}. */
    public static final int IBV_WC_RDMA_READ = 2;

    /** {@code IBV_WC_COMP_SWAP}. */
    public static final int IBV_WC_COMP_SWAP = 3;

    /** {@code IBV_WC_FETCH_ADD}. */
    public static final int IBV_WC_FETCH_ADD = 4;

    /** {@code IBV_WC_BIND_MW}. */
    public static final int IBV_WC_BIND_MW = 5;

    /** {@code IBV_WC_LOCAL_INV}. */
    public static final int IBV_WC_LOCAL_INV = 6;

    /** {@code IBV_WC_TSO}. */
    public static final int IBV_WC_TSO = 7;

    /** {@code IBV_WC_RECV}. */
    public static final int IBV_WC_RECV = 128;

    /** {@code IBV_WC_RECV_RDMA_WITH_IMM}. */
    public static final int IBV_WC_RECV_RDMA_WITH_IMM = 129;

    private ibv_wc_opcode() {
    }

    /**
     * Returns the C name of a value, for messages.
     *
     * @param value a value of this enum
     * @return the C identifier, or {@code "unknown(<value>)"}
     */
    public static String name(int value) {
        return switch (value) {
            case IBV_WC_SEND -> "IBV_WC_SEND";
            case IBV_WC_RDMA_WRITE -> "IBV_WC_RDMA_WRITE";
            case IBV_WC_RDMA_READ -> "IBV_WC_RDMA_READ";
            case IBV_WC_COMP_SWAP -> "IBV_WC_COMP_SWAP";
            case IBV_WC_FETCH_ADD -> "IBV_WC_FETCH_ADD";
            case IBV_WC_BIND_MW -> "IBV_WC_BIND_MW";
            case IBV_WC_LOCAL_INV -> "IBV_WC_LOCAL_INV";
            case IBV_WC_TSO -> "IBV_WC_TSO";
            case IBV_WC_RECV -> "IBV_WC_RECV";
            case IBV_WC_RECV_RDMA_WITH_IMM -> "IBV_WC_RECV_RDMA_WITH_IMM";
            default -> "unknown(" + value + ")";
        };
    }
}
