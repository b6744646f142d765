package dev.ofl.verbs;

import dev.ofl.verbs.ffm.ibv_port_state;

import java.net.Inet4Address;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.OptionalInt;
import java.util.stream.Collectors;

/**
 * Picks the RoCE v2 GID for a local IPv4 address: the one place that decides which
 * {@code sgid_index} a connection uses. Pure Java over a GID table and port attributes, so the
 * probe CLI and the RDMA backend decide the same way and tests need no device.
 *
 * <p>The chosen entry is a RoCE v2 entry whose GID is {@code ::ffff:a.b.c.d} for the address,
 * whose netdev is the interface that owns the address (when both are known), on an active port;
 * among several, the lowest port and index. Anything else is refused with a
 * {@link GidSelectionException} whose reason and message say what was found. A configured index
 * override must be such an entry, or it is refused with both values. Stateless and thread-safe.
 */
public final class GidSelector {
    /** {@code netdevIndex} value: the address is configured on no local interface. */
    public static final int NOT_LOCAL = -1;
    /** {@code netdevIndex} value: the address is local but its interface index is unknown. */
    public static final int NETDEV_UNKNOWN = 0;

    private GidSelector() {
    }

    /**
     * Finds the interface index of the local interface that has an address.
     *
     * @param address the address
     * @return the interface index, or {@link #NOT_LOCAL}
     * @throws VerbsException if the interfaces cannot be listed
     */
    public static int netdevIndexOf(Inet4Address address) {
        try {
            NetworkInterface owner = NetworkInterface.getByInetAddress(address);
            if (owner == null) {
                return NOT_LOCAL;
            }
            return owner.getIndex() > 0 ? owner.getIndex() : NETDEV_UNKNOWN;
        } catch (SocketException e) {
            throw new VerbsException(null, VerbsException.NO_CODE, VerbsException.NO_CODE,
                    "cannot list network interfaces to find " + address.getHostAddress() + ": " + e.getMessage(),
                    "check that the JVM may read the host's interfaces", e);
        }
    }

