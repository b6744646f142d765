package dev.ofl.probe;

import dev.ofl.verbs.Context;
import dev.ofl.verbs.Device;
import dev.ofl.verbs.DeviceAttributes;
import dev.ofl.verbs.DeviceList;
import dev.ofl.verbs.GidEntry;
import dev.ofl.verbs.PortAttributes;
import dev.ofl.verbs.VerbsException;
import dev.ofl.verbs.VerbsLibrary;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * What one device reported when it was read: its attributes, every port and every valid GID
 * entry, exactly as the bindings return them. Reading only opens the device and queries it.
 * Immutable.
 *
 * @param name the kernel device name
 * @param nodeType an {@code IBV_NODE_*} value
 * @param transportType an {@code IBV_TRANSPORT_*} value
 * @param attributes the device attributes, or {@code null} when they could not be read
 * @param ports the ports read, in port order; fewer than the device has when reading failed
 * @param gids the valid GID entries, in the library's order; empty when reading failed
 * @param failure why reading stopped, or {@code null} when everything was read
 */
record DeviceSnapshot(String name, int nodeType, int transportType, DeviceAttributes attributes,
        List<PortAttributes> ports, List<GidEntry> gids, VerbsException failure) {

    DeviceSnapshot {
        Objects.requireNonNull(name, "name");
        ports = List.copyOf(ports);
        gids = List.copyOf(gids);
    }

    /**
     * Reads every device the library lists.
     *
     * @param library the loaded library
     * @return one snapshot per device, in the library's order
     * @throws dev.ofl.verbs.RdmaUnavailableException if the device list cannot be read
     */
    static List<DeviceSnapshot> readAll(VerbsLibrary library) {
        List<DeviceSnapshot> snapshots = new ArrayList<>();
        try (DeviceList devices = DeviceList.open(library)) {
            for (Device device : devices.devices()) {
                snapshots.add(read(device));
            }
        }
        return List.copyOf(snapshots);
    }

    /**
     * Reads one device; a failure is recorded in the snapshot beside what was read before it.
     *
     * @param device a device of an open list
     * @return the snapshot
     */
    static DeviceSnapshot read(Device device) {
        DeviceAttributes attributes = null;
        List<PortAttributes> ports = new ArrayList<>();
        List<GidEntry> gids = List.of();
        VerbsException failure = null;
        try (Context context = device.open()) {
            attributes = context.queryDevice();
            for (int port = 1; port <= attributes.physicalPortCount(); port++) {
                ports.add(context.queryPort(port));
            }
            gids = context.queryGidTable();
        } catch (VerbsException e) {
            failure = e;
        }
        return new DeviceSnapshot(device.name(), device.nodeType(), device.transportType(), attributes, ports, gids,
                failure);
    }

    /**
     * Returns a port's attributes.
     *
     * @param port the port number
     * @return the attributes, or {@code null} when the port was not read
     */
    PortAttributes port(int port) {
        for (PortAttributes attributes : ports) {
            if (attributes.port() == port) {
                return attributes;
            }
        }
        return null;
    }
}
