package dev.ofl.api.spi;

import dev.ofl.api.NanoClock;
import java.net.InetAddress;
import java.util.concurrent.ConcurrentLinkedDeque;
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
 * a place before the leaving connection is closed, and that connection gives its own back as it
 * ends: for that moment the counts exceed the caps, and no one else can take a place the
 * newcomer counted on. With no connection to give way at the
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
         * Whether the connection holds its place for good: it has been serving and has sent a
         * request, or has been serving for the grace. {@code false} while its HELLO is decided on,
         * its transport set up, or just after its WELCOME: a connection that comes and goes at once
         * (a reconnect storm's) gives its place back within milliseconds.
         *
         * @param nowNs the server clock's time
         * @param graceNs how long an accepted connection may wait before its first request
         * @return {@code true} once settled
         */
        boolean settled(long nowNs, long graceNs);

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

    /** {@link Waiter#outcome} while still waiting. */
    private static final int WAITING = -1;

    private final SourceCounts admitted = new SourceCounts();
    /** HELLOs waiting for a place at the total cap, oldest first; guarded by this object's lock. */
    private final ConcurrentLinkedDeque<Waiter> waiting = new ConcurrentLinkedDeque<>();
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
     * settled connection: while some are still being set up or just began (a storm of connections
     * that come and go at once), places may free within milliseconds, and the decision on the
     * HELLO waits a short while for one ({@link #acquire}).
     *
     * @param source the socket's source address
     * @return the reason, or {@code null} if it may send its HELLO
     */
    String busyReason(InetAddress source) {
        if (admitted.count(source) >= perSource) {
            // Only a connection of its own source can make room, and that leaves the total as it is.
            return ownVictim(source) == null ? reason(SourceCounts.SOURCE_FULL, source) : null;
        }
        if (admitted.total() >= maxConnections && victim(source, false) == null && allSettled()) {
            return reason(SourceCounts.ALL_FULL, source);
        }
        return null;
    }

    private boolean allSettled() {
        long nowNs = clock.nanoTime();
        for (Holder holder : holders) {
            if (!holder.settled(nowNs, graceNs)) {
                return false;
            }
        }
        return true;
    }

    /**
     * Takes a place for an accepted HELLO, closing a connection that gives way to it if a cap is
     * full; at the total cap with none to give way, waits up to {@code waitNs} for a place given
     * back (looking for one that may give way again now and then). Waiters are served first come,
     * first served: a place given back goes straight to the longest waiter, so HELLOs that keep
     * arriving (a reconnect storm) cannot take every place ahead of one that waits.
     *
     * @param source the client's address
     * @param waitNs the longest wait for a place at the total cap, on the machine's clock
     * @return {@link SourceCounts#TAKEN}, or which cap is full ({@link SourceCounts#SOURCE_FULL},
     *     {@link SourceCounts#ALL_FULL}) and no connection gave way
     */
    int acquire(InetAddress source, long waitNs) {
        long deadlineNs = System.nanoTime() + waitNs;
        int taken;
        if (admitted.count(source) >= perSource) {
            // At its own cap: only a connection of its own source can make room, waiters or not.
            taken = SourceCounts.SOURCE_FULL;
        } else if (!waiting.isEmpty()) {
            // With others waiting, a newcomer queues behind them rather than take a place first.
            taken = SourceCounts.ALL_FULL;
        } else {
            taken = admitted.tryAcquire(source, perSource, maxConnections);
        }
        if (taken == SourceCounts.TAKEN) {
            return taken;
        }
        Waiter waiter = null;
        boolean returned = false;
        try {
            while (true) {
                boolean ownSource = taken == SourceCounts.SOURCE_FULL;
                Holder victim = ownSource ? ownVictim(source) : victim(source, false);
                if (victim != null) {
                    // The place is taken before the victim is closed: its thread gives its own back
                    // as it ends, and a waiter or another newcomer that takes that one finds the
                    // cap full again, not a place the newcomer was counting on. At the total cap the
                    // source's own cap still holds: newcomers of one source that each found a
                    // different victim may not all get in.
                    if (ownSource) {
                        admitted.forceAcquire(source);
                    } else if (!admitted.forceAcquireWithin(source, perSource)) {
                        taken = SourceCounts.SOURCE_FULL;
                        continue;
                    }
                    boolean gaveWay = false;
                    try {
                        gaveWay = victim.giveWay();
                    } finally {
                        if (!gaveWay) {
                            release(source);
                        }
                    }
                    if (gaveWay) {
                        if (waiter != null && leave(waiter) == SourceCounts.TAKEN) {
                            // Handed a place meanwhile as well: one of the two goes back.
                            release(source);
                        }
                        returned = true;
                        return SourceCounts.TAKEN;
                    }
                    // Another newcomer took it, it took a request, or it is ending meanwhile: it is
                    // no candidate any more, so the next look finds another or none.
                    continue;
                }
                long leftNs = deadlineNs - System.nanoTime();
                if (taken == SourceCounts.SOURCE_FULL || leftNs <= 0) {
                    return taken;
                }
                synchronized (this) {
                    if (waiter == null) {
                        waiter = new Waiter(source);
                        waiting.add(waiter);
                        // A place may have come free while none waited: the queue's head takes it.
                        handOver();
                    }
                    if (waiter.outcome == WAITING && !awaitHandOver(leftNs)) {
                        return taken;
                    }
                    if (waiter.outcome != WAITING) {
                        returned = true;
                        return waiter.outcome;
                    }
                }
            }
        } finally {
            if (waiter != null) {
                synchronized (this) {
                    waiting.remove(waiter);
                    if (waiter.outcome == SourceCounts.TAKEN && !returned) {
                        // Handed a place as it gave up: pass it on.
                        admitted.release(source);
                        handOver();
                    }
                }
            }
        }
    }

    /** Takes a waiter out of the queue; returns what it had been handed, or {@link #WAITING}. */
    private synchronized int leave(Waiter waiter) {
        waiting.remove(waiter);
        return waiter.outcome;
    }

    /** A HELLO waiting for a place at the total cap. */
    private static final class Waiter {
        final InetAddress source;
        /** {@link #WAITING}, or what it got: a place, or its source's cap full by the time one came. */
        int outcome = WAITING;

        Waiter(InetAddress source) {
            this.source = source;
        }
    }

    /**
     * Waits for a hand-over, the time, or a look for a connection grown old enough to give way;
     * the lock is held.
     *
     * @return {@code false} if interrupted (the interrupt is kept)
     */
    private boolean awaitHandOver(long leftNs) {
        try {
            wait(Math.max(1, TimeUnit.NANOSECONDS.toMillis(Math.min(leftNs, LOOK_AGAIN_NS))));
            return true;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /** Gives free places to the waiters, oldest first; the lock is held. */
    private void handOver() {
        boolean any = false;
        while (!waiting.isEmpty()) {
            Waiter head = waiting.peekFirst();
            int taken = admitted.tryAcquire(head.source, perSource, maxConnections);
            if (taken == SourceCounts.ALL_FULL) {
                break;
            }
            waiting.pollFirst();
            head.outcome = taken;
            any = true;
        }
        if (any) {
            notifyAll();
        }
    }

    /**
     * Gives back the place {@link #acquire} took; the longest waiter, if any, takes it at once.
     *
     * @param source the address it was taken for
     */
    void release(InetAddress source) {
        admitted.release(source);
        if (!waiting.isEmpty()) {
            synchronized (this) {
                handOver();
            }
        }
    }

    /**
     * HELLOs waiting for a place now, for tests.
     *
     * @return the count
     */
    int waiters() {
        return waiting.size();
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
     * The connection of its own source that would give way to a newcomer at its source's cap, or
     * {@code null}: none is old and unused enough, or HELLOs wait at the total cap and that
     * connection would give way to the longest waiter as well (its source holds two more than the
     * waiter's). It is the waiter's then: a source that keeps replacing its own connections the
     * moment they grow old enough would otherwise keep them young and the waiters out.
     */
    private Holder ownVictim(InetAddress source) {
        Holder victim = victim(source, true);
        Waiter head = waiting.peekFirst();
        if (victim != null && head != null && admitted.count(source) >= admitted.count(head.source) + 2) {
            return null;
        }
        return victim;
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
