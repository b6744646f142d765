package dev.ofl.probe;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.net.InetAddress;
import java.net.NetworkInterface;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The CLI over softverbs, invoked in-process: listing, the {@code --ip} answer, override checks
 * and the JSON document parsed back with Jackson.
 */
class ProbeSoftverbsTest {
    /** TEST-NET-2 (RFC 5737): documentation only, so configured on no host. */
    private static final String NOT_LOCAL = "198.51.100.77";

    private static String softverbs;

    @BeforeAll
    static void findSoftverbs() {
        softverbs = ProbeRun.softverbs();
    }

    @Test
    void listsSoftverbs0WithItsPortAndTheLoopbackRoceV2Gid() {
        ProbeRun run = ProbeRun.of("--library", softverbs);

        assertEquals(ExitStatus.FOUND, run.exitStatus(), run::toString);
        assertTrue(run.out().contains("softverbs0"), run::toString);
        assertTrue(run.out().lines().anyMatch(l -> l.matches("\\s+1\\s+ACTIVE\\s+LINK_UP\\s+ETHERNET\\s+4096\\s+4096\\s+4X\\s+.*")),
                run::toString);
        assertTrue(run.out().lines().anyMatch(l -> l.contains("RoCE v2") && l.contains("::ffff:127.0.0.1")
                && l.contains("lo") && l.strip().endsWith("127.0.0.1")), run::toString);
        assertEquals("", run.err());
    }

    @Test
    void ipOfLoopbackFindsItsGidIndexAndOffersMtu4096() {
        int loopbackIndex = loopbackGidIndex();

        ProbeRun run = ProbeRun.of("--library", softverbs, "--ip", "127.0.0.1");

        assertEquals(ExitStatus.FOUND, run.exitStatus(), run::toString);
        assertTrue(run.out().contains("device     softverbs0"), run::toString);
        assertTrue(run.out().contains("GID index  " + loopbackIndex + "  (::ffff:127.0.0.1, RoCE v2"), run::toString);
        assertTrue(run.out().contains("path MTU   4096"), run::toString);
    }

    @Test
    void ipThatIsNotLocalExitsOneNamingTheReason() throws Exception {
        assumeTrue(NetworkInterface.getByInetAddress(InetAddress.getByName(NOT_LOCAL)) == null,
                NOT_LOCAL + " is configured here");

        ProbeRun run = ProbeRun.of("--library", softverbs, "--ip", NOT_LOCAL);

        assertEquals(ExitStatus.NOT_FOUND, run.exitStatus(), run::toString);
        assertTrue(run.out().contains("softverbs0: ADDRESS_NOT_LOCAL: " + NOT_LOCAL + " is not an address of this host"),
                run::toString);
        assertTrue(run.out().contains("Fix: "), run::toString);
    }

    @Test
    void wildcardAddressIsRefused() {
        ProbeRun run = ProbeRun.of("--library", softverbs, "--ip", "0.0.0.0");

        assertEquals(ExitStatus.NOT_FOUND, run.exitStatus(), run::toString);
        assertTrue(run.out().contains("WILDCARD_ADDRESS"), run::toString);
    }

    @Test
    void gidIndexOverrideThatCarriesTheAddressIsAccepted() {
        int loopbackIndex = loopbackGidIndex();

        ProbeRun run = ProbeRun.of("--library", softverbs, "--ip", "127.0.0.1", "--gid-index",
                String.valueOf(loopbackIndex));

        assertEquals(ExitStatus.FOUND, run.exitStatus(), run::toString);
        assertTrue(run.out().contains("GID index " + loopbackIndex + " carries the address: accepted"), run::toString);
    }

    @Test
    void gidIndexOverrideOfTheLinkLocalEntryIsRefusedNamingTheRightIndex() {
        int loopbackIndex = loopbackGidIndex();

        ProbeRun run = ProbeRun.of("--library", softverbs, "--ip", "127.0.0.1", "--gid-index", "0", "--json");

        assertEquals(ExitStatus.NOT_FOUND, run.exitStatus(), run::toString);
        JsonNode refusal = run.json().path("query").path("refusals").path(0);
        assertEquals("OVERRIDE_MISMATCH", refusal.path("reason").asText(), run::toString);
        assertTrue(refusal.path("fix").asText().endsWith("set it to " + loopbackIndex), run::toString);
        assertEquals(0, run.json().path("query").path("gidIndexOverride").asInt());
    }

