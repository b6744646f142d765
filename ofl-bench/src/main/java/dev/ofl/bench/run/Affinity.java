package dev.ofl.bench.run;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.VarHandle;

/**
 * Pins the calling thread to one CPU with Linux {@code sched_setaffinity(2)} through the FFM API.
 * Threads the pinned thread starts later inherit its mask (Linux semantics), so pinning a process's
 * main thread before it starts a server or a client also pins the threads those start.
 *
 * <p>Thread-safe; each call affects only the calling thread.
 */
public final class Affinity {
    /** Bytes of the CPU mask passed to the kernel: 1,024 CPUs, glibc's {@code cpu_set_t}. */
    private static final int MASK_BYTES = 128;
    private static final StructLayout CAPTURED = Linker.Option.captureStateLayout();
    private static final VarHandle ERRNO = CAPTURED.varHandle(MemoryLayout.PathElement.groupElement("errno"));
    private static final MethodHandle SCHED_SETAFFINITY = downcall();

    // Native access is granted on the command line (--enable-native-access=ALL-UNNAMED), as the launcher does.
    @SuppressWarnings("restricted")
    private static MethodHandle downcall() {
        Linker linker = Linker.nativeLinker();
        return linker.downcallHandle(
                linker.defaultLookup().find("sched_setaffinity").orElseThrow(
                        () -> new ExceptionInInitializerError("sched_setaffinity not found in the C library")),
                FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.JAVA_LONG,
                        ValueLayout.ADDRESS),
                Linker.Option.captureCallState("errno"));
    }

    private Affinity() {
    }

    /**
     * Pins the calling thread to {@code cpu}.
     *
     * @param cpu the CPU number, {@code 0 ..} the number of CPUs minus one
     * @throws IllegalArgumentException if {@code cpu} is outside {@code 0..1023}
     * @throws IllegalStateException if the kernel refuses (the message names errno and the fix)
     */
    public static void pinCurrentThread(int cpu) {
        if (cpu < 0 || cpu >= MASK_BYTES * Byte.SIZE) {
            throw new IllegalArgumentException("CPU " + cpu + " is outside 0.." + (MASK_BYTES * Byte.SIZE - 1));
        }
        int rc;
        int errno;
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment mask = arena.allocate(MASK_BYTES, 8);
            mask.set(ValueLayout.JAVA_BYTE, cpu / Byte.SIZE, (byte) (1 << (cpu % Byte.SIZE)));
            MemorySegment state = arena.allocate(CAPTURED);
            rc = (int) SCHED_SETAFFINITY.invokeExact(state, 0, (long) MASK_BYTES, mask);
            errno = (int) ERRNO.get(state, 0L);
        } catch (Throwable t) {
            throw new IllegalStateException("sched_setaffinity could not be called", t);
        }
        if (rc != 0) {
            throw new IllegalStateException("sched_setaffinity(0, " + MASK_BYTES + ", {" + cpu + "}) failed: errno "
                    + errno + (errno == 22 ? " (EINVAL: CPU " + cpu + " is not online or not in this process's"
                    + " cpuset; pick one of " + Runtime.getRuntime().availableProcessors() + " CPUs)" : "")
                    + "; choose another CPU with --cpu, or leave pinning off");
        }
    }
}
