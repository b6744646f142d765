package dev.ofl.verbs.rdma;

import dev.ofl.api.Completion;
import dev.ofl.api.Ofl;
import dev.ofl.api.OflClient;
import dev.ofl.api.OflServer;
import dev.ofl.api.OflStatus;
import dev.ofl.api.Region;
import dev.ofl.api.ResponseRanges;
import java.lang.foreign.Arena;
import java.lang.foreign.ValueLayout;
import java.net.InetSocketAddress;

/**
 * The other process of {@link TwoProcessTest}: an RDMA server or client in its own JVM over
 * softverbs, with the parent's {@link TestEnvironment}. It reports progress on standard output, one
 * word a line, and blocks on op 2 until it is killed.
 *
 * <pre>
 *   server            prints "LISTENING port"; op 1 echoes; op 2 prints "HANDLING" and blocks
 *   client PORT       connects, checks an echo, prints "ECHOED", submits op 2, prints "SUBMITTED",
 *                     and awaits it for a minute
 * </pre>
 */
public final class TwoProcessPeer {
    private TwoProcessPeer() {
    }

    /**
     * Runs one side.
     *
     * @param args {@code server} or {@code client PORT}
     * @throws Exception on any failure: the process then exits non-zero
     */
    public static void main(String[] args) throws Exception {
        if (args[0].equals("server")) {
            OflServer server = Ofl.serve(TwoProcessTest.serverConfig(),
                    (request, response) -> {
                        if (request.op() == 2) {
                            System.out.println("HANDLING");
                            Thread.sleep(Long.MAX_VALUE);
                        }
                        response.write(request.payload());
                        return 0;
                    });
            System.out.println("LISTENING " + server.localAddress().getPort());
            Thread.sleep(Long.MAX_VALUE);
        }
        int port = Integer.parseInt(args[1]);
        try (OflClient client = Ofl.connect(TwoProcessTest.clientConfig(
                new InetSocketAddress(TestEnvironment.address(), port)));
             Arena arena = Arena.ofShared()) {
            Region region = client.registerRegion(arena.allocate(1 << 16));
            Completion completion = new Completion();
            client.requestPayload().set(ValueLayout.JAVA_LONG, 0, 42L);
            int status = client.call(1, 0, 8, ResponseRanges.of(region), TestEnvironment.nanos(10), completion);
            if (status != OflStatus.OK || region.segment().get(ValueLayout.JAVA_LONG, 0) != 42L) {
                throw new AssertionError("echo failed: " + completion);
            }
            System.out.println("ECHOED");
            long ticket = client.submit(2, 0, 0, ResponseRanges.of(region));
            System.out.println("SUBMITTED");
            client.await(ticket, client.clock().nanoTime() + TestEnvironment.nanos(60), completion);
        }
    }
}
