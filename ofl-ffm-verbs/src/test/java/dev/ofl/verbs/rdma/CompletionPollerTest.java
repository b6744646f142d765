package dev.ofl.verbs.rdma;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The {@link CompletionPoller} on descriptors of its own ({@code eventfd}s, which epoll reports
 * readable once written), each test with a poller of its own so that its thread's start, sweeps
 * and end are the test's: a readable descriptor wakes its owner and no sweep is needed for it;
 * the sweep wakes every owner with nothing readable, again and again; once the poller thread has
 * ended every owner is woken and each park bounds itself; a descriptor epoll refuses is named and
 * leaves no registration; a closed registration leaves epoll, so its descriptor can be registered
 * again; every descriptor one {@code epoll_wait} reports wakes its own owner, not only the first.
 *
 * <p>Nothing here is softverbs: these are the C library's epoll and eventfd alone.
 */
@Timeout(120)
class CompletionPollerTest {
    /** A sweep no test waits for: a wake-up seen under it came from the descriptor. */
    private static final long NO_SWEEP_NS = TimeUnit.HOURS.toNanos(1);
    private static final long SHORT_SWEEP_NS = TimeUnit.MILLISECONDS.toNanos(100);

    private static final Linker LINKER = Linker.nativeLinker();
    private static final MethodHandle EVENTFD = libc("eventfd",
            FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.JAVA_INT));
    private static final MethodHandle WRITE = libc("write",
            FunctionDescriptor.of(ValueLayout.JAVA_LONG, ValueLayout.JAVA_INT, ValueLayout.ADDRESS, ValueLayout.JAVA_LONG));
    private static final MethodHandle READ = libc("read",
            FunctionDescriptor.of(ValueLayout.JAVA_LONG, ValueLayout.JAVA_INT, ValueLayout.ADDRESS, ValueLayout.JAVA_LONG));
    private static final MethodHandle DUP2 = libc("dup2",
            FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.JAVA_INT));
    private static final MethodHandle DUP = libc("dup",
            FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT));
    private static final MethodHandle CLOSE = libc("close",
            FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT));
    private static final MethodHandle OPEN = libc("open",
            FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.ADDRESS, ValueLayout.JAVA_INT, ValueLayout.JAVA_INT),
            Linker.Option.firstVariadicArg(2));

    private final List<Integer> descriptors = new ArrayList<>();
    private final List<CompletionPoller.Registration> registrations = new ArrayList<>();

    @SuppressWarnings("restricted")
    private static MethodHandle libc(String name, FunctionDescriptor descriptor, Linker.Option... options) {
        return LINKER.downcallHandle(LINKER.defaultLookup().find(name).orElseThrow(), descriptor, options);
    }

    @AfterEach
    void closeEverything() throws Throwable {
        for (CompletionPoller.Registration registration : registrations) {
            registration.close();
        }
        for (int fd : descriptors) {
            int rc = (int) CLOSE.invokeExact(fd);
            assertEquals(0, rc, "close(" + fd + ")");
        }
    }

    private int eventFd() throws Throwable {
        int fd = (int) EVENTFD.invokeExact(0, 0);
        assertTrue(fd >= 0, "eventfd failed");
        descriptors.add(fd);
        return fd;
    }

    /** Adds one to the eventfd's counter: epoll reports it readable until it is read. */
    private static void signal(int fd) throws Throwable {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment one = arena.allocate(ValueLayout.JAVA_LONG);
            one.set(ValueLayout.JAVA_LONG, 0, 1L);
            assertEquals(8L, (long) WRITE.invokeExact(fd, one, 8L));
        }
    }

    /** Reads the eventfd's counter back to zero (not readable any more). */
    private static void consume(int fd) throws Throwable {
        try (Arena arena = Arena.ofConfined()) {
            assertEquals(8L, (long) READ.invokeExact(fd, arena.allocate(ValueLayout.JAVA_LONG), 8L));
        }
    }

    private static boolean await(CountDownLatch latch) throws InterruptedException {
        return latch.await(TestEnvironment.seconds(30), TimeUnit.SECONDS);
    }

    /** Runs {@code body} on a daemon platform thread that becomes the owner of what it registers. */
    private static Thread owner(ThrowingRunnable body, AtomicReference<Throwable> failure) {
        return Thread.ofPlatform().daemon().start(() -> {
            try {
                body.run();
            } catch (Throwable t) {
                failure.set(t);
            }
        });
    }

    @FunctionalInterface
    private interface ThrowingRunnable {
        void run() throws Throwable;
    }

    /**
     * The client's own wait ({@link Libc#awaitReadable}, poll(2) on its completion channel) asks
     * for readability and says what it found: nothing on a quiet descriptor, one descriptor once it
     * is readable. Its memory is gone once it is closed.
     */
    @Test
    void theClientsPollReportsOnlyAReadableDescriptor() throws Throwable {
        int fd = eventFd();
        Libc libc = new Libc();
        try {
            assertEquals(0, libc.awaitReadable(fd, 0), "a quiet descriptor");
            signal(fd);
            assertEquals(1, libc.awaitReadable(fd, 0), "a readable descriptor");
            consume(fd);
            assertEquals(0, libc.awaitReadable(fd, 0), "read back to quiet");
        } finally {
            libc.close();
        }
        assertThrows(IllegalStateException.class, () -> libc.awaitReadable(fd, 0), "used after close");
    }

    @Test
    void aReadableDescriptorWakesItsOwnerEachTimeItIsArmed() throws Throwable {
        CompletionPoller poller = new CompletionPoller(NO_SWEEP_NS);
        int fd = eventFd();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        AtomicBoolean[] written = {new AtomicBoolean(), new AtomicBoolean()};
        CountDownLatch[] armed = {new CountDownLatch(1), new CountDownLatch(1)};
        CountDownLatch[] woken = {new CountDownLatch(1), new CountDownLatch(1)};
        AtomicBoolean pollingWhenWoken = new AtomicBoolean();
        owner(() -> {
            CompletionPoller.Registration registration = poller.register(fd);
            synchronized (registrations) {
                registrations.add(registration);
            }
            for (int round = 0; round < 2; round++) {
                registration.arm();
                armed[round].countDown();
                // No sweep comes in this test: only the poller's report of the descriptor ends these
                // parks once it was written (a park may also return early, so it looks again).
                do {
                    registration.park(Long.MAX_VALUE);
                } while (!written[round].get());
                consume(fd);
                pollingWhenWoken.set(poller.polling());
                woken[round].countDown();
            }
        }, failure);
        for (int round = 0; round < 2; round++) {
            assertTrue(await(armed[round]), "round " + round + ": the owner to arm");
            written[round].set(true);
            signal(fd);
            assertTrue(await(woken[round]), "round " + round + ": the owner of a readable descriptor to be woken"
                    + " (" + failure.get() + ")");
        }
        assertEquals(null, failure.get());
        assertTrue(pollingWhenWoken.get(), "the poller thread goes on after a wake-up");
        assertTrue(poller.polling());
    }

    @Test
    void descriptorsBeyondTheFirstSixteenSlotsAreRegisteredAndReported() throws Throwable {
        CompletionPoller poller = new CompletionPoller(NO_SWEEP_NS);
        int count = 20;
        int[] fds = new int[count];
        for (int i = 0; i < count; i++) {
            fds[i] = eventFd();
        }
        AtomicReference<Throwable> failure = new AtomicReference<>();
        CountDownLatch armed = new CountDownLatch(1);
        CountDownLatch woken = new CountDownLatch(1);
        AtomicBoolean written = new AtomicBoolean();
        owner(() -> {
            CompletionPoller.Registration last = null;
            for (int fd : fds) {
                last = poller.register(fd);
                synchronized (registrations) {
                    registrations.add(last);
                }
            }
            last.arm();
            armed.countDown();
            do {
                last.park(Long.MAX_VALUE);
            } while (!written.get());
            woken.countDown();
        }, failure);
        assertTrue(await(armed), "the owner to register " + count + " descriptors (" + failure.get() + ")");
        assertEquals(count, poller.registrations());
        written.set(true);
        signal(fds[count - 1]);
        assertTrue(await(woken), "the owner of the twentieth descriptor to be woken (" + failure.get() + ")");
    }

    @Test
    void aParkWithADeadlineEndsByItself() throws Throwable {
        CompletionPoller poller = new CompletionPoller(NO_SWEEP_NS);
        int fd = eventFd();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        CountDownLatch done = new CountDownLatch(1);
        owner(() -> {
            CompletionPoller.Registration registration = poller.register(fd);
            synchronized (registrations) {
                registrations.add(registration);
            }
            registration.park(TimeUnit.MILLISECONDS.toNanos(1));
            registration.park(0);
            registration.park(-1);
            done.countDown();
        }, failure);
        assertTrue(await(done), "parks with a deadline to end without a wake-up (" + failure.get() + ")");
        assertEquals(null, failure.get());
    }

    @Test
    void theSweepWakesAnOwnerWithNothingReadableAgainAndAgain() throws Throwable {
        CompletionPoller poller = new CompletionPoller(SHORT_SWEEP_NS);
        int fd = eventFd();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        CountDownLatch swept = new CountDownLatch(3);
        owner(() -> {
            CompletionPoller.Registration registration = poller.register(fd);
            synchronized (registrations) {
                registrations.add(registration);
            }
            registration.arm();
            // The descriptor is never written: only sweeps end these untimed parks.
            for (int i = 0; i < 3; i++) {
                registration.park(Long.MAX_VALUE);
                swept.countDown();
            }
        }, failure);
        assertTrue(await(swept), "three sweeps to wake an owner whose descriptor never fires (" + failure.get()
                + ")");
        assertTrue(poller.polling());
    }

    @Test
    void whenThePollerThreadEndsEveryOwnerIsWokenAndParksBoundThemselves() throws Throwable {
        CompletionPoller poller = new CompletionPoller(SHORT_SWEEP_NS);
        int fd = eventFd();
        int notEpoll = eventFd();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        CountDownLatch registered = new CountDownLatch(1);
        CountDownLatch sawEnd = new CountDownLatch(1);
        CountDownLatch parkedAfterEnd = new CountDownLatch(1);
        owner(() -> {
            CompletionPoller.Registration registration = poller.register(fd);
            synchronized (registrations) {
                registrations.add(registration);
            }
            registered.countDown();
            while (poller.polling()) {
                registration.park(Long.MAX_VALUE);
            }
            sawEnd.countDown();
            // Nothing wakes this thread any more: the park must bound itself.
            registration.park(Long.MAX_VALUE);
            registration.park(Long.MAX_VALUE);
            parkedAfterEnd.countDown();
        }, failure);
        assertTrue(await(registered), "the owner to register (" + failure.get() + ")");
        int epoll = poller.epollDescriptor();
        assertTrue(epoll >= 0, "the poller's descriptor");
        // The epoll descriptor's number now names an eventfd: the poller's next epoll_wait fails (EINVAL).
        int rc = (int) DUP2.invokeExact(notEpoll, epoll);
        assertEquals(epoll, rc, "dup2");
        descriptors.add(epoll);
        assertTrue(await(sawEnd), "the owner to be told the poller ended (" + failure.get() + ")");
        assertFalse(poller.polling());
        assertTrue(await(parkedAfterEnd), "parks without a deadline to end by themselves once the poller has ended ("
                + failure.get() + ")");
        // Its registration cannot leave epoll any more; closing it must still release it.
        registrations.getFirst().close();
        assertEquals(0, poller.registrations());
    }

    @Test
    void aDescriptorEpollRefusesIsNamedAndLeavesNoRegistration() throws Throwable {
        CompletionPoller poller = new CompletionPoller(NO_SWEEP_NS);
        Path file = Files.createTempFile("ofl-poller", ".txt");
        try (Arena arena = Arena.ofConfined()) {
            int fd = (int) OPEN.invokeExact(arena.allocateFrom(file.toString()), 0, 0);
            assertTrue(fd >= 0, "open " + file);
            descriptors.add(fd);
            registrations.add(poller.register(eventFd()));
            // A regular file cannot be watched by epoll (EPERM); fcntl accepted it.
            IOException e = assertThrows(IOException.class, () -> poller.register(fd));
            assertTrue(e.getMessage().startsWith("epoll_ctl(1) of completion channel fd " + fd + " failed: "),
                    e.getMessage());
            assertTrue(e.getMessage().contains("EPERM"), e.getMessage());
            assertEquals(1, poller.registrations(), "the refused descriptor's slot is free again");
        } finally {
            Files.delete(file);
        }
    }

    @Test
    void aClosedRegistrationLeavesEpollAndFreesItsMemory() throws Throwable {
        CompletionPoller poller = new CompletionPoller(NO_SWEEP_NS);
        int fd = eventFd();
        CompletionPoller.Registration first = poller.register(fd);
        first.close();
        first.close();
        assertEquals(0, poller.registrations());
        // Still in epoll, the descriptor could not be added again (EEXIST).
        CompletionPoller.Registration second = poller.register(fd);
        registrations.add(second);
        assertEquals(1, poller.registrations());
        assertThrows(IllegalStateException.class, first::arm, "a closed registration's memory is freed");
        second.arm();
    }

    /*
     * Duplicates of one eventfd are separate epoll entries that one write makes readable together,
     * so the poller's epoll_wait reports them in one batch (or very few): a poller that read only
     * the first event of a batch, or read one event's slot for another, would leave owners parked
     * for good, since no sweep comes here.
     */
    @Test
    void everyDescriptorOfOneBatchWakesItsOwner() throws Throwable {
        CompletionPoller poller = new CompletionPoller(NO_SWEEP_NS);
        int source = eventFd();
        int owners = 16;
        AtomicReference<Throwable> failure = new AtomicReference<>();
        CountDownLatch armed = new CountDownLatch(owners);
        CountDownLatch woken = new CountDownLatch(owners);
        AtomicBoolean written = new AtomicBoolean();
        for (int i = 0; i < owners; i++) {
            int copy = (int) DUP.invokeExact(source);
            assertTrue(copy >= 0, "dup failed");
            descriptors.add(copy);
            owner(() -> {
                CompletionPoller.Registration registration = poller.register(copy);
                synchronized (registrations) {
                    registrations.add(registration);
                }
                registration.arm();
                armed.countDown();
                do {
                    registration.park(Long.MAX_VALUE);
                } while (!written.get());
                woken.countDown();
            }, failure);
        }
        assertTrue(await(armed), "the owners to arm (" + failure.get() + ")");
        written.set(true);
        signal(source);
        assertTrue(await(woken), woken.getCount() + " of " + owners + " owners of readable descriptors were never woken ("
                + failure.get() + ")");
        assertEquals(null, failure.get());
    }
    /**
     * A watched descriptor's handler runs on the poller thread each time it becomes readable, and
     * again only once it was armed again (the handler returned true); one that returns false is
     * not called again; a watch is not a registration that connections wait on; after close() the
     * handler never runs.
     */
    @Test
    void aWatchedDescriptorsHandlerRunsOnThePollerUntilItStops() throws Throwable {
        CompletionPoller poller = new CompletionPoller(NO_SWEEP_NS);
        int fd = eventFd();
        java.util.concurrent.LinkedBlockingQueue<String> calls = new java.util.concurrent.LinkedBlockingQueue<>();
        AtomicBoolean keepWatching = new AtomicBoolean(true);
        CompletionPoller.Registration watch = poller.watch(fd, () -> {
            try {
                consume(fd);
            } catch (Throwable t) {
                throw new AssertionError(t);
            }
            // Read before the call is reported: the test changes it only once it saw the call.
            boolean again = keepWatching.get();
            calls.add(Thread.currentThread().getName());
            return again;
        });
        assertEquals(0, poller.registrations(), "a watch is not a connection's registration");
        assertEquals(1, poller.watched());
        signal(fd);
        assertEquals("ofl-rdma-poller", calls.poll(10, TimeUnit.SECONDS), "the handler, on the poller thread");
        keepWatching.set(false);
        signal(fd);
        assertEquals("ofl-rdma-poller", calls.poll(10, TimeUnit.SECONDS), "the handler, armed again");
        signal(fd);
        // Not armed again: a third write reaches nobody. A registered descriptor's wake-up, which
        // needs the poller to go round, shows that the poller went past it.
        int other = eventFd();
        CompletionPoller.Registration registration = poller.register(other);
        registrations.add(registration);
        registration.arm();
        signal(other);
        registration.park(TimeUnit.SECONDS.toNanos(10));
        assertEquals(null, calls.poll(), "a handler that returned false was called again");
        watch.close();
        watch.close();
        assertEquals(0, poller.watched());
    }
}
