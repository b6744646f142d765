package dev.ofl.verbs;

import dev.ofl.verbs.ffm.ibv_link_layer;
import dev.ofl.verbs.ffm.ibv_port_attr;
import dev.ofl.verbs.ffm.ibv_port_state;

import java.lang.foreign.MemorySegment;

/**
 * The attributes of one port ({@code struct ibv_port_attr}) that ofl uses. Immutable.
 *
 * @param port the port number, from 1
 * @param state an {@code IBV_PORT_*} value of {@link ibv_port_state}
 * @param maxMtu the largest MTU code the port supports
 * @param activeMtu the MTU code in use
 * @param gidTableLength the number of GID table slots
 * @param portCapabilityFlags {@code port_cap_flags}
 * @param maxMessageSize the largest message in bytes (unsigned)
 * @param lid the local identifier (0 on RoCE)
 * @param linkLayer an {@code IBV_LINK_LAYER_*} value of {@link ibv_link_layer}
 * @param activeWidth the link width code
 * @param activeSpeed the link speed code
 * @param physicalState the physical port state code
 */
public record PortAttributes(int port, int state, int maxMtu, int activeMtu, int gidTableLength,
        int portCapabilityFlags, long maxMessageSize, int lid, int linkLayer, int activeWidth, int activeSpeed,
        int physicalState) {

    /**
     * Reads the fields the exported {@code ibv_query_port} fills (all but {@code port_cap_flags2}).
     *
     * @param port the port number the attributes belong to
     * @param attr a segment holding a {@code struct ibv_port_attr}
     * @return the attributes
     */
    public static PortAttributes read(int port, MemorySegment attr) {
        return new PortAttributes(port, ibv_port_attr.state(attr), ibv_port_attr.max_mtu(attr),
                ibv_port_attr.active_mtu(attr), ibv_port_attr.gid_tbl_len(attr), ibv_port_attr.port_cap_flags(attr),
                Integer.toUnsignedLong(ibv_port_attr.max_msg_sz(attr)), Short.toUnsignedInt(ibv_port_attr.lid(attr)),
                Byte.toUnsignedInt(ibv_port_attr.link_layer(attr)), Byte.toUnsignedInt(ibv_port_attr.active_width(attr)),
                Byte.toUnsignedInt(ibv_port_attr.active_speed(attr)), Byte.toUnsignedInt(ibv_port_attr.phys_state(attr)));
    }

    /**
     * Tells whether the port is up.
     *
     * @return true for {@code IBV_PORT_ACTIVE}
     */
    public boolean isActive() {
        return state == ibv_port_state.IBV_PORT_ACTIVE;
    }

    /**
     * Tells whether the port runs over Ethernet, as RoCE ports do.
     *
     * @return true for {@code IBV_LINK_LAYER_ETHERNET}
     */
    public boolean isEthernet() {
        return linkLayer == ibv_link_layer.IBV_LINK_LAYER_ETHERNET;
    }
}
