package dev.ofl.api.spi;

import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;

/**
 * Places counted per source and in total, taken only below both limits: the pending handshakes
 * and the accepted connections of a server. A source is an IPv4 address, or an IPv6 address's
 * /64 prefix: one host is normally given a whole /64 and can pick any address in it, so capping
 * single IPv6 addresses would cap nothing. Thread-safe.
 */
final class SourceCounts {
    /** {@link #tryAcquire} took a place. */
    static final int TAKEN = 0;
    /** {@link #tryAcquire} found the source's places all taken. */
    static final int SOURCE_FULL = 1;
    /** {@link #tryAcquire} found every place taken. */
    static final int ALL_FULL = 2;
    /** Bytes of an IPv6 address that name its source: the /64 prefix. */
    private static final int IPV6_PREFIX_BYTES = 8;

    private final Map<InetAddress, Integer> bySource = new HashMap<>();
    private int total;

    /**
     * The source an address counts under: the address itself for IPv4, its /64 prefix (the rest
     * zeroed, scope dropped) for IPv6.
     *
     * @param address a peer's address
     * @return the key its places count under
     */
    static InetAddress group(InetAddress address) {
        if (!(address instanceof Inet6Address)) {
            return address;
        }
        byte[] prefix = Arrays.copyOf(address.getAddress(), 16);
        Arrays.fill(prefix, IPV6_PREFIX_BYTES, prefix.length, (byte) 0);
        try {
            return InetAddress.getByAddress(prefix);
        } catch (UnknownHostException e) {
            throw new AssertionError("16 bytes are an IPv6 address", e);
        }
    }

    /**
     * Names a source for people: the IPv4 address, or the IPv6 /64 it falls in.
     *
     * @param address a peer's address
     * @return for example {@code 10.0.0.2} or {@code 2001:db8:0:1::/64}
     */
    static String describe(InetAddress address) {
        InetAddress source = group(address);
        return source instanceof Inet6Address ? compressed(source) + "/64" : source.getHostAddress();
    }

    /** The prefix with its zero groups folded, as people write it. */
    private static String compressed(InetAddress prefix) {
        byte[] b = prefix.getAddress();
        StringBuilder text = new StringBuilder();
        for (int i = 0; i < IPV6_PREFIX_BYTES; i += 2) {
            text.append(Integer.toHexString(((b[i] & 0xff) << 8) | (b[i + 1] & 0xff))).append(':');
        }
        // Four groups then "::" (the zeroed rest); a prefix ending in zero groups folds them in too.
        String groups = text.toString();
        while (groups.endsWith(":0:")) {
            groups = groups.substring(0, groups.length() - 2);
        }
        return groups.equals("0:") ? "::" : groups + ":";
    }

    /**
     * Takes a place for a source if it has fewer than {@code perSource} and all fewer than {@code all}.
     *
     * @return {@link #TAKEN}, {@link #SOURCE_FULL} or {@link #ALL_FULL}
     */
    synchronized int tryAcquire(InetAddress address, int perSource, int all) {
        InetAddress source = group(address);
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
     * Takes a place whatever the limits: for a newcomer that another holder is giving way to, so
     * that no third party can take the place between the holder's leaving and the newcomer's
     * taking it. The counts exceed the limits until the holder gives its place back.
     *
     * @param address the newcomer's address
     */
    synchronized void forceAcquire(InetAddress address) {
        bySource.merge(group(address), 1, Integer::sum);
        total++;
    }

    /** Gives back a place {@link #tryAcquire} or {@link #forceAcquire} took for the source. */
    synchronized void release(InetAddress address) {
        InetAddress source = group(address);
        Integer count = bySource.get(source);
        if (count == null) {
            throw new IllegalStateException("no place taken for " + address);
        }
        if (count == 1) {
            bySource.remove(source);
        } else {
            bySource.put(source, count - 1);
        }
        total--;
    }

    /**
     * Takes a place whatever the total but within the source's cap: for a newcomer that another
     * source's holder is giving way to.
     *
     * @param address the newcomer's address
     * @param perSource the most places one source may hold
     * @return {@code false} if the source is at its cap (nothing was taken)
     */
    synchronized boolean forceAcquireWithin(InetAddress address, int perSource) {
        InetAddress source = group(address);
        int count = bySource.getOrDefault(source, 0);
        if (count >= perSource) {
            return false;
        }
        bySource.put(source, count + 1);
        total++;
        return true;
    }

    /**
     * Places held by an address's source.
     *
     * @param address any address of the source
     * @return the count
     */
    synchronized int count(InetAddress address) {
        return bySource.getOrDefault(group(address), 0);
    }

    synchronized int total() {
        return total;
    }
}
