package dev.ofl.verbs.ffm;

/**
 * Memory and queue pair access flags ({@code enum ibv_access_flags}).
 *
 * <p>Values as in {@code <infiniband/verbs.h>} (rdma-core 44); pinned by {@code VerbsLayoutTest}.
 */
public final class ibv_access_flags {

    /** {@code IBV_ACCESS_LOCAL_WRITE}. */
    public static final int IBV_ACCESS_LOCAL_WRITE = 1;

    /** {@code IBV_ACCESS_REMOTE_WRITE}. */
    public static final int IBV_ACCESS_REMOTE_WRITE = 2;

    /** {@code IBV_ACCESS_REMOTE_READ}. */
    public static final int IBV_ACCESS_REMOTE_READ = 4;

    /** {@code IBV_ACCESS_REMOTE_ATOMIC}. */
    public static final int IBV_ACCESS_REMOTE_ATOMIC = 8;

    /** {@code IBV_ACCESS_MW_BIND}. */
    public static final int IBV_ACCESS_MW_BIND = 16;

    /** {@code IBV_ACCESS_ZERO_BASED}. */
    public static final int IBV_ACCESS_ZERO_BASED = 32;

    /** {@code IBV_ACCESS_ON_DEMAND}. */
    public static final int IBV_ACCESS_ON_DEMAND = 64;

    /** {@code IBV_ACCESS_HUGETLB}. */
    public static final int IBV_ACCESS_HUGETLB = 128;

    /** {@code IBV_ACCESS_RELAXED_ORDERING}. */
    public static final int IBV_ACCESS_RELAXED_ORDERING = 0x100000;

    /** {@code IBV_ACCESS_OPTIONAL_RANGE}. */
    public static final int IBV_ACCESS_OPTIONAL_RANGE = 0x3ff00000;

    private ibv_access_flags() {
    }
}
