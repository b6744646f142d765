package dev.ofl.api.spi;

import dev.ofl.api.ClientStatistics;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * The counters behind {@link dev.ofl.api.OflClient#statistics()}. One thread writes (the one
 * using the client); any thread may read. Writes are release stores, so counting costs no fence
 * on the hot path and allocates nothing.
 */
final class ClientCounters {
    /** What a counter counts. */
    enum Counter {
        CALLS, OK, REFUSED, HANDLER_FAILURES, TIMEOUTS, PEER_LOSSES, TRANSPORT_FAILURES, PROTOCOL_ERRORS, INTERRUPTS,
        RECONNECTS, FREED_REGIONS, LINK_FAILURES
    }

    private static final VarHandle COUNT = MethodHandles.arrayElementVarHandle(long[].class);
    private final long[] counts = new long[Counter.values().length];

    void increment(Counter counter) {
        int i = counter.ordinal();
        COUNT.setRelease(counts, i, (long) COUNT.getOpaque(counts, i) + 1);
    }

    private long get(Counter counter) {
        return (long) COUNT.getAcquire(counts, counter.ordinal());
    }

    ClientStatistics snapshot() {
        return new ClientStatistics(get(Counter.CALLS), get(Counter.OK), get(Counter.REFUSED),
                get(Counter.HANDLER_FAILURES), get(Counter.TIMEOUTS), get(Counter.PEER_LOSSES),
                get(Counter.TRANSPORT_FAILURES), get(Counter.PROTOCOL_ERRORS), get(Counter.INTERRUPTS),
                get(Counter.RECONNECTS), get(Counter.FREED_REGIONS), get(Counter.LINK_FAILURES));
    }
}
