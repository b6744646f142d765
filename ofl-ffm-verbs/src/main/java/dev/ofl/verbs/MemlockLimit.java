package dev.ofl.verbs;

import dev.ofl.verbs.ffm.Verbs;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The locked-memory limit ({@code RLIMIT_MEMLOCK}) that memory registration counts against, and
 * the check {@link ProtectionDomain#register(java.lang.foreign.MemorySegment, int)} makes before
 * calling {@code ibv_reg_mr}.
 *
 * <p>The kernel pins every page a registration covers and adds it to the process's pinned total;
 * a registration that would take the total above the soft limit fails with {@code ENOMEM} (or
 * {@code EPERM}), unless the process holds {@code CAP_IPC_LOCK}, which lifts the limit. That
 * failure names neither the limit nor the total, so before registering, ofl compares the soft
 * limit with what ofl itself has registered in this process ({@link #registeredBytes()}) plus the
 * new registration, rounded out to whole pages, and refuses with both numbers and the fix when it
 * would not fit. Memory pinned by other code in the process is not counted: the kernel remains the
 * final judge. Registrations on softverbs devices are counted but not checked: softverbs copies
 * through sockets and pins nothing, so the kernel applies no limit to them.
 *
 * <p>Immutable and thread-safe. Reading the limit ({@link #current()}) needs native access, as the
 * rest of this module does; the rest works without it.
 */
public final class MemlockLimit {
    /** {@code RLIM_INFINITY} as the signed value Java reads it as: no limit. */
    public static final long UNLIMITED = -1L;

    /** The fix for a locked-memory limit that is too low, in every message that names one. */
    public static final String FIX = "raise the locked-memory limit of the process: ulimit -l <KiB> (or unlimited) in "
            + "the shell that starts the JVM, LimitMEMLOCK=<bytes> (or infinity) in its systemd unit, a memlock line "
            + "in /etc/security/limits.conf, or --ulimit memlock=-1 for a container; or register less memory "
            + "(lower maxInFlight, maxRequestBytes or maxResponseBytes, or smaller regions)";

    /** {@code RLIMIT_MEMLOCK} in Linux's generic resource numbering (x86-64, AArch64, RISC-V, ...). */
    private static final int RLIMIT_MEMLOCK = 8;
    /** {@code CAP_IPC_LOCK}'s bit in the capability sets of {@code /proc/self/status}. */
    private static final int CAP_IPC_LOCK = 14;
    private static final Path PROC_STATUS = Path.of("/proc/self/status");

    /** Bytes of whole pages that registrations made through this module currently pin. */
    private static final AtomicLong REGISTERED = new AtomicLong();

    private final long softBytes;
    private final long hardBytes;

    private MemlockLimit(long softBytes, long hardBytes) {
        this.softBytes = softBytes;
        this.hardBytes = hardBytes;
    }

    /**
     * Makes a limit from known values, for computing a decision without the system's.
     *
     * @param softBytes the soft limit in bytes, or {@link #UNLIMITED}
     * @param hardBytes the hard limit in bytes, or {@link #UNLIMITED}
     * @return the limit
     * @throws IllegalArgumentException if a value is negative and not {@link #UNLIMITED}
     */
    public static MemlockLimit of(long softBytes, long hardBytes) {
        if (softBytes < UNLIMITED || hardBytes < UNLIMITED) {
            throw new IllegalArgumentException("memlock limits are bytes or UNLIMITED (-1), got soft " + softBytes
                    + ", hard " + hardBytes);
        }
        return new MemlockLimit(softBytes, hardBytes);
    }

    /**
     * Reads this process's limit with {@code getrlimit(RLIMIT_MEMLOCK)}.
     *
     * @return the soft and hard limits
     * @throws VerbsException if {@code getrlimit} fails
     * @throws IllegalCallerException if native access is not enabled for this module
     */
    public static MemlockLimit current() {
        long soft;
        long hard;
        int rc;
        int errno;
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment state = Native.captureState(arena);
            MemorySegment rlimit = arena.allocate(ValueLayout.JAVA_LONG, 2);
            try {
                rc = (int) GetRlimit.HANDLE.invokeExact(state, RLIMIT_MEMLOCK, rlimit);
            } catch (Throwable t) {
                throw Native.unchecked(t);
            }
            errno = Verbs.errno(state);
            soft = rlimit.getAtIndex(ValueLayout.JAVA_LONG, 0);
            hard = rlimit.getAtIndex(ValueLayout.JAVA_LONG, 1);
        }
        if (rc != 0) {
            throw VerbsException.errno("getrlimit", errno, "RLIMIT_MEMLOCK (" + RLIMIT_MEMLOCK + ")",
                    "this is Linux's generic resource number; ofl supports Linux on x86-64 and AArch64");
        }
        return new MemlockLimit(soft, hard);
    }

    /**
     * Returns the soft limit, the one the kernel enforces.
     *
     * @return bytes, or {@link #UNLIMITED}
     */
    public long softBytes() {
        return softBytes;
    }

    /**
     * Returns the hard limit, the most an unprivileged process may raise the soft limit to.
     *
     * @return bytes, or {@link #UNLIMITED}
     */
    public long hardBytes() {
        return hardBytes;
    }

    /**
     * Tells whether the soft limit is unlimited.
     *
     * @return true for {@code ulimit -l unlimited}
     */
    public boolean isUnlimited() {
        return softBytes == UNLIMITED;
    }

    /**
     * Returns what registrations made through this module pin now, in this process: the sum over
     * open {@link MemoryRegion}s of their length rounded out to whole pages.
     *
     * @return bytes
     */
    public static long registeredBytes() {
        return REGISTERED.get();
    }

    /**
     * Returns the system's page size, the unit the kernel pins and counts in.
     *
     * @return bytes
     */
    public static long pageSize() {
        return PageSize.BYTES;
    }

    /**
     * Returns the bytes of the whole pages a registration of {@code [address, address + length)}
     * pins.
     *
     * @param address the start address
     * @param length the length in bytes, at least 1
     * @param pageSize the page size, a power of two
     * @return the pinned bytes
     */
    public static long pinnedBytes(long address, long length, long pageSize) {
        long first = address & -pageSize;
        long end = (address + length + pageSize - 1) & -pageSize;
        return end - first;
    }

    /**
     * Tells whether the process holds {@code CAP_IPC_LOCK} in its effective set, which lifts the
     * limit for registrations (as it does for {@code mlock}).
     *
     * @return true if it does; false if it does not or {@code /proc/self/status} cannot say
     */
    public static boolean canLockWithoutLimit() {
        try {
            for (String line : Files.readAllLines(PROC_STATUS)) {
                if (line.startsWith("CapEff:")) {
                    long effective = Long.parseUnsignedLong(line.substring("CapEff:".length()).strip(), 16);
                    return (effective & (1L << CAP_IPC_LOCK)) != 0;
                }
            }
        } catch (IOException | NumberFormatException e) {
            // Without the capability set, assume none: the check then errs towards explaining.
        }
        return false;
    }

    /**
     * Decides whether a registration fits: pure arithmetic on the numbers given.
     *
     * @param limit the process's limit
     * @param lockCapable whether the process holds {@code CAP_IPC_LOCK}
     * @param registeredBytes what is pinned already (see {@link #registeredBytes()})
     * @param newBytes what the registration would pin (see {@link #pinnedBytes(long, long, long)})
     * @return empty if it fits (or no limit applies); otherwise why not, with the numbers and
     *     {@link #FIX}
     */
    public static Optional<String> refusal(MemlockLimit limit, boolean lockCapable, long registeredBytes,
            long newBytes) {
        if (limit.isUnlimited() || lockCapable) {
            return Optional.empty();
        }
        long total = registeredBytes + newBytes;
        if (total <= limit.softBytes) {
            return Optional.empty();
        }
        return Optional.of("registering " + describe(newBytes) + " (whole pages) would pin " + describe(total)
                + " in this process, " + describe(registeredBytes) + " of it already registered by ofl, above the "
                + "locked-memory limit (RLIMIT_MEMLOCK) " + limit + ". Fix: " + FIX);
    }

    /**
     * Checks the process's limit before a registration and counts the registration if it fits.
     * Called by {@link MemoryRegion} only; {@link #released(long)} undoes the count.
     *
     * @param newBytes what the registration pins
     * @param values what the registration is, for the message
     * @param enforce false for a device that pins nothing (the registration is counted, not checked)
     * @throws VerbsException if it would exceed the limit
     */
    static void reserve(long newBytes, String values, boolean enforce) {
        if (enforce) {
            reserve(newBytes, values, ProcessLimit.LIMIT, ProcessLimit.LOCK_CAPABLE);
        } else {
            REGISTERED.addAndGet(newBytes);
        }
    }

    /**
     * Checks a registration against the given limit and counts it if it fits.
     *
     * @param newBytes what the registration pins
     * @param values what the registration is, for the message
     * @param limit the limit to hold it to
     * @param lockCapable whether the process holds {@code CAP_IPC_LOCK}
     * @throws VerbsException if it would exceed the limit; nothing is counted then
     */
    static void reserve(long newBytes, String values, MemlockLimit limit, boolean lockCapable) {
        long before = REGISTERED.getAndAdd(newBytes);
        Optional<String> refusal = refusal(limit, lockCapable, before, newBytes);
        if (refusal.isPresent()) {
            REGISTERED.addAndGet(-newBytes);
            throw new VerbsException("ibv_reg_mr", VerbsException.NO_CODE, VerbsException.NO_CODE, values,
                    "not called: " + refusal.get(), null);
        }
    }

    /**
     * Uncounts a registration that failed or was deregistered.
     *
     * @param bytes what {@link #reserve(long, String)} counted for it
     */
    static void released(long bytes) {
        REGISTERED.addAndGet(-bytes);
    }

    /**
     * Explains a failed {@code ibv_reg_mr} that the limit may have caused, with the numbers.
     *
     * @param newBytes what the registration would have pinned
     * @return a sentence with the limit, the capability, what ofl had registered, and {@link #FIX}
     */
    static String explainFailure(long newBytes) {
        return "the locked-memory limit (RLIMIT_MEMLOCK) is " + ProcessLimit.LIMIT
                + (ProcessLimit.LOCK_CAPABLE ? " but CAP_IPC_LOCK lifts it, so the device or kernel ran out of memory"
                        : "") + "; ofl had " + describe(REGISTERED.get()) + " registered in this process and this "
                + "registration needs " + describe(newBytes) + ". " + FIX;
    }

    /**
     * Formats a byte count or limit for messages.
     *
     * @param bytes bytes, or {@link #UNLIMITED}
     * @return {@code "unlimited"}, or for example {@code "8388608 bytes (8 MiB)"}
     */
    public static String describe(long bytes) {
        if (bytes == UNLIMITED) {
            return "unlimited";
        }
        if (bytes >= 1 << 20 && bytes % (1 << 20) == 0) {
            return bytes + " bytes (" + (bytes >> 20) + " MiB)";
        }
        if (bytes >= 1 << 10 && bytes % (1 << 10) == 0) {
            return bytes + " bytes (" + (bytes >> 10) + " KiB)";
        }
        if (bytes >= 1 << 20) {
            return bytes + String.format(Locale.ROOT, " bytes (%.1f MiB)", bytes / (double) (1 << 20));
        }
        return bytes + " bytes";
    }

    /** Returns for example {@code "soft 8388608 bytes (8 MiB), hard unlimited"}. */
    @Override
    public String toString() {
        return "soft " + describe(softBytes) + ", hard " + describe(hardBytes);
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof MemlockLimit that && softBytes == that.softBytes && hardBytes == that.hardBytes;
    }

    @Override
    public int hashCode() {
        return Long.hashCode(softBytes) * 31 + Long.hashCode(hardBytes);
    }

    /** {@code int getrlimit(int resource, struct rlimit *rlim)}, errno captured. */
    private static final class GetRlimit {
        static final MethodHandle HANDLE = handle();

        @SuppressWarnings("restricted")
        private static MethodHandle handle() {
            Linker linker = Linker.nativeLinker();
            return linker.downcallHandle(linker.defaultLookup().find("getrlimit").orElseThrow(),
                    FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.ADDRESS),
                    Linker.Option.captureCallState("errno"));
        }
    }

    /** {@code int getpagesize(void)}. */
    private static final class PageSize {
        static final long BYTES = read();

        @SuppressWarnings("restricted")
        private static long read() {
            Linker linker = Linker.nativeLinker();
            MethodHandle getpagesize = linker.downcallHandle(linker.defaultLookup().find("getpagesize").orElseThrow(),
                    FunctionDescriptor.of(ValueLayout.JAVA_INT));
            try {
                return (int) getpagesize.invokeExact();
            } catch (Throwable t) {
                throw Native.unchecked(t);
            }
        }
    }

    /**
     * The limit and capability, read once: both change only through {@code setrlimit} or
     * {@code capset} in this process, which ofl never calls.
     */
    private static final class ProcessLimit {
        static final MemlockLimit LIMIT = current();
        static final boolean LOCK_CAPABLE = canLockWithoutLimit();
    }
}
