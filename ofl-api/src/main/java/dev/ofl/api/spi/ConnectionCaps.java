package dev.ofl.api.spi;

import dev.ofl.api.NanoClock;
import java.net.InetAddress;
import java.util.concurrent.TimeUnit;

/**
 * A server's connection caps (docs/PROTOCOL.md 3.4.1): one place per accepted HELLO, at most
 * {@code maxConnections} in all and {@code maxConnectionsPerAddress} per source, and who gives way
 * when a newcomer finds a cap full.
 *
 * <p>Only a connection that has sent no request since its WELCOME, for at least the grace, may
 * give way. At the per-source cap, the oldest such connection of the newcomer's own source gives
 * way. At the total cap, one of a source that holds at least two places more than the newcomer's:
 * of the source holding the most, the oldest. Each such move leaves the newcomer's source holding
 * no more than the other, so sources that connect and never ask settle into near-equal shares and
 * stop pushing each other out (a rule of "more than" alone lets them pass a place around for
 * ever, each move making a young connection), their connections grow old enough to give way, and
 * a client whose source holds none gets in whenever a source holds two or more. The newcomer takes
 * the place at once, ahead of the leaving connection giving it back: nothing can take it in
 * between, and for that moment the counts exceed the caps. With no connection to give way at the
 * total cap, a newcomer waits a short while for a place to be given back: under a storm of
 * connections that come and go at once, places free within milliseconds.
 *
 * <p>Thread-safe.
 */
final class ConnectionCaps {
    /** What runs on an accepted connection, as far as the caps need it. */
    interface Holder {
        /**
         * The address the connection's place counts under.
         *
         * @return the peer's address
         */
        InetAddress source();

        /**
         * Since when the connection may give way.
         *
         * @param nowNs the server clock's time
         * @param graceNs how long an accepted connection may wait before its first request
         * @return since when it has been serving without a request, if that is at least
         *     {@code graceNs}; otherwise {@link Long#MAX_VALUE} (it may not give way now)
         */
        long unusedSince(long nowNs, long graceNs);

        /**
         * Whether the connection has been serving since its WELCOME; {@code false} while its HELLO
         * is decided on or its transport set up, when it may yet take a place or give its own back.
         *
         * @return {@code true} once serving
         */
        boolean settled();

        /**
         * Closes the connection to make room for a newcomer, if it still has sent no request, no
         * handler runs and it has not given way already.
         *
         * @return {@code true} if it was closed by this call: its place is the caller's
         */
        boolean giveWay();
    }

    /** While waiting for a place, how often to look for a connection that may give way now. */
    private static final long LOOK_AGAIN_NS = 50_000_000L;

    private final SourceCounts admitted = new SourceCounts();
    private final int maxConnections;
    private final int perSource;
    private final long graceNs;
    private final NanoClock clock;
    private final Iterable<? extends Holder> holders;

    /**
     * Creates the caps.
     *
     * @param maxConnections the most connections in all
     * @param perSource the most from one source
     * @param graceNs how long a new connection is protected from giving way
     * @param clock the server's clock
     * @param holders the connections that hold places now (a live view)
     */
    ConnectionCaps(int maxConnections, int perSource, long graceNs, NanoClock clock,
            Iterable<? extends Holder> holders) {
        this.maxConnections = maxConnections;
        this.perSource = Math.min(perSource, maxConnections);
        this.graceNs = graceNs;
        this.clock = clock;
        this.holders = holders;
    }

    /**
     * Why a socket from this source would be refused now, before its HELLO is read: a cap is full
     * and no connection may give way to it. At the total cap only while every place is held by a
     * connection that is serving: while some are still being set up (a storm of connections that
     * come and go at once), places may free within milliseconds, and the decision on the HELLO
     * waits a short while for one ({@link #acquire}).
     *
     * @param source the socket's source address
     * @return the reason, or {@code null} if it may send its HELLO
     */
    String busyReason(InetAddress source) {
        if (admitted.count(source) >= perSource && victim(source, true) == null) {
            return reason(SourceCounts.SOURCE_FULL, source);
        }
        if (admitted.total() >= maxConnections && victim(source, false) == null && allSettled()) {
            return reason(SourceCounts.ALL_FULL, source);
        }
        return null;
    }

