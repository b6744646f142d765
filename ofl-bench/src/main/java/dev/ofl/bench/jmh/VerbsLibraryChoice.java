package dev.ofl.bench.jmh;

import dev.ofl.verbs.RdmaAvailability;
import dev.ofl.verbs.VerbsLibrary;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Chooses the verbs library of an RDMA benchmark's forked JVM before the RDMA backend loads it.
 *
 * <p>JMH starts each fork with the launching JVM's options, so {@code -Dofl.verbs.library=...}
 * given to {@code java ... org.openjdk.jmh.Main} (or {@code OFL_VERBS_LIBRARY} in the environment)
 * reaches the fork and wins. When neither is set, the system's {@code libibverbs.so.1} is used if it
 * loads and lists a device (a real NIC); otherwise the softverbs build of this repository, if it is
 * found at {@code ofl-softverbs/target/lib/libibverbs.so.1} below the working directory or one of
 * its parents. The choice is printed, so a result never hides what it ran on.
 */
final class VerbsLibraryChoice {
    private static final Path SOFTVERBS = Path.of("ofl-softverbs", "target", "lib", "libibverbs.so.1");

    private VerbsLibraryChoice() {
    }

    /**
     * Sets {@value VerbsLibrary#LIBRARY_PROPERTY} to the softverbs build when nothing chose a
     * library and the system has no usable one, and reports the choice on standard output (JMH shows a fork's output).
     *
     * @return the library the backend will load
     */
    static String configure() {
        String configured = VerbsLibrary.configuredLibrary();
        boolean unset = System.getProperty(VerbsLibrary.LIBRARY_PROPERTY) == null
                && System.getenv(VerbsLibrary.LIBRARY_ENVIRONMENT) == null;
        if (unset && !RdmaAvailability.probe(VerbsLibrary.DEFAULT_LIBRARY).isAvailable()) {
            for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
                Path candidate = dir.resolve(SOFTVERBS);
                if (Files.isRegularFile(candidate)) {
                    configured = candidate.toString();
                    System.setProperty(VerbsLibrary.LIBRARY_PROPERTY, configured);
                    break;
                }
            }
        }
        boolean found = unset && !VerbsLibrary.DEFAULT_LIBRARY.equals(configured);
        System.out.println("# verbs library: " + configured
                + (found ? " (no usable system libibverbs; softverbs found from the working directory)" : ""));
        return configured;
    }
}
