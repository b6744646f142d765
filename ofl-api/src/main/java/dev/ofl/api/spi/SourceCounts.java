package dev.ofl.api.spi;

import java.net.InetAddress;
import java.util.HashMap;
import java.util.Map;

/**
 * Places counted per source address and in total, taken only below both limits: the pending
 * handshakes and the accepted connections of a server. Thread-safe.
 */
final class SourceCounts {
    /** {@link #tryAcquire} took a place. */
    static final int TAKEN = 0;
    /** {@link #tryAcquire} found the source's places all taken. */
    static final int SOURCE_FULL = 1;
    /** {@link #tryAcquire} found every place taken. */
    static final int ALL_FULL = 2;

    private final Map<InetAddress, Integer> bySource = new HashMap<>();
    private int total;

    /**
     * Takes a place for a source if it has fewer than {@code perSource} and all fewer than {@code all}.
     *
     * @return {@link #TAKEN}, {@link #SOURCE_FULL} or {@link #ALL_FULL}
     */
    synchronized int tryAcquire(InetAddress source, int perSource, int all) {
        int count = bySource.getOrDefault(source, 0);
        if (count >= perSource) {
            return SOURCE_FULL;
        }
        if (total >= all) {
            return ALL_FULL;
        }
        bySource.put(source, count + 1);
        total++;
        return TAKEN;
    }

    /**
     * Takes a place as {@link #tryAcquire} does, waiting up to {@code timeoutNs} while every place
     * is taken (a place is being given back).
     *
     * @return {@link #TAKEN}, {@link #SOURCE_FULL} or {@link #ALL_FULL}
     */
    synchronized int awaitAcquire(InetAddress source, int perSource, int all, long timeoutNs) {
        long deadlineNs = System.nanoTime() + timeoutNs;
        int taken = tryAcquire(source, perSource, all);
        while (taken == ALL_FULL) {
            long leftNs = deadlineNs - System.nanoTime();
            if (leftNs <= 0) {
                break;
            }
            try {
                wait(Math.max(1, leftNs / 1_000_000));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
            taken = tryAcquire(source, perSource, all);
        }
        return taken;
    }

    /** Gives back a place {@link #tryAcquire} took for the source. */
    synchronized void release(InetAddress source) {
        notifyAll();
        Integer count = bySource.get(source);
        if (count == null) {
            throw new IllegalStateException("no place taken for " + source);
        }
        if (count == 1) {
            bySource.remove(source);
        } else {
            bySource.put(source, count - 1);
        }
        total--;
    }

    synchronized int count(InetAddress source) {
        return bySource.getOrDefault(source, 0);
    }

    synchronized int total() {
        return total;
    }
}
