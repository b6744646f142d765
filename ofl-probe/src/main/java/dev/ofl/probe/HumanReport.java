package dev.ofl.probe;

import dev.ofl.probe.ProbeReport.DeviceView;
import dev.ofl.probe.ProbeReport.Failure;
import dev.ofl.probe.ProbeReport.GidView;
import dev.ofl.probe.ProbeReport.Memlock;
import dev.ofl.probe.ProbeReport.PortView;
import dev.ofl.probe.ProbeReport.Query;
import dev.ofl.probe.ProbeReport.Refusal;
import dev.ofl.probe.ProbeReport.Selection;

import dev.ofl.verbs.MemlockLimit;

import java.io.PrintWriter;

/**
 * Prints a {@link ProbeReport} for people: tables for the listing, a short block for the
 * {@code --ip} answer. Results go to {@code out}; when RDMA is unavailable the cause and its fix go
 * to {@code err}. Stateless and thread-safe.
 */
final class HumanReport {
    private HumanReport() {
    }

    /**
     * Prints a report.
     *
     * @param report the report
     * @param out where results go
     * @param err where the unavailability cause goes
     */
    static void print(ProbeReport report, PrintWriter out, PrintWriter err) {
        if (report.failure() != null) {
            printFailure(report, err);
        } else if (report.query() != null) {
            printQuery(report.query(), out);
        } else {
            printDevices(report, out);
        }
        if (report.memlock() != null) {
            printMemlock(report.memlock(), report.failure() != null ? err : out);
        }
    }

    private static void printMemlock(Memlock memlock, PrintWriter out) {
        out.println();
        out.println("locked memory (RLIMIT_MEMLOCK, of this process): soft " + memlock.soft() + ", hard "
                + memlock.hard() + (memlock.lockCapable() ? "; CAP_IPC_LOCK held" : ""));
        out.println("  for maxRequestBytes " + memlock.maxRequestBytes() + ", maxResponseBytes "
                + memlock.maxResponseBytes() + ", maxRanges " + memlock.maxRanges() + ", maxInFlight "
                + memlock.maxInFlight() + " (--max-* options), RDMA registers:");
        out.println("  a client: " + MemlockLimit.describe(memlock.clientBytes()) + ", plus its regions");
        out.println("  a server: its staging pool " + MemlockLimit.describe(memlock.serverStagingBytes())
                + " (the default budget, once), and per connection " + MemlockLimit.describe(memlock.serverConnectionBytes())
                + "; with " + memlock.connections() + " (--connections): " + MemlockLimit.describe(memlock.serverBytes()));
        out.println("  " + memlock.verdict());
    }

    private static void printFailure(ProbeReport report, PrintWriter err) {
        Failure failure = report.failure();
        err.println("ofl probe: " + headline(failure.reason()) + " (" + failure.reason() + ", exit "
                + report.exitStatus() + ")");
        err.println("  library: " + report.library());
        err.println("  " + failure.message());
    }

    private static String headline(String reason) {
        return switch (reason) {
            case "UNSUPPORTED_ARCHITECTURE" -> "the bindings have no libibverbs struct layouts for this processor architecture";
            case "NATIVE_ACCESS_DISABLED" -> "native access is not enabled, so libibverbs cannot be called";
            case "LIBRARY_MISSING" -> "the verbs library cannot be loaded";
            case "LIBRARY_INCOMPATIBLE" -> "the library is not a libibverbs the bindings can use";
            case "KERNEL_WITHOUT_RDMA" -> "the kernel has no RDMA support: ibv_get_device_list failed with ENOSYS";
            case "DEVICE_LIST_FAILED" -> "the RDMA device list cannot be read";
            case "NO_DEVICE" -> "no RDMA device is present";
            case "INTERFACES_UNREADABLE" -> "the network interfaces cannot be listed";
            default -> "RDMA is not usable";
        };
    }

