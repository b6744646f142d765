package dev.ofl.verbs;

import dev.ofl.verbs.ffm.Verbs;
import dev.ofl.verbs.ffm.VerbsFunction;
import dev.ofl.verbs.ffm.ibv_context;
import dev.ofl.verbs.ffm.ibv_device_attr;
import dev.ofl.verbs.ffm.ibv_gid;
import dev.ofl.verbs.ffm.ibv_gid_entry;
import dev.ofl.verbs.ffm.ibv_port_attr;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;

/**
 * An open device ({@code struct ibv_context}): the root of the native object tree. Closing it
 * closes its protection domains (with their queue pairs and memory regions), then its completion
 * queues, then its completion channels, then calls {@code ibv_close_device}. Thread-safe.
 */
public final class Context extends OwnedResource {
    private final VerbsLibrary library;
    private final MemorySegment context;
    private final String deviceName;

    private Context(VerbsLibrary library, MemorySegment context, String deviceName) {
        super(null);
        this.library = library;
        this.context = context;
        this.deviceName = deviceName;
    }

    static Context open(VerbsLibrary library, Device device) {
        MemorySegment context;
        int errno;
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment state = Native.captureState(arena);
            try {
                context = (MemorySegment) Verbs.IBV_OPEN_DEVICE.invokeExact(
                        library.address(VerbsFunction.IBV_OPEN_DEVICE), state, device.address());
            } catch (Throwable t) {
                throw Native.unchecked(t);
            }
            errno = Verbs.errno(state);
        }
        if (context.equals(MemorySegment.NULL)) {
            throw VerbsException.errno("ibv_open_device", errno, "device " + device.name(),
                    "check that /dev/infiniband/uverbs* is readable and writable by this user and that the "
                            + "device's provider library (ibverbs-providers / libibverbs) is installed");
        }
        Context opened = new Context(library, ibv_context.reinterpret(context), device.name());
        opened.attach();
        return opened;
    }

    /**
     * Returns the library this context was opened through.
     *
     * @return the library
     */
    public VerbsLibrary library() {
        return library;
    }

    /**
     * Returns the native {@code struct ibv_context *}.
     *
     * @return the context, sized to the struct
     */
    public MemorySegment address() {
        return context;
    }

    /**
     * Returns the name of the device this context opened.
     *
     * @return the kernel device name
     */
    public String deviceName() {
        return deviceName;
    }

    /**
     * Tells whether the context is an extended {@code verbs_context}
     * ({@code abi_compat == __VERBS_ABI_IS_EXTENDED}), as every provider of rdma-core 13 and newer
     * returns.
     *
     * @return true if extended
     */
    public boolean isExtended() {
        return ibv_context.abi_compat(context).address() == -1L;
    }

    /**
     * Queries the device attributes ({@code ibv_query_device}).
     *
     * @return the attributes
     * @throws VerbsException if the query fails
     */
    public DeviceAttributes queryDevice() {
        ensureOpen();
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment attr = ibv_device_attr.allocate(arena);
            int rc;
            try {
                rc = (int) Verbs.IBV_QUERY_DEVICE.invokeExact(library.address(VerbsFunction.IBV_QUERY_DEVICE), context, attr);
            } catch (Throwable t) {
                throw Native.unchecked(t);
            }
            if (rc != 0) {
                throw VerbsException.returned("ibv_query_device", rc, "device " + deviceName,
                        "check the device with ibv_devinfo; its driver may have failed");
            }
            return DeviceAttributes.read(attr);
        }
    }

    /**
     * Queries a port through the exported {@code ibv_query_port}, which fills all fields but
     * {@code port_cap_flags2}.
     *
     * @param port the port number, from 1
     * @return the attributes
     * @throws VerbsException if the query fails, for example for a port that does not exist
     */
    public PortAttributes queryPort(int port) {
        ensureOpen();
        RtrParameters.checkRange("port", port, 0xff);
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment attr = ibv_port_attr.allocate(arena);
            int rc;
            try {
                rc = (int) Verbs.IBV_QUERY_PORT.invokeExact(library.address(VerbsFunction.IBV_QUERY_PORT), context,
                        (byte) port, attr);
            } catch (Throwable t) {
                throw Native.unchecked(t);
            }
            if (rc != 0) {
                throw VerbsException.returned("ibv_query_port", rc, "device " + deviceName + ", port " + port,
                        "use a port number between 1 and the device's phys_port_cnt (ibv_devinfo)");
            }
            return PortAttributes.read(port, attr);
        }
    }

    /**
     * Queries one GID through the legacy {@code ibv_query_gid}; an empty slot reads as zero.
     *
     * @param port the port number, from 1
     * @param index the GID index
     * @return the GID
     * @throws VerbsException if the index is out of range
     */
    public Gid queryGid(int port, int index) {
        ensureOpen();
        RtrParameters.checkRange("port", port, 0xff);
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment state = Native.captureState(arena);
            MemorySegment gid = ibv_gid.allocate(arena);
            int rc;
            try {
                rc = (int) Verbs.IBV_QUERY_GID.invokeExact(library.address(VerbsFunction.IBV_QUERY_GID), state, context,
                        (byte) port, index, gid);
            } catch (Throwable t) {
                throw Native.unchecked(t);
            }
            if (rc != 0) {
                throw VerbsException.errno("ibv_query_gid", Verbs.errno(state),
                        "device " + deviceName + ", port " + port + ", index " + index,
                        "use an index below the port's gid_tbl_len");
            }
            return Gid.read(gid);
        }
    }

    /**
     * Queries one GID entry with its type and netdev ({@code _ibv_query_gid_ex}).
     *
     * @param port the port number, from 1
     * @param index the GID index
     * @return the entry, or {@code null} for an empty slot ({@code ENODATA})
     * @throws VerbsException if the index is out of range or the query fails
     */
    public GidEntry queryGidEntry(int port, int index) {
        ensureOpen();
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment entry = ibv_gid_entry.allocate(arena);
            int rc;
            try {
                rc = (int) Verbs.IBV_QUERY_GID_EX.invokeExact(library.address(VerbsFunction.IBV_QUERY_GID_EX), context,
                        port, index, entry, 0, ibv_gid_entry.sizeof());
            } catch (Throwable t) {
                throw Native.unchecked(t);
            }
            if (rc == Errno.ENODATA) {
                return null;
            }
            if (rc != 0) {
                throw VerbsException.returned("_ibv_query_gid_ex", rc,
                        "device " + deviceName + ", port " + port + ", index " + index,
                        "use a port that exists and an index below its gid_tbl_len");
            }
            return GidEntry.read(entry);
        }
    }

    /**
     * Reads every valid GID entry of every port ({@code _ibv_query_gid_table}), sized from the
     * ports' {@code gid_tbl_len}.
     *
     * @return the valid entries, in the library's order
     * @throws VerbsException if a query fails
     */
    public List<GidEntry> queryGidTable() {
        int ports = queryDevice().physicalPortCount();
        int slots = 0;
        for (int port = 1; port <= ports; port++) {
            slots += queryPort(port).gidTableLength();
        }
        return queryGidTable(Math.max(slots, 1));
    }

    /**
     * Reads up to {@code maxEntries} valid GID entries of every port ({@code _ibv_query_gid_table}).
     *
     * @param maxEntries room for this many entries, at least 1
     * @return the valid entries, in the library's order
     * @throws VerbsException if the query fails, for example {@code EINVAL} when there are more
     *     valid entries than {@code maxEntries}
     */
    public List<GidEntry> queryGidTable(int maxEntries) {
        ensureOpen();
        if (maxEntries < 1) {
            throw new IllegalArgumentException("maxEntries must be at least 1, got " + maxEntries);
        }
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment entries = ibv_gid_entry.allocateArray(maxEntries, arena);
            long count;
            try {
                count = (long) Verbs.IBV_QUERY_GID_TABLE.invokeExact(library.address(VerbsFunction.IBV_QUERY_GID_TABLE),
                        context, entries, (long) maxEntries, 0, ibv_gid_entry.sizeof());
            } catch (Throwable t) {
                throw Native.unchecked(t);
            }
            if (count < 0) {
                throw VerbsException.returned("_ibv_query_gid_table", count,
                        "device " + deviceName + ", max_entries " + maxEntries,
                        "pass max_entries of at least the sum of the ports' gid_tbl_len");
            }
            List<GidEntry> result = new ArrayList<>((int) count);
            for (int i = 0; i < count; i++) {
                result.add(GidEntry.read(ibv_gid_entry.asSlice(entries, i)));
            }
            return List.copyOf(result);
        }
    }

    /**
     * Allocates a protection domain ({@code ibv_alloc_pd}).
     *
     * @return the domain, owned by this context
     * @throws VerbsException if allocation fails
     */
    public ProtectionDomain allocateProtectionDomain() {
        ensureOpen();
        return ProtectionDomain.allocate(this);
    }

    /**
     * Creates a completion event channel ({@code ibv_create_comp_channel}).
     *
     * @return the channel, owned by this context
     * @throws VerbsException if creation fails
     */
    public CompletionChannel createCompletionChannel() {
        ensureOpen();
        return CompletionChannel.create(this);
    }

    /**
     * Creates a completion queue ({@code ibv_create_cq}).
     *
     * @param minimumEntries the entries it must hold at least; the device may round up
     * @param channel the channel to signal on {@link CompletionQueue#requestNotify(boolean)}, or
     *     {@code null} for a polled-only queue
     * @param completionVector the completion vector, from 0 below {@code num_comp_vectors}
     * @return the queue, owned by this context
     * @throws VerbsException if creation fails
     */
    public CompletionQueue createCompletionQueue(int minimumEntries, CompletionChannel channel, int completionVector) {
        ensureOpen();
        return CompletionQueue.create(this, minimumEntries, channel, completionVector);
    }

    /**
     * Returns the descriptor {@code ibv_get_async_event} reads ({@code async_fd}): readable while
     * an asynchronous event is pending. A caller that watches it with {@code poll} or
     * {@code epoll} makes it non-blocking ({@code O_NONBLOCK}) and takes events with
     * {@link #asyncEvents()}; it stays valid until this context is closed.
     *
     * @return the descriptor
     */
    public int asyncEventDescriptor() {
        ensureOpen();
        return ibv_context.async_fd(context);
    }

    /**
     * Makes a reader of this context's asynchronous events ({@code ibv_get_async_event}), with
     * one event buffer of its own, for the one thread that takes them.
     *
     * @return the reader; {@linkplain AsyncEvent#close() close} it before this context
     */
    public AsyncEvent asyncEvents() {
        ensureOpen();
        return new AsyncEvent(this);
    }

    @Override
    void destroy() {
        int rc;
        try {
            rc = (int) Verbs.IBV_CLOSE_DEVICE.invokeExact(library.address(VerbsFunction.IBV_CLOSE_DEVICE), context);
        } catch (Throwable t) {
            throw Native.unchecked(t);
        }
        if (rc != 0) {
            throw VerbsException.returned("ibv_close_device", rc, "device " + deviceName,
                    "none known; the context is leaked until the process exits");
        }
    }

    @Override
    public String toString() {
        return "Context[" + deviceName + ", " + Native.hex(context) + "]";
    }
}
