package dev.ofl.probe;

import dev.ofl.probe.ProbeReport.DeviceView;
import dev.ofl.probe.ProbeReport.Failure;
import dev.ofl.probe.ProbeReport.Outcome;
import dev.ofl.probe.ProbeReport.Query;
import dev.ofl.verbs.GidSelector;
import dev.ofl.verbs.RdmaAvailability;
import dev.ofl.verbs.RdmaUnavailableException;
import dev.ofl.verbs.VerbsException;
import dev.ofl.verbs.VerbsLibrary;

import java.net.Inet4Address;
import java.util.List;
import java.util.OptionalInt;

/**
 * One probe run: load the library, decide availability the way the RDMA backend does
 * ({@link RdmaAvailability#probe(VerbsLibrary)}), read every device, and answer the address
 * question if there is one. Read-only. Stateless and thread-safe.
 */
final class Discovery {
    private Discovery() {
    }

    /**
     * Probes a library.
     *
     * @param library the libibverbs to load, a file name or a path
     * @param ip the address to answer for, or {@code null} to list only
     * @param device with {@code ip}: the only device to consider (the backend's {@code rdma.device}),
     *     or {@code null} for every device
     * @param gidIndexOverride the GID index override to check with {@code ip}, or empty
     * @return the report; never throws for an unavailable library or device
     */
    static ProbeReport run(String library, Inet4Address ip, String device, OptionalInt gidIndexOverride) {
        VerbsLibrary loaded;
        try {
            loaded = VerbsLibrary.load(library);
        } catch (RdmaUnavailableException e) {
            return unavailable(library, e);
        }
        RdmaAvailability.Probe availability = RdmaAvailability.probe(loaded);
        if (!availability.isAvailable()) {
            return unavailable(library, availability.cause());
        }
        List<DeviceSnapshot> devices;
        try {
            devices = DeviceSnapshot.readAll(loaded);
        } catch (RdmaUnavailableException e) {
            return unavailable(library, e);
        }
        List<DeviceView> views = devices.stream().map(DeviceView::of).toList();
        if (ip == null) {
            Outcome outcome = devices.stream().anyMatch(d -> d.failure() != null) ? Outcome.FAILURE : Outcome.LISTED;
            return new ProbeReport(library, outcome, outcome.exitStatus(), views, null, null);
        }
        int netdevIndex;
        try {
            netdevIndex = GidSelector.netdevIndexOf(ip);
        } catch (VerbsException e) {
            return new ProbeReport(library, Outcome.FAILURE, Outcome.FAILURE.exitStatus(), views, null,
                    Failure.of("INTERFACES_UNREADABLE", e));
        }
        Query query = AddressQuery.answer(ip, netdevIndex, devices, device, gidIndexOverride);
        Outcome outcome = AddressQuery.outcome(query);
        return new ProbeReport(library, outcome, outcome.exitStatus(), views, query, null);
    }

    private static ProbeReport unavailable(String library, RdmaUnavailableException cause) {
        Outcome outcome = Outcome.of(cause.reason());
        return new ProbeReport(library, outcome, outcome.exitStatus(), List.of(), null,
                Failure.of(cause.reason().name(), cause));
    }
}
