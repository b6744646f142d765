package dev.ofl.verbs;

import dev.ofl.verbs.ffm.NativeArch;
import dev.ofl.verbs.ffm.VerbsFunction;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * One loaded libibverbs (the real one or a stand-in such as softverbs) and the addresses of the
 * functions the binding calls.
 *
 * <p>The process normally uses one: {@link #processWide()}, loaded once from
 * {@link #configuredLibrary()}. {@link #load(String)} loads another, for tests and tools. The
 * library stays loaded until the JVM exits. The downcall handles themselves live in
 * {@link dev.ofl.verbs.ffm.Verbs} and take an address from here as their first argument.
 * Immutable and thread-safe.
 */
public final class VerbsLibrary {
    /** The library loaded when nothing else is configured. */
    public static final String DEFAULT_LIBRARY = "libibverbs.so.1";
    /** System property naming another library (a file name or path). */
    public static final String LIBRARY_PROPERTY = "ofl.verbs.library";
    /** Environment variable naming another library, used when the property is unset. */
    public static final String LIBRARY_ENVIRONMENT = "OFL_VERBS_LIBRARY";

    /**
     * How a fix text names the setting that picks another library, for a JVM the application starts.
     * Every fix that names the setting uses this exact text, so that a tool with its own option for
     * it (the probe's {@code --library}) can say that instead.
     */
    public static final String LIBRARY_SETTING = "-D" + LIBRARY_PROPERTY + "=<path> (or " + LIBRARY_ENVIRONMENT
            + "=<path>)";

    /** The fix for a missing library, shared with the probe CLI. */
    static final String INSTALL_FIX = "install libibverbs (Debian/Ubuntu: apt-get install libibverbs1 rdma-core; "
            + "RHEL/Fedora: dnf install libibverbs rdma-core), or point " + LIBRARY_SETTING
            + " at another libibverbs.so.1, such as softverbs' ofl-softverbs/target/lib/libibverbs.so.1";

    private final String library;
    private final Map<VerbsFunction, MemorySegment> addresses;

    private VerbsLibrary(String library, Map<VerbsFunction, MemorySegment> addresses) {
        this.library = library;
        this.addresses = addresses;
    }

    /**
     * Returns the library the process uses: the {@value #LIBRARY_PROPERTY} system property, else the
     * {@value #LIBRARY_ENVIRONMENT} environment variable, else {@value #DEFAULT_LIBRARY}.
     *
     * @return a file name (searched like {@code dlopen} does) or a path
     */
    public static String configuredLibrary() {
        String property = System.getProperty(LIBRARY_PROPERTY);
        if (property != null && !property.isBlank()) {
            return property.strip();
        }
        String environment = System.getenv(LIBRARY_ENVIRONMENT);
        if (environment != null && !environment.isBlank()) {
            return environment.strip();
        }
        return DEFAULT_LIBRARY;
    }

    /**
     * Returns the process-wide library, loading {@link #configuredLibrary()} on first use. The
     * outcome, success or failure, is decided once.
     *
     * @return the library
     * @throws RdmaUnavailableException if it cannot be loaded (the same instance on every call)
     */
    public static VerbsLibrary processWide() {
        if (ProcessWide.FAILURE != null) {
            throw ProcessWide.FAILURE;
        }
        return ProcessWide.LIBRARY;
    }

    /**
     * Loads a library and resolves every function of {@link VerbsFunction}.
     *
     * @param library a file name searched like {@code dlopen} does, or a path (contains {@code /})
     * @return the loaded library
     * @throws RdmaUnavailableException if the JVM runs on an architecture whose struct layouts the
     *     binding does not know, native access is not enabled for this module, the library cannot be
     *     loaded, or it lacks a required function
     */
    @SuppressWarnings("restricted")
    public static VerbsLibrary load(String library) {
        RdmaUnavailableException unsupported = unsupportedArchitecture(NativeArch.osArch(), library);
        if (unsupported != null) {
            throw unsupported;
        }
        Module module = VerbsLibrary.class.getModule();
        if (!module.isNativeAccessEnabled()) {
            throw nativeAccessDisabled(library, null);
        }
        SymbolLookup lookup;
        try {
            lookup = library.indexOf('/') >= 0
                    ? SymbolLookup.libraryLookup(Path.of(library), Arena.global())
                    : SymbolLookup.libraryLookup(library, Arena.global());
        } catch (IllegalCallerException e) {
            throw nativeAccessDisabled(library, e);
        } catch (IllegalArgumentException e) {
            throw new RdmaUnavailableException(RdmaUnavailableException.Reason.LIBRARY_MISSING, null, VerbsException.NO_CODE,
                    "cannot load the verbs library " + library + " (" + e.getMessage() + ")", INSTALL_FIX, e);
        }
        Map<VerbsFunction, MemorySegment> addresses = new EnumMap<>(VerbsFunction.class);
        List<String> missing = new ArrayList<>();
        for (VerbsFunction function : VerbsFunction.values()) {
            Optional<MemorySegment> address = lookup.find(function.symbol());
            if (address.isPresent()) {
                addresses.put(function, address.get());
            } else if (function.required()) {
                missing.add(function.symbol());
            }
        }
        if (!missing.isEmpty()) {
            throw new RdmaUnavailableException(RdmaUnavailableException.Reason.LIBRARY_INCOMPATIBLE, null,
                    VerbsException.NO_CODE, "the verbs library " + library + " does not export " + missing,
                    "point " + LIBRARY_SETTING + " at libibverbs.so.1 from rdma-core 32 or newer "
                            + "(or softverbs), not at another library", null);
        }
        return new VerbsLibrary(library, Map.copyOf(addresses));
    }

    /**
     * Refuses an architecture without known layouts before any struct class is loaded, whose
     * initialisation would otherwise fail with an {@link ExceptionInInitializerError}.
     *
     * @return the cause, or {@code null} when the binding knows {@code osArch}
     */
    static RdmaUnavailableException unsupportedArchitecture(String osArch, String library) {
        if (NativeArch.fromOsArch(osArch).isPresent()) {
            return null;
        }
        return new RdmaUnavailableException(RdmaUnavailableException.Reason.UNSUPPORTED_ARCHITECTURE, null,
                VerbsException.NO_CODE, NativeArch.unsupportedMessage(osArch) + ", so " + library + " is not loaded",
                "run the RDMA backend on x86-64 or aarch64 Linux, or use the TCP backend on this machine", null);
    }

    private static RdmaUnavailableException nativeAccessDisabled(String library, Throwable cause) {
        return new RdmaUnavailableException(RdmaUnavailableException.Reason.NATIVE_ACCESS_DISABLED, null,
                VerbsException.NO_CODE, "native access is not enabled for " + describe(VerbsLibrary.class.getModule())
                        + ", so " + library + " cannot be called",
                "start the JVM with --enable-native-access=dev.ofl.verbs (module path) or "
                        + "--enable-native-access=ALL-UNNAMED (class path), or add "
                        + "'Enable-Native-Access: ALL-UNNAMED' to an executable jar's manifest",
                cause);
    }

    private static String describe(Module module) {
        return module.isNamed() ? "module " + module.getName() : "the unnamed module (class path)";
    }

    /**
     * Returns what was loaded.
     *
     * @return the file name or path given to {@link #load(String)}
     */
    public String library() {
        return library;
    }

    /**
     * Tells whether the library exports a function; only optional ones can be missing.
     *
     * @param function the function
     * @return true if its address is known
     */
    boolean exports(VerbsFunction function) {
        return addresses.containsKey(function);
    }

    /**
     * Returns the address of an exported function, for the first argument of its handle.
     *
     * @param function the function
     * @return its address
     * @throws VerbsException if the library does not export it (optional functions only)
     */
    MemorySegment address(VerbsFunction function) {
        MemorySegment address = addresses.get(function);
        if (address == null) {
            throw new VerbsException(function.symbol(), VerbsException.NO_CODE, VerbsException.NO_CODE,
                    "not exported by " + library, "use libibverbs from rdma-core 32 or newer", null);
        }
        return address;
    }

    @Override
    public String toString() {
        return "VerbsLibrary[" + library + "]";
    }

    private static final class ProcessWide {
        static final VerbsLibrary LIBRARY;
        static final RdmaUnavailableException FAILURE;

        static {
            VerbsLibrary library = null;
            RdmaUnavailableException failure = null;
            try {
                library = load(configuredLibrary());
            } catch (RdmaUnavailableException e) {
                failure = e;
            }
            LIBRARY = library;
            FAILURE = failure;
        }
    }
}