    /**
     * Selects the GID entry for a local address.
     *
     * @param address the bound local IPv4 address
     * @param netdevIndex the interface index of the netdev that owns {@code address}, or
     *     {@link #NOT_LOCAL}, or {@link #NETDEV_UNKNOWN}; see {@link #netdevIndexOf(Inet4Address)}
     * @param table the device's valid GID entries, from {@link Context#queryGidTable()}
     * @param ports the attributes of the device's ports; a port missing here is not checked
     * @param gidIndexOverride a configured GID index to use instead, or empty
     * @return the entry to use: its {@link GidEntry#index()} is the {@code sgid_index} and its
     *     {@link GidEntry#port()} the port
     * @throws GidSelectionException naming what was found and the fix
     */
    public static GidEntry select(Inet4Address address, int netdevIndex, List<GidEntry> table, List<PortAttributes> ports,
            OptionalInt gidIndexOverride) {
        Objects.requireNonNull(address, "address");
        Objects.requireNonNull(table, "table");
        Objects.requireNonNull(ports, "ports");
        Objects.requireNonNull(gidIndexOverride, "gidIndexOverride");
        String ip = address.getHostAddress();
        Gid wanted = Gid.ipv4Mapped(address);
        if (address.isAnyLocalAddress()) {
            throw new GidSelectionException(GidSelectionException.Reason.WILDCARD_ADDRESS,
                    "cannot find a RoCE v2 GID for the wildcard address " + ip,
                    "bind an explicit local IPv4 address of the RDMA NIC's netdev");
        }
        if (netdevIndex == NOT_LOCAL) {
            throw new GidSelectionException(GidSelectionException.Reason.ADDRESS_NOT_LOCAL,
                    ip + " is not an address of this host",
                    "bind an IPv4 address configured on the RDMA NIC's netdev (ip -4 addr)");
        }
        List<GidEntry> carrying = table.stream().filter(e -> e.gid().equals(wanted)).toList();
        List<GidEntry> roceV2 = carrying.stream().filter(GidEntry::isRoceV2).toList();
        if (roceV2.isEmpty()) {
            if (!carrying.isEmpty()) {
                throw new GidSelectionException(GidSelectionException.Reason.ROCE_V1_ONLY,
                        "only non-RoCE-v2 GID entries carry " + wanted + ": " + carrying,
                        "enable RoCE v2 on the device (for mlx5: cma_roce_mode or the NIC firmware's RoCE mode), "
                                + "ofl needs RoCE v2");
            }
            List<PortAttributes> down = ports.stream().filter(p -> !p.isActive()).toList();
            throw new GidSelectionException(GidSelectionException.Reason.NO_GID_FOR_ADDRESS,
                    "no GID table entry carries " + wanted + " (for " + ip + "); the table holds "
                            + summary(table) + (down.isEmpty() ? "" : "; " + describeDown(down)),
                    "bind an address of the netdev that belongs to the RDMA device (ibv_devinfo -v lists its GIDs, "
                            + "rdma link shows the netdev), or add " + ip + " to that netdev");
        }
        List<GidEntry> sameNetdev = netdevIndex == NETDEV_UNKNOWN ? roceV2
                : roceV2.stream().filter(e -> e.netdevIndex() == 0 || e.netdevIndex() == netdevIndex).toList();
        if (sameNetdev.isEmpty()) {
            throw new GidSelectionException(GidSelectionException.Reason.NETDEV_MISMATCH,
                    ip + " belongs to interface index " + netdevIndex + " but its RoCE v2 GIDs belong to other netdevs: "
                            + roceV2,
                    "bind the address on the netdev the RDMA device uses, or remove the duplicate address");
        }
        List<GidEntry> candidates = new ArrayList<>(sameNetdev);
        candidates.sort(Comparator.comparingInt(GidEntry::port).thenComparingInt(GidEntry::index));
        if (gidIndexOverride.isPresent()) {
            int index = gidIndexOverride.getAsInt();
            List<GidEntry> chosen = candidates.stream().filter(e -> e.index() == index).toList();
            if (chosen.isEmpty()) {
                List<GidEntry> atIndex = table.stream().filter(e -> e.index() == index).toList();
                throw new GidSelectionException(GidSelectionException.Reason.OVERRIDE_MISMATCH,
                        "GID index override " + index + " does not carry " + ip + " as RoCE v2: index " + index + " is "
                                + (atIndex.isEmpty() ? "empty" : atIndex.toString()) + ", while " + ip + " is at "
                                + candidates,
                        "remove the override, or set it to " + candidates.get(0).index());
            }
            candidates = chosen;
        }
        for (GidEntry candidate : candidates) {
            PortAttributes port = portOf(ports, candidate.port());
            if (port == null || port.isActive()) {
                return candidate;
            }
        }
        PortAttributes port = portOf(ports, candidates.get(0).port());
        throw new GidSelectionException(GidSelectionException.Reason.PORT_DOWN,
                ip + " is " + candidates.get(0) + " but port " + port.port() + " is "
                        + ibv_port_state.name(port.state()),
                "bring the link up (cable, switch port, ip link set <netdev> up) and check it with ibv_devinfo");
    }

    private static PortAttributes portOf(List<PortAttributes> ports, int port) {
        for (PortAttributes attributes : ports) {
            if (attributes.port() == port) {
                return attributes;
            }
        }
        return null;
    }

    private static String describeDown(List<PortAttributes> down) {
        return down.stream().map(p -> "port " + p.port() + " is " + ibv_port_state.name(p.state()))
                .collect(Collectors.joining(", ")) + " (a netdev that is down has no IP-based GIDs)";
    }

    private static String summary(List<GidEntry> table) {
        return table.isEmpty() ? "no valid entries" : table.toString();
    }
}
