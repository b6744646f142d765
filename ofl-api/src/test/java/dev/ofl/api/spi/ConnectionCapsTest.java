package dev.ofl.api.spi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * Who gives way at a full cap (docs/PROTOCOL.md 3.4.1): only connections unused for the grace;
 * at the per-source cap one of the newcomer's own source; at the total cap one of a source holding
 * more places than the newcomer's, so equal sources cannot push each other out; and the newcomer
 * holds its place at once.
 */
class ConnectionCapsTest {
    private static final long GRACE_NS = 1_000;
    private final AtomicLong now = new AtomicLong(10_000);
    private final List<FakeHolder> holders = new CopyOnWriteArrayList<>();

    /** A connection: serving since a time, used (it sent a request) or not. */
    private final class FakeHolder implements ConnectionCaps.Holder {
        final InetAddress source;
        final long sinceNs;
        boolean used;
        boolean gaveWay;
        /** Another newcomer wins it first: a caller gets nothing, and it is no candidate any more. */
        boolean wonByAnother;
        /** Runs as it gives way, after it gave its place back: what other threads do meanwhile. */
        Runnable meanwhile = () -> { };
        /** Thrown by giveWay instead of giving way. */
        RuntimeException failure;
        final ConnectionCaps caps;

        FakeHolder(ConnectionCaps caps, InetAddress source, long sinceNs) {
            this.caps = caps;
            this.source = source;
            this.sinceNs = sinceNs;
        }

        @Override
        public InetAddress source() {
            return source;
        }

        @Override
        public boolean settled(long nowNs, long graceNs) {
            return true;
        }

        @Override
        public long unusedSince(long nowNs, long graceNs) {
            return !used && !gaveWay && nowNs - sinceNs >= graceNs ? sinceNs : Long.MAX_VALUE;
        }

        @Override
        public boolean giveWay() {
            if (failure != null) {
                throw failure;
            }
            if (used || gaveWay) {
                return false;
            }
            gaveWay = true;
            if (wonByAnother) {
                return false;
            }
            holders.remove(this);
            caps.release(source);
            meanwhile.run();
            return true;
        }
    }

    private static InetAddress ip(String text) {
        return new InetSocketAddress(text, 0).getAddress();
    }

    private ConnectionCaps caps(int max, int perSource) {
        return new ConnectionCaps(max, perSource, GRACE_NS, now::get, holders);
    }

    /** Admits a connection from a source, as serving since {@code sinceNs}. */
    private FakeHolder admit(ConnectionCaps caps, String source, long sinceNs) {
        assertEquals(SourceCounts.TAKEN, caps.acquire(ip(source), 0), "a place for " + source);
        FakeHolder holder = new FakeHolder(caps, ip(source), sinceNs);
        holders.add(holder);
        return holder;
    }

    @Test
    void belowTheCapsNothingGivesWay() {
        ConnectionCaps caps = caps(4, 2);
        FakeHolder idle = admit(caps, "10.0.0.1", 0);
        admit(caps, "10.0.0.2", 0);
        assertNull(caps.busyReason(ip("10.0.0.3")));
        admit(caps, "10.0.0.3", 0);
        assertFalse(idle.gaveWay);
        assertEquals(3, caps.total());
    }

    @Test
    void atTheSourceCapTheOldestUnusedOfThatSourceGivesWay() {
        ConnectionCaps caps = caps(10, 2);
        FakeHolder used = admit(caps, "10.0.0.1", 0);
        used.used = true;
        FakeHolder unused = admit(caps, "10.0.0.1", 5);
        FakeHolder otherSource = admit(caps, "10.0.0.2", 0);
        assertNull(caps.busyReason(ip("10.0.0.1")), "one of its own may give way to it");
        admit(caps, "10.0.0.1", 9_000);
        assertTrue(unused.gaveWay, "the unused one of the newcomer's source gave way");
        assertFalse(used.gaveWay, "one that sent a request keeps its place");
        assertFalse(otherSource.gaveWay, "another source's connection is not touched at a source cap");
        assertEquals(3, caps.total(), "two from 10.0.0.1 and one from 10.0.0.2");
    }