    private boolean allSettled() {
        for (Holder holder : holders) {
            if (!holder.settled()) {
                return false;
            }
        }
        return true;
    }

    /**
     * Takes a place for an accepted HELLO, closing a connection that gives way to it if a cap is
     * full; at the total cap with none to give way, waits up to {@code waitNs} for a place given
     * back (looking for one that may give way again each time).
     *
     * @param source the client's address
     * @param waitNs the longest wait for a place at the total cap, on the machine's clock
     * @return {@link SourceCounts#TAKEN}, or which cap is full ({@link SourceCounts#SOURCE_FULL},
     *     {@link SourceCounts#ALL_FULL}) and no connection gave way
     */
    int acquire(InetAddress source, long waitNs) {
        long deadlineNs = System.nanoTime() + waitNs;
        int taken = admitted.tryAcquire(source, perSource, maxConnections);
        while (taken != SourceCounts.TAKEN) {
            Holder victim = victim(source, taken == SourceCounts.SOURCE_FULL);
            if (victim != null && victim.giveWay()) {
                admitted.forceAcquire(source);
                return SourceCounts.TAKEN;
            }
            // A victim that another newcomer took, or that took a request meanwhile, is no
            // candidate any more: the next look finds another or none.
            if (victim == null) {
                long leftNs = deadlineNs - System.nanoTime();
                if (taken == SourceCounts.SOURCE_FULL || leftNs <= 0 || !awaitRelease(leftNs)) {
                    return taken;
                }
            }
            taken = admitted.tryAcquire(source, perSource, maxConnections);
        }
        return taken;
    }

    /**
     * Waits until a place is given back, the time is up, or a look for a connection grown old
     * enough to give way is due; {@code false} if interrupted.
     */
    private synchronized boolean awaitRelease(long leftNs) {
        try {
            wait(Math.max(1, TimeUnit.NANOSECONDS.toMillis(Math.min(leftNs, LOOK_AGAIN_NS))));
            return true;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /**
     * Gives back the place {@link #acquire} took.
     *
     * @param source the address it was taken for
     */
    void release(InetAddress source) {
        admitted.release(source);
        synchronized (this) {
            notifyAll();
        }
    }

    /**
     * Places taken now.
     *
     * @return the count
     */
    int total() {
        return admitted.total();
    }

    /**
     * The refusal text for a full cap.
     *
     * @param full {@link SourceCounts#SOURCE_FULL} or {@link SourceCounts#ALL_FULL}
     * @param source the refused client's address
     * @return a sentence naming the cap
     */
    String reason(int full, InetAddress source) {
        return full == SourceCounts.ALL_FULL
                ? "the server is at its cap of " + maxConnections + " connections"
                : "the server is at its cap of " + perSource + " connections from " + SourceCounts.describe(source);
    }

    /**
     * The connection that would give way to a newcomer from {@code source}: with {@code ownSource}
     * the oldest unused one of that source; otherwise the oldest unused one of the source holding
     * the most places, if that is at least two more than the newcomer's source holds.
     */
    private Holder victim(InetAddress source, boolean ownSource) {
        long nowNs = clock.nanoTime();
        InetAddress group = SourceCounts.group(source);
        int own = admitted.count(source);
        Holder chosen = null;
        long chosenSince = Long.MAX_VALUE;
        // A source must hold two more than the newcomer's for the move to even their shares out.
        int chosenCount = own + 1;
        for (Holder holder : holders) {
            long since = holder.unusedSince(nowNs, graceNs);
            if (since == Long.MAX_VALUE) {
                continue;
            }
            boolean sameSource = SourceCounts.group(holder.source()).equals(group);
            if (ownSource) {
                if (sameSource && since < chosenSince) {
                    chosen = holder;
                    chosenSince = since;
                }
                continue;
            }
            int count = sameSource ? own : admitted.count(holder.source());
            if (count > chosenCount || (count == chosenCount && chosen != null && since < chosenSince)) {
                chosen = holder;
                chosenSince = since;
                chosenCount = count;
            }
        }
        return chosen;
    }
}
