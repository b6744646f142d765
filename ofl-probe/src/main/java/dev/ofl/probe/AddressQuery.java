package dev.ofl.probe;

import dev.ofl.probe.ProbeReport.Query;
import dev.ofl.probe.ProbeReport.Refusal;
import dev.ofl.probe.ProbeReport.Selection;
import dev.ofl.verbs.GidEntry;
import dev.ofl.verbs.GidSelectionException;
import dev.ofl.verbs.GidSelector;

import java.net.Inet4Address;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalInt;

/**
 * Answers "which device, port and GID index would ofl use for this local address" by running
 * {@link GidSelector#select} (the RDMA backend's own selection, not a copy of it) over each
 * device's snapshot in the library's order. The first device that yields an entry is the answer;
 * every other device is either another match or a refusal with the selector's reason and fix.
 * Stateless and thread-safe.
 */
final class AddressQuery {
    /** Refusal reason of a device that could not be read, so nothing can be said about it. */
    static final String DEVICE_UNREADABLE = "DEVICE_UNREADABLE";
    /** Refusal reason when {@code --device} names no present device. */
    static final String NO_SUCH_DEVICE = "NO_SUCH_DEVICE";

    private AddressQuery() {
    }

    /**
     * Answers the question for one address.
     *
     * @param ip the local address ofl would bind
     * @param netdevIndex its interface index, from {@link GidSelector#netdevIndexOf(Inet4Address)}
     * @param devices the devices, in the library's order
     * @param only the only device to consider, as the backend's {@code rdma.device}, or {@code null}
     * @param gidIndexOverride the GID index override to check, or empty
     * @return the answer
     */
    static Query answer(Inet4Address ip, int netdevIndex, List<DeviceSnapshot> devices, String only,
            OptionalInt gidIndexOverride) {
        Selection selected = null;
        List<Selection> otherMatches = new ArrayList<>();
        List<Refusal> refusals = new ArrayList<>();
        List<DeviceSnapshot> candidates = only == null ? devices
                : devices.stream().filter(d -> d.name().equals(only)).toList();
        if (candidates.isEmpty() && only != null) {
            String fix = "name one of " + devices.stream().map(DeviceSnapshot::name).toList();
            refusals.add(new Refusal(only, NO_SUCH_DEVICE, "no RDMA device named '" + only + "'. Fix: " + fix, fix));
        }
        for (DeviceSnapshot device : candidates) {
            if (device.failure() != null) {
                refusals.add(new Refusal(device.name(), DEVICE_UNREADABLE, ProbeReport.forProbe(device.failure().getMessage()),
                        ProbeReport.forProbe(device.failure().fix())));
                continue;
            }
            try {
                GidEntry entry = GidSelector.select(ip, netdevIndex, device.gids(), device.ports(), gidIndexOverride);
                Selection selection = Selection.of(device, entry);
                if (selected == null) {
                    selected = selection;
                } else {
                    otherMatches.add(selection);
                }
            } catch (GidSelectionException e) {
                refusals.add(new Refusal(device.name(), e.reason().name(), e.getMessage(), e.fix()));
            }
        }
        boolean local = netdevIndex != GidSelector.NOT_LOCAL && netdevIndex != GidSelector.NETDEV_UNKNOWN;
        return new Query(ip.getHostAddress(), local ? netdevIndex : null,
                local ? ProbeReport.netdevName(netdevIndex) : null,
                gidIndexOverride.isPresent() ? gidIndexOverride.getAsInt() : null, selected, otherMatches, refusals);
    }

    /**
     * Tells what a query concluded.
     *
     * @param query the answer
     * @return {@link ProbeReport.Outcome#FOUND}; {@link ProbeReport.Outcome#FAILURE} when nothing
     *     fits and every device was unreadable, so the answer is unknown; else
     *     {@link ProbeReport.Outcome#NOT_FOUND}
     */
    static ProbeReport.Outcome outcome(Query query) {
        if (query.selected() != null) {
            return ProbeReport.Outcome.FOUND;
        }
        boolean allUnreadable = !query.refusals().isEmpty()
                && query.refusals().stream().allMatch(r -> r.reason().equals(DEVICE_UNREADABLE));
        return allUnreadable ? ProbeReport.Outcome.FAILURE : ProbeReport.Outcome.NOT_FOUND;
    }
}
