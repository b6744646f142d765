package dev.ofl.verbs;

import dev.ofl.verbs.ffm.ibv_gid;

import java.lang.foreign.MemorySegment;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.ByteBuffer;
import java.util.Optional;

/**
 * A 128-bit GID ({@code union ibv_gid}) as its two big-endian halves: {@code subnetPrefix} is bytes
 * 0-7 and {@code interfaceId} bytes 8-15, both read as network-order numbers. A RoCE v2 GID for
 * IPv4 address {@code a.b.c.d} is the IPv4-mapped IPv6 address {@code ::ffff:a.b.c.d}: prefix 0,
 * interface id {@code 0x0000ffff_aabbccdd}. Immutable.
 *
 * @param subnetPrefix bytes 0-7 as a big-endian number
 * @param interfaceId bytes 8-15 as a big-endian number
 */
public record Gid(long subnetPrefix, long interfaceId) {
    /** The all-zero GID of an empty table slot. */
    public static final Gid ZERO = new Gid(0, 0);

    private static final long IPV4_MAPPED_MARK = 0x0000_ffff_0000_0000L;

    /**
     * Returns the RoCE v2 GID of an IPv4 address, {@code ::ffff:a.b.c.d}.
     *
     * @param address the address
     * @return its IPv4-mapped GID
     */
    public static Gid ipv4Mapped(Inet4Address address) {
        byte[] bytes = address.getAddress();
        long ipv4 = ((bytes[0] & 0xffL) << 24) | ((bytes[1] & 0xffL) << 16) | ((bytes[2] & 0xffL) << 8) | (bytes[3] & 0xffL);
        return new Gid(0, IPV4_MAPPED_MARK | ipv4);
    }

    /**
     * Reads a GID from native memory.
     *
     * @param gid a segment holding a {@code union ibv_gid}
     * @return the GID
     */
    public static Gid read(MemorySegment gid) {
        return new Gid(ibv_gid.global_subnet_prefix(gid), ibv_gid.global_interface_id(gid));
    }

    /**
     * Writes this GID to native memory, in network order.
     *
     * @param gid a segment holding a {@code union ibv_gid}
     */
    public void write(MemorySegment gid) {
        ibv_gid.global_subnet_prefix(gid, subnetPrefix);
        ibv_gid.global_interface_id(gid, interfaceId);
    }

    /**
     * Builds a GID from its 16 wire bytes.
     *
     * @param bytes 16 bytes in network order
     * @return the GID
     * @throws IllegalArgumentException if {@code bytes} is not 16 long
     */
    public static Gid fromBytes(byte[] bytes) {
        if (bytes.length != 16) {
            throw new IllegalArgumentException("a GID is 16 bytes, got " + bytes.length);
        }
        ByteBuffer buffer = ByteBuffer.wrap(bytes);
        return new Gid(buffer.getLong(0), buffer.getLong(8));
    }

    /**
     * Returns the 16 wire bytes.
     *
     * @return a new array in network order
     */
    public byte[] toBytes() {
        return ByteBuffer.allocate(16).putLong(subnetPrefix).putLong(interfaceId).array();
    }

    /**
     * Tells whether this is the all-zero GID of an empty slot.
     *
     * @return true if all 16 bytes are zero
     */
    public boolean isZero() {
        return subnetPrefix == 0 && interfaceId == 0;
    }

    /**
     * Returns the IPv4 address of an IPv4-mapped GID.
     *
     * @return the address, or empty when this GID is not {@code ::ffff:a.b.c.d}
     */
    public Optional<Inet4Address> ipv4() {
        if (subnetPrefix != 0 || (interfaceId & 0xffff_ffff_0000_0000L) != IPV4_MAPPED_MARK) {
            return Optional.empty();
        }
        byte[] bytes = {(byte) (interfaceId >>> 24), (byte) (interfaceId >>> 16), (byte) (interfaceId >>> 8),
            (byte) interfaceId};
        try {
            return Optional.of((Inet4Address) InetAddress.getByAddress(bytes));
        } catch (UnknownHostException e) {
            throw new IllegalStateException("four bytes are always an IPv4 address", e);
        }
    }

    /**
     * Formats the GID as {@code ibv_devinfo} does: IPv6 text, with the IPv4-mapped form
     * {@code ::ffff:a.b.c.d} and the longest run of zero groups shortened to {@code ::}.
     *
     * @return the text
     */
    @Override
    public String toString() {
        Optional<Inet4Address> ipv4 = ipv4();
        if (ipv4.isPresent()) {
            return "::ffff:" + ipv4.get().getHostAddress();
        }
        int[] groups = new int[8];
        for (int i = 0; i < 4; i++) {
            groups[i] = (int) (subnetPrefix >>> (48 - 16 * i)) & 0xffff;
            groups[i + 4] = (int) (interfaceId >>> (48 - 16 * i)) & 0xffff;
        }
        int bestStart = -1;
        int bestLength = 1;
        for (int i = 0; i < 8; ) {
            int j = i;
            while (j < 8 && groups[j] == 0) {
                j++;
            }
            if (j - i > bestLength) {
                bestStart = i;
                bestLength = j - i;
            }
            i = j == i ? i + 1 : j;
        }
        StringBuilder text = new StringBuilder();
        for (int i = 0; i < 8; i++) {
            if (i == bestStart) {
                text.append("::");
                i += bestLength - 1;
                continue;
            }
            if (!text.isEmpty() && text.charAt(text.length() - 1) != ':') {
                text.append(':');
            }
            text.append(Integer.toHexString(groups[i]));
        }
        return text.toString();
    }
}
