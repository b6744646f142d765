package dev.ofl.softverbs;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Locale;

/**
 * softverbs, the user-space libibverbs stand-in, as a dependency: this jar carries the library for
 * Linux on x86-64 and aarch64, and {@link #use()} makes the ofl RDMA backend load it, so that a
 * build without an RDMA NIC (a laptop, a CI runner) runs its {@code "rdma"} tests for real, over
 * an emulated RoCE v2 device on 127.0.0.1, without cloning or compiling anything.
 *
 * <pre>{@code
 * @BeforeAll
 * static void softverbs() {
 *     Softverbs.use();   // before the first RDMA client or server of the process
 * }
 * }</pre>
 *
 * <p>For another process (a server started by a script), {@link #main} copies the library into a
 * directory and prints the path to pass as {@code -Dofl.verbs.library}.
 *
 * <p>softverbs behaves as RC hardware does (ordering, retry exhaustion, RNR, access errors, a queue
 * pair in ERR flushing its work), but it is an emulation: its latency and bandwidth say nothing of
 * a NIC's. Use it for correctness, never for figures. The library is extracted once per process
 * into a directory only this user can read, removed when the JVM exits.
 */
public final class Softverbs {
    /** The system property the ofl RDMA backend reads for the libibverbs to load. */
    public static final String LIBRARY_PROPERTY = "ofl.verbs.library";
    /** The environment variable the RDMA backend reads when the property is not set. */
    public static final String LIBRARY_ENVIRONMENT = "OFL_VERBS_LIBRARY";

    private static Path extracted;

    private Softverbs() {
    }

    /**
     * The platform directory in this jar for the running JVM, such as {@code linux-x86_64}.
     *
     * @return the directory name
     * @throws UnsupportedOperationException off Linux, or on an architecture softverbs is not built for
     */
    static String platform() {
        String os = System.getProperty("os.name", "").toLowerCase(Locale.ROOT);
        if (!os.startsWith("linux")) {
            throw new UnsupportedOperationException("softverbs runs on Linux only; this JVM runs on "
                    + System.getProperty("os.name"));
        }
        String arch = System.getProperty("os.arch", "");
        return switch (arch) {
            case "amd64", "x86_64" -> "linux-x86_64";
            case "aarch64", "arm64" -> "linux-aarch64";
            default -> throw new UnsupportedOperationException("softverbs is built for x86-64 and aarch64; this JVM "
                    + "runs on " + arch);
        };
    }

    /**
     * Extracts the library for this JVM's platform, once per process, and returns its path.
     *
     * @return the extracted {@code libibverbs.so.1}
     * @throws UnsupportedOperationException off Linux, on another architecture, or when this jar
     *     was built without that architecture's library (the message says how to get it)
     * @throws UncheckedIOException if the library cannot be written to the temporary directory
     */
    public static synchronized Path library() {
        if (extracted != null && Files.isRegularFile(extracted)) {
            return extracted;
        }
        String platform = platform();
        String resource = platform + "/libibverbs.so.1";
        try (InputStream in = Softverbs.class.getResourceAsStream(resource)) {
            if (in == null) {
                throw new UnsupportedOperationException("this ofl-softverbs jar carries no " + platform + " library: "
                        + "it was built on a machine without that architecture's compiler (for aarch64, "
                        + "gcc-aarch64-linux-gnu); use a jar built by ./ofl build, which installs it");
            }
            Path dir = Files.createTempDirectory("ofl-softverbs-",
                    PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
            dir.toFile().deleteOnExit();
            Path file = dir.resolve("libibverbs.so.1");
            // Registered after the directory, so deleted before it at exit.
            file.toFile().deleteOnExit();
            Files.copy(in, file, StandardCopyOption.REPLACE_EXISTING);
            Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("r-x------"));
            extracted = file;
            return file;
        } catch (IOException e) {
            throw new UncheckedIOException("extracting softverbs' " + resource + " failed: " + e.getMessage(), e);
        }
    }

    /**
     * Makes the ofl RDMA backend of this process use softverbs: extracts the library and sets
     * {@value #LIBRARY_PROPERTY}. Call it before the first RDMA client or server of the process
     * (the backend loads libibverbs once). Calling it again is harmless.
     *
     * @return the library's path
     * @throws IllegalStateException if {@value #LIBRARY_PROPERTY} already names another library, or
     *     it is unset and {@value #LIBRARY_ENVIRONMENT} names one: softverbs never silently replaces a
     *     library chosen elsewhere
     * @throws UnsupportedOperationException as {@link #library()}
     * @throws UncheckedIOException as {@link #library()}
     */
    public static synchronized Path use() {
        Path library = library();
        String chosen = System.getProperty(LIBRARY_PROPERTY);
        if (chosen != null && !chosen.isBlank() && !Path.of(chosen).equals(library)) {
            throw new IllegalStateException(LIBRARY_PROPERTY + " already names " + chosen + "; softverbs does not "
                    + "replace it (clear the property to use softverbs, or leave softverbs out)");
        }
        String environment = System.getenv(LIBRARY_ENVIRONMENT);
        if ((chosen == null || chosen.isBlank()) && environment != null && !environment.isBlank()) {
            throw new IllegalStateException(LIBRARY_ENVIRONMENT + " names " + environment + "; softverbs does not "
                    + "replace it (unset it to use softverbs, or leave softverbs out)");
        }
        System.setProperty(LIBRARY_PROPERTY, library.toString());
        return library;
    }

    /**
     * Copies the library for this JVM's platform into a directory, for a process that is not this
     * one: {@code java -cp ofl-softverbs.jar dev.ofl.softverbs.Softverbs target/softverbs} prints
     * the path to pass as {@code -Dofl.verbs.library} or {@code OFL_VERBS_LIBRARY}.
     *
     * @param args one argument: the directory to write {@code libibverbs.so.1} into (made if missing)
     * @throws IOException if the directory or the file cannot be written
     */
    public static void main(String[] args) throws IOException {
        if (args.length != 1) {
            System.err.println("usage: java -cp ofl-softverbs.jar dev.ofl.softverbs.Softverbs DIRECTORY");
            System.exit(2);
        }
        Path dir = Files.createDirectories(Path.of(args[0]));
        Path file = dir.resolve("libibverbs.so.1");
        Files.copy(library(), file, StandardCopyOption.REPLACE_EXISTING);
        System.out.println(file.toAbsolutePath());
    }
}
