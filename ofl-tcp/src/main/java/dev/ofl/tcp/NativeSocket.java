package dev.ofl.tcp;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.SocketChannel;
import java.nio.file.DirectoryIteratorException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Non-blocking {@code recv} and {@code send} on a connected TCP socket through FFM downcalls, for
 * BUSY_POLL connections only: a busy loop makes one of these calls per turn, and the JDK's path to
 * the same system call (locks, begin/end bookkeeping, its own native stub) costs a round trip
 * about a tenth more than C (measured: NIO 1.17x C, these downcalls 1.06x, 64-byte echo).
 *
 * <p><b>The descriptor.</b> The JDK does not hand out a channel's descriptor, so {@link #adopt}
 * finds it among this process's open descriptors by the socket's two addresses (unique among
 * connected TCP sockets) and keeps a {@code dup} of it: this object owns its own descriptor
 * number, which nobody else can close and reuse under it. The channel stays the socket's owner
 * for everything else (bootstrap, blocking waits, shutdown); the socket ends when both are closed.
 *
 * <p><b>Threading and lifetime.</b> Reads, writes and {@link #close()} belong to the one thread
 * that owns the connection at a time; {@link #shutdown()}, which breaks the connection, may come
 * from any thread. The call-state and poll buffers are this object's, freed by {@link #close()}.
 */
// Restricted: the downcalls, made only when native access is enabled for this module (checked first).
@SuppressWarnings("restricted")
final class NativeSocket implements AutoCloseable {
    private static final int AF_INET = 2;
    private static final int AF_INET6 = 10;
    private static final int MSG_DONTWAIT = 0x40;
    private static final int MSG_NOSIGNAL = 0x4000;
    private static final int EINTR = 4;
    private static final int EAGAIN = 11;
    private static final int EPIPE = 32;
    private static final int ECONNRESET = 104;
    private static final int SOCKADDR_BYTES = 128;
    private static final int F_DUPFD_CLOEXEC = 1030;
    private static final int SHUT_RDWR = 2;
    /** One failed recv in this many is looked into; see {@link #read(long, int)}. */
    static final int ERRNO_CHECK_EVERY = 1024;
    private static final short POLLIN = 0x1;
    private static final short POLLOUT = 0x4;
    private static final int IPPROTO_TCP = 6;
    private static final int TCP_INFO = 11;
    private static final int SOL_SOCKET = 1;
    private static final int SO_ERROR = 4;
    /** {@code tcpi_state} of a connection that is over: reset, timed out, or closed both ways. */
    static final int TCP_CLOSE = 7;
    /** {@code struct pollfd}. */
    private static final MemoryLayout POLL_FD = MemoryLayout.structLayout(ValueLayout.JAVA_INT.withName("fd"),
            ValueLayout.JAVA_SHORT.withName("events"), ValueLayout.JAVA_SHORT.withName("revents"));
    private static final long POLL_FD_FD = POLL_FD.byteOffset(MemoryLayout.PathElement.groupElement("fd"));
    private static final long POLL_FD_EVENTS = POLL_FD.byteOffset(MemoryLayout.PathElement.groupElement("events"));
    /** Calls moving at most this many bytes are made as critical calls. */
    private static final int SHORT_CALL_BYTES = 16 << 10;
    private static final ValueLayout.OfShort NETWORK_SHORT = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    /** The first 12 bytes of an IPv4-mapped IPv6 address. */
    private static final byte[] V4_MAPPED = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, (byte) 0xff, (byte) 0xff};

    private static final Logger LOG = LoggerFactory.getLogger(NativeSocket.class);
    private static final AtomicBoolean FALLBACK_REPORTED = new AtomicBoolean();
    /** Why the downcalls cannot be used in this process, or {@code null} when they can. */
    private static final String UNAVAILABLE = unavailability();

    /**
     * The C library's calls, bound when first touched: only once {@link #UNAVAILABLE} found the
     * platform able, so a process without native access never reaches a restricted method.
     */
    private static final class Calls {
        static final Linker LINKER = Linker.nativeLinker();
        static final SymbolLookup LIBC = LINKER.defaultLookup();
        static final Linker.Option ERRNO = Linker.Option.captureCallState("errno");
        static final MemoryLayout CALL_STATE = Linker.Option.captureStateLayout();
        static final long ERRNO_OFFSET = CALL_STATE.byteOffset(MemoryLayout.PathElement.groupElement("errno"));
        static final FunctionDescriptor IO = FunctionDescriptor.of(ValueLayout.JAVA_LONG, ValueLayout.JAVA_INT,
                ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG, ValueLayout.JAVA_INT);
        static final FunctionDescriptor NAME = FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT,
                ValueLayout.ADDRESS, ValueLayout.ADDRESS);
        // The busy path's calls do not capture errno: see read(long, int) for why. With
        // MSG_DONTWAIT neither blocks, and a short copy is brief enough to skip the thread-state
        // transition (a critical call holds back safepoints while it runs).
        static final MethodHandle RECV_PLAIN = LINKER.downcallHandle(find("recv"), IO);
        static final MethodHandle RECV_SHORT_PLAIN = LINKER.downcallHandle(find("recv"), IO,
                Linker.Option.critical(false));
        static final MethodHandle SEND_PLAIN = LINKER.downcallHandle(find("send"), IO);
        static final MethodHandle SEND_SHORT_PLAIN = LINKER.downcallHandle(find("send"), IO,
                Linker.Option.critical(false));
        // Only for a call that failed twice, to say why.
        static final MethodHandle RECV = LINKER.downcallHandle(find("recv"), IO, ERRNO);
        static final MethodHandle SEND = LINKER.downcallHandle(find("send"), IO, ERRNO);
        // poll(struct pollfd *, nfds_t, int timeout), with timeout 0: it never waits. The address
        // goes as a number, as recv's and send's buffers do: no segment to check per call.
        static final MethodHandle POLL = LINKER.downcallHandle(find("poll"), FunctionDescriptor.of(
                ValueLayout.JAVA_INT, ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG, ValueLayout.JAVA_INT),
                Linker.Option.critical(false));
        // fcntl(fd, F_DUPFD_CLOEXEC, 0): a duplicate that a fork and exec does not inherit.
        static final MethodHandle DUP_CLOEXEC = LINKER.downcallHandle(find("fcntl"), FunctionDescriptor.of(
                ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.JAVA_INT),
                Linker.Option.firstVariadicArg(2));
        static final MethodHandle SHUTDOWN = LINKER.downcallHandle(find("shutdown"),
                FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.JAVA_INT));
        static final MethodHandle CLOSE = LINKER.downcallHandle(find("close"),
                FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT));
        static final MethodHandle GETSOCKNAME = LINKER.downcallHandle(find("getsockname"), NAME);
        static final MethodHandle GETPEERNAME = LINKER.downcallHandle(find("getpeername"), NAME);
        static final MethodHandle GETSOCKOPT = LINKER.downcallHandle(find("getsockopt"), FunctionDescriptor.of(
                ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.JAVA_INT,
                ValueLayout.ADDRESS, ValueLayout.ADDRESS));

        private static MemorySegment find(String symbol) {
            return LIBC.find(symbol).orElseThrow(() -> new IllegalStateException("no symbol " + symbol));
        }

        private Calls() {
        }
    }

    private static String unavailability() {
        String os = System.getProperty("os.name", "").toLowerCase(Locale.ROOT);
        if (!os.contains("linux")) {
            return "direct socket calls are built for Linux only (this is " + os + ")";
        }
        if (!NativeSocket.class.getModule().isNativeAccessEnabled()) {
            return "native access is not enabled for " + moduleName() + " (start the JVM with --enable-native-access="
                    + moduleName() + ")";
        }
        try {
            return Calls.GETPEERNAME != null ? null : "no getpeername";
        } catch (RuntimeException | ExceptionInInitializerError e) {
            Throwable cause = e instanceof ExceptionInInitializerError && e.getCause() != null ? e.getCause() : e;
            return "cannot bind the C library's socket calls: " + cause;
        }
    }

    private final int fd;
    private final Arena arena;
    private final MemorySegment callState;
    /** This descriptor's {@code struct pollfd}. */
    private final MemorySegment pollFd;
    /** Failed recv calls since the last one looked into. */
    private int failuresUnasked;
    /** Whether {@link #shutdown()} ended the stream from this side. */
    private volatile boolean shutDown;
    private boolean closed;

    private NativeSocket(int fd) {
        this.fd = fd;
        this.arena = Arena.ofShared();
        this.callState = arena.allocate(Calls.CALL_STATE);
        this.pollFd = arena.allocate(POLL_FD);
        pollFd.set(ValueLayout.JAVA_INT, POLL_FD_FD, fd);
    }

    private static String moduleName() {
        Module module = NativeSocket.class.getModule();
        return module.isNamed() ? module.getName() : "ALL-UNNAMED";
    }

    /**
     * The direct socket for a BUSY_POLL connection, or {@code null} when this process cannot have
     * one: the connection then reads and writes through its channel, and the log says why (at
     * INFO the first time in the process, at DEBUG after that).
     *
     * @param channel the connection's channel, connected
     * @return the socket, or {@code null}
     * @throws ClosedChannelException if the channel was closed meanwhile (the connection was broken)
     */
    static NativeSocket forBusyPoll(SocketChannel channel) throws ClosedChannelException {
        try {
            return adopt(channel);
        } catch (ClosedChannelException e) {
            throw e;
        } catch (IOException e) {
            if (FALLBACK_REPORTED.compareAndSet(false, true)) {
                LOG.info("busy-polling TCP connections read and write through Java NIO, about a tenth slower per "
                        + "round trip than direct socket calls: {}", e.getMessage());
            } else {
                LOG.debug("busy-polling TCP connection through Java NIO: {}", e.getMessage());
            }
            return null;
        }
    }

    /**
     * Why this process cannot use direct socket calls.
     *
     * @return the reason, or {@code null} if it can
     */
    static String unavailableReason() {
        return UNAVAILABLE;
    }

    /**
     * Finds the descriptor of {@code channel}'s socket and keeps a duplicate of it.
     *
     * @param channel a connected TCP channel of this process
     * @return the socket, owning its own descriptor
     * @throws IOException if direct calls are unavailable or no descriptor of this process is that socket
     */
    static NativeSocket adopt(SocketChannel channel) throws IOException {
        if (UNAVAILABLE != null) {
            throw new IOException(UNAVAILABLE);
        }
        InetSocketAddress local = (InetSocketAddress) channel.getLocalAddress();
        InetSocketAddress remote = (InetSocketAddress) channel.getRemoteAddress();
        if (local == null || remote == null) {
            throw new IOException("the channel is not connected");
        }
        try (Arena scratch = Arena.ofConfined();
                DirectoryStream<Path> descriptors = Files.newDirectoryStream(Path.of("/proc/self/fd"))) {
            MemorySegment address = scratch.allocate(SOCKADDR_BYTES, 8);
            MemorySegment length = scratch.allocate(ValueLayout.JAVA_INT);
            for (Path entry : descriptors) {
                int candidate;
                try {
                    candidate = Integer.parseInt(entry.getFileName().toString());
                } catch (NumberFormatException e) {
                    continue;
                }
                if (!is(candidate, local, remote, address, length)) {
                    continue;
                }
                // Checked again on our own duplicate: the number may have been closed and reused meanwhile.
                int own = (int) Calls.DUP_CLOEXEC.invokeExact(candidate, F_DUPFD_CLOEXEC, 0);
                if (own < 0) {
                    continue;
                }
                boolean kept = false;
                try {
                    if (is(own, local, remote, address, length)) {
                        NativeSocket socket = new NativeSocket(own);
                        kept = true;
                        return socket;
                    }
                } finally {
                    if (!kept) {
                        int ignored = (int) Calls.CLOSE.invokeExact(own);
                    }
                }
            }
        } catch (DirectoryIteratorException e) {
            throw e.getCause();
        } catch (IOException | RuntimeException | Error e) {
            throw e;
        } catch (Throwable e) {
            throw new IOException("looking for the socket's descriptor failed: " + e, e);
        }
        throw new IOException("no descriptor of this process is the socket " + local + " -> " + remote);
    }

    /** Whether {@code fd} is a socket whose own and peer addresses are {@code local} and {@code remote}. */
    private static boolean is(int fd, InetSocketAddress local, InetSocketAddress remote, MemorySegment address,
            MemorySegment length) throws Throwable {
        length.set(ValueLayout.JAVA_INT, 0, SOCKADDR_BYTES);
        if ((int) Calls.GETSOCKNAME.invokeExact(fd, address, length) != 0 || !same(address, local)) {
            return false;
        }
        length.set(ValueLayout.JAVA_INT, 0, SOCKADDR_BYTES);
        return (int) Calls.GETPEERNAME.invokeExact(fd, address, length) == 0 && same(address, remote);
    }

    /**
     * Compares a {@code struct sockaddr_in} or {@code sockaddr_in6} with a Java address. ofl opens
     * IPv4 sockets for IPv4 addresses, but a channel opened otherwise (the JDK's default) is a
     * dual-stack IPv6 socket, which carries an IPv4 peer as {@code ::ffff:a.b.c.d} while the channel
     * reports {@code a.b.c.d}.
     */
    private static boolean same(MemorySegment sockaddr, InetSocketAddress expected) {
        int family = Short.toUnsignedInt(sockaddr.get(ValueLayout.JAVA_SHORT, 0));
        int port = Short.toUnsignedInt(sockaddr.get(NETWORK_SHORT, 2));
        byte[] bytes;
        if (family == AF_INET) {
            bytes = sockaddr.asSlice(4, 4).toArray(ValueLayout.JAVA_BYTE);
        } else if (family == AF_INET6) {
            bytes = sockaddr.asSlice(8, 16).toArray(ValueLayout.JAVA_BYTE);
            if (Arrays.equals(bytes, 0, 12, V4_MAPPED, 0, 12)) {
                bytes = Arrays.copyOfRange(bytes, 12, 16);
            }
        } else {
            return false;
        }
        InetAddress ip = expected.getAddress();
        return port == expected.getPort() && ip != null && Arrays.equals(bytes, ip.getAddress());
    }

    /** This object's own descriptor number; for tests. */
    int descriptor() {
        return fd;
    }

    /**
     * Reads what has arrived, without waiting.
     *
     * @param address where to put it: {@code length} bytes of memory the caller owns
     * @param length the most to read
     * @return bytes read, 0 if nothing has arrived, -1 at the end of the stream
     * @throws IOException if the socket failed (the peer reset it, for one)
     */
    int read(long address, int length) throws IOException {
        if (closed) {
            throw new IOException("the socket was closed");
        }
        // A busy loop's recv fails on nearly every turn, with EAGAIN (nothing yet). A call that
        // captures errno allocates wherever it is not inlined into C2 code: as C1 code (C2 can be
        // starved for seconds on a host whose cores all spin; measured 40 B per call until then)
        // and on C2's cold paths. So recv does not capture: a failure is taken as "nothing yet",
        // and one in ERRNO_CHECK_EVERY is looked into (readAfterCheck). A reset is still reported:
        // the failed call that meets it clears it, the next reads the end, and ended() asks the
        // connection's state.
        long n;
        try {
            n = length <= SHORT_CALL_BYTES
                    ? (long) Calls.RECV_SHORT_PLAIN.invokeExact(fd, address, (long) length, MSG_DONTWAIT)
                    : (long) Calls.RECV_PLAIN.invokeExact(fd, address, (long) length, MSG_DONTWAIT);
        } catch (Throwable e) {
            throw new IOException("recv failed: " + e, e);
        }
        if (n > 0) {
            return (int) n;
        }
        if (n == 0) {
            return length == 0 ? 0 : ended();
        }
        if (++failuresUnasked < ERRNO_CHECK_EVERY) {
            return 0;
        }
        failuresUnasked = 0;
        return readAfterCheck(address, length);
    }

    /**
     * A failed recv looked into: poll tells "nothing yet" from anything else without errno. If
     * something is pending (bytes that came meanwhile, the end, an error), recv is made again, and
     * if that fails too, once more capturing errno to say why. A failure that poll does not show
     * (the descriptor replaced by one that is never ready) would go unseen; this object's own
     * duplicate is closed only by {@link #close()}.
     */
    private int readAfterCheck(long address, int length) throws IOException {
        long n;
        try {
            if (quiet(POLLIN)) {
                return 0;
            }
            // Rare, so plain (not critical) calls of any length.
            n = (long) Calls.RECV_PLAIN.invokeExact(fd, address, (long) length, MSG_DONTWAIT);
            if (n < 0) {
                n = (long) Calls.RECV.invokeExact(callState, fd, address, (long) length, MSG_DONTWAIT);
            }
        } catch (Throwable e) {
            throw new IOException("recv failed: " + e, e);
        }
        if (n == 0) {
            return length == 0 ? 0 : ended();
        }
        return n > 0 ? (int) n : failed("recv");
    }

    /**
     * The stream ended: -1 for an orderly end, or a failure if the connection is over without one
     * (reset by the peer, or timed out), whose error an earlier failed call cleared unasked. Once
     * per connection, so its allocation does not matter.
     * <ul>
     * <li>After our own {@link #shutdown()} the connection may close fully in an orderly way: the end.</li>
     * <li>A connection that is not closed (the peer's FIN only, in close-wait): the end.</li>
     * <li>Closed, with an error still pending: the peer's FIN came first (recv reports the end
     * before an error), and a reset followed it, for one after our write to a peer that had gone
     * (Linux then sets EPIPE): the end, as the channel's read would report it.</li>
     * <li>Closed with no error pending: a failed call took the error unasked. A failure.</li>
     * </ul>
     */
    private int ended() throws IOException {
        if (!shutDown && tcpState() == TCP_CLOSE && pendingError() == 0) {
            throw new IOException("recv failed: the connection ended without an orderly close (the peer reset it, or "
                    + "it timed out)");
        }
        return -1;
    }

    /**
     * The connection's TCP state ({@code tcpi_state}: 1 established, 7 closed, 8 close-wait, ...).
     *
     * @return the state, or -1 if the socket does not say
     */
    int tcpState() {
        return option(IPPROTO_TCP, TCP_INFO);
    }

    /** The socket's pending error ({@code SO_ERROR}, which reading clears), or -1 if it does not say. */
    private int pendingError() {
        return option(SOL_SOCKET, SO_ERROR);
    }

    /**
     * An int socket option, or for {@code TCP_INFO} its first field, {@code tcpi_state} (one byte;
     * the kernel copies only as much of the struct as fits); -1 if the call failed.
     */
    private int option(int level, int name) {
        try (Arena scratch = Arena.ofConfined()) {
            MemorySegment value = scratch.allocate(ValueLayout.JAVA_INT);
            MemorySegment length = scratch.allocate(ValueLayout.JAVA_INT);
            length.set(ValueLayout.JAVA_INT, 0, Integer.BYTES);
            int status = (int) Calls.GETSOCKOPT.invokeExact(fd, level, name, value, length);
            if (status != 0) {
                return -1;
            }
            return name == TCP_INFO ? Byte.toUnsignedInt(value.get(ValueLayout.JAVA_BYTE, 0))
                    : value.get(ValueLayout.JAVA_INT, 0);
        } catch (Throwable e) {
            return -1;
        }
    }

    /**
     * Writes what the socket takes now, without waiting.
     *
     * @param address the bytes: {@code length} bytes of memory the caller owns
     * @param length how many
     * @return bytes written, 0 if the socket's buffer is full
     * @throws IOException if the socket failed (the peer reset it, for one)
     */
    int write(long address, int length) throws IOException {
        if (closed) {
            throw new IOException("the socket was closed");
        }
        // Each call names its own constant handle, and the rare paths are methods of their own, so
        // that read and write stay small: a shared helper taking the handles (or choosing among
        // four) was not inlined on a warm call path and allocated per call (JMH: 427 B/op;
        // ClientCallAllocationTest: 40 B per call). A send does not capture errno either (see
        // read; measured 40 B per response in a busy server process).
        long n;
        try {
            n = length <= SHORT_CALL_BYTES
                    ? (long) Calls.SEND_SHORT_PLAIN.invokeExact(fd, address, (long) length, MSG_DONTWAIT | MSG_NOSIGNAL)
                    : (long) Calls.SEND_PLAIN.invokeExact(fd, address, (long) length, MSG_DONTWAIT | MSG_NOSIGNAL);
        } catch (Throwable e) {
            throw new IOException("send failed: " + e, e);
        }
        return n >= 0 ? (int) n : writeAfterCheck(address, length);
    }

    /**
     * A failed send looked into with poll: a full buffer, the usual cause, needs no errno.
     * Otherwise the send is made again, and if that fails too, once more capturing errno to say
     * why. A failed non-blocking send wrote nothing, so making it again is safe.
     */
    private int writeAfterCheck(long address, int length) throws IOException {
        long n;
        try {
            if (quiet(POLLOUT)) {
                return 0;
            }
            // Rare, so plain (not critical) calls of any length.
            n = (long) Calls.SEND_PLAIN.invokeExact(fd, address, (long) length, MSG_DONTWAIT | MSG_NOSIGNAL);
            if (n < 0) {
                n = (long) Calls.SEND.invokeExact(callState, fd, address, (long) length, MSG_DONTWAIT | MSG_NOSIGNAL);
            }
        } catch (Throwable e) {
            throw new IOException("send failed: " + e, e);
        }
        return n >= 0 ? (int) n : failed("send");
    }

    /**
     * Whether the socket reports neither {@code events} nor an error or hang-up, so that a call that
     * just failed failed only because it would have waited.
     */
    private boolean quiet(short events) throws Throwable {
        pollFd.set(ValueLayout.JAVA_SHORT, POLL_FD_EVENTS, events);
        return (int) Calls.POLL.invokeExact(pollFd.address(), 1L, 0) == 0;
    }

    private int failed(String call) throws IOException {
        int errno = callState.get(ValueLayout.JAVA_INT, Calls.ERRNO_OFFSET);
        if (errno == EAGAIN || errno == EINTR) {
            return 0;
        }
        // A failed send that met a reset cleared it unasked, so the retries see EPIPE.
        throw new IOException(call + " failed: errno " + errno + (errno == ECONNRESET ? " (the peer reset the connection)"
                : errno == EPIPE ? " (the connection was reset or shut down)" : ""));
    }

    /**
     * Reads into a buffer viewing native memory from its position to its limit, and moves the
     * position on by what was read.
     *
     * @param base the address of the buffer's index 0
     * @param buffer the view
     * @return as {@link #read(long, int)}
     * @throws IOException if the socket failed
     */
    int read(long base, ByteBuffer buffer) throws IOException {
        int n = read(base + buffer.position(), buffer.remaining());
        if (n > 0) {
            buffer.position(buffer.position() + n);
        }
        return n;
    }

    /**
     * Writes from a buffer viewing native memory, from its position to its limit, and moves the
     * position on by what was written.
     *
     * @param base the address of the buffer's index 0
     * @param buffer the view
     * @return as {@link #write(long, int)}
     * @throws IOException if the socket failed
     */
    int write(long base, ByteBuffer buffer) throws IOException {
        int n = write(base + buffer.position(), buffer.remaining());
        if (n > 0) {
            buffer.position(buffer.position() + n);
        }
        return n;
    }

    /**
     * Ends the socket's stream both ways, whatever holds it open: the owner's next read sees the
     * end and the peer sees the close. Callable from any thread; excludes {@link #close()}, so it
     * never reaches a descriptor number that was closed and reused. Idempotent.
     */
    synchronized void shutdown() {
        if (closed) {
            return;
        }
        shutDown = true;
        try {
            int ignored = (int) Calls.SHUTDOWN.invokeExact(fd, SHUT_RDWR);
        } catch (Throwable e) {
            // shutdown(2) of a connected socket we hold fails only if it is already shut down.
        }
    }

    /** Closes this object's descriptor; the socket itself ends once its channel is closed too. Idempotent. */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        try {
            int ignored = (int) Calls.CLOSE.invokeExact(fd);
        } catch (Throwable e) {
            // close(2) of a descriptor we own cannot fail in a way we could act on.
        }
        arena.close();
    }
}
