package dev.ofl.verbs.rdma;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * What the RDMA tests take from system properties so that they can run somewhere slower or more
 * real than softverbs on the build host, such as the kernel's soft-RoCE in an emulated guest
 * ({@code ./ofl test-rxe}). Unset, every value is what the tests always used.
 *
 * <ul>
 * <li>{@value #TIME_SCALE}: a factor of at least 1 applied to every wait that should end promptly
 * (latches, child-process output, deadlines, connect and bootstrap bounds); default 1</li>
 * <li>{@value #ADDRESS}: the IPv4 address servers bind and clients use; default 127.0.0.1</li>
 * <li>{@value #RDMA_PREFIX}{@code NAME}: the backend property {@code rdma.NAME} for every client
 * and server, for example {@code -Dofl.test.rdma.retryCount=6}</li>
 * </ul>
 */
final class TestEnvironment {
    static final String TIME_SCALE = "ofl.test.timeScale";
    static final String ADDRESS = "ofl.test.address";
    static final String RDMA_PREFIX = "ofl.test.rdma.";

    private TestEnvironment() {
    }

    /**
     * This process's open file descriptors (entries of {@code /proc/self/fd}); Linux only, as is
     * RDMA here. Other threads open files too: compare a growth with a number of cycles.
     */
    static long openFiles() {
        try (Stream<Path> fds = Files.list(Path.of("/proc/self/fd"))) {
            return fds.count();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The factor on every wait; at least 1. */
    static double timeScale() {
        String value = System.getProperty(TIME_SCALE, "1");
        double scale;
        try {
            scale = Double.parseDouble(value.strip());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(TIME_SCALE + " = '" + value + "' is not a number", e);
        }
        if (!(scale >= 1)) {
            throw new IllegalArgumentException(TIME_SCALE + " = " + value + " must be at least 1");
        }
        return scale;
    }

    /** {@code seconds} times the scale, in seconds (rounded up). */
    static long seconds(long seconds) {
        return (long) Math.ceil(seconds * timeScale());
    }

    /** {@code seconds} times the scale, in nanoseconds. */
    static long nanos(long seconds) {
        return TimeUnit.SECONDS.toNanos(seconds(seconds));
    }

    /** {@code seconds} times the scale. */
    static Duration duration(long seconds) {
        return Duration.ofSeconds(seconds(seconds));
    }

    /** The address servers bind and clients use. */
    static InetAddress address() {
        String value = System.getProperty(ADDRESS, "127.0.0.1");
        try {
            return InetAddress.getByName(value);
        } catch (UnknownHostException e) {
            throw new IllegalArgumentException(ADDRESS + " = '" + value + "' is not an address", e);
        }
    }

    /** The backend properties given as {@value #RDMA_PREFIX}{@code NAME} system properties. */
    static Map<String, String> rdmaProperties() {
        Map<String, String> properties = new TreeMap<>();
        for (String name : System.getProperties().stringPropertyNames()) {
            if (name.startsWith(RDMA_PREFIX)) {
                properties.put("rdma." + name.substring(RDMA_PREFIX.length()), System.getProperty(name));
            }
        }
        return properties;
    }

    /** The {@code -D} options that hand this environment to a child JVM. */
    static List<String> jvmOptions() {
        List<String> options = new ArrayList<>();
        for (String name : new TreeSet<>(System.getProperties().stringPropertyNames())) {
            if (name.startsWith("ofl.test.")) {
                options.add("-D" + name + "=" + System.getProperty(name));
            }
        }
        return options;
    }
}
