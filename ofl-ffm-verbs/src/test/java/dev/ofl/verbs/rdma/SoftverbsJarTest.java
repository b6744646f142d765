package dev.ofl.verbs.rdma;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ofl.api.ClientConfig;
import dev.ofl.api.Ofl;
import dev.ofl.api.OflClient;
import dev.ofl.api.OflServer;
import dev.ofl.api.OflStatus;
import dev.ofl.api.Region;
import dev.ofl.api.ResponseRanges;
import dev.ofl.api.ServerConfig;
import dev.ofl.softverbs.Softverbs;
import java.io.IOException;
import java.lang.foreign.ValueLayout;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * What a consumer's build does with the {@code ofl-softverbs} jar alone: a fresh JVM with no
 * {@code ofl.verbs.library} and no {@code OFL_VERBS_LIBRARY} calls {@link Softverbs#use()}, and the
 * RDMA backend then serves and answers over the library extracted from the jar.
 */
class SoftverbsJarTest {
    @Test
    void aJvmWithOnlyTheJarRunsTheRdmaBackendOverSoftverbs() throws Exception {
        List<String> command = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "--enable-native-access=ALL-UNNAMED"));
        command.addAll(TestEnvironment.jvmOptions());
        command.addAll(List.of("-cp", System.getProperty("java.class.path"), Consumer.class.getName()));
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
        builder.environment().remove("OFL_VERBS_LIBRARY");
        Process child = builder.start();
        try {
            boolean ended = child.waitFor(TestEnvironment.seconds(60), TimeUnit.SECONDS);
            String output = new String(child.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertTrue(ended, "the consumer JVM ended; its output: " + output);
            assertEquals(0, child.exitValue(), output);
            assertTrue(output.contains("echo over rdma: OK from /"), output);
            assertTrue(output.contains("/ofl-softverbs-"), "the library came out of the jar: " + output);
        } finally {
            child.destroyForcibly();
        }
    }

    /** The consumer: nothing but the jar's one call before using the RDMA backend. */
    public static final class Consumer {
        private Consumer() {
        }

        /**
         * Serves an echo over rdma and calls it once.
         *
         * @param args none
         * @throws IOException if the backend fails
         */
        public static void main(String[] args) throws IOException {
            if (System.getProperty(Softverbs.LIBRARY_PROPERTY) != null) {
                throw new IllegalStateException("the consumer must start without " + Softverbs.LIBRARY_PROPERTY);
            }
            Path library = Softverbs.use();
            boolean ok;
            InetSocketAddress any = new InetSocketAddress("127.0.0.1", 0);
            try (OflServer server = Ofl.serve(ServerConfig.builder().backend("rdma").bind(any).serviceName("jar")
                    .build(), (request, response) -> {
                        response.write(request.payload());
                        return 0;
                    });
                 OflClient client = Ofl.connect(ClientConfig.builder().backend("rdma").server(server.localAddress())
                         .localAddress(any.getAddress()).serviceName("jar").waitMode(dev.ofl.api.WaitMode.BLOCKING)
                         .connectTimeout(Duration.ofSeconds(TestEnvironment.seconds(10))).build())) {
                Region region = client.allocateRegion(64);
                client.requestPayload().set(ValueLayout.JAVA_LONG_UNALIGNED, 0, 0x0f1_50f7_7e4bL);
                int status = client.call(1, 0, 8, ResponseRanges.of(region), Duration.ofSeconds(TestEnvironment.seconds(10)),
                        new dev.ofl.api.Completion());
                long echoed = region.segment().get(ValueLayout.JAVA_LONG_UNALIGNED, 0);
                System.out.println("echo over rdma: " + OflStatus.name(status) + " from " + library
                        + (echoed == 0x0f1_50f7_7e4bL ? "" : " but the bytes differ: " + Long.toHexString(echoed)));
                ok = status == OflStatus.OK && echoed == 0x0f1_50f7_7e4bL;
            }
            System.exit(ok ? 0 : 1);
        }
    }
}