    private static void printDevices(ProbeReport report, PrintWriter out) {
        int count = report.devices().size();
        out.println("library " + report.library() + ": " + count + (count == 1 ? " device" : " devices"));
        for (DeviceView device : report.devices()) {
            out.println();
            StringBuilder title = new StringBuilder(device.name()).append("  (").append(device.nodeType())
                    .append(", transport ").append(device.transport());
            if (device.firmwareVersion() != null) {
                title.append(", firmware ").append(device.firmwareVersion());
            }
            if (device.nodeGuid() != null) {
                title.append(", node GUID ").append(device.nodeGuid());
            }
            if (device.physicalPortCount() != null) {
                title.append(", ").append(device.physicalPortCount())
                        .append(device.physicalPortCount() == 1 ? " port" : " ports");
            }
            out.println(title.append(')'));
            if (!device.ports().isEmpty()) {
                TextTable ports = new TextTable("PORT", "STATE", "PHYSICAL STATE", "LINK LAYER", "ACTIVE MTU", "MAX MTU",
                        "WIDTH", "LANE SPEED", "GID SLOTS");
                for (PortView port : device.ports()) {
                    ports.row(port.port(), port.state(), port.physicalState(), port.linkLayer(),
                            mtu(port.activeMtu(), port.activeMtuCode()), mtu(port.maxMtu(), port.maxMtuCode()),
                            port.activeWidth(), port.activeSpeed(), port.gidTableLength());
                }
                ports.print(out, "  ");
            }
            if (!device.gids().isEmpty()) {
                out.println();
                TextTable gids = new TextTable("PORT", "INDEX", "TYPE", "GID", "NETDEV", "IPV4");
                for (GidView gid : device.gids()) {
                    gids.row(gid.port(), gid.index(), gid.type(), gid.gid(), netdev(gid.netdev(), gid.netdevIndex()),
                            gid.ipv4());
                }
                gids.print(out, "  ");
            } else if (device.failure() == null) {
                out.println("  no valid GID entries");
            }
            if (device.failure() != null) {
                out.println("  could not be read completely: " + device.failure().message());
            }
        }
    }

    private static void printQuery(Query query, PrintWriter out) {
        String address = query.ip() + (query.netdev() != null ? " (netdev " + query.netdev() + ")" : "");
        Selection selected = query.selected();
        if (selected == null) {
            out.println(address + ": no RDMA device, port and GID fits"
                    + (query.gidIndexOverride() != null ? " with GID index override " + query.gidIndexOverride() : ""));
            for (Refusal refusal : query.refusals()) {
                out.println("  " + refusal.device() + ": " + refusal.reason() + ": " + refusal.message());
            }
            return;
        }
        out.println(address + ": ofl would use");
        TextTable answer = new TextTable("device", selected.device());
        answer.row("port", selected.port() + (selected.portState() != null ? " (" + selected.portState() + ")" : ""));
        answer.row("GID index", selected.gidIndex() + "  (" + selected.gid() + ", " + selected.type()
                + (selected.netdev() != null ? ", netdev " + selected.netdev() : "") + ")");
        if (query.gidIndexOverride() != null) {
            answer.row("override", "GID index " + query.gidIndexOverride() + " carries the address: accepted");
        }
        answer.row("path MTU", mtu(selected.pathMtu(), selected.pathMtuCode())
                + "  (offered in the bootstrap; the connection uses the smaller of both sides' active MTU)");
        for (Selection other : query.otherMatches()) {
            answer.row("also fits", other.device() + " port " + other.port() + " GID index " + other.gidIndex()
                    + "  (ofl takes the first device in the library's order)");
        }
        answer.print(out, "  ");
        for (Refusal refusal : query.refusals()) {
            out.println("  " + refusal.device() + " does not fit: " + refusal.reason() + ": " + refusal.message());
        }
    }

    private static String mtu(Integer bytes, int code) {
        return bytes != null ? bytes.toString() : "invalid(" + code + ")";
    }

    private static String netdev(String name, Integer index) {
        if (index == null) {
            return null;
        }
        return name != null ? name : "ifindex " + index;
    }
}
