package dev.ofl.verbs;

import dev.ofl.verbs.ffm.ibv_device_attr;

import java.lang.foreign.MemorySegment;

/**
 * The device attributes ({@code struct ibv_device_attr}) that ofl uses to size its queues.
 * Immutable.
 *
 * @param firmwareVersion {@code fw_ver}
 * @param nodeGuid {@code node_guid} as a big-endian number
 * @param systemImageGuid {@code sys_image_guid} as a big-endian number
 * @param maxMrSize the largest registrable region in bytes
 * @param vendorId the IEEE vendor id
 * @param vendorPartId the vendor's part id
 * @param hardwareVersion the hardware version
 * @param maxQp the most queue pairs
 * @param maxQpWr the most outstanding work requests per queue
 * @param maxSge the most scatter/gather entries per work request
 * @param maxCq the most completion queues
 * @param maxCqe the most entries per completion queue
 * @param maxMr the most memory regions
 * @param maxPd the most protection domains
 * @param maxQpRdAtom the most outstanding RDMA reads and atomics a QP can answer
 * @param maxQpInitRdAtom the most outstanding RDMA reads and atomics a QP can issue
 * @param physicalPortCount the number of ports; ports are numbered from 1
 */
public record DeviceAttributes(String firmwareVersion, long nodeGuid, long systemImageGuid, long maxMrSize,
        int vendorId, int vendorPartId, int hardwareVersion, int maxQp, int maxQpWr, int maxSge, int maxCq,
        int maxCqe, int maxMr, int maxPd, int maxQpRdAtom, int maxQpInitRdAtom, int physicalPortCount) {

    /**
     * Reads the attributes from native memory.
     *
     * @param attr a segment holding a {@code struct ibv_device_attr}
     * @return the attributes
     */
    public static DeviceAttributes read(MemorySegment attr) {
        return new DeviceAttributes(ibv_device_attr.fw_ver(attr).getString(0), ibv_device_attr.node_guid(attr),
                ibv_device_attr.sys_image_guid(attr), ibv_device_attr.max_mr_size(attr),
                ibv_device_attr.vendor_id(attr), ibv_device_attr.vendor_part_id(attr), ibv_device_attr.hw_ver(attr),
                ibv_device_attr.max_qp(attr), ibv_device_attr.max_qp_wr(attr), ibv_device_attr.max_sge(attr),
                ibv_device_attr.max_cq(attr), ibv_device_attr.max_cqe(attr), ibv_device_attr.max_mr(attr),
                ibv_device_attr.max_pd(attr), ibv_device_attr.max_qp_rd_atom(attr),
                ibv_device_attr.max_qp_init_rd_atom(attr), Byte.toUnsignedInt(ibv_device_attr.phys_port_cnt(attr)));
    }
}
