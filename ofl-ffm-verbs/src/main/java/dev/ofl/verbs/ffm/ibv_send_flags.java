package dev.ofl.verbs.ffm;

/**
 * Send work request flags ({@code enum ibv_send_flags}).
 *
 * <p>Values as in {@code <infiniband/verbs.h>} (rdma-core 44); pinned by {@code VerbsLayoutTest}.
 */
public final class ibv_send_flags {

    /** {@code IBV_SEND_FENCE}. */
    public static final int IBV_SEND_FENCE = 1;

    /** {@code IBV_SEND_SIGNALED}. */
    public static final int IBV_SEND_SIGNALED = 2;

    /** {@code IBV_SEND_SOLICITED}. */
    public static final int IBV_SEND_SOLICITED = 4;

    /** {@code IBV_SEND_INLINE}. */
    public static final int IBV_SEND_INLINE = 8;

    /** {@code IBV_SEND_IP_CSUM}. */
    public static final int IBV_SEND_IP_CSUM = 16;

    private ibv_send_flags() {
    }
}