    @Test
    void aConnectionWithinItsGraceIsNotPushedOut() {
        ConnectionCaps caps = caps(10, 1);
        FakeHolder young = admit(caps, "10.0.0.1", now.get() - GRACE_NS + 1);
        assertEquals("the server is at its cap of 1 connections from 10.0.0.1", caps.busyReason(ip("10.0.0.1")));
        assertEquals(SourceCounts.SOURCE_FULL, caps.acquire(ip("10.0.0.1"), 0));
        assertFalse(young.gaveWay);
        now.addAndGet(1);
        assertEquals(SourceCounts.TAKEN, caps.acquire(ip("10.0.0.1"), 0), "past the grace it may give way");
        assertTrue(young.gaveWay);
    }

    @Test
    void atTheTotalCapOnlyASourceHoldingMoreThanTheNewcomersGivesWay() {
        ConnectionCaps caps = caps(4, 4);
        FakeHolder a1 = admit(caps, "10.0.0.1", 0);
        FakeHolder a2 = admit(caps, "10.0.0.1", 1);
        FakeHolder b1 = admit(caps, "10.0.0.2", 0);
        FakeHolder b2 = admit(caps, "10.0.0.2", 2);
        // 10.0.0.1 and 10.0.0.2 hold two each: neither may push the other out.
        assertEquals("the server is at its cap of 4 connections", caps.busyReason(ip("10.0.0.1")));
        assertEquals(SourceCounts.ALL_FULL, caps.acquire(ip("10.0.0.2"), 0));
        assertFalse(a1.gaveWay || a2.gaveWay || b1.gaveWay || b2.gaveWay, "equal sources churned");
        // A new source holds none: the oldest unused of a source holding the most gives way.
        assertNull(caps.busyReason(ip("10.0.0.3")));
        admit(caps, "10.0.0.3", 9_000);
        assertTrue(a1.gaveWay || b1.gaveWay, "the oldest of the two richest sources gave way");
        assertFalse(a2.gaveWay || b2.gaveWay);
    }

    @Test
    void aSourceTakesAPlaceOnlyFromOneHoldingTwoMore() {
        ConnectionCaps caps = caps(5, 5);
        admit(caps, "10.0.0.1", 0);
        admit(caps, "10.0.0.1", 1);
        FakeHolder third = admit(caps, "10.0.0.2", 0);
        admit(caps, "10.0.0.2", 1);
        admit(caps, "10.0.0.2", 2);
        assertEquals(SourceCounts.ALL_FULL, caps.acquire(ip("10.0.0.1"), 0),
                "two against three: the move would only swap who holds more, so nothing gives way");
        assertEquals(SourceCounts.TAKEN, caps.acquire(ip("10.0.0.3"), 0), "none against three");
        assertTrue(third.gaveWay);
    }

    @Test
    void atTheTotalCapANewcomerWaitsForAPlaceGivenBack() throws Exception {
        ConnectionCaps caps = caps(1, 1);
        FakeHolder busy = admit(caps, "10.0.0.1", 0);
        busy.used = true;
        Thread leaving = Thread.ofPlatform().start(() -> {
            try {
                Thread.sleep(20);
            } catch (InterruptedException e) {
                return;
            }
            holders.remove(busy);
            caps.release(busy.source);
        });
        assertEquals(SourceCounts.TAKEN, caps.acquire(ip("10.0.0.2"), TimeUnit.MINUTES.toNanos(1)),
                "the place given back is taken");
        leaving.join();
        assertEquals(1, caps.total());
    }

