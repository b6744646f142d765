package dev.ofl.conformance;

import dev.ofl.api.ClientConfig;
import dev.ofl.api.IdleStrategy;
import dev.ofl.api.ServerConfig;
import dev.ofl.api.WaitMode;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The backend the conformance suite runs against, and what the suite needs to know about it: its
 * name, the properties its clients and servers take, the address they use and what it documents
 * about IPv6. Everything else the suite reaches through {@link dev.ofl.api.Ofl} by name.
 *
 * <p>Immutable and thread-safe; the {@code with...} methods return changed copies.
 *
 * @param backend the name {@link ClientConfig#backend()} and {@link ServerConfig#backend()} carry
 * @param clientProperties passed to every client, for example which device an RDMA client uses
 * @param serverProperties passed to every server
 * @param bindAddress the explicit address servers bind and clients connect from
 * @param waitModes the wait modes the echo behaviour covers, for both the client and the server
 * @param idleStrategy what busy-polling clients and servers do between empty polls
 * @param servesIpv6 {@code true} if the backend serves an IPv6 loopback bind; {@code false} if it
 *     documents refusing IPv6 with an {@link dev.ofl.api.OflException} that names IPv4
 */
public record TransportUnderTest(String backend, Map<String, String> clientProperties,
        Map<String, String> serverProperties, InetAddress bindAddress, List<WaitMode> waitModes,
        IdleStrategy idleStrategy, boolean servesIpv6) {

    /**
     * Validates and copies the settings.
     *
     * @throws NullPointerException if a setting is missing
     * @throws IllegalArgumentException if {@code waitModes} is empty
     */
    public TransportUnderTest {
        Objects.requireNonNull(backend, "backend");
        clientProperties = Map.copyOf(clientProperties);
        serverProperties = Map.copyOf(serverProperties);
        Objects.requireNonNull(bindAddress, "bindAddress");
        waitModes = List.copyOf(waitModes);
        if (waitModes.isEmpty()) {
            throw new IllegalArgumentException("waitModes must name at least one WaitMode");
        }
        Objects.requireNonNull(idleStrategy, "idleStrategy");
    }

    /**
     * A backend with the suite's defaults: no properties, {@code 127.0.0.1}, every
     * {@link WaitMode}, {@link IdleStrategy#YIELD} (the suite runs on shared CI machines, so it gives
     * the core away) and IPv6 served.
     *
     * @param backend the backend's name, as {@link dev.ofl.api.Ofl#backends()} lists it
     * @return the description
     */
    public static TransportUnderTest named(String backend) {
        try {
            return new TransportUnderTest(backend, Map.of(), Map.of(),
                    InetAddress.getByAddress(new byte[] {127, 0, 0, 1}), List.of(WaitMode.values()),
                    IdleStrategy.YIELD, true);
        } catch (UnknownHostException e) {
            throw new AssertionError("a four-byte address is always valid", e);
        }
    }

    /**
     * The same backend with other client properties.
     *
     * @param properties passed to every client
     * @return a changed copy
     */
    public TransportUnderTest withClientProperties(Map<String, String> properties) {
        return new TransportUnderTest(backend, properties, serverProperties, bindAddress, waitModes, idleStrategy,
                servesIpv6);
    }

    /**
     * The same backend with other server properties.
     *
     * @param properties passed to every server
     * @return a changed copy
     */
    public TransportUnderTest withServerProperties(Map<String, String> properties) {
        return new TransportUnderTest(backend, clientProperties, properties, bindAddress, waitModes, idleStrategy,
                servesIpv6);
    }

    /**
     * The same backend on another explicit address.
     *
     * @param address what servers bind and clients connect from
     * @return a changed copy
     */
    public TransportUnderTest withBindAddress(InetAddress address) {
        return new TransportUnderTest(backend, clientProperties, serverProperties, address, waitModes, idleStrategy,
                servesIpv6);
    }

    /**
     * The same backend with the echo behaviour limited to some wait modes.
     *
     * @param modes at least one {@link WaitMode}
     * @return a changed copy
     */
    public TransportUnderTest withWaitModes(List<WaitMode> modes) {
        return new TransportUnderTest(backend, clientProperties, serverProperties, bindAddress, modes, idleStrategy,
                servesIpv6);
    }

    /**
     * The same backend with another idle strategy for busy polling.
     *
     * @param strategy what clients and servers do between empty polls
     * @return a changed copy
     */
    public TransportUnderTest withIdleStrategy(IdleStrategy strategy) {
        return new TransportUnderTest(backend, clientProperties, serverProperties, bindAddress, waitModes, strategy,
                servesIpv6);
    }

    /**
     * The same backend, for one that documents refusing IPv6 addresses.
     *
     * @return a changed copy whose {@link #servesIpv6()} is {@code false}
     */
    public TransportUnderTest refusingIpv6() {
        return new TransportUnderTest(backend, clientProperties, serverProperties, bindAddress, waitModes, idleStrategy,
                false);
    }
}
