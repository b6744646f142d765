package dev.ofl.probe;

import dev.ofl.probe.ProbeReport.Outcome;
import dev.ofl.probe.ProbeReport.Query;
import dev.ofl.verbs.Gid;
import dev.ofl.verbs.GidEntry;
import dev.ofl.verbs.PortAttributes;
import dev.ofl.verbs.VerbsException;
import dev.ofl.verbs.ffm.ibv_gid_type;
import dev.ofl.verbs.ffm.ibv_link_layer;
import dev.ofl.verbs.ffm.ibv_mtu;
import dev.ofl.verbs.ffm.ibv_node_type;
import dev.ofl.verbs.ffm.ibv_port_state;
import dev.ofl.verbs.ffm.ibv_transport_type;
import org.junit.jupiter.api.Test;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.Inet4Address;
import java.util.List;
import java.util.OptionalInt;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The {@code --ip} answer over device snapshots that softverbs cannot produce (a port down, a
 * RoCE v1 entry, several devices), through the backend's {@code GidSelector} and both renderings.
 */
class AddressQueryTest {
    private static final Inet4Address ADDRESS = Inet4Address.ofLiteral("10.0.0.7");
    private static final int NETDEV = 7;

    @Test
    void portDownIsTheReason() {
        DeviceSnapshot device = device("mlx5_0", port(ibv_port_state.IBV_PORT_DOWN, ibv_mtu.IBV_MTU_4096),
                gid(3, ibv_gid_type.IBV_GID_TYPE_ROCE_V2));

        Query query = AddressQuery.answer(ADDRESS, NETDEV, List.of(device), null, OptionalInt.empty());

        assertNull(query.selected());
        assertEquals(Outcome.NOT_FOUND, AddressQuery.outcome(query));
        assertEquals("PORT_DOWN", query.refusals().get(0).reason());
        assertTrue(query.refusals().get(0).message().contains("port 1 is IBV_PORT_DOWN"), query.toString());
        assertTrue(human(query).contains("mlx5_0: PORT_DOWN: "), human(query));
    }

    @Test
    void onlyARoceV1EntryIsTheReason() {
        DeviceSnapshot device = device("mlx5_0", port(ibv_port_state.IBV_PORT_ACTIVE, ibv_mtu.IBV_MTU_1024),
                gid(2, ibv_gid_type.IBV_GID_TYPE_ROCE_V1));

        Query query = AddressQuery.answer(ADDRESS, NETDEV, List.of(device), null, OptionalInt.empty());

        assertEquals("ROCE_V1_ONLY", query.refusals().get(0).reason());
        assertTrue(query.refusals().get(0).fix().contains("RoCE v2"), query.toString());
    }

    @Test
    void noGidCarryingTheAddressIsTheReason() {
        DeviceSnapshot device = device("mlx5_0", port(ibv_port_state.IBV_PORT_ACTIVE, ibv_mtu.IBV_MTU_1024));

        Query query = AddressQuery.answer(ADDRESS, NETDEV, List.of(device), null, OptionalInt.empty());

        assertEquals("NO_GID_FOR_ADDRESS", query.refusals().get(0).reason());
    }

    @Test
    void foundOnTheSecondDeviceWithItsPathMtuAndTheFirstDevicesRefusal() {
        DeviceSnapshot first = device("mlx5_0", port(ibv_port_state.IBV_PORT_ACTIVE, ibv_mtu.IBV_MTU_4096));
        DeviceSnapshot second = device("mlx5_1", port(ibv_port_state.IBV_PORT_ACTIVE, ibv_mtu.IBV_MTU_1024),
                gid(3, ibv_gid_type.IBV_GID_TYPE_ROCE_V2));

        Query query = AddressQuery.answer(ADDRESS, NETDEV, List.of(first, second), null, OptionalInt.empty());

        assertEquals(Outcome.FOUND, AddressQuery.outcome(query));
        assertEquals("mlx5_1", query.selected().device());
        assertEquals(3, query.selected().gidIndex());
        assertEquals(1024, query.selected().pathMtu());
        assertEquals("mlx5_0", query.refusals().get(0).device());
        String text = human(query);
        assertTrue(text.contains("path MTU   1024"), text);
        assertTrue(text.contains("mlx5_0 does not fit: NO_GID_FOR_ADDRESS"), text);
    }

    @Test
    void aNamedDeviceIsTheOnlyOneConsideredLikeTheBackendsSetting() {
        DeviceSnapshot first = device("mlx5_0", port(ibv_port_state.IBV_PORT_ACTIVE, ibv_mtu.IBV_MTU_4096),
                gid(1, ibv_gid_type.IBV_GID_TYPE_ROCE_V2));
        DeviceSnapshot second = device("mlx5_1", port(ibv_port_state.IBV_PORT_ACTIVE, ibv_mtu.IBV_MTU_1024),
                gid(5, ibv_gid_type.IBV_GID_TYPE_ROCE_V2));

        Query query = AddressQuery.answer(ADDRESS, NETDEV, List.of(first, second), "mlx5_1", OptionalInt.empty());

        assertEquals("mlx5_1", query.selected().device());
        assertEquals(5, query.selected().gidIndex());
        assertTrue(query.otherMatches().isEmpty(), query::toString);
    }

