package dev.ofl.tcp;

import static org.junit.jupiter.api.Assertions.assertEquals;
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
import dev.ofl.api.WaitMode;
import dev.ofl.api.spi.ClientSession;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Sockets are of the address's own family: over 127.0.0.1 the listener and both ends of a
 * connection are IPv4 sockets (listed in {@code /proc/net/tcp}, none in {@code /proc/net/tcp6}),
 * not the JDK's default dual-stack IPv6 sockets carrying {@code ::ffff:127.0.0.1}; over ::1 they are
 * IPv6. Either way requests are answered exactly, and a busy-polling client finds its descriptor
 * for direct socket calls.
 */
@Timeout(60)
class TcpSocketFamilyTest {
    private static final long DEADLINE_NS = TimeUnit.SECONDS.toNanos(30);

    @ParameterizedTest
    @CsvSource({"127.0.0.1, BUSY_POLL", "127.0.0.1, BLOCKING", "::1, BUSY_POLL", "::1, BLOCKING"})
    void socketsAreOfTheAddressFamily(String address, WaitMode mode) throws IOException {
        InetAddress ip = InetAddress.getByName(address);
        boolean ipv4 = ip.getAddress().length == 4;
        try (Arena arena = Arena.ofConfined();
                OflServer server = Ofl.serve(ServerConfig.builder().backend(TcpBackend.NAME)
                        .bind(new InetSocketAddress(ip, 0)).serviceName("family").waitMode(mode).build(),
                        (request, response) -> {
                            response.write(request.payload());
                            return 0;
                        });
                OflClient client = Ofl.connect(ClientConfig.builder().backend(TcpBackend.NAME)
                        .server(server.localAddress()).serviceName("family").waitMode(mode).build())) {
            MemorySegment memory = arena.allocate(8);
            Region region = client.registerRegion(memory);
            client.requestPayload().set(ValueLayout.JAVA_LONG_UNALIGNED, 0, 0x0102_0304_0506_0708L);
            Completion completion = new Completion();
            assertEquals(OflStatus.OK, client.call(0, 0, 8, new ResponseRanges().add(region, 0, 8), DEADLINE_NS,
                    completion), completion::toString);
            assertEquals(0x0102_0304_0506_0708L, memory.get(ValueLayout.JAVA_LONG_UNALIGNED, 0));
            TcpClientTransport transport = (TcpClientTransport) ((ClientSession) client).transport();
            assertEquals(mode == WaitMode.BUSY_POLL, transport.usesDirectSocketCalls());

            int port = server.localAddress().getPort();
            // The listener, the server's end (local) and the client's end (remote): all in their family's table.
            String own = ipv4 ? "/proc/net/tcp" : "/proc/net/tcp6";
            assertEquals(3, sockets(own, procAddress(ip.getAddress(), port)), own + " for " + address + " port " + port);
            if (ipv4) {
                // None as the JDK's default would have made them: IPv6 sockets with a v4-mapped address.
                byte[] mapped = new byte[16];
                mapped[10] = (byte) 0xFF;
                mapped[11] = (byte) 0xFF;
                System.arraycopy(ip.getAddress(), 0, mapped, 12, 4);
                assertEquals(0, sockets("/proc/net/tcp6", procAddress(mapped, port)), "v4-mapped in /proc/net/tcp6");
            }
        }
    }

    /**
     * Listening and established sockets in a {@code /proc/net/tcp*} table whose local or remote
     * address is {@code entry} (a closed connection's TIME_WAIT entry on a reused port is not ours).
     */
    private static long sockets(String table, String entry) throws IOException {
        List<String> lines = Files.readAllLines(Path.of(table));
        assertTrue(lines.size() > 0 && lines.get(0).contains("local_address"), table + " has its header");
        return lines.stream().skip(1).map(String::trim).map(line -> line.split("\\s+"))
                .filter(fields -> fields[3].equals("0A") || fields[3].equals("01"))
                .filter(fields -> fields[1].equals(entry) || fields[2].equals(entry)).count();
    }

    /**
     * An address and port as the kernel's table writes them: each 32-bit word of the address in
     * the machine's byte order (little-endian here), then the port in hexadecimal.
     */
    private static String procAddress(byte[] ip, int port) {
        StringBuilder text = new StringBuilder();
        for (int word = 0; word < ip.length; word += 4) {
            for (int i = 3; i >= 0; i--) {
                text.append(String.format(Locale.ROOT, "%02X", ip[word + i]));
            }
        }
        return text.append(String.format(Locale.ROOT, ":%04X", port)).toString();
    }
}
