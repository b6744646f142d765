package dev.ofl.api.spi;

import java.util.concurrent.atomic.LongAdder;

/**
 * What the servers of this process hold in native memory for their connections, by kind: the
 * accounting behind the promise that a peer which only says HELLO costs almost nothing. Backends
 * add what they allocate and subtract what they free; tests and tools read the sums.
 *
 * <p>Thread-safe; adding allocates nothing.
 */
public final class ServerMemory {
    /** Staging pools' memory: each pool's budget from its first response until it is closed. */
    static final LongAdder STAGING = new LongAdder();
    /** Staging borrowed now, by responses and payload reads of every pool. */
    static final LongAdder STAGING_IN_USE = new LongAdder();
    /** Receive buffers and slots of the connections open now. */
    private static final LongAdder RECEIVE = new LongAdder();

    private ServerMemory() {
    }

    /**
     * Records receive memory a connection allocated (positive) or freed (negative).
     *
     * @param bytes the change
     */
    public static void receive(long bytes) {
        RECEIVE.add(bytes);
    }

    /**
     * Receive memory held by open server connections in this process.
     *
     * @return bytes
     */
    public static long receiveBytes() {
        return RECEIVE.sum();
    }

    /**
     * Staging memory borrowed now from the staging pools of this process: what responses (and RDMA
     * payload reads) hold, which a client that stops reading keeps until its send timeout.
     *
     * @return bytes
     */
    public static long stagingInUseBytes() {
        return STAGING_IN_USE.sum();
    }

    /**
     * Staging memory held by the staging pools of this process.
     *
     * @return bytes
     */
    public static long stagingBytes() {
        return STAGING.sum();
    }
}