    @Test
    void aPlaceGivenBackGoesToTheLongestWaiterNotToANewcomer() throws Exception {
        ConnectionCaps caps = caps(1, 1);
        FakeHolder busy = admit(caps, "10.0.0.1", 0);
        busy.used = true;
        java.util.concurrent.atomic.AtomicInteger waited = new java.util.concurrent.atomic.AtomicInteger(-1);
        Thread waiter = Thread.ofPlatform().start(() -> waited.set(caps.acquire(ip("10.0.0.2"),
                TimeUnit.MINUTES.toNanos(1))));
        long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(1);
        while (caps.waiters() == 0 && System.nanoTime() - deadline < 0) {
            Thread.onSpinWait();
        }
        assertEquals(1, caps.waiters());
        assertEquals(SourceCounts.ALL_FULL, caps.acquire(ip("10.0.0.3"), 0),
                "a newcomer does not go ahead of a waiter");
        holders.remove(busy);
        caps.release(busy.source);
        assertEquals(SourceCounts.ALL_FULL, caps.acquire(ip("10.0.0.3"), 0), "the place went to the waiter");
        waiter.join(TimeUnit.MINUTES.toMillis(1));
        assertEquals(SourceCounts.TAKEN, waited.get());
        assertEquals(1, caps.total());
        assertEquals(0, caps.waiters());
    }

    @Test
    void aWaiterThatGivesUpLeavesTheQueue() {
        ConnectionCaps caps = caps(1, 1);
        admit(caps, "10.0.0.1", 0).used = true;
        assertEquals(SourceCounts.ALL_FULL, caps.acquire(ip("10.0.0.2"), TimeUnit.MILLISECONDS.toNanos(20)));
        assertEquals(0, caps.waiters());
        assertEquals(1, caps.total());
    }

    @Test
    void atTheTotalCapTheRichestSourceGivesWayFirst() {
        ConnectionCaps caps = caps(4, 4);
        FakeHolder lone = admit(caps, "10.0.0.1", 0);
        FakeHolder rich1 = admit(caps, "10.0.0.2", 5);
        FakeHolder rich2 = admit(caps, "10.0.0.2", 6);
        FakeHolder rich3 = admit(caps, "10.0.0.2", 7);
        admit(caps, "10.0.0.3", 9_000);
        assertFalse(lone.gaveWay, "older, but its source holds one place");
        assertTrue(rich1.gaveWay, "the oldest of the source holding three");
        assertFalse(rich2.gaveWay || rich3.gaveWay);
    }

    @Test
    void usedConnectionsNeverGiveWay() {
        ConnectionCaps caps = caps(2, 2);
        admit(caps, "10.0.0.1", 0).used = true;
        admit(caps, "10.0.0.1", 0).used = true;
        assertNotNull(caps.busyReason(ip("10.0.0.9")));
        assertEquals(SourceCounts.ALL_FULL, caps.acquire(ip("10.0.0.9"), 0));
        assertEquals(2, caps.total());
    }

    @Test
    void aConnectionThatGaveWayOnceIsNobodysPlaceAgain() {
        ConnectionCaps caps = caps(1, 1);
        FakeHolder holder = new FakeHolder(caps, ip("10.0.0.1"), 0);
        holder.wonByAnother = true;
        assertEquals(SourceCounts.TAKEN, caps.acquire(ip("10.0.0.1"), 0));
        holders.add(holder);
        assertEquals(SourceCounts.SOURCE_FULL, caps.acquire(ip("10.0.0.1"), 0));
        assertEquals(1, caps.total(), "no place was taken on the strength of a connection that gave way to another");
    }

    /**
     * A source at its own cap may take the place of its own idle connection even when the total cap
     * is full too, and even while others wait at the total cap: that leaves the total as it is.
     */
    @Test
    void atItsOwnCapANewcomerTakesItsSourcesIdlePlaceWhateverTheTotal() throws Exception {
        ConnectionCaps caps = caps(2, 1);
        FakeHolder idle = admit(caps, "10.0.0.1", 0);
        admit(caps, "10.0.0.2", 0).used = true;
        assertNull(caps.busyReason(ip("10.0.0.1")), "its own idle connection may give way");
        // 10.0.0.3 holds none and no source holds two: it waits at the total cap.
        Thread waiter = Thread.ofPlatform().start(() -> caps.acquire(ip("10.0.0.3"), TimeUnit.SECONDS.toNanos(30)));
        long deadlineNs = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (caps.waiters() == 0) {
            assertTrue(System.nanoTime() - deadlineNs < 0, "the waiter never queued");
            Thread.sleep(1);
        }
        assertNull(caps.busyReason(ip("10.0.0.1")), "with a waiter too");
        assertEquals(SourceCounts.TAKEN, caps.acquire(ip("10.0.0.1"), 0));
        assertTrue(idle.gaveWay);
        assertEquals(2, caps.total());
        assertEquals(1, caps.waiters(), "the waiter still waits: no place came free");
        waiter.interrupt();
        waiter.join();
    }

