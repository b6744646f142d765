package dev.ofl.api;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Connections to several servers, shared by many threads: a thread {@linkplain #borrow borrows} a
 * connected client for one server, uses it alone, and gives it back by closing the {@link Lease}.
 *
 * <p><b>A fatal timeout costs the caller no reconnect.</b> A client given back broken (a call timed
 * out, the peer was lost) is reconnected by the pool's own background thread, with back-off, and
 * only then lent again; meanwhile the next borrow takes a <i>standby</i>: the pool keeps
 * {@link Builder#standbyPerServer} connected clients idle beside those lent, refilled in the
 * background, so that the caller whose call timed out borrows a working connection at once. Only
 * when no idle client is left does a borrow connect on the caller's thread (counted in
 * {@link Statistics#connectsOnBorrow()}).
 *
 * <p><b>Memory.</b> Each pooled client owns one region of {@link Builder#regionBytes} bytes,
 * allocated with {@link OflClient#allocateRegion} and freed with the client: a lease hands it out
 * with the client ({@link Lease#region()}), so that no caller registers memory per borrow and
 * nothing a caller frees can be written.
 *
 * <p>Every guarantee of {@link OflClient} holds for a leased client: exact placement, and after a
 * {@code TIMED_OUT} nothing more lands (the pool reconnects the client; it never resubmits a
 * request). A lease must not be used after it is closed: {@link Lease#client()} then throws, but a
 * reference to the client kept from before is not stopped, and using it would race the next
 * borrower. Do not close the lent client itself: give it back by closing the lease. A client given
 * back with requests still outstanding is treated as broken (reconnected, which drops them) so
 * that no response lands in the next borrower's region.
 *
 * <p>Thread-safe. Background work runs on virtual threads named {@code ofl-pool-<server>}.
 */
public final class OflClientPool implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(OflClientPool.class);

    private final ClientConfig template;
    private final int maxLeasesPerServer;
    private final int standbyPerServer;
    private final int maxIdlePerServer;
    private final long regionBytes;
    private final Duration backoff;
    private final Duration maxBackoff;
    private final Map<InetSocketAddress, Server> servers = new ConcurrentHashMap<>();
    private final ExecutorService background = Executors.newThreadPerTaskExecutor(
            Thread.ofVirtual().name("ofl-pool-", 0).factory());
    private volatile boolean closed;

    private final AtomicLong borrows = new AtomicLong();
    private final AtomicLong connectsOnBorrow = new AtomicLong();
    private final AtomicLong returnedBroken = new AtomicLong();
    private final AtomicLong reconnects = new AtomicLong();
    private final AtomicLong reconnectFailures = new AtomicLong();
    private final AtomicLong standbyConnects = new AtomicLong();

    private OflClientPool(Builder b) {
        this.template = b.template;
        this.maxLeasesPerServer = b.maxLeasesPerServer;
        this.standbyPerServer = b.standbyPerServer;
        this.maxIdlePerServer = Math.max(b.maxIdlePerServer, b.standbyPerServer);
        this.regionBytes = b.regionBytes;
        this.backoff = b.backoff;
        this.maxBackoff = b.maxBackoff;
    }

    /**
     * Starts a builder.
     *
     * @param template every client setting but the server address, which each borrow names
     *     (the template's own {@code server} is not used)
     * @return a builder with the defaults
     */
    public static Builder builder(ClientConfig template) {
        return new Builder(Objects.requireNonNull(template, "template"));
    }

    /**
     * Lends a connected client for {@code server}: an idle one if there is one (the most recently
     * given back), otherwise one connected now, on this thread. Waits up to {@code timeout} while
     * {@link Builder#maxLeasesPerServer} clients of that server are lent.
     *
     * @param server the server's address
     * @param timeout how long to wait for a free place
     * @return the lease; close it to give the client back
     * @throws OflException if no place freed up within the timeout, or a connection made for this
     *     borrow failed (with the cause), or the pool is closed
     * @throws OflConnectionException if interrupted while waiting (the interrupt stays set)
     */
    public Lease borrow(InetSocketAddress server, Duration timeout) {
        Objects.requireNonNull(server, "server");
        ensureOpen();
        Server s = servers.computeIfAbsent(server, Server::new);
        try {
            if (!s.leases.tryAcquire(timeout.toNanos(), TimeUnit.NANOSECONDS)) {
                throw new OflException("no connection to " + server + " came free within " + timeout + ": "
                        + maxLeasesPerServer + " are lent (maxLeasesPerServer)");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new OflConnectionException("interrupted while waiting to borrow a connection to " + server, e);
        }
        Pooled pooled = null;
        try {
            ensureOpen();
            while ((pooled = s.idle.pollFirst()) != null && pooled.client.isBroken()) {
                // Broken while idle (the peer went away): mended in the background like a return.
                mend(s, pooled);
            }
            if (pooled == null) {
                connectsOnBorrow.incrementAndGet();
                pooled = connect(s);
            }
            ensureOpen();
            Lease lease = new Lease(s, pooled);
            pooled = null;
            borrows.incrementAndGet();
            return lease;
        } catch (RuntimeException | Error e) {
            s.leases.release();
            throw e;
        } finally {
            if (pooled != null) {
                pooled.client.close();
            }
            refill(s);
        }
    }

    /**
     * Counters since the pool was created, and the clients idle and lent now.
     *
     * @return a snapshot
     */
    public Statistics statistics() {
        int idle = 0;
        int lent = 0;
        int waiting = 0;
        for (Server s : servers.values()) {
            idle += s.idle.size();
            lent += maxLeasesPerServer - s.leases.availablePermits();
            waiting += s.leases.getQueueLength();
        }
        return new Statistics(borrows.get(), connectsOnBorrow.get(), returnedBroken.get(), reconnects.get(),
                reconnectFailures.get(), standbyConnects.get(), idle, lent, waiting);
    }

    /**
     * Closes every idle client and stops the background work; clients still lent are closed when
     * their leases are. Idempotent.
     */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        background.shutdownNow();
        try {
            if (!background.awaitTermination(10, TimeUnit.SECONDS)) {
                LOG.warn("ofl client pool: background connects did not stop within 10 s");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        for (Server s : servers.values()) {
            for (Pooled p; (p = s.idle.pollFirst()) != null;) {
                closeQuietly(p);
            }
        }
    }

    private static void closeQuietly(Pooled p) {
        try {
            p.client.close();
        } catch (RuntimeException e) {
            LOG.warn("ofl client pool: closing a client failed: {}", e.toString());
        }
    }

    private void ensureOpen() {
        if (closed) {
            throw new OflException("the client pool is closed");
        }
    }

    private Pooled connect(Server s) {
        OflClient client = Ofl.connect(s.config);
        try {
            Region region = regionBytes > 0 ? client.allocateRegion(regionBytes) : null;
            return new Pooled(client, region);
        } catch (RuntimeException | Error e) {
            client.close();
            throw e;
        }
    }

    /** Tops up the server's standby clients in the background, one connect task at a time. */
    private void refill(Server s) {
        if (closed || s.idle.size() + s.underway.get() >= standbyPerServer) {
            return;
        }
        if (!s.refilling.compareAndSet(0, 1)) {
            return;
        }
        s.underway.incrementAndGet();
        if (!run(s, () -> {
            try {
                while (!closed && s.idle.size() + s.underway.get() - 1 < standbyPerServer) {
                    Pooled p = withBackoff(s, () -> connect(s));
                    if (p == null) {
                        return;
                    }
                    standbyConnects.incrementAndGet();
                    park(s, p);
                }
            } finally {
                s.underway.decrementAndGet();
                s.refilling.set(0);
            }
            // A borrow that came while this task was ending found it underway and left the refill
            // to it: look once more.
            refill(s);
        })) {
            s.underway.decrementAndGet();
            s.refilling.set(0);
        }
    }

    /** Reconnects a broken client in the background, then makes it idle again. */
    private void mend(Server s, Pooled p) {
        s.underway.incrementAndGet();
        if (!run(s, () -> {
            try {
                Pooled mended = withBackoff(s, () -> {
                    p.client.reconnect();
                    return p;
                });
                if (mended == null) {
                    p.client.close();
                    return;
                }
                reconnects.incrementAndGet();
                park(s, mended);
            } finally {
                s.underway.decrementAndGet();
            }
            // A borrow while this reconnect was underway counted it as the standby; if the mended
            // client was closed (idle full) or lent meanwhile, the standby is refilled now.
            refill(s);
        })) {
            s.underway.decrementAndGet();
            p.client.close();
        }
    }

    private boolean run(Server s, Runnable task) {
        try {
            background.execute(() -> {
                Thread.currentThread().setName("ofl-pool-" + s.address);
                task.run();
            });
            return true;
        } catch (RejectedExecutionException e) {
            return false;
        }
    }

    /** Keeps an idle client, or closes it when the pool is closed or holds enough idle ones. */
    private void park(Server s, Pooled p) {
        if (closed || s.idle.size() >= maxIdlePerServer) {
            p.client.close();
            return;
        }
        s.idle.addFirst(p);
        if (closed && s.idle.remove(p)) {
            p.client.close();
        }
    }

    /** Tries until it works, the pool closes or the thread is interrupted (then null). */
    private <T> T withBackoff(Server s, java.util.function.Supplier<T> attempt) {
        long waitNs = backoff.toNanos();
        for (int failures = 0; !closed; failures++) {
            try {
                return attempt.get();
            } catch (IllegalStateException e) {
                // The client was closed by its borrower (try-with-resources on lease.client(), say):
                // it cannot be reconnected, and retrying would go on for ever.
                LOG.warn("ofl client pool: a client of {} cannot be reconnected and is dropped: {}", s.address,
                        e.getMessage());
                return null;
            } catch (RuntimeException e) {
                reconnectFailures.incrementAndGet();
                if (failures == 0 || Long.bitCount(failures + 1) == 1) {
                    // The first failure and then every power of two: a server that stays away is
                    // reported without a line per attempt.
                    LOG.warn("ofl client pool: connecting to {} failed ({} in a row), retrying in {} ms: {}",
                            s.address, failures + 1, waitNs / 1_000_000, e.getMessage());
                }
                try {
                    TimeUnit.NANOSECONDS.sleep(waitNs);
                } catch (InterruptedException stop) {
                    return null;
                }
                waitNs = Math.min(waitNs * 2, maxBackoff.toNanos());
            }
        }
        return null;
    }

    private final class Server {
        final InetSocketAddress address;
        final ClientConfig config;
        final Semaphore leases = new Semaphore(maxLeasesPerServer, true);
        final ConcurrentLinkedDeque<Pooled> idle = new ConcurrentLinkedDeque<>();
        /** Connects and reconnects running in the background for this server. */
        final AtomicInteger underway = new AtomicInteger();
        final AtomicInteger refilling = new AtomicInteger();

        Server(InetSocketAddress address) {
            this.address = address;
            this.config = new ClientConfig(template.backend(), address, template.localAddress(),
                    template.serviceName(), template.limits(), template.waitMode(), template.idleStrategy(),
                    template.clock(), template.connectTimeout(), template.properties(), template.authentication());
        }
    }

    private record Pooled(OflClient client, Region region) {
    }

    /**
     * One client lent to one thread until {@link #close()}. Not thread-safe, like the client.
     */
    public final class Lease implements AutoCloseable {
        private final Server server;
        private Pooled pooled;

        private Lease(Server server, Pooled pooled) {
            this.server = server;
            this.pooled = pooled;
        }

        /**
         * The lent client.
         *
         * @return the client, connected when lent
         * @throws IllegalStateException after {@link #close()}
         */
        public OflClient client() {
            return lent().client;
        }

        /**
         * The client's own region of {@link Builder#regionBytes} bytes, alive as long as the client.
         *
         * @return the region
         * @throws IllegalStateException after {@link #close()}, or if the pool allocates no regions
         */
        public Region region() {
            Region region = lent().region;
            if (region == null) {
                throw new IllegalStateException("the pool allocates no region: set regionBytes on its builder");
            }
            return region;
        }

        /**
         * The server this lease's client is connected to.
         *
         * @return the address given to {@link #borrow}
         */
        public InetSocketAddress server() {
            return server.address;
        }

        private Pooled lent() {
            if (pooled == null) {
                throw new IllegalStateException("this lease of a client of " + server.address + " was closed: the "
                        + "client is back in the pool");
            }
            return pooled;
        }

        /**
         * Gives the client back: a working one becomes idle for the next borrow; a broken one is
         * reconnected in the background first. Idempotent.
         */
        @Override
        public void close() {
            Pooled p = pooled;
            if (p == null) {
                return;
            }
            pooled = null;
            try {
                if (p.client.isBroken() || p.client.outstanding() > 0) {
                    // Broken, or given back with requests in flight whose responses could still land
                    // in the region the next borrower gets: reconnected (which drops them) before it
                    // is lent again.
                    returnedBroken.incrementAndGet();
                    if (closed) {
                        p.client.close();
                    } else {
                        mend(server, p);
                    }
                } else {
                    park(server, p);
                }
            } finally {
                server.leases.release();
            }
        }
    }

    /**
     * What the pool has done.
     *
     * @param borrows leases handed out (failed borrows are not counted)
     * @param connectsOnBorrow borrows that found no idle client and connected on the caller's thread
     * @param returnedBroken leases given back with a broken client (a fatal timeout, a lost peer) or
     *     with requests still outstanding
     * @param reconnects broken clients reconnected in the background
     * @param reconnectFailures background connects and reconnects that failed (each retried after a back-off)
     * @param standbyConnects clients connected in the background to keep the standby
     * @param idle clients idle now
     * @param lent clients lent now
     * @param waiting borrows waiting now for a place ({@link Builder#maxLeasesPerServer}); an estimate
     */
    public record Statistics(long borrows, long connectsOnBorrow, long returnedBroken, long reconnects,
            long reconnectFailures, long standbyConnects, int idle, int lent, int waiting) {
    }

    /** Builds an {@link OflClientPool}. Not thread-safe. */
    public static final class Builder {
        private final ClientConfig template;
        private int maxLeasesPerServer = 16;
        private int standbyPerServer = 1;
        private int maxIdlePerServer = 4;
        private long regionBytes;
        private Duration backoff = Duration.ofMillis(10);
        private Duration maxBackoff = Duration.ofSeconds(1);

        private Builder(ClientConfig template) {
            this.template = template;
        }

        /**
         * Bounds the clients of one server lent at once; a borrow beyond it waits.
         *
         * @param maxLeasesPerServer at least 1; default 16
         * @return this builder
         */
        public Builder maxLeasesPerServer(int maxLeasesPerServer) {
            this.maxLeasesPerServer = maxLeasesPerServer;
            return this;
        }

        /**
         * How many connected clients per server the pool keeps idle beside those lent, connected
         * in the background, so that a caller whose client broke borrows a working one at once.
         *
         * @param standbyPerServer 0 (connect on the borrowing thread when none is idle) or more; default 1
         * @return this builder
         */
        public Builder standbyPerServer(int standbyPerServer) {
            this.standbyPerServer = standbyPerServer;
            return this;
        }

        /**
         * Bounds the idle clients kept per server; more given back are closed. At least the standby.
         *
         * @param maxIdlePerServer 0 or more; default 4
         * @return this builder
         */
        public Builder maxIdlePerServer(int maxIdlePerServer) {
            this.maxIdlePerServer = maxIdlePerServer;
            return this;
        }

        /**
         * The size of the region each pooled client allocates for its responses
         * ({@link Lease#region()}).
         *
         * @param regionBytes 0 (none: the caller registers nothing per borrow either way) or more; default 0
         * @return this builder
         */
        public Builder regionBytes(long regionBytes) {
            this.regionBytes = regionBytes;
            return this;
        }

        /**
         * The back-off of background connects and reconnects: the first wait after a failure,
         * doubled after each further one up to {@code max}.
         *
         * @param first positive; default 10 ms
         * @param max at least {@code first}; default 1 s
         * @return this builder
         */
        public Builder backoff(Duration first, Duration max) {
            this.backoff = first;
            this.maxBackoff = max;
            return this;
        }

        /**
         * Builds the pool. No connection is made until the first borrow of each server.
         *
         * @return the pool
         * @throws IllegalArgumentException naming a setting out of range
         */
        public OflClientPool build() {
            if (maxLeasesPerServer < 1) {
                throw new IllegalArgumentException("maxLeasesPerServer must be at least 1, was " + maxLeasesPerServer);
            }
            if (standbyPerServer < 0 || maxIdlePerServer < 0 || regionBytes < 0) {
                throw new IllegalArgumentException("standbyPerServer, maxIdlePerServer and regionBytes must not be "
                        + "negative: " + standbyPerServer + ", " + maxIdlePerServer + ", " + regionBytes);
            }
            if (backoff == null || maxBackoff == null || backoff.isNegative() || backoff.isZero()
                    || maxBackoff.compareTo(backoff) < 0) {
                throw new IllegalArgumentException("backoff must be positive and at most its maximum: " + backoff
                        + ", " + maxBackoff);
            }
            return new OflClientPool(this);
        }
    }
}
