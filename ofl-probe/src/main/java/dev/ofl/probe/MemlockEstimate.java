package dev.ofl.probe;

import dev.ofl.api.Limits;
import dev.ofl.api.ServerConfig;
import dev.ofl.api.wire.MessageHeader;
import dev.ofl.api.wire.PayloadRead;
import dev.ofl.probe.ProbeReport.Memlock;
import dev.ofl.verbs.MemlockLimit;

/**
 * What the RDMA backend registers for given limits, against this process's locked-memory limit.
 *
 * <p>The sizes follow the backend's allocations (docs/OPERATIONS.md, "RDMA registered memory";
 * docs/PROTOCOL.md 13): a client registers its send slots, one more than {@code maxInFlight}, and
 * its completion ring of {@code maxInFlight} 64-byte headers, plus the application's regions; a
 * server connection registers {@code maxInFlight} receive slots and a ring of 256 64-byte
 * completion headers, and the server registers one staging pool for all its connections, its
 * budget (by default the larger of 64 MiB and {@code maxResponseBytes}), the first time a response
 * needs it. A client slot holds a request header, its payload and its range descriptors, rounded
 * up to 64 bytes; a server's receive slot holds the same for a payload up to the inline limit
 * (4,096 bytes) when the client offers payload read, as an ofl client does, and the server reads
 * larger payloads into its pool. Each registration pins whole pages. Stateless.
 */
final class MemlockEstimate {
    private static final long HEADER_BYTES = MessageHeader.LENGTH;
    /** The server's completion headers per connection: its send queue's depth. */
    private static final long SERVER_HEADERS = 256;
    /** The backend's default {@code rdma.inlineRequestBytes}: longer payloads are read by the server. */
    private static final int INLINE_REQUEST_BYTES = 4096;

    private MemlockEstimate() {
    }

    /**
     * Bytes one request slot takes.
     *
     * @param limits the negotiated limits
     * @return the slot size, a multiple of 64
     */
    static long slotBytes(Limits limits) {
        return (MessageHeader.requestLength(limits.maxRequestBytes(), limits.maxRanges()) + 63) & ~63L;
    }

    /**
     * Bytes a client pins, without the application's regions.
     *
     * @param limits the limits it proposes (and the server accepts)
     * @param pageSize the page size
     * @return whole pages, in bytes
     */
    static long clientBytes(Limits limits, long pageSize) {
        return pages(slotBytes(limits) * (limits.maxInFlight() + 1L), pageSize)
                + pages(HEADER_BYTES * limits.maxInFlight(), pageSize);
    }

    /**
     * Bytes one server connection pins of its own, for a client that offers payload read (every
     * ofl client does): receive slots for payloads up to the inline limit, and its completion
     * headers. Without the offer its slots hold whole requests ({@link #slotBytes}).
     *
     * @param limits the connection's negotiated limits
     * @param pageSize the page size
     * @return whole pages, in bytes
     */
    static long serverConnectionBytes(Limits limits, long pageSize) {
        boolean readsPayloads = limits.maxRequestBytes() > INLINE_REQUEST_BYTES
                && extentBytes(MessageHeader.requestLength(limits.maxRequestBytes(), limits.maxRanges()))
                        + extentBytes(limits.maxResponseBytes()) <= stagingBytes(limits);
        int inline = readsPayloads ? INLINE_REQUEST_BYTES : limits.maxRequestBytes();
        long slot = (Math.max(MessageHeader.requestLength(inline, limits.maxRanges()),
                PayloadRead.announcementLength(limits.maxRanges())) + 63) & ~63L;
        return pages(slot * limits.maxInFlight(), pageSize) + pages(HEADER_BYTES * SERVER_HEADERS, pageSize);
    }

    /**
     * Bytes of the server's staging pool, registered once for all its connections: the default
     * budget for a server whose limits allow {@code limits}' responses.
     *
     * @param limits the largest response a client asks for
     * @return the budget
     */
    static long stagingBytes(Limits limits) {
        return Math.max(ServerConfig.DEFAULT_STAGING_BUDGET_BYTES, extentBytes(limits.maxResponseBytes()));
    }

    private static long extentBytes(long bytes) {
        return (bytes + 4095) / 4096 * 4096;
    }

    private static long pages(long bytes, long pageSize) {
        return (bytes + pageSize - 1) / pageSize * pageSize;
    }

    /**
     * Compares the estimate with a limit.
     *
     * @param limit the locked-memory limit
     * @param lockCapable whether the process holds {@code CAP_IPC_LOCK}
     * @param limits the limits a client proposes
     * @param connections how many such connections one server holds
     * @param pageSize the page size
     * @return the report section
     */
    static Memlock of(MemlockLimit limit, boolean lockCapable, Limits limits, int connections, long pageSize) {
        long client = clientBytes(limits, pageSize);
        long connection = serverConnectionBytes(limits, pageSize);
        long staging = pages(stagingBytes(limits), pageSize);
        long server = staging + connection * connections;
        String verdict;
        if (lockCapable) {
            verdict = "this process holds CAP_IPC_LOCK, which lifts the limit; a service without it (most non-root "
                    + "users and systemd units) is held to its own limit";
        } else if (limit.isUnlimited()) {
            verdict = "unlimited: every registration fits";
        } else {
            StringBuilder text = new StringBuilder();
            text.append(fits("a client", client, limit)).append("; ")
                    .append(fits(connections == 1 ? "a server with 1 connection"
                            : "a server with " + connections + " connections", server, limit));
            if (client > limit.softBytes() || server > limit.softBytes()) {
                text.append(". Fix: ").append(MemlockLimit.FIX);
            }
            verdict = text.toString();
        }
        return new Memlock(MemlockLimit.describe(limit.softBytes()), MemlockLimit.describe(limit.hardBytes()),
                limit.isUnlimited() ? null : limit.softBytes(),
                limit.hardBytes() == MemlockLimit.UNLIMITED ? null : limit.hardBytes(), lockCapable, pageSize,
                limits.maxRequestBytes(), limits.maxResponseBytes(), limits.maxRanges(), limits.maxInFlight(),
                connections, client, connection, staging, server, verdict);
    }

    private static String fits(String who, long bytes, MemlockLimit limit) {
        return bytes <= limit.softBytes()
                ? who + " fits (" + MemlockLimit.describe(bytes) + ")"
                : who + " needs " + MemlockLimit.describe(bytes) + ", above the soft limit by "
                        + MemlockLimit.describe(bytes - limit.softBytes());
    }
}
