package dev.ofl.probe;

import dev.ofl.verbs.DeviceAttributes;
import dev.ofl.verbs.Errno;
import dev.ofl.verbs.GidEntry;
import dev.ofl.verbs.PortAttributes;
import dev.ofl.verbs.RdmaUnavailableException;
import dev.ofl.verbs.VerbsException;
import dev.ofl.verbs.VerbsLibrary;
import dev.ofl.verbs.ffm.ibv_link_layer;
import dev.ofl.verbs.ffm.ibv_node_type;
import dev.ofl.verbs.ffm.ibv_port_state;
import dev.ofl.verbs.ffm.ibv_transport_type;

import java.net.Inet4Address;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.util.List;

/**
 * Everything one run of the probe found: the human table and the {@code --json} document are two
 * renderings of this one value. Jackson serializes the records component by component, so the
 * component names are the JSON keys; absent values are JSON {@code null}, never missing keys.
 * Immutable.
 *
 * @param library the libibverbs that was probed (file name or path)
 * @param outcome what the run concluded
 * @param exitStatus the process exit status for {@code outcome}
 * @param devices every device with its ports and GIDs; empty when RDMA is unavailable
 * @param query the answer for {@code --ip}, or {@code null} without it
 * @param failure why RDMA is unavailable, or {@code null} when the devices could be listed
 * @param memlock the locked-memory limit against what ofl would register, or {@code null} when it
 *     could not be read
 */
