package dev.ofl.verbs.rdma;

import dev.ofl.api.OflException;
import dev.ofl.verbs.Context;
import dev.ofl.verbs.Device;
import dev.ofl.verbs.DeviceList;
import dev.ofl.verbs.GidEntry;
import dev.ofl.verbs.GidSelectionException;
import dev.ofl.verbs.GidSelector;
import dev.ofl.verbs.PortAttributes;
import dev.ofl.verbs.ProtectionDomain;
import dev.ofl.verbs.RdmaAvailability;
import dev.ofl.verbs.VerbsException;
import dev.ofl.verbs.VerbsLibrary;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.List;

/**
 * The device, port and RoCE v2 GID that carry one local IPv4 address, opened with a protection
 * domain. Owns the context and the PD: {@link #close()} releases both, after every queue pair and
 * memory region made from them was closed.
 *
 * <p>The context's asynchronous events are watched from open to close ({@link DeviceEvents}): a
 * port that goes down breaks the links made here at once.
 *
 * <p>A device's GID table can be renumbered while it is open (an address added or removed moves
 * the entries after it), so each new connection asks {@link #currentGid()} rather than reusing the
 * index found at open.
 */
final class RdmaDevice implements AutoCloseable {
    final Context context;
    final ProtectionDomain domain;
    /** The GID found when the device was opened; {@link #currentGid()} is what a connection uses. */
    final GidEntry gid;
    final PortAttributes port;
    final Inet4Address address;
    /** The context's asynchronous events, which break the links made here when the port or device fails. */
    final DeviceEvents events;
    private final int netdev;
    private final RdmaSettings settings;

    private RdmaDevice(Context context, ProtectionDomain domain, GidEntry gid, PortAttributes port,
            Inet4Address address, int netdev, RdmaSettings settings) {
        this.context = context;
        this.domain = domain;
        this.gid = gid;
        this.port = port;
        this.address = address;
        this.netdev = netdev;
        this.settings = settings;
        this.events = DeviceEvents.watch(context, CompletionPoller.shared());
    }

    /**
     * Why this device can no longer carry connections (a fatal device error), or {@code null}.
     *
     * @return the reason, or {@code null} while it is usable
     */
    String failure() {
        return events.failure();
    }

    /**
     * Selects the GID for this device's address from the table as it is now.
     *
     * @return the entry a new connection uses
     * @throws GidSelectionException if the table no longer carries the address on this device
     */
    GidEntry currentGid() {
        List<PortAttributes> ports = new ArrayList<>();
        for (int p = 1; p <= context.queryDevice().physicalPortCount(); p++) {
            ports.add(context.queryPort(p));
        }
        return GidSelector.select(address, netdev, context.queryGidTable(), ports, settings.gidIndex());
    }

    /** Finds and opens the device for {@code address}, or says precisely why none fits. */
    static RdmaDevice open(InetAddress address, RdmaSettings settings) {
        if (!(address instanceof Inet4Address local)) {
            throw new OflException("the RDMA backend finds its RoCE v2 GID from an IPv4 address; " + address
                    + " is not one: bind or connect over the direct link's IPv4 address");
        }
        RdmaAvailability.ensureAvailability();
        VerbsLibrary library = VerbsLibrary.processWide();
        int netdev = GidSelector.netdevIndexOf(local);
        List<GidSelectionException> misses = new ArrayList<>();
        try (DeviceList list = DeviceList.open(library)) {
            List<Device> devices = settings.device() == null ? list.devices() : List.of(list.byName(settings.device()));
            for (Device device : devices) {
                Context context = device.open();
                try {
                    List<PortAttributes> ports = new ArrayList<>();
                    for (int p = 1; p <= context.queryDevice().physicalPortCount(); p++) {
                        ports.add(context.queryPort(p));
                    }
                    GidEntry entry = GidSelector.select(local, netdev, context.queryGidTable(), ports,
                            settings.gidIndex());
                    PortAttributes port = ports.get(entry.port() - 1);
                    ProtectionDomain domain = context.allocateProtectionDomain();
                    return new RdmaDevice(context, domain, entry, port, local, netdev, settings);
                } catch (GidSelectionException e) {
                    context.close();
                    misses.add(e);
                } catch (RuntimeException e) {
                    context.close();
                    throw e;
                }
            }
        }
        throw explain(local, misses);
    }

    /** Prefers the most specific reason: an override or port problem over "no GID carries it". */
    private static RuntimeException explain(Inet4Address local, List<GidSelectionException> misses) {
        if (misses.isEmpty()) {
            return new OflException("no RDMA device to carry " + local.getHostAddress());
        }
        GidSelectionException best = misses.getFirst();
        for (GidSelectionException miss : misses) {
            if (miss.reason() != GidSelectionException.Reason.NO_GID_FOR_ADDRESS) {
                best = miss;
                break;
            }
        }
        return new OflException("cannot use RDMA on " + local.getHostAddress() + ": " + best.getMessage(), best);
    }

    /** The active MTU this port offers, as an {@code IBV_MTU_*} value. */
    int activeMtu() {
        return port.activeMtu();
    }

    @Override
    public void close() {
        // First: the poller must not read events of a context being closed.
        events.close();
        VerbsException failure = null;
        try {
            domain.close();
        } catch (VerbsException e) {
            failure = e;
        }
        try {
            context.close();
        } catch (VerbsException e) {
            if (failure == null) {
                failure = e;
            } else {
                failure.addSuppressed(e);
            }
        }
        if (failure != null) {
            throw failure;
        }
    }
}
