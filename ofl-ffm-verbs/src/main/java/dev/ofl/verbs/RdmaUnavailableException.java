package dev.ofl.verbs;

/**
 * RDMA cannot be used in this process; {@link #reason()} says why and the message names the fix.
 * Reported by {@link RdmaAvailability#unavailabilityCause()}. Immutable.
 */
public final class RdmaUnavailableException extends VerbsException {
    private static final long serialVersionUID = 1L;

    /** Why RDMA is unavailable. */
    public enum Reason {
        /**
         * The JVM runs on a processor architecture whose libibverbs struct layouts the binding does
         * not know (it knows x86-64 and aarch64; see {@link dev.ofl.verbs.ffm.NativeArch}).
         */
        UNSUPPORTED_ARCHITECTURE,
        /** The JVM does not grant this module native access. */
        NATIVE_ACCESS_DISABLED,
        /** libibverbs (or the configured stand-in) cannot be loaded. */
        LIBRARY_MISSING,
        /** The library loads but lacks a function the binding needs. */
        LIBRARY_INCOMPATIBLE,
        /** The kernel has no RDMA support: {@code ibv_get_device_list} failed with {@code ENOSYS}. */
        KERNEL_WITHOUT_RDMA,
        /** {@code ibv_get_device_list} failed for another reason. */
        DEVICE_LIST_FAILED,
        /** The kernel supports RDMA but no device is present. */
        NO_DEVICE
    }

    private final Reason reason;

    /**
     * Creates the exception.
     *
     * @param reason why RDMA is unavailable
     * @param function the C function that failed, or {@code null}
     * @param errno the errno it reported, or {@link #NO_CODE}
     * @param values what was asked or found
     * @param fix what to do about it
     * @param cause the underlying failure, or {@code null}
     */
    public RdmaUnavailableException(Reason reason, String function, int errno, String values, String fix,
            Throwable cause) {
        super(function, errno, NO_CODE, values, fix, cause);
        this.reason = reason;
    }

    /**
     * Returns why RDMA is unavailable.
     *
     * @return the reason
     */
    public Reason reason() {
        return reason;
    }
}
