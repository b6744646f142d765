package dev.ofl.verbs.ffm;

/**
 * Work completion flags ({@code enum ibv_wc_flags}).
 *
 * <p>Values as in {@code <infiniband/verbs.h>} (rdma-core 44); pinned by {@code VerbsLayoutTest}.
 */
public final class ibv_wc_flags {

    /** {@code IBV_WC_GRH}. */
    public static final int IBV_WC_GRH = 1;

    /** {@code IBV_WC_WITH_IMM}. */
    public static final int IBV_WC_WITH_IMM = 2;

    /** {@code IBV_WC_IP_CSUM_OK}. */
    public static final int IBV_WC_IP_CSUM_OK = 4;

    /** {@code IBV_WC_WITH_INV}. */
    public static final int IBV_WC_WITH_INV = 8;

    private ibv_wc_flags() {
    }
}
