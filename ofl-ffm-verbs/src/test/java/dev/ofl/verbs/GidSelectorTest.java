package dev.ofl.verbs;

import dev.ofl.verbs.ffm.ibv_gid_type;
import dev.ofl.verbs.ffm.ibv_link_layer;
import dev.ofl.verbs.ffm.ibv_mtu;
import dev.ofl.verbs.ffm.ibv_port_state;
import org.junit.jupiter.api.Test;

import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.List;
import java.util.OptionalInt;

import static dev.ofl.verbs.ffm.ibv_gid_type.IBV_GID_TYPE_ROCE_V1;
import static dev.ofl.verbs.ffm.ibv_gid_type.IBV_GID_TYPE_ROCE_V2;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** GID selection over synthetic tables shaped like real devices'. */
class GidSelectorTest {
    private static final int ETH0 = 4;
    private static final int ETH1 = 5;
    private static final Gid LINK_LOCAL = Gid.fromBytes(new byte[] {(byte) 0xfe, (byte) 0x80, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 1});

    private static Inet4Address ip(String text) {
        try {
            return (Inet4Address) InetAddress.getByName(text);
        } catch (UnknownHostException e) {
            throw new AssertionError(e);
        }
    }

    private static GidEntry entry(Gid gid, int index, int port, int type, int netdev) {
        return new GidEntry(gid, index, port, type, netdev);
    }

    private static PortAttributes port(int number, int state) {
        return new PortAttributes(number, state, ibv_mtu.IBV_MTU_4096, ibv_mtu.IBV_MTU_1024, 256, 0, 1L << 30, 0,
                ibv_link_layer.IBV_LINK_LAYER_ETHERNET, 1, 1, 5);
    }

    /** The mlx5 shape: link-local v1 and v2, then each IPv4 address as v1 and v2. */
    private static List<GidEntry> mlx5Table() {
        Gid ten = Gid.ipv4Mapped(ip("10.0.0.1"));
        return List.of(entry(LINK_LOCAL, 0, 1, IBV_GID_TYPE_ROCE_V1, ETH0), entry(LINK_LOCAL, 1, 1, IBV_GID_TYPE_ROCE_V2, ETH0),
                entry(ten, 2, 1, IBV_GID_TYPE_ROCE_V1, ETH0), entry(ten, 3, 1, IBV_GID_TYPE_ROCE_V2, ETH0));
    }

    private static GidEntry select(String address, int netdev, List<GidEntry> table, List<PortAttributes> ports,
            OptionalInt override) {
        return GidSelector.select(ip(address), netdev, table, ports, override);
    }

    private static GidSelectionException refused(GidSelectionException.Reason reason, String address, int netdev,
            List<GidEntry> table, List<PortAttributes> ports, OptionalInt override) {
        GidSelectionException e = assertThrows(GidSelectionException.class,
                () -> GidSelector.select(ip(address), netdev, table, ports, override));
        assertSame(reason, e.reason(), e.getMessage());
        assertTrue(e.getMessage().contains("Fix: "), e.getMessage());
        return e;
    }

    @Test
    void picksTheRoceV2EntryOfTheAddress() {
        GidEntry chosen = select("10.0.0.1", ETH0, mlx5Table(), List.of(port(1, ibv_port_state.IBV_PORT_ACTIVE)), OptionalInt.empty());
        assertEquals(3, chosen.index());
        assertEquals(1, chosen.port());
        assertEquals("::ffff:10.0.0.1", chosen.gid().toString());
    }

    @Test
    void rxeShapeWithV2OnlyAndUnknownNetdev() {
        List<GidEntry> table = List.of(entry(LINK_LOCAL, 0, 1, IBV_GID_TYPE_ROCE_V2, 0),
                entry(Gid.ipv4Mapped(ip("192.168.1.10")), 1, 1, IBV_GID_TYPE_ROCE_V2, 0));
        GidEntry chosen = select("192.168.1.10", GidSelector.NETDEV_UNKNOWN, table, List.of(), OptionalInt.empty());
        assertEquals(1, chosen.index());
    }

    @Test
    void entryWithoutNetdevMatchesAnyInterface() {
        List<GidEntry> table = List.of(entry(Gid.ipv4Mapped(ip("127.0.0.1")), 1, 1, IBV_GID_TYPE_ROCE_V2, 0));
        assertEquals(1, select("127.0.0.1", 1, table, List.of(port(1, ibv_port_state.IBV_PORT_ACTIVE)), OptionalInt.empty()).index());
    }

    @Test
    void prefersTheEntryOfTheOwningNetdev() {
        Gid ten = Gid.ipv4Mapped(ip("10.0.0.1"));
        List<GidEntry> table = List.of(entry(ten, 2, 1, IBV_GID_TYPE_ROCE_V2, ETH1), entry(ten, 5, 2, IBV_GID_TYPE_ROCE_V2, ETH0));
        List<PortAttributes> ports = List.of(port(1, ibv_port_state.IBV_PORT_ACTIVE), port(2, ibv_port_state.IBV_PORT_ACTIVE));
        GidEntry chosen = select("10.0.0.1", ETH0, table, ports, OptionalInt.empty());
        assertEquals(5, chosen.index());
        assertEquals(2, chosen.port());
    }

