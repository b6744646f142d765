package dev.ofl.verbs.rdma;

import dev.ofl.verbs.Errno;
import dev.ofl.verbs.ffm.NativeArch;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.VarHandle;
import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Lets connection threads that wait for completions park instead of blocking in a native call, so
 * that they can be virtual threads: one platform thread per process waits with {@code epoll} on
 * the descriptors of every registered completion channel and unparks the owner of the one that
 * became readable. The owner does everything else itself (take the event, acknowledge, re-arm,
 * poll the queue), in calls that do not block.
 *
 * <p>One thread per process rather than per server: {@code epoll} serves any number of
 * descriptors, the work per event is one unpark (or a watched descriptor's short handler), and a process-wide thread needs no teardown
 * ordered against a closing server (the {@link dev.ofl.api.spi.LivenessWatcher} is shared the same
 * way). The thread starts with the first registration and is a daemon.
 *
 * <p>Each descriptor is registered edge-less and one-shot ({@code EPOLLIN | EPOLLONESHOT}): after
 * it is reported once it stays silent until its owner {@linkplain Registration#arm() arms} it
 * again, which it does just before parking. Arming a descriptor that is readable already reports
 * it at once, so the owner's sequence (take events, request notification, poll the queue, arm,
 * park) loses no completion. Thread-safe.
 *
 * <p>A descriptor that belongs to no connection, a device's asynchronous events, is
 * {@linkplain #watch watched} instead: the poller thread runs its handler itself.
 */
final class CompletionPoller {
    private static final Logger LOG = LoggerFactory.getLogger(CompletionPoller.class);
    private static final CompletionPoller SHARED = new CompletionPoller(CompletionPoller.MAX_PARK_NS);

    // The constants and the event layout are package-visible for EpollLayoutTest, which compares
    // them with <sys/epoll.h> and <fcntl.h> compiled for each architecture.
    static final int EPOLL_CLOEXEC = 0x80000;
    static final int EPOLL_CTL_ADD = 1;
    /**
     * The safety net: the poller thread wakes every registered connection this often, so that a
     * connection looks again at least once a second even if a wake-up was lost. An idle
     * connection pays a few system calls per second for it. Parks without a deadline are
     * untimed (a timed park of a virtual thread allocates a timer task each time), except once
     * the poller thread has ended, when each park bounds itself by this instead.
     */
    private static final long MAX_PARK_NS = 1_000_000_000L;
    static final int EPOLL_CTL_DEL = 2;
    static final int EPOLL_CTL_MOD = 3;
    static final int EPOLLIN = 0x001;
    static final int EPOLLONESHOT = 1 << 30;
    static final int F_GETFL = 3;
    static final int F_SETFL = 4;
    static final int O_NONBLOCK = 0x800;
    private static final int EVENTS_PER_WAIT = 64;

    /**
     * {@code struct epoll_event { uint32_t events; epoll_data_t data; }}: packed on x86-64 (12
     * bytes, data at 4), naturally aligned elsewhere (16 bytes, data at 8), as glibc's
     * {@code __EPOLL_PACKED} says.
     */
    private static final StructLayout EPOLL_EVENT = epollEvent(NativeArch.current());
    /** The layout of {@code struct epoll_event} on {@code arch}. */
    static StructLayout epollEvent(NativeArch arch) {
        return arch == NativeArch.X86_64
                ? MemoryLayout.structLayout(ValueLayout.JAVA_INT.withName("events"),
                        ValueLayout.JAVA_LONG_UNALIGNED.withName("data"))
                : MemoryLayout.structLayout(ValueLayout.JAVA_INT.withName("events"), MemoryLayout.paddingLayout(4),
                        ValueLayout.JAVA_LONG.withName("data"));
    }

    private static final long EVENTS_OFFSET = EPOLL_EVENT.byteOffset(MemoryLayout.PathElement.groupElement("events"));
    private static final long DATA_OFFSET = EPOLL_EVENT.byteOffset(MemoryLayout.PathElement.groupElement("data"));
    private static final StructLayout CAPTURE = Linker.Option.captureStateLayout();
    private static final VarHandle ERRNO = CAPTURE.varHandle(MemoryLayout.PathElement.groupElement("errno"));
    private static final MethodHandle EPOLL_CREATE1 = handle("epoll_create1",
            FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT));
    private static final MethodHandle EPOLL_CTL = handle("epoll_ctl",
            FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.JAVA_INT,
                    ValueLayout.JAVA_INT, ValueLayout.ADDRESS));
    private static final MethodHandle EPOLL_WAIT = handle("epoll_wait",
            FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.ADDRESS,
                    ValueLayout.JAVA_INT, ValueLayout.JAVA_INT));
    /** {@code int fcntl(int fd, int cmd, ...)}: the third argument is variadic. */
    private static final MethodHandle FCNTL = handle("fcntl",
            FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.JAVA_INT,
                    ValueLayout.JAVA_INT), Linker.Option.firstVariadicArg(2));

    private final Object lock = new Object();
    /** Registrations by slot; the epoll data of a descriptor is its slot and generation. */
    private volatile Registration[] slots = new Registration[16];
    private final ArrayDeque<Integer> freeSlots = new ArrayDeque<>();
    private int nextSlot;
    /** Registrations with a handler, among the slots in use. */
    private int watched;
    private int generations;
    private int epollFd = -1;
    /** False once the poller thread has ended: parks then bound themselves. */
    private volatile boolean polling = true;
    /** {@link #MAX_PARK_NS} for the process's poller; tests make pollers of their own with other periods. */
    private final long sweepNs;

    CompletionPoller(long sweepNs) {
        this.sweepNs = sweepNs;
    }

    /**
     * The process's poller.
     *
     * @return the shared instance
     */
    static CompletionPoller shared() {
        return SHARED;
    }

    /**
     * Registers a completion channel's descriptor for the calling thread, which becomes its owner:
     * the descriptor is made non-blocking and added unarmed.
     *
     * @param fd the channel's descriptor
     * @return the registration; {@linkplain Registration#close() close} it before the descriptor
     * @throws IOException if the descriptor cannot be made non-blocking or added to epoll
     */
    Registration register(int fd) throws IOException {
        return add(fd, Thread.currentThread(), null);
    }

    private Registration add(int fd, Thread owner, BooleanSupplier handler) throws IOException {
        int epoll = epoll();
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment state = arena.allocate(CAPTURE);
            int flags = (int) FCNTL.invokeExact(state, fd, F_GETFL, 0);
            if (flags < 0 || (int) FCNTL.invokeExact(state, fd, F_SETFL, flags | O_NONBLOCK) < 0) {
                throw new IOException("fcntl(" + fd + ", O_NONBLOCK) on a completion channel failed: "
                        + Errno.describe((int) ERRNO.get(state, 0L)));
            }
        } catch (IOException | RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
        Registration registration;
        synchronized (lock) {
            Integer free = freeSlots.poll();
            int slot = free != null ? free : nextSlot++;
            Registration[] table = slots;
            if (slot >= table.length) {
                table = Arrays.copyOf(table, table.length * 2);
            }
            // A stale event for a reused slot must not wake its new owner: each registration has its own generation.
            registration = new Registration(this, epoll, fd, slot, ++generations, owner, handler);
            table[slot] = registration;
            slots = table;
            if (handler != null) {
                watched++;
            }
        }
        try {
            // One-shot from the start: the kernel always reports EPOLLERR/EPOLLHUP, and a device that
            // goes away before the first arm must not make this thread spin on a level-triggered error.
            registration.control(EPOLL_CTL_ADD, EPOLLONESHOT);
        } catch (IOException e) {
            registration.release();
            throw e;
        }
        return registration;
    }

    /**
     * Watches a descriptor on the poller thread itself: each time it becomes readable the poller
     * calls {@code onReadable}, which must be quick and must not block (it reads what is pending
     * from a descriptor made non-blocking here), and arms the descriptor again if it returns
     * {@code true}. For a device's asynchronous events, which belong to no connection thread: no
     * thread per device waits for them. {@linkplain Registration#close() Closing} the registration
     * waits for a call in progress, and none starts after it.
     *
     * @param fd the descriptor
     * @param onReadable what to do when it is readable; {@code false} to stop watching
     * @return the registration; {@linkplain Registration#close() close} it before the descriptor
     * @throws IOException if the descriptor cannot be made non-blocking or added to epoll
     */
    Registration watch(int fd, BooleanSupplier onReadable) throws IOException {
        Registration registration = add(fd, null, onReadable);
        try {
            synchronized (registration) {
                registration.control(EPOLL_CTL_MOD, EPOLLIN | EPOLLONESHOT);
            }
        } catch (IOException e) {
            registration.close();
            throw e;
        }
        return registration;
    }

    /**
     * How many descriptors connections wait on now ({@linkplain #register registered}, not
     * {@linkplain #watch watched}); for tests.
     *
     * @return the count
     */
    int registrations() {
        synchronized (lock) {
            return nextSlot - freeSlots.size() - watched;
        }
    }

    /**
     * How many descriptors are {@linkplain #watch watched} now (one per open device); for tests.
     *
     * @return the count
     */
    int watched() {
        synchronized (lock) {
            return watched;
        }
    }

    /**
     * Whether the poller thread still runs (it has not started, or has not ended); for tests.
     *
     * @return false once the thread has ended
     */
    boolean polling() {
        return polling;
    }

    /**
     * The epoll descriptor, or -1 before the first registration; for tests.
     *
     * @return the descriptor
     */
    int epollDescriptor() {
        synchronized (lock) {
            return epollFd;
        }
    }

    private int epoll() throws IOException {
        synchronized (lock) {
            if (epollFd >= 0) {
                return epollFd;
            }
            int fd;
            try (Arena arena = Arena.ofConfined()) {
                MemorySegment state = arena.allocate(CAPTURE);
                fd = (int) EPOLL_CREATE1.invokeExact(state, EPOLL_CLOEXEC);
                if (fd < 0) {
                    throw new IOException("epoll_create1 failed: " + Errno.describe((int) ERRNO.get(state, 0L))
                            + "; raise the open-file limit (ulimit -n) if it is EMFILE");
                }
            } catch (IOException | RuntimeException | Error e) {
                throw e;
            } catch (Throwable t) {
                throw new IllegalStateException(t);
            }
            int waitFd = fd;
            Thread.ofPlatform().name("ofl-rdma-poller").daemon().start(() -> run(waitFd));
            epollFd = fd;
            return fd;
        }
    }

    private void run(int epoll) {
        try {
            poll(epoll);
        } finally {
            // Every BLOCKING connection would otherwise wait for a wake-up that no longer comes.
            polling = false;
            wakeAll();
        }
    }

    private void poll(int epoll) {
        Arena arena = Arena.ofConfined();
        MemorySegment events = arena.allocate(EPOLL_EVENT.byteSize() * EVENTS_PER_WAIT, 8);
        MemorySegment state = arena.allocate(CAPTURE);
        long sweptNs = System.nanoTime();
        while (true) {
            long nowNs = System.nanoTime();
            if (nowNs - sweptNs >= sweepNs) {
                sweptNs = nowNs;
                wakeAll();
            }
            if (!waitOnce(epoll, events, state, (int) ((sweepNs - (nowNs - sweptNs)) / 1_000_000) + 1)) {
                return;
            }
        }
    }

    /**
     * One epoll_wait and the wake-ups it reports. A method per wait rather than the loop's body:
     * the loop is entered once, so the JIT would compile it only by on-stack replacement, where the
     * downcall's check of its capture segment kept allocating a slice per wait.
     *
     * @return {@code false} if epoll_wait failed for good
     */
    private boolean waitOnce(int epoll, MemorySegment events, MemorySegment state, int timeoutMs) {
        int n;
        try {
            n = (int) EPOLL_WAIT.invokeExact(state, epoll, events, EVENTS_PER_WAIT, timeoutMs);
        } catch (Throwable t) {
            LOG.error("epoll_wait of the RDMA completion poller failed", t);
            return false;
        }
        if (n < 0) {
            int errno = (int) ERRNO.get(state, 0L);
            if (errno != Errno.EINTR) {
                // Not expected of a valid epoll descriptor; the connections' parks bound themselves from now on.
                LOG.error("epoll_wait of the RDMA completion poller failed: {}; BLOCKING RDMA connections "
                        + "now look for completions at least once a second", Errno.describe(errno));
                return false;
            }
            return true;
        }
        Registration[] table = slots;
        try {
            for (int i = 0; i < n; i++) {
                long data = events.get(ValueLayout.JAVA_LONG_UNALIGNED, i * EPOLL_EVENT.byteSize() + DATA_OFFSET);
                int slot = (int) data;
                if (slot >= 0 && slot < table.length) {
                    Registration registration = table[slot];
                    if (registration != null && registration.generation == (int) (data >>> 32)) {
                        if (registration.handler != null) {
                            registration.handle();
                        } else {
                            LockSupport.unpark(registration.owner);
                        }
                    }
                }
            }
        } catch (RuntimeException | Error e) {
            // This thread must outlive any one failed wake-up; the next sweep recovers it.
            LOG.error("the RDMA completion poller failed to wake a connection; continuing", e);
        }
        return true;
    }

    /** Unparks every registered owner: each looks again at what it waits for, and parks again. */
    private void wakeAll() {
        for (Registration registration : slots) {
            if (registration != null && registration.owner != null) {
                LockSupport.unpark(registration.owner);
            }
        }
    }

    /** A downcall that captures errno; none of them is {@code critical}: epoll_wait blocks. */
    // Restricted: needs native access, which the RDMA backend needs anyway.
    @SuppressWarnings("restricted")
    private static MethodHandle handle(String name, FunctionDescriptor descriptor, Linker.Option... options) {
        Linker linker = Linker.nativeLinker();
        MemorySegment address = linker.defaultLookup().find(name).orElseThrow(
                () -> new UnsupportedOperationException(name + " is not in the C library; epoll needs Linux"));
        Linker.Option[] all = Arrays.copyOf(options, options.length + 1);
        all[options.length] = Linker.Option.captureCallState("errno");
        return linker.downcallHandle(address, descriptor, all);
    }

    /**
     * One descriptor's place in the poller, used by its owner thread only (and {@link #close()}
     * by whoever releases the connection, after the owner stopped waiting); a watched descriptor's
     * by the poller thread, under the registration's lock, and by whoever closes it.
     */
    static final class Registration implements AutoCloseable {
        private final CompletionPoller poller;
        private final int epoll;
        private final int fd;
        private final int slot;
        private final int generation;
        /** The thread the poller wakes: the one that armed last (a client may change hands between calls). */
        private volatile Thread owner;
        /** What the poller thread runs instead of waking an owner, for a {@linkplain #watch watched} descriptor. */
        private final BooleanSupplier handler;
        private final Arena arena = Arena.ofShared();
        private final MemorySegment event = arena.allocate(EPOLL_EVENT);
        private final MemorySegment state = arena.allocate(CAPTURE);
        private boolean closed;

        private Registration(CompletionPoller poller, int epoll, int fd, int slot, int generation, Thread owner,
                BooleanSupplier handler) {
            this.handler = handler;
            this.poller = poller;
            this.epoll = epoll;
            this.fd = fd;
            this.slot = slot;
            this.generation = generation;
            this.owner = owner;
        }

        /**
         * Arms the descriptor for one report, for the calling thread, which becomes the owner: the
         * poller unparks it once the descriptor is readable, at once if it is readable already.
         * Allocation-free; does not block.
         *
         * @throws IOException if epoll refuses
         */
        void arm() throws IOException {
            owner = Thread.currentThread();
            control(EPOLL_CTL_MOD, EPOLLIN | EPOLLONESHOT);
        }

        private void control(int operation, int events) throws IOException {
            event.set(ValueLayout.JAVA_INT, EVENTS_OFFSET, events);
            event.set(ValueLayout.JAVA_LONG_UNALIGNED, DATA_OFFSET, (long) generation << 32 | slot);
            int rc;
            try {
                rc = (int) EPOLL_CTL.invokeExact(state, epoll, operation, fd, event);
            } catch (Throwable t) {
                throw new IllegalStateException("epoll_ctl failed", t);
            }
            if (rc != 0) {
                throw new IOException("epoll_ctl(" + operation + ") of completion channel fd " + fd + " failed: "
                        + Errno.describe((int) ERRNO.get(state, 0L)));
            }
        }

        /**
         * Parks the owner until the poller or another thread unparks it, or the deadline passes;
         * it may also return early (the poller wakes every owner once a second), so the caller
         * looks again at what it waits for. Without a deadline the park is untimed, and so
         * allocation-free on a virtual thread.
         *
         * @param remainingNs how long at most, or {@link Long#MAX_VALUE} for no bound
         */
        void park(long remainingNs) {
            if (remainingNs == Long.MAX_VALUE && poller.polling) {
                LockSupport.park();
            } else if (remainingNs > 0) {
                LockSupport.parkNanos(Math.min(remainingNs, poller.sweepNs));
            }
        }

        /**
         * Runs the handler of a watched descriptor, on the poller thread, and arms the descriptor
         * again unless the handler said to stop. Under the registration's lock, so that
         * {@link #close()} never overlaps it; a failing handler stops the watch rather than the poller.
         */
        private synchronized void handle() {
            if (closed) {
                return;
            }
            boolean again;
            try {
                again = handler.getAsBoolean();
            } catch (RuntimeException | Error e) {
                LOG.error("a watched descriptor's handler failed; fd {} is no longer watched", fd, e);
                again = false;
            }
            if (again) {
                try {
                    control(EPOLL_CTL_MOD, EPOLLIN | EPOLLONESHOT);
                } catch (IOException e) {
                    LOG.error("fd {} is no longer watched: {}", fd, e.getMessage());
                }
            }
        }

        /**
         * Removes the descriptor from epoll; before the descriptor is closed. Waits for a handler
         * in progress. Idempotent.
         */
        @Override
        public void close() {
            synchronized (this) {
                if (closed) {
                    return;
                }
                closed = true;
                try {
                    control(EPOLL_CTL_DEL, 0);
                } catch (IOException e) {
                    LOG.warn("removing fd {} from the poller failed: {}", fd, e.getMessage());
                }
            }
            release();
        }

        private void release() {
            synchronized (poller.lock) {
                poller.slots[slot] = null;
                poller.freeSlots.push(slot);
                if (handler != null) {
                    poller.watched--;
                }
            }
            arena.close();
        }
    }
}
