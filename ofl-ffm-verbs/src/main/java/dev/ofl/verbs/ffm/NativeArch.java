package dev.ofl.verbs.ffm;

import java.lang.foreign.MemoryLayout;
import java.lang.foreign.SequenceLayout;
import java.util.Locale;
import java.util.Optional;

/**
 * The processor architectures whose {@code <infiniband/verbs.h>} layouts this binding knows, and
 * the one this JVM runs on.
 *
 * <p>Both are LP64 Linux with glibc, and every verbs struct is laid out the same on both except
 * where it embeds a {@code pthread_mutex_t}: glibc makes that 40 bytes on x86-64 and 48 on
 * aarch64 (both aligned to 8), which grows {@code ibv_context}, {@code ibv_cq} and {@code ibv_qp}
 * and moves every member after the mutex. That size is the one input the per-architecture layouts
 * take. {@code VerbsLayoutTest} pins both sets against {@code native-headers/verbs_layout.c}
 * compiled for each architecture.
 *
 * <p>Layouts are chosen once, at class load, from {@link #current()}; on any other architecture
 * the binding refuses to load rather than guess. Immutable and thread-safe.
 */
public enum NativeArch {
    /** x86-64 ({@code os.arch} {@code amd64} or {@code x86_64}): {@code pthread_mutex_t} is 40 bytes. */
    X86_64("x86-64", 40),
    /** AArch64 ({@code os.arch} {@code aarch64}): {@code pthread_mutex_t} is 48 bytes. */
    AARCH64("aarch64", 48);

    private static final String OS_ARCH = System.getProperty("os.arch", "");
    private static final Optional<NativeArch> CURRENT = fromOsArch(OS_ARCH);

    private final String displayName;
    private final long pthreadMutexBytes;

    NativeArch(String displayName, long pthreadMutexBytes) {
        this.displayName = displayName;
        this.pthreadMutexBytes = pthreadMutexBytes;
    }

    /**
     * Maps a value of the {@code os.arch} system property to an architecture.
     *
     * @param osArch the property's value, such as {@code amd64} or {@code aarch64}
     * @return the architecture, or empty when the binding has no layouts for it
     */
    public static Optional<NativeArch> fromOsArch(String osArch) {
        return switch (osArch.toLowerCase(Locale.ROOT)) {
            case "amd64", "x86_64" -> Optional.of(X86_64);
            case "aarch64" -> Optional.of(AARCH64);
            default -> Optional.empty();
        };
    }

    /**
     * Returns the architecture this JVM runs on, if the binding has layouts for it.
     *
     * @return the architecture, or empty on any other
     */
    public static Optional<NativeArch> detected() {
        return CURRENT;
    }

    /**
     * Returns the architecture this JVM runs on, whose layouts the struct classes use.
     *
     * @return the architecture
     * @throws UnsupportedOperationException on an architecture the binding has no layouts for;
     *     the message names it and the supported ones
     */
    public static NativeArch current() {
        return CURRENT.orElseThrow(() -> new UnsupportedOperationException(unsupportedMessage(OS_ARCH)));
    }

    /**
     * Describes why the binding cannot run on an architecture; for the availability probe.
     *
     * @param osArch the {@code os.arch} value
     * @return a sentence naming the architecture and the supported ones
     */
    public static String unsupportedMessage(String osArch) {
        return "the libibverbs struct layouts are known for x86-64 (os.arch amd64/x86_64) and aarch64 only, not for "
                + "os.arch '" + osArch + "': pthread_mutex_t inside ibv_context, ibv_cq and ibv_qp differs by "
                + "architecture";
    }

    /**
     * Returns this JVM's {@code os.arch} value, as read at class load.
     *
     * @return the value, possibly empty
     */
    public static String osArch() {
        return OS_ARCH;
    }

    /**
     * Returns the size of glibc's {@code pthread_mutex_t} on this architecture.
     *
     * @return 40 on x86-64, 48 on aarch64
     */
    public long pthreadMutexBytes() {
        return pthreadMutexBytes;
    }

    /**
     * Returns the layout of an opaque {@code pthread_mutex_t} member: 8-byte words, since glibc
     * aligns it to 8 on both architectures.
     *
     * @return a sequence of {@code uint64_t} of {@link #pthreadMutexBytes()} bytes
     */
    public SequenceLayout pthreadMutexLayout() {
        return MemoryLayout.sequenceLayout(pthreadMutexBytes / Long.BYTES, VerbsTypes.C_UINT64);
    }

    /**
     * Returns the architecture's usual name.
     *
     * @return {@code x86-64} or {@code aarch64}
     */
    @Override
    public String toString() {
        return displayName;
    }
}
