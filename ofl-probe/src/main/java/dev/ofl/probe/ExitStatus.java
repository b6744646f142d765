package dev.ofl.probe;

/**
 * The probe's exit statuses, for scripts. {@code --help} and the README list the same values.
 * Stateless.
 */
final class ExitStatus {
    /** A GID fits the {@code --ip} address, or the listing succeeded. */
    static final int FOUND = 0;
    /** No GID fits the {@code --ip} address; the report says why for each device. */
    static final int NOT_FOUND = 1;
    /** The kernel supports RDMA but the library lists no device. */
    static final int NO_DEVICE = 2;
    /** The verbs library cannot be loaded. */
    static final int LIBRARY_MISSING = 3;
    /** The kernel has no RDMA support: {@code ibv_get_device_list} failed with {@code ENOSYS}. */
    static final int KERNEL_WITHOUT_RDMA = 4;
    /** Anything else: native access disabled, an incompatible library, a device that cannot be read. */
    static final int FAILURE = 5;
    /** Bad options or arguments; {@code EX_USAGE} of {@code sysexits.h}. */
    static final int USAGE = 64;

    private ExitStatus() {
    }
}
