package dev.ofl.verbs;

import dev.ofl.verbs.ffm.ibv_gid_entry;
import dev.ofl.verbs.ffm.ibv_gid_type;

import java.lang.foreign.MemorySegment;
import java.util.Objects;

/**
 * One valid GID table entry ({@code struct ibv_gid_entry}). Immutable.
 *
 * @param gid the GID
 * @param index the GID index within its port's table, the {@code sgid_index} of an address vector
 * @param port the port number, from 1
 * @param type an {@code IBV_GID_TYPE_*} value of {@link ibv_gid_type}
 * @param netdevIndex the interface index of the netdev the GID belongs to, or 0 when none or unknown
 */
public record GidEntry(Gid gid, int index, int port, int type, int netdevIndex) {
    /**
     * Validates the entry.
     *
     * @param gid the GID
     * @param index the GID index
     * @param port the port number
     * @param type the GID type
     * @param netdevIndex the netdev's interface index, or 0
     */
    public GidEntry {
        Objects.requireNonNull(gid, "gid");
    }

    /**
     * Reads an entry from native memory.
     *
     * @param entry a segment holding a {@code struct ibv_gid_entry}
     * @return the entry
     */
    public static GidEntry read(MemorySegment entry) {
        return new GidEntry(Gid.read(ibv_gid_entry.gid(entry)), ibv_gid_entry.gid_index(entry),
                ibv_gid_entry.port_num(entry), ibv_gid_entry.gid_type(entry), ibv_gid_entry.ndev_ifindex(entry));
    }

    /**
     * Tells whether this is a RoCE v2 entry.
     *
     * @return true for {@code IBV_GID_TYPE_ROCE_V2}
     */
    public boolean isRoceV2() {
        return type == ibv_gid_type.IBV_GID_TYPE_ROCE_V2;
    }

    /**
     * Describes the entry as {@code ibv_devinfo -v} does, with the port and netdev.
     *
     * @return for example {@code "port 1 GID[3] ::ffff:10.0.0.1, RoCE v2, netdev 4"}
     */
    @Override
    public String toString() {
        return "port " + port + " GID[" + index + "] " + gid + ", " + typeName(type)
                + (netdevIndex != 0 ? ", netdev " + netdevIndex : "");
    }

    /**
     * Names a GID type as the tools print it.
     *
     * @param type an {@code IBV_GID_TYPE_*} value
     * @return {@code "IB"}, {@code "RoCE v1"}, {@code "RoCE v2"} or {@code "type <n>"}
     */
    public static String typeName(int type) {
        return switch (type) {
            case ibv_gid_type.IBV_GID_TYPE_IB -> "IB";
            case ibv_gid_type.IBV_GID_TYPE_ROCE_V1 -> "RoCE v1";
            case ibv_gid_type.IBV_GID_TYPE_ROCE_V2 -> "RoCE v2";
            default -> "type " + type;
        };
    }
}