    @Test
    void skipsADownPortWhenAnotherCarriesTheAddress() {
        Gid ten = Gid.ipv4Mapped(ip("10.0.0.1"));
        List<GidEntry> table = List.of(entry(ten, 3, 1, IBV_GID_TYPE_ROCE_V2, ETH0), entry(ten, 3, 2, IBV_GID_TYPE_ROCE_V2, ETH0));
        List<PortAttributes> ports = List.of(port(1, ibv_port_state.IBV_PORT_DOWN), port(2, ibv_port_state.IBV_PORT_ACTIVE));
        assertEquals(2, select("10.0.0.1", ETH0, table, ports, OptionalInt.empty()).port());
    }

    @Test
    void refusesTheWildcardAddress() {
        refused(GidSelectionException.Reason.WILDCARD_ADDRESS, "0.0.0.0", GidSelector.NETDEV_UNKNOWN, mlx5Table(), List.of(),
                OptionalInt.empty());
    }

    @Test
    void refusesAnAddressThatIsNotLocal() {
        GidSelectionException e = refused(GidSelectionException.Reason.ADDRESS_NOT_LOCAL, "10.9.9.9", GidSelector.NOT_LOCAL,
                mlx5Table(), List.of(), OptionalInt.empty());
        assertTrue(e.getMessage().contains("10.9.9.9"), e.getMessage());
    }

    @Test
    void refusesWhenOnlyRoceV1CarriesTheAddress() {
        Gid ten = Gid.ipv4Mapped(ip("10.0.0.1"));
        List<GidEntry> table = List.of(entry(LINK_LOCAL, 0, 1, IBV_GID_TYPE_ROCE_V1, ETH0), entry(ten, 1, 1, IBV_GID_TYPE_ROCE_V1, ETH0));
        GidSelectionException e = refused(GidSelectionException.Reason.ROCE_V1_ONLY, "10.0.0.1", ETH0, table, List.of(),
                OptionalInt.empty());
        assertTrue(e.getMessage().contains("GID[1] ::ffff:10.0.0.1, RoCE v1"), e.getMessage());
    }

    @Test
    void refusesWhenNoGidCarriesTheAddressAndMentionsDownPorts() {
        GidSelectionException e = refused(GidSelectionException.Reason.NO_GID_FOR_ADDRESS, "10.0.0.2", ETH0, mlx5Table(),
                List.of(port(1, ibv_port_state.IBV_PORT_DOWN)), OptionalInt.empty());
        assertTrue(e.getMessage().contains("::ffff:10.0.0.2"), e.getMessage());
        assertTrue(e.getMessage().contains("port 1 is IBV_PORT_DOWN"), e.getMessage());
    }

    @Test
    void refusesAnEmptyTable() {
        GidSelectionException e = refused(GidSelectionException.Reason.NO_GID_FOR_ADDRESS, "10.0.0.1", ETH0, List.of(),
                List.of(), OptionalInt.empty());
        assertTrue(e.getMessage().contains("no valid entries"), e.getMessage());
    }

    @Test
    void refusesWhenTheAddressBelongsToAnotherNetdev() {
        refused(GidSelectionException.Reason.NETDEV_MISMATCH, "10.0.0.1", ETH1, mlx5Table(), List.of(), OptionalInt.empty());
    }

    @Test
    void refusesWhenThePortIsDown() {
        GidSelectionException e = refused(GidSelectionException.Reason.PORT_DOWN, "10.0.0.1", ETH0, mlx5Table(),
                List.of(port(1, ibv_port_state.IBV_PORT_DOWN)), OptionalInt.empty());
        assertTrue(e.getMessage().contains("IBV_PORT_DOWN"), e.getMessage());
    }

    @Test
    void acceptsAMatchingOverride() {
        assertEquals(3, select("10.0.0.1", ETH0, mlx5Table(), List.of(), OptionalInt.of(3)).index());
    }

    @Test
    void rejectsAnOverrideOfTheV1EntryWithBothValues() {
        GidSelectionException e = refused(GidSelectionException.Reason.OVERRIDE_MISMATCH, "10.0.0.1", ETH0, mlx5Table(),
                List.of(), OptionalInt.of(2));
        assertTrue(e.getMessage().contains("override 2"), e.getMessage());
        assertTrue(e.getMessage().contains("GID[2] ::ffff:10.0.0.1, RoCE v1"), e.getMessage());
        assertTrue(e.getMessage().contains("set it to 3"), e.getMessage());
    }

    @Test
    void rejectsAnOverrideOfAnEmptySlot() {
        GidSelectionException e = refused(GidSelectionException.Reason.OVERRIDE_MISMATCH, "10.0.0.1", ETH0, mlx5Table(),
                List.of(), OptionalInt.of(9));
        assertTrue(e.getMessage().contains("index 9 is empty"), e.getMessage());
    }

    @Test
    void typeNamesMatchTheTools() {
        assertEquals("RoCE v2", GidEntry.typeName(ibv_gid_type.IBV_GID_TYPE_ROCE_V2));
        assertEquals("RoCE v1", GidEntry.typeName(ibv_gid_type.IBV_GID_TYPE_ROCE_V1));
    }
}