    /**
     * The newcomer holds its place before the victim is closed: when the victim's thread gives its
     * own place back at once and another newcomer asks in that moment, the other finds the cap
     * full, and the total never stays above the cap.
     */
    @Test
    void aPlaceGivenBackWhileMakingRoomIsNotTakenTwice() {
        ConnectionCaps caps = caps(2, 2);
        FakeHolder a1 = admit(caps, "10.0.0.1", 0);
        admit(caps, "10.0.0.1", 1).used = true;
        int[] other = new int[1];
        a1.meanwhile = () -> other[0] = caps.acquire(ip("10.0.0.1"), 0);
        assertEquals(SourceCounts.TAKEN, caps.acquire(ip("10.0.0.1"), 0));
        assertTrue(a1.gaveWay);
        assertEquals(SourceCounts.SOURCE_FULL, other[0], "the place given back was the newcomer's already");
        assertEquals(2, caps.total(), "at the cap, not above it");
    }

    /**
     * While a HELLO of a source holding none waits at the total cap, a source at its own cap may not
     * replace its own connection the moment it grows old enough: that connection is the waiter's.
     * A source that did so would keep its connections young and the waiters out for ever.
     */
    @Test
    void aSourceAtItsCapDoesNotTakeFromAWaiterTheConnectionThatWouldGiveWayToIt() throws Exception {
        ConnectionCaps caps = caps(2, 2);
        FakeHolder young = admit(caps, "10.0.0.1", now.get());
        admit(caps, "10.0.0.1", now.get()).used = true;
        int[] waited = new int[1];
        Thread waiter = Thread.ofPlatform().start(() -> waited[0] = caps.acquire(ip("10.0.0.3"),
                TimeUnit.SECONDS.toNanos(30)));
        long deadlineNs = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (caps.waiters() == 0) {
            assertTrue(System.nanoTime() - deadlineNs < 0, "the waiter never queued");
            Thread.sleep(1);
        }
        now.addAndGet(GRACE_NS);
        assertEquals("the server is at its cap of 2 connections from 10.0.0.1", caps.busyReason(ip("10.0.0.1")));
        assertEquals(SourceCounts.SOURCE_FULL, caps.acquire(ip("10.0.0.1"), 0), "the old one is the waiter's");
        waiter.join(TimeUnit.SECONDS.toMillis(30));
        assertEquals(SourceCounts.TAKEN, waited[0], "the waiter took the place of the connection grown old");
        assertTrue(young.gaveWay);
        assertEquals(2, caps.total());
    }

    /** A connection that fails while giving way leaves no place taken for the newcomer. */
    @Test
    void aFailureWhileGivingWayLeavesNoPlaceTaken() {
        ConnectionCaps caps = caps(2, 2);
        FakeHolder idle = admit(caps, "10.0.0.1", 0);
        admit(caps, "10.0.0.1", 0).used = true;
        idle.failure = new IllegalStateException("closing failed");
        try {
            caps.acquire(ip("10.0.0.1"), 0);
            throw new AssertionError("the failure was swallowed");
        } catch (IllegalStateException expected) {
            assertEquals("closing failed", expected.getMessage());
        }
        assertEquals(2, caps.total(), "the newcomer's place went back");
    }

    /** At the total cap a source's own cap still holds, however many newcomers found a victim. */
    @Test
    void takingAPlaceAtTheTotalCapKeepsTheSourceCap() {
        SourceCounts counts = new SourceCounts();
        assertTrue(counts.forceAcquireWithin(ip("10.0.0.1"), 2));
        assertTrue(counts.forceAcquireWithin(ip("10.0.0.1"), 2));
        assertFalse(counts.forceAcquireWithin(ip("10.0.0.1"), 2), "the third of a source capped at two");
        assertEquals(2, counts.count(ip("10.0.0.1")));
        assertEquals(2, counts.total());
    }
}
