package dev.ofl.verbs.rdma;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;

/**
 * {@code poll(2)} on one descriptor, for waiting on a completion channel with a deadline
 * ({@code ibv_get_cq_event} alone cannot time out). One instance per waiting thread.
 */
final class Libc implements AutoCloseable {
    private static final short POLLIN = 1;
    private static final MethodHandle POLL = pollHandle();

    private final Arena arena = Arena.ofShared();
    /** {@code struct pollfd { int fd; short events; short revents; }}. */
    private final MemorySegment pollFd = arena.allocate(8, 4);

    /**
     * Waits until the descriptor is readable or the timeout passes.
     *
     * @return positive when readable, zero on timeout, negative on error (EINTR included)
     */
    int awaitReadable(int fd, int timeoutMs) {
        pollFd.set(ValueLayout.JAVA_INT, 0, fd);
        pollFd.set(ValueLayout.JAVA_SHORT, 4, POLLIN);
        pollFd.set(ValueLayout.JAVA_SHORT, 6, (short) 0);
        try {
            return (int) POLL.invokeExact(pollFd, 1L, timeoutMs);
        } catch (Throwable t) {
            throw new IllegalStateException("poll(2) failed", t);
        }
    }

    // Restricted: needs native access, which the RDMA backend needs anyway.
    @SuppressWarnings("restricted")
    private static MethodHandle pollHandle() {
        Linker linker = Linker.nativeLinker();
        return linker.downcallHandle(linker.defaultLookup().find("poll").orElseThrow(),
                FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.ADDRESS, ValueLayout.JAVA_LONG,
                        ValueLayout.JAVA_INT));
    }

    @Override
    public void close() {
        arena.close();
    }
}
