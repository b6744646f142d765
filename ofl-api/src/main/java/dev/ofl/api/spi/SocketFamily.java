package dev.ofl.api.spi;

import java.io.IOException;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.StandardProtocolFamily;
import java.nio.channels.DatagramChannel;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;

/**
 * Opens sockets of the addresses' own family. The JDK opens dual-stack IPv6 sockets where it can,
 * and an IPv4 connection then runs through the kernel's IPv6 socket code with {@code ::ffff:a.b.c.d}
 * addresses on every call; an IPv4 socket takes the shorter path a C peer takes. IPv6 addresses keep
 * the JDK's default.
 */
final class SocketFamily {
    private SocketFamily() {
    }

    /**
     * A socket for connecting to {@code remote}, from {@code local} if that is not {@code null}.
     * Addresses of two families get the JDK's default socket, whose bind or connect then fails
     * with the JDK's own message.
     */
    static SocketChannel connecting(InetAddress remote, InetAddress local) throws IOException {
        return ipv4(remote) && (local == null || ipv4(local))
                ? SocketChannel.open(StandardProtocolFamily.INET)
                : SocketChannel.open();
    }

    /** A datagram socket of {@code remote}'s family, for finding the route's source address. */
    static DatagramChannel datagram(InetAddress remote) throws IOException {
        return ipv4(remote) ? DatagramChannel.open(StandardProtocolFamily.INET) : DatagramChannel.open();
    }

    /** A listening socket for {@code bind}, an explicit (not wildcard) address. */
    static ServerSocketChannel listening(InetAddress bind) throws IOException {
        return ipv4(bind) ? ServerSocketChannel.open(StandardProtocolFamily.INET) : ServerSocketChannel.open();
    }

    private static boolean ipv4(InetAddress address) {
        return address instanceof Inet4Address;
    }
}
