package dev.ofl.verbs.ffm;

/**
 * Send work request opcodes ({@code enum ibv_wr_opcode}).
 *
 * <p>Values as in {@code <infiniband/verbs.h>} (rdma-core 44); pinned by {@code VerbsLayoutTest}.
 */
public final class ibv_wr_opcode {

    /** {@code IBV_WR_RDMA_WRITE}. */
    public static final int IBV_WR_RDMA_WRITE = 0;

    /** {@code IBV_WR_RDMA_WRITE_WITH_IMM}. */
    public static final int IBV_WR_RDMA_WRITE_WITH_IMM = 1;

    /** {@code IBV_WR_SEND}. */
    public static final int IBV_WR_SEND = 2;

    /** {@code IBV_WR_SEND_WITH_IMM}. */
    public static final int IBV_WR_SEND_WITH_IMM = 3;

    /** {@code IBV_WR_RDMA_READ}. */
    public static final int IBV_WR_RDMA_READ = 4;

    /** {@code IBV_WR_ATOMIC_CMP_AND_SWP}. */
    public static final int IBV_WR_ATOMIC_CMP_AND_SWP = 5;

    /** {@code IBV_WR_ATOMIC_FETCH_AND_ADD}. */
    public static final int IBV_WR_ATOMIC_FETCH_AND_ADD = 6;

    /** {@code IBV_WR_LOCAL_INV}. */
    public static final int IBV_WR_LOCAL_INV = 7;

    /** {@code IBV_WR_BIND_MW}. */
    public static final int IBV_WR_BIND_MW = 8;

    /** {@code IBV_WR_SEND_WITH_INV}. */
    public static final int IBV_WR_SEND_WITH_INV = 9;

    /** {@code IBV_WR_TSO}. */
    public static final int IBV_WR_TSO = 10;

    private ibv_wr_opcode() {
    }

    /**
     * Returns the C name of a value, for messages.
     *
     * @param value a value of this enum
     * @return the C identifier, or {@code "unknown(<value>)"}
     */
    public static String name(int value) {
        return switch (value) {
            case IBV_WR_RDMA_WRITE -> "IBV_WR_RDMA_WRITE";
            case IBV_WR_RDMA_WRITE_WITH_IMM -> "IBV_WR_RDMA_WRITE_WITH_IMM";
            case IBV_WR_SEND -> "IBV_WR_SEND";
            case IBV_WR_SEND_WITH_IMM -> "IBV_WR_SEND_WITH_IMM";
            case IBV_WR_RDMA_READ -> "IBV_WR_RDMA_READ";
            case IBV_WR_ATOMIC_CMP_AND_SWP -> "IBV_WR_ATOMIC_CMP_AND_SWP";
            case IBV_WR_ATOMIC_FETCH_AND_ADD -> "IBV_WR_ATOMIC_FETCH_AND_ADD";
            case IBV_WR_LOCAL_INV -> "IBV_WR_LOCAL_INV";
            case IBV_WR_BIND_MW -> "IBV_WR_BIND_MW";
            case IBV_WR_SEND_WITH_INV -> "IBV_WR_SEND_WITH_INV";
            case IBV_WR_TSO -> "IBV_WR_TSO";
            default -> "unknown(" + value + ")";
        };
    }
}
