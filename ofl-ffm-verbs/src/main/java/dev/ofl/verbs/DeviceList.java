package dev.ofl.verbs;

import dev.ofl.verbs.ffm.Verbs;
import dev.ofl.verbs.ffm.VerbsFunction;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;

/**
 * The RDMA devices present ({@code ibv_get_device_list}); closing it calls
 * {@code ibv_free_device_list}. Contexts opened from its devices stay valid after it closes.
 * Thread-safe.
 */
public final class DeviceList extends OwnedResource {
    private final VerbsLibrary library;
    private final MemorySegment list;
    private final List<Device> devices;

    @SuppressWarnings("restricted")
    private DeviceList(VerbsLibrary library, MemorySegment list, int count) {
        super(null);
        this.library = library;
        this.list = list.reinterpret(ValueLayout.ADDRESS.byteSize() * (count + 1L));
        List<Device> entries = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            entries.add(new Device(this, this.list.getAtIndex(ValueLayout.ADDRESS, i)));
        }
        this.devices = List.copyOf(entries);
    }

    /**
     * Lists the devices through a library.
     *
     * @param library the loaded libibverbs
     * @return the list, owned by the caller; possibly empty
     * @throws RdmaUnavailableException with {@link RdmaUnavailableException.Reason#KERNEL_WITHOUT_RDMA}
     *     when the call fails with {@code ENOSYS}, or
     *     {@link RdmaUnavailableException.Reason#DEVICE_LIST_FAILED} for any other errno
     */
    @SuppressWarnings("restricted")
    public static DeviceList open(VerbsLibrary library) {
        MemorySegment list;
        int count;
        int errno;
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment state = Native.captureState(arena);
            MemorySegment num = arena.allocate(ValueLayout.JAVA_INT);
            try {
                list = (MemorySegment) Verbs.IBV_GET_DEVICE_LIST.invokeExact(
                        library.address(VerbsFunction.IBV_GET_DEVICE_LIST), state, num);
            } catch (Throwable t) {
                throw Native.unchecked(t);
            }
            count = num.get(ValueLayout.JAVA_INT, 0);
            errno = Verbs.errno(state);
        }
        if (list.equals(MemorySegment.NULL)) {
            if (errno == Errno.ENOSYS) {
                throw new RdmaUnavailableException(RdmaUnavailableException.Reason.KERNEL_WITHOUT_RDMA,
                        "ibv_get_device_list", errno, library.library(),
                        "the kernel has no RDMA support (no /sys/class/infiniband_verbs): load the RDMA "
                                + "drivers (modprobe ib_uverbs and the NIC's driver such as mlx5_ib, or rdma_rxe "
                                + "for soft-RoCE), use the TCP backend, or for development point "
                                + VerbsLibrary.LIBRARY_SETTING + " at softverbs' libibverbs.so.1",
                        null);
            }
            throw new RdmaUnavailableException(RdmaUnavailableException.Reason.DEVICE_LIST_FAILED,
                    "ibv_get_device_list", errno, library.library(),
                    "check that /dev/infiniband/uverbs* exist and are readable and writable by this user "
                            + "(rdma-core's udev rules), and that ibv_devices lists the device",
                    null);
        }
        DeviceList devices = new DeviceList(library, list, count);
        devices.attach();
        return devices;
    }

    /**
     * Returns the library the list came from.
     *
     * @return the library
     */
    public VerbsLibrary library() {
        return library;
    }

    /**
     * Returns the devices, in the library's order.
     *
     * @return an immutable list; its entries are valid while this list is open
     */
    public List<Device> devices() {
        return devices;
    }

    /**
     * Finds a device by name.
     *
     * @param name the kernel device name, for example {@code mlx5_0}
     * @return the device
     * @throws VerbsException naming the devices present when none has that name
     */
    public Device byName(String name) {
        for (Device device : devices) {
            if (device.name().equals(name)) {
                return device;
            }
        }
        List<String> names = devices.stream().map(Device::name).toList();
        throw new VerbsException(null, VerbsException.NO_CODE, VerbsException.NO_CODE,
                "no RDMA device named '" + name + "'; present: " + names,
                names.isEmpty() ? "load the RDMA driver or create a soft-RoCE device" : "use one of " + names, null);
    }

    @Override
    void destroy() {
        try {
            Verbs.IBV_FREE_DEVICE_LIST.invokeExact(library.address(VerbsFunction.IBV_FREE_DEVICE_LIST), list);
        } catch (Throwable t) {
            throw Native.unchecked(t);
        }
    }
}