    @Test
    void jsonListingParsesBackWithTheDevicePortAndGids() throws Exception {
        ProbeRun run = ProbeRun.of("--library", softverbs, "--json");

        assertEquals(ExitStatus.FOUND, run.exitStatus(), run::toString);
        JsonNode json = run.json();
        assertEquals("LISTED", json.path("outcome").asText());
        assertEquals(0, json.path("exitStatus").asInt());
        assertTrue(json.path("query").isNull());
        assertTrue(json.path("failure").isNull());
        JsonNode device = json.path("devices").path(0);
        assertEquals("softverbs0", device.path("name").asText());
        JsonNode port = device.path("ports").path(0);
        assertEquals(1, port.path("port").asInt());
        assertEquals("ACTIVE", port.path("state").asText());
        assertEquals("ETHERNET", port.path("linkLayer").asText());
        assertEquals(4096, port.path("activeMtu").asInt());
        JsonNode loopback = gidCarrying(device, "127.0.0.1");
        assertNotNull(loopback, run::toString);
        assertEquals("RoCE v2", loopback.path("type").asText());
        assertEquals("::ffff:127.0.0.1", loopback.path("gid").asText());
        assertEquals("lo", loopback.path("netdev").asText());

        ProbeReport parsed = ProbeRun.MAPPER.readValue(run.out(), ProbeReport.class);
        assertEquals(run.out().strip(), Probe.toJson(parsed), "the document round-trips through the report records");
    }

    @Test
    void jsonAnswerForLoopbackNamesDevicePortIndexAndMtu() {
        ProbeRun run = ProbeRun.of("--library", softverbs, "--ip", "127.0.0.1", "--json");

        assertEquals(ExitStatus.FOUND, run.exitStatus(), run::toString);
        JsonNode json = run.json();
        assertEquals("FOUND", json.path("outcome").asText());
        JsonNode query = json.path("query");
        assertEquals("127.0.0.1", query.path("ip").asText());
        assertEquals("lo", query.path("netdev").asText());
        JsonNode selected = query.path("selected");
        assertEquals("softverbs0", selected.path("device").asText());
        assertEquals(1, selected.path("port").asInt());
        assertEquals(gidCarrying(json.path("devices").path(0), "127.0.0.1").path("index").asInt(),
                selected.path("gidIndex").asInt());
        assertEquals("::ffff:127.0.0.1", selected.path("gid").asText());
        assertEquals("RoCE v2", selected.path("type").asText());
        assertEquals(4096, selected.path("pathMtu").asInt());
        assertEquals(0, query.path("refusals").size());
    }

    @Test
    void jsonAnswerForAnAddressThatIsNotLocalCarriesTheRefusal() throws Exception {
        assumeTrue(NetworkInterface.getByInetAddress(InetAddress.getByName(NOT_LOCAL)) == null,
                NOT_LOCAL + " is configured here");

        ProbeRun run = ProbeRun.of("--library", softverbs, "--ip", NOT_LOCAL, "--json");

        assertEquals(ExitStatus.NOT_FOUND, run.exitStatus(), run::toString);
        JsonNode json = run.json();
        assertEquals("NOT_FOUND", json.path("outcome").asText());
        assertEquals(1, json.path("exitStatus").asInt());
        assertTrue(json.path("query").path("selected").isNull());
        assertTrue(json.path("query").path("netdevIndex").isNull());
        JsonNode refusal = json.path("query").path("refusals").path(0);
        assertEquals("softverbs0", refusal.path("device").asText());
        assertEquals("ADDRESS_NOT_LOCAL", refusal.path("reason").asText());
        assertTrue(refusal.path("message").asText().contains("not an address of this host"));
        assertEquals("", run.err());
    }

    private static int loopbackGidIndex() {
        ProbeRun run = ProbeRun.of("--library", softverbs, "--json");
        JsonNode gid = gidCarrying(run.json().path("devices").path(0), "127.0.0.1");
        assertNotNull(gid, run::toString);
        return gid.path("index").asInt();
    }

    private static JsonNode gidCarrying(JsonNode device, String ipv4) {
        for (JsonNode gid : device.path("gids")) {
            if (ipv4.equals(gid.path("ipv4").asText(null))) {
                return gid;
            }
        }
        return null;
    }
}
