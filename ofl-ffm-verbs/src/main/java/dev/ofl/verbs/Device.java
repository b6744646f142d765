package dev.ofl.verbs;

import dev.ofl.verbs.ffm.ibv_device;

import java.lang.foreign.MemorySegment;

/**
 * One entry of a {@link DeviceList}: a {@code struct ibv_device}, valid while the list is open.
 * Immutable; thread-safe while the list is open.
 */
public final class Device {
    private final DeviceList list;
    private final MemorySegment device;
    private final String name;

    Device(DeviceList list, MemorySegment device) {
        this.list = list;
        this.device = ibv_device.reinterpret(device);
        this.name = ibv_device.name(this.device).getString(0);
    }

    /**
     * Returns the kernel device name.
     *
     * @return for example {@code mlx5_0}, {@code rxe0} or {@code softverbs0}
     */
    public String name() {
        return name;
    }

    /**
     * Returns the node type.
     *
     * @return an {@code IBV_NODE_*} value of {@link dev.ofl.verbs.ffm.ibv_node_type}
     */
    public int nodeType() {
        return ibv_device.node_type(device);
    }

    /**
     * Returns the transport type; RoCE devices report {@code IBV_TRANSPORT_IB}.
     *
     * @return an {@code IBV_TRANSPORT_*} value of {@link dev.ofl.verbs.ffm.ibv_transport_type}
     */
    public int transportType() {
        return ibv_device.transport_type(device);
    }

    /**
     * Returns the native {@code struct ibv_device *}.
     *
     * @return the device address, sized to the struct
     */
    public MemorySegment address() {
        return device;
    }

    /**
     * Opens the device ({@code ibv_open_device}). The context stays valid after the list closes.
     *
     * @return a new context, owned by the caller
     * @throws VerbsException if the device cannot be opened
     */
    public Context open() {
        list.ensureOpen();
        return Context.open(list.library(), this);
    }

    @Override
    public String toString() {
        return "Device[" + name + "]";
    }
}