record ProbeReport(String library, Outcome outcome, int exitStatus, List<DeviceView> devices, Query query,
        Failure failure, Memlock memlock) {

    ProbeReport {
        devices = devices == null ? List.of() : List.copyOf(devices);
    }

    /** A report without the memlock section, which {@link #withMemlock(Memlock)} adds. */
    ProbeReport(String library, Outcome outcome, int exitStatus, List<DeviceView> devices, Query query,
            Failure failure) {
        this(library, outcome, exitStatus, devices, query, failure, null);
    }

    /**
     * Returns this report with a memlock section.
     *
     * @param section the section
     * @return a new report
     */
    ProbeReport withMemlock(Memlock section) {
        return new ProbeReport(library, outcome, exitStatus, devices, query, failure, section);
    }

    /**
     * The locked-memory limit ({@code RLIMIT_MEMLOCK}) and what the RDMA backend would register
     * for the limits given on the command line (or a client's defaults).
     *
     * @param soft the soft limit, for example {@code "8388608 bytes (8 MiB)"} or {@code "unlimited"}
     * @param hard the hard limit, likewise
     * @param softBytes the soft limit in bytes, or {@code null} when unlimited
     * @param hardBytes the hard limit in bytes, or {@code null} when unlimited
     * @param lockCapable whether this process holds {@code CAP_IPC_LOCK}, which lifts the limit
     * @param pageSize the page size registrations are rounded to
     * @param maxRequestBytes the limits the estimate is for
     * @param maxResponseBytes likewise
     * @param maxRanges likewise
     * @param maxInFlight likewise
     * @param connections the server connections the server estimate is for
     * @param clientBytes what a client registers, without its regions
     * @param serverConnectionBytes what one server connection registers of its own
     * @param serverStagingBytes the server's staging pool, registered once for all its connections
     *     (the default budget)
     * @param serverBytes {@code serverStagingBytes} plus {@code serverConnectionBytes} times
     *     {@code connections}
     * @param verdict whether each fits, and the fix when one does not
     */
    record Memlock(String soft, String hard, Long softBytes, Long hardBytes, boolean lockCapable, long pageSize,
            int maxRequestBytes, int maxResponseBytes, int maxRanges, int maxInFlight, int connections,
            long clientBytes, long serverConnectionBytes, long serverStagingBytes, long serverBytes, String verdict) {
    }

    /** What a run concluded, with its exit status. */
    enum Outcome {
        /** A GID fits the {@code --ip} address. */
        FOUND(ExitStatus.FOUND),
        /** The devices were listed. */
        LISTED(ExitStatus.FOUND),
        /** No GID fits the {@code --ip} address. */
        NOT_FOUND(ExitStatus.NOT_FOUND),
        /** The kernel supports RDMA but there is no device. */
        NO_DEVICE(ExitStatus.NO_DEVICE),
        /** The library cannot be loaded. */
        LIBRARY_MISSING(ExitStatus.LIBRARY_MISSING),
        /** The kernel has no RDMA support. */
        KERNEL_WITHOUT_RDMA(ExitStatus.KERNEL_WITHOUT_RDMA),
        /** Any other failure. */
        FAILURE(ExitStatus.FAILURE);

        private final int exitStatus;

        Outcome(int exitStatus) {
            this.exitStatus = exitStatus;
        }

        /**
         * Returns the exit status of this outcome.
         *
         * @return one of {@link ExitStatus}
         */
        int exitStatus() {
            return exitStatus;
        }

        /**
         * Returns the outcome for why RDMA is unavailable.
         *
         * @param reason the reason the bindings report
         * @return the outcome
         */
        static Outcome of(RdmaUnavailableException.Reason reason) {
            return switch (reason) {
                case NO_DEVICE -> NO_DEVICE;
                case LIBRARY_MISSING -> LIBRARY_MISSING;
                case KERNEL_WITHOUT_RDMA -> KERNEL_WITHOUT_RDMA;
                case UNSUPPORTED_ARCHITECTURE, NATIVE_ACCESS_DISABLED, LIBRARY_INCOMPATIBLE, DEVICE_LIST_FAILED -> FAILURE;
            };
        }
    }

    /**
     * One device.
     *
     * @param name the kernel device name
     * @param nodeType the node type, for example {@code CA}
     * @param transport the transport, for example {@code IB} (RoCE devices report IB)
     * @param firmwareVersion {@code fw_ver}, or {@code null} when unread
     * @param nodeGuid the node GUID as {@code ibv_devinfo} prints it, or {@code null} when unread
     * @param physicalPortCount the number of ports, or {@code null} when unread
     * @param ports the ports read
     * @param gids the valid GID entries
     * @param failure why reading the device stopped, or {@code null}
     */
    record DeviceView(String name, String nodeType, String transport, String firmwareVersion, String nodeGuid,
            Integer physicalPortCount, List<PortView> ports, List<GidView> gids, Failure failure) {

        static DeviceView of(DeviceSnapshot device) {
            DeviceAttributes attributes = device.attributes();
            return new DeviceView(device.name(),
                    PortCodes.shortName(ibv_node_type.name(device.nodeType()), "IBV_NODE_"),
                    PortCodes.shortName(ibv_transport_type.name(device.transportType()), "IBV_TRANSPORT_"),
                    attributes == null ? null : attributes.firmwareVersion(),
                    attributes == null ? null : guid(attributes.nodeGuid()),
                    attributes == null ? null : attributes.physicalPortCount(),
                    device.ports().stream().map(PortView::of).toList(),
                    device.gids().stream().map(GidView::of).toList(),
                    device.failure() == null ? null : Failure.of("DEVICE_UNREADABLE", device.failure()));
        }

        private static String guid(long guid) {
            String hex = String.format("%016x", guid);
            return hex.substring(0, 4) + ':' + hex.substring(4, 8) + ':' + hex.substring(8, 12) + ':' + hex.substring(12);
        }
    }

    /**
     * One port. Each decoded name comes with its raw code.
     *
     * @param port the port number, from 1
     * @param state the logical state, for example {@code ACTIVE}
     * @param stateCode {@code state}
     * @param physicalState the physical state, for example {@code LINK_UP}
     * @param physicalStateCode {@code phys_state}
     * @param linkLayer {@code ETHERNET} (RoCE), {@code INFINIBAND} or {@code UNSPECIFIED}
     * @param activeMtu the active MTU in bytes, or {@code null} for an invalid code
     * @param activeMtuCode {@code active_mtu}
     * @param maxMtu the largest MTU in bytes, or {@code null} for an invalid code
     * @param maxMtuCode {@code max_mtu}
     * @param activeWidth the link width, for example {@code 4X}
     * @param activeWidthCode {@code active_width}
     * @param activeSpeed the per-lane speed, for example {@code 25.0 Gbps (EDR)}
     * @param activeSpeedCode {@code active_speed}
     * @param gidTableLength the number of GID table slots
     */
    record PortView(int port, String state, int stateCode, String physicalState, int physicalStateCode,
            String linkLayer, Integer activeMtu, int activeMtuCode, Integer maxMtu, int maxMtuCode,
            String activeWidth, int activeWidthCode, String activeSpeed, int activeSpeedCode, int gidTableLength) {

        static PortView of(PortAttributes port) {
            return new PortView(port.port(), PortCodes.shortName(ibv_port_state.name(port.state()), "IBV_PORT_"),
                    port.state(), PortCodes.physicalState(port.physicalState()), port.physicalState(),
                    PortCodes.shortName(ibv_link_layer.name(port.linkLayer()), "IBV_LINK_LAYER_"),
                    PortCodes.mtuBytes(port.activeMtu()), port.activeMtu(), PortCodes.mtuBytes(port.maxMtu()),
                    port.maxMtu(), PortCodes.width(port.activeWidth()), port.activeWidth(),
                    PortCodes.laneSpeed(port.activeSpeed()), port.activeSpeed(), port.gidTableLength());
        }
    }

    /**
     * One valid GID table entry.
     *
     * @param port the port number
     * @param index the GID index, the {@code sgid_index} a connection would use
     * @param gid the GID as {@code ibv_devinfo} prints it
     * @param type {@code IB}, {@code RoCE v1} or {@code RoCE v2}
     * @param typeCode the {@code IBV_GID_TYPE_*} value
     * @param netdevIndex the interface index of the netdev, or {@code null} when none
     * @param netdev the interface name, or {@code null} when none or no longer present
     * @param ipv4 the IPv4 address an IPv4-mapped GID carries, or {@code null}
     */
    record GidView(int port, int index, String gid, String type, int typeCode, Integer netdevIndex, String netdev,
            String ipv4) {

        static GidView of(GidEntry entry) {
            return new GidView(entry.port(), entry.index(), entry.gid().toString(), GidEntry.typeName(entry.type()),
                    entry.type(), entry.netdevIndex() == 0 ? null : entry.netdevIndex(), netdevName(entry.netdevIndex()),
                    entry.gid().ipv4().map(Inet4Address::getHostAddress).orElse(null));
        }
    }

    /**
     * The answer for {@code --ip}.
     *
     * @param ip the address asked about
     * @param netdevIndex the interface index of the local interface that has it, or {@code null}
     *     when it is not local or the index is unknown
     * @param netdev that interface's name, or {@code null}
     * @param gidIndexOverride the {@code --gid-index} checked, or {@code null}
     * @param selected what ofl would use, or {@code null} when nothing fits
     * @param otherMatches entries of other devices that would fit too (ofl takes {@code selected})
     * @param refusals why each device that does not fit was refused
     */
    record Query(String ip, Integer netdevIndex, String netdev, Integer gidIndexOverride, Selection selected,
            List<Selection> otherMatches, List<Refusal> refusals) {

        Query {
            otherMatches = List.copyOf(otherMatches);
            refusals = List.copyOf(refusals);
        }
    }

    /**
     * The device, port and GID entry ofl would use, and the path MTU it would offer.
     *
     * @param device the device name
     * @param port the port number
     * @param portState the port's logical state
     * @param gidIndex the GID index, the {@code sgid_index}
     * @param gid the GID
     * @param type the GID type, {@code RoCE v2}
     * @param netdevIndex the GID's netdev interface index, or {@code null}
     * @param netdev the GID's netdev name, or {@code null}
     * @param pathMtu the port's active MTU in bytes, which the bootstrap offers (the connection uses
     *     the smaller of both sides'), or {@code null} for an invalid code
     * @param pathMtuCode the port's {@code active_mtu} code
     */
    record Selection(String device, int port, String portState, int gidIndex, String gid, String type,
            Integer netdevIndex, String netdev, Integer pathMtu, int pathMtuCode) {

        static Selection of(DeviceSnapshot device, GidEntry entry) {
            PortAttributes port = device.port(entry.port());
            int mtuCode = port == null ? 0 : port.activeMtu();
            return new Selection(device.name(), entry.port(),
                    port == null ? null : PortCodes.shortName(ibv_port_state.name(port.state()), "IBV_PORT_"),
                    entry.index(), entry.gid().toString(), GidEntry.typeName(entry.type()),
                    entry.netdevIndex() == 0 ? null : entry.netdevIndex(), netdevName(entry.netdevIndex()),
                    PortCodes.mtuBytes(mtuCode), mtuCode);
        }
    }

    /**
     * Why one device offers no GID for the address.
     *
     * @param device the device name
     * @param reason a {@link dev.ofl.verbs.GidSelectionException.Reason} name, or
     *     {@code DEVICE_UNREADABLE} when the device could not be read
     * @param message what was found, and the fix
     * @param fix the fix alone
     */
    record Refusal(String device, String reason, String message, String fix) {
    }

    /**
     * A failure reported by the bindings.
     *
     * @param reason a {@link dev.ofl.verbs.RdmaUnavailableException.Reason} name, or
     *     {@code DEVICE_UNREADABLE}
     * @param function the C function that failed, or {@code null}
     * @param errno the errno, or {@code null}
     * @param errnoName its symbolic name, for example {@code ENOSYS}, or {@code null}
     * @param message the whole message: call, code, values and fix
     * @param fix the fix alone
     */
    record Failure(String reason, String function, Integer errno, String errnoName, String message, String fix) {

        static Failure of(String reason, VerbsException e) {
            boolean hasErrno = e.errno() != VerbsException.NO_CODE;
            return new Failure(reason, e.function(), hasErrno ? e.errno() : null, hasErrno ? Errno.name(e.errno()) : null,
                    forProbe(e.getMessage()), forProbe(e.fix()));
        }
    }

    /** How the probe's own fix texts name the library setting: options its command line accepts. */
    static final String PROBE_LIBRARY_SETTING = "--library <path> (or " + VerbsLibrary.LIBRARY_ENVIRONMENT
            + "=<path> in the probe's environment)";

    /**
     * Rewrites a fix text of the bindings for the probe. The bindings name the JVM system property,
     * which an application sets; {@code ./ofl probe} starts its own JVM and takes options, not
     * {@code -D} settings, so a fix telling its user to pass one would be refused.
     *
     * @param text a message or fix from the bindings, or {@code null}
     * @return the text naming {@code --library} where it named the system property
     */
    static String forProbe(String text) {
        return text == null ? null : text.replace(VerbsLibrary.LIBRARY_SETTING, PROBE_LIBRARY_SETTING);
    }

    /**
     * Names a local interface.
     *
     * @param index an interface index, or 0
     * @return its name, or {@code null} for 0 or an index no interface has
     */
    static String netdevName(int index) {
        if (index <= 0) {
            return null;
        }
        try {
            NetworkInterface netdev = NetworkInterface.getByIndex(index);
            return netdev == null ? null : netdev.getName();
        } catch (SocketException e) {
            return null;
        }
    }
}