    @Test
    void aNamedDeviceThatIsNotPresentIsRefusedNamingThePresentOnes() {
        DeviceSnapshot first = device("mlx5_0", port(ibv_port_state.IBV_PORT_ACTIVE, ibv_mtu.IBV_MTU_4096),
                gid(1, ibv_gid_type.IBV_GID_TYPE_ROCE_V2));

        Query query = AddressQuery.answer(ADDRESS, NETDEV, List.of(first), "mlx5_9", OptionalInt.empty());

        assertEquals(Outcome.NOT_FOUND, AddressQuery.outcome(query));
        assertEquals(AddressQuery.NO_SUCH_DEVICE, query.refusals().get(0).reason());
        assertTrue(query.refusals().get(0).fix().contains("mlx5_0"), query::toString);
    }

    @Test
    void aSecondFittingDeviceIsListedAsAnotherMatch() {
        DeviceSnapshot first = device("mlx5_0", port(ibv_port_state.IBV_PORT_ACTIVE, ibv_mtu.IBV_MTU_4096),
                gid(1, ibv_gid_type.IBV_GID_TYPE_ROCE_V2));
        DeviceSnapshot second = device("mlx5_1", port(ibv_port_state.IBV_PORT_ACTIVE, ibv_mtu.IBV_MTU_4096),
                gid(5, ibv_gid_type.IBV_GID_TYPE_ROCE_V2));

        Query query = AddressQuery.answer(ADDRESS, NETDEV, List.of(first, second), null, OptionalInt.empty());

        assertEquals("mlx5_0", query.selected().device());
        assertEquals("mlx5_1", query.otherMatches().get(0).device());
        assertTrue(human(query).contains("also fits  mlx5_1 port 1 GID index 5"), human(query));
    }

    @Test
    void overrideOfAnotherIndexIsRefusedWithTheIndexToUse() {
        DeviceSnapshot device = device("mlx5_0", port(ibv_port_state.IBV_PORT_ACTIVE, ibv_mtu.IBV_MTU_4096),
                gid(3, ibv_gid_type.IBV_GID_TYPE_ROCE_V2));

        Query query = AddressQuery.answer(ADDRESS, NETDEV, List.of(device), null, OptionalInt.of(4));

        assertEquals("OVERRIDE_MISMATCH", query.refusals().get(0).reason());
        assertEquals(4, query.gidIndexOverride());
        assertTrue(query.refusals().get(0).fix().endsWith("set it to 3"), query.toString());
        assertTrue(human(query).contains("no RDMA device, port and GID fits with GID index override 4"), human(query));
    }

    @Test
    void anUnreadableDeviceAloneLeavesTheAnswerUnknown() {
        DeviceSnapshot device = new DeviceSnapshot("mlx5_0", ibv_node_type.IBV_NODE_CA,
                ibv_transport_type.IBV_TRANSPORT_IB, null, List.of(), List.of(),
                VerbsException.errno("ibv_open_device", 13, "device mlx5_0", "fix the permissions"));

        Query query = AddressQuery.answer(ADDRESS, NETDEV, List.of(device), null, OptionalInt.empty());

        assertEquals(AddressQuery.DEVICE_UNREADABLE, query.refusals().get(0).reason());
        assertEquals(Outcome.FAILURE, AddressQuery.outcome(query));
        assertEquals(ExitStatus.FAILURE, AddressQuery.outcome(query).exitStatus());
    }

    @Test
    void jsonOfAnAnswerRoundTripsThroughTheRecords() throws Exception {
        DeviceSnapshot device = device("mlx5_0", port(ibv_port_state.IBV_PORT_DOWN, ibv_mtu.IBV_MTU_4096),
                gid(3, ibv_gid_type.IBV_GID_TYPE_ROCE_V2));
        Query query = AddressQuery.answer(ADDRESS, NETDEV, List.of(device), null, OptionalInt.empty());
        ProbeReport report = new ProbeReport("libibverbs.so.1", Outcome.NOT_FOUND, 1,
                List.of(ProbeReport.DeviceView.of(device)), query, null);

        String json = Probe.toJson(report);

        assertEquals(report, ProbeRun.MAPPER.readValue(json, ProbeReport.class));
        assertEquals("PORT_DOWN", ProbeRun.MAPPER.readTree(json).path("query").path("refusals").path(0)
                .path("reason").asText());
        assertEquals("DOWN", ProbeRun.MAPPER.readTree(json).path("devices").path(0).path("ports").path(0)
                .path("state").asText());
    }

    private static String human(Query query) {
        StringWriter out = new StringWriter();
        ProbeReport report = new ProbeReport("libibverbs.so.1", AddressQuery.outcome(query), 0, List.of(), query, null);
        HumanReport.print(report, new PrintWriter(out, true), new PrintWriter(new StringWriter(), true));
        return out.toString();
    }

    private static DeviceSnapshot device(String name, PortAttributes port, GidEntry... gids) {
        return new DeviceSnapshot(name, ibv_node_type.IBV_NODE_CA, ibv_transport_type.IBV_TRANSPORT_IB, null,
                List.of(port), List.of(gids), null);
    }

    private static PortAttributes port(int state, int activeMtu) {
        return new PortAttributes(1, state, ibv_mtu.IBV_MTU_4096, activeMtu, 16, 0, 1L << 30, 0,
                ibv_link_layer.IBV_LINK_LAYER_ETHERNET, 2, 32, state == ibv_port_state.IBV_PORT_ACTIVE ? 5 : 3);
    }

    private static GidEntry gid(int index, int type) {
        return new GidEntry(Gid.ipv4Mapped(ADDRESS), index, 1, type, NETDEV);
    }
}
