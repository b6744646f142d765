package dev.ofl.verbs;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.List;
import java.util.Objects;

/**
 * Whether RDMA works in this process, decided once: an architecture whose struct layouts the
 * binding knows ({@link dev.ofl.verbs.ffm.NativeArch}), native access for this module, the library
 * ({@link VerbsLibrary#configuredLibrary()}), kernel support and at least one device. When it does
 * not, {@link #unavailabilityCause()} says why and names the fix. Never throws on its own, never
 * crashes the JVM. Thread-safe.
 */
public final class RdmaAvailability {
    private RdmaAvailability() {
    }

    /**
     * Tells whether the process-wide library loads and lists at least one device.
     *
     * @return true if RDMA can be used
     */
    public static boolean isAvailable() {
        return ProcessWide.RESULT.isAvailable();
    }

    /**
     * Returns why RDMA cannot be used.
     *
     * @return the cause, whose message names the fix, or {@code null} when {@link #isAvailable()}
     */
    public static RdmaUnavailableException unavailabilityCause() {
        return ProcessWide.RESULT.cause();
    }

    /**
     * Throws the cause when RDMA cannot be used.
     *
     * @throws RdmaUnavailableException naming the fix, when unavailable
     */
    public static void ensureAvailability() {
        RdmaUnavailableException cause = unavailabilityCause();
        if (cause != null) {
            throw new RdmaUnavailableException(cause.reason(), cause.function(), cause.errno(), cause.values(),
                    cause.fix(), cause);
        }
    }

    /**
     * Returns the outcome of the process-wide probe.
     *
     * @return the probe result
     */
    public static Probe processWide() {
        return ProcessWide.RESULT;
    }

    /**
     * Probes a given library now, without touching the process-wide outcome; for tools and tests.
     *
     * @param library a file name or path, as for {@link VerbsLibrary#load(String)}
     * @return the probe result
     */
    public static Probe probe(String library) {
        VerbsLibrary loaded;
        try {
            loaded = VerbsLibrary.load(library);
        } catch (RdmaUnavailableException e) {
            return new Probe(library, List.of(), e);
        }
        return probe(loaded);
    }

    /**
     * Probes a loaded library now: lists its devices.
     *
     * @param library the library
     * @return the probe result
     */
    public static Probe probe(VerbsLibrary library) {
        try (DeviceList devices = DeviceList.open(library)) {
            List<String> names = devices.devices().stream().map(Device::name).toList();
            if (names.isEmpty()) {
                return new Probe(library.library(), names, new RdmaUnavailableException(
                        RdmaUnavailableException.Reason.NO_DEVICE, null, VerbsException.NO_CODE,
                        "the kernel supports RDMA but " + library.library() + " lists no device",
                        "load the NIC's RDMA driver (mlx5_ib, bnxt_re, irdma, ...), or create a soft-RoCE device "
                                + "(rdma link add rxe0 type rxe netdev <ifname>), or use the TCP backend",
                        null));
            }
            return new Probe(library.library(), names, null);
        } catch (RdmaUnavailableException e) {
            return new Probe(library.library(), List.of(), e);
        }
    }

    /**
     * The outcome of one probe. Immutable.
     *
     * @param library the library probed
     * @param deviceNames the devices it lists; empty when unavailable
     * @param cause why RDMA cannot be used, or {@code null} when it can
     */
    public record Probe(String library, List<String> deviceNames, RdmaUnavailableException cause) {
        /**
         * Copies the device names.
         *
         * @param library the library probed
         * @param deviceNames the devices it lists
         * @param cause why RDMA cannot be used, or {@code null}
         */
        public Probe {
            Objects.requireNonNull(library, "library");
            deviceNames = List.copyOf(deviceNames);
        }

        /**
         * Tells whether RDMA can be used.
         *
         * @return true when there is no cause
         */
        public boolean isAvailable() {
            return cause == null;
        }
    }

    private static final class ProcessWide {
        private static final Logger LOG = LoggerFactory.getLogger(RdmaAvailability.class);
        static final Probe RESULT = probeProcessWide();

        private static Probe probeProcessWide() {
            Probe result;
            try {
                result = probe(VerbsLibrary.processWide());
            } catch (RdmaUnavailableException e) {
                result = new Probe(VerbsLibrary.configuredLibrary(), List.of(), e);
            }
            if (result.isAvailable()) {
                LOG.debug("RDMA available through {}: devices {}", result.library(), result.deviceNames());
            } else {
                LOG.debug("RDMA unavailable through {}: {}", result.library(), result.cause().getMessage());
            }
            return result;
        }
    }
}
