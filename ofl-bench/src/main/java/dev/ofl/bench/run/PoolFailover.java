package dev.ofl.bench.run;

import dev.ofl.api.ClientConfig;
import dev.ofl.api.Completion;
import dev.ofl.api.Ofl;
import dev.ofl.api.OflClientPool;
import dev.ofl.api.OflServer;
import dev.ofl.api.OflStatus;
import dev.ofl.api.ResponseRanges;
import dev.ofl.api.ServerConfig;
import dev.ofl.api.WaitMode;
import java.lang.foreign.ValueLayout;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

/**
 * What the pool's standby hides after a fatal timeout: the time from giving back a client whose
 * call timed out to the next successful call through the pool, with a standby (the next borrow
 * takes a connected client) and without (it connects on the caller's thread). The server runs in
 * this process; both rows share it, so their ratio is the figure to read.
 *
 * <pre>
 * ./ofl bench pool --backend tcp,rdma --rounds 200
 * </pre>
 */
public final class PoolFailover {
    private static final int OP_ECHO = 1;
    private static final int OP_SLOW = 2;

    private PoolFailover() {
    }

    /**
     * Runs the comparison.
     *
     * @param args {@code --backend tcp,rdma} and {@code --rounds N}
     * @throws InterruptedException if interrupted
     */
    public static void main(String[] args) throws InterruptedException {
        List<String> backends = List.of("tcp", "rdma");
        int rounds = 200;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--backend" -> backends = List.of(args[++i].split(","));
                case "--rounds" -> rounds = Integer.parseInt(args[++i]);
                default -> throw new IllegalArgumentException("unknown argument " + args[i]
                        + "; use --backend tcp,rdma --rounds N");
            }
        }
        System.out.println("backend  standby  rounds   p50 us    p90 us    max us   (give back a timed-out client,"
                + " borrow, echo)");
        for (String backend : backends) {
            long[] without = run(backend, 0, rounds);
            long[] with = run(backend, 1, rounds);
            print(backend, 0, without);
            print(backend, 1, with);
            System.out.printf(Locale.ROOT, "%s: the standby takes the p50 from %.0f to %.0f us (%.1fx faster)%n",
                    backend, without[without.length / 2] / 1e3, with[with.length / 2] / 1e3,
                    (double) without[without.length / 2] / with[with.length / 2]);
        }
    }

    private static void print(String backend, int standby, long[] sorted) {
        System.out.printf(Locale.ROOT, "%-8s %7d %7d %9.0f %9.0f %9.0f%n", backend, standby, sorted.length,
                sorted[sorted.length / 2] / 1e3, sorted[(int) (sorted.length * 0.9)] / 1e3,
                sorted[sorted.length - 1] / 1e3);
    }

    private static void awaitIdle(OflClientPool pool, int idle) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (pool.statistics().idle() < idle && System.nanoTime() < deadline) {
            Thread.sleep(1);
        }
    }

    private static long[] run(String backend, int standby, int rounds) throws InterruptedException {
        InetSocketAddress bind = new InetSocketAddress("127.0.0.1", 0);
        try (OflServer server = Ofl.serve(ServerConfig.builder().backend(backend).bind(bind).serviceName("pool")
                .maxConnectionsPerAddress(64).build(), (request, response) -> {
                    if (request.op() == OP_SLOW) {
                        try {
                            Thread.sleep(20);
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                        }
                    }
                    response.write(request.payload());
                    return 0;
                });
             OflClientPool pool = OflClientPool.builder(ClientConfig.builder().backend(backend)
                     .server(server.localAddress()).localAddress(bind.getAddress()).serviceName("pool")
                     .waitMode(WaitMode.BUSY_POLL).build()).regionBytes(64).standbyPerServer(standby).maxIdlePerServer(1).build()) {
            InetSocketAddress target = server.localAddress();
            Completion completion = new Completion();
            long[] gaps = new long[rounds];
            int warmup = Math.max(10, rounds / 10);
            for (int r = -warmup; r < rounds; r++) {
                long mendedBefore = pool.statistics().reconnects();
                try (OflClientPool.Lease lease = pool.borrow(target, Duration.ofSeconds(5))) {
                    // Steady state: the standby stands beside the lent client before the timeout.
                    awaitIdle(pool, standby);
                    int status = lease.client().call(OP_SLOW, 0, 8, ResponseRanges.of(lease.region()),
                            Duration.ofMillis(1), completion);
                    if (status != OflStatus.TIMED_OUT) {
                        throw new IllegalStateException("the slow call was meant to time out: " + OflStatus.name(status));
                    }
                }
                long start = System.nanoTime();
                try (OflClientPool.Lease lease = pool.borrow(target, Duration.ofSeconds(5))) {
                    lease.client().requestPayload().set(ValueLayout.JAVA_LONG_UNALIGNED, 0, r);
                    int status = lease.client().call(OP_ECHO, 0, 8, ResponseRanges.of(lease.region()),
                            Duration.ofSeconds(5), completion);
                    if (status != OflStatus.OK
                            || lease.region().segment().get(ValueLayout.JAVA_LONG_UNALIGNED, 0) != r) {
                        throw new IllegalStateException("the echo after the timeout failed: " + OflStatus.name(status));
                    }
                }
                long gap = System.nanoTime() - start;
                if (r >= 0) {
                    gaps[r] = gap;
                }
                // Each round starts from the same state: the broken client mended, the standby refilled.
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
                while ((pool.statistics().reconnects() == mendedBefore
                        || pool.statistics().idle() < Math.max(1, standby)) && System.nanoTime() < deadline) {
                    Thread.sleep(1);
                }
            }
            Arrays.sort(gaps);
            return gaps;
        }
    }
}
