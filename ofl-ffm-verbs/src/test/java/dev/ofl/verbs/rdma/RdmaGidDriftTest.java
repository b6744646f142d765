package dev.ofl.verbs.rdma;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ofl.api.ClientConfig;
import dev.ofl.api.Completion;
import dev.ofl.api.Ofl;
import dev.ofl.api.OflClient;
import dev.ofl.api.OflServer;
import dev.ofl.api.OflStatus;
import dev.ofl.api.Region;
import dev.ofl.api.ResponseRanges;
import dev.ofl.api.ServerConfig;
import dev.ofl.api.spi.ClientSession;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.ValueLayout;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A GID table renumbered while client and server run (users of two-node setups see the right
 * index differ between nodes and change within minutes): the next connection of each side must
 * use the index the address has now.
 *
 * <p>On softverbs the table is renumbered through {@code SOFTVERBS_GID_GAP_FILE}, which the
 * surefire configuration points at {@link #GAP}. On a real device the system property
 * {@value #RENUMBER} names a command (words separated by spaces) that is run with the arguments
 * {@code ADDRESS STEP}: it must move {@code ADDRESS}'s RoCE v2 GID to another index, as removing
 * and adding addresses does, and print the new index as its last line. The rxe guest
 * ({@code ./ofl test-rxe}) does so on its veth with {@code tools/rxe-guest/gid.sh}. The address
 * is {@value #ADDRESS}, else {@link TestEnvironment#address()}.
 */
class RdmaGidDriftTest {
    static final String RENUMBER = "ofl.test.gidRenumber";
    static final String ADDRESS = "ofl.test.gidDrift.address";
    private static final String GAP_VARIABLE = "SOFTVERBS_GID_GAP_FILE";
    private static final Path GAP = Path.of(System.getenv().getOrDefault(GAP_VARIABLE, ""));

    private static List<String> renumberCommand() {
        String value = System.getProperty(RENUMBER, "").strip();
        return value.isEmpty() ? List.of() : Arrays.asList(value.split(" +"));
    }

    private static InetAddress address() {
        String value = System.getProperty(ADDRESS);
        if (value == null) {
            return TestEnvironment.address();
        }
        try {
            return InetAddress.getByName(value);
        } catch (UnknownHostException e) {
            throw new IllegalArgumentException(ADDRESS + " = '" + value + "' is not an address", e);
        }
    }

    @AfterEach
    void restoreTheTable() throws IOException {
        if (renumberCommand().isEmpty()) {
            Files.writeString(GAP, "0\n");
        }
    }

    private static int gidIndex(OflClient client) {
        return ((RdmaClientTransport) ((ClientSession) client).transport()).link().gid.index();
    }

    private static long echo(OflClient client, Region region, long value) {
        client.requestPayload().set(ValueLayout.JAVA_LONG_UNALIGNED, 0, value);
        assertEquals(OflStatus.OK, client.call(1, 0, 8, new ResponseRanges().add(region, 0, 8),
                TestEnvironment.nanos(10), new Completion()));
        return region.segment().get(ValueLayout.JAVA_LONG_UNALIGNED, 0);
    }

    /**
     * Renumbers the table (step 1, then 2) and returns the index the address has now. softverbs:
     * 3, then 1, empty entries in front of the address, which started at {@code before}.
     */
    private static int renumber(InetAddress address, int step, int before) throws Exception {
        List<String> command = renumberCommand();
        if (command.isEmpty()) {
            int gap = step == 1 ? 3 : 1;
            Files.writeString(GAP, gap + "\n");
            return before + gap;
        }
        List<String> argv = new ArrayList<>(command);
        argv.add(address.getHostAddress());
        argv.add(Integer.toString(step));
        System.out.println("renumbering: " + argv);
        Process process = new ProcessBuilder(argv).redirectErrorStream(true).start();
        byte[] output = process.getInputStream().readAllBytes();
        assertTrue(process.waitFor(TestEnvironment.seconds(60), TimeUnit.SECONDS), argv + " did not end");
        String text = new String(output, StandardCharsets.UTF_8).strip();
        assertEquals(0, process.exitValue(), argv + " failed: " + text);
        String last = text.substring(text.lastIndexOf('\n') + 1).strip();
        System.out.println(argv + ": " + text.replace('\n', ' '));
        return Integer.parseInt(last);
    }

    @Test
    void reconnectAfterTheTableIsRenumberedUsesTheNewIndexOnBothSides() {
        // The backstop: a minute on the build host, scaled like every other wait.
        assertTimeoutPreemptively(TestEnvironment.duration(60), this::drift);
    }

    private void drift() throws Exception {
        if (renumberCommand().isEmpty()) {
            assertNotNull(System.getenv(GAP_VARIABLE), "the surefire configuration sets " + GAP_VARIABLE);
            Files.writeString(GAP, "0\n");
        }
        InetAddress address = address();
        try (OflServer server = Ofl.serve(ServerConfig.builder().backend(RdmaBackend.NAME)
                .bind(new InetSocketAddress(address, 0)).serviceName("gid-drift")
                .bootstrapTimeout(TestEnvironment.duration(5))
                // A cold JVM under emulation may take over a minute to its first call.
                .idleTimeout(TestEnvironment.duration(60))
                .properties(TestEnvironment.rdmaProperties()).build(), (request, response) -> {
                    response.write(request.payload());
                    return 0;
                });
             Arena arena = Arena.ofShared()) {
            OflClient client = Ofl.connect(ClientConfig.builder().backend(RdmaBackend.NAME)
                    .server(server.localAddress()).serviceName("gid-drift")
                    .connectTimeout(TestEnvironment.duration(5))
                    .properties(TestEnvironment.rdmaProperties()).build());
            try {
                Region region = client.registerRegion(arena.allocate(64));
                int before = gidIndex(client);
                assertEquals(11L, echo(client, region, 11L));

                // Entries appear in front of the address, as when addresses are added.
                int first = renumber(address, 1, before);
                assertNotEquals(before, first, "the renumbering moved the address");
                client.reconnect();
                assertEquals(first, gidIndex(client), "the client's new connection uses the new index");
                // The server accepted that connection on a queue pair built with its own new index.
                assertEquals(22L, echo(client, region, 22L));

                int second = renumber(address, 2, before);
                assertNotEquals(first, second, "the renumbering moved the address");
                client.reconnect();
                assertEquals(second, gidIndex(client));
                assertEquals(33L, echo(client, region, 33L));
                System.out.println("GID index of " + address.getHostAddress() + ": " + before + ", then " + first
                        + ", then " + second);
            } finally {
                client.close();
            }
        }
    }
}
