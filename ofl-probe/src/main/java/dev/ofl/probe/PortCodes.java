package dev.ofl.probe;

import dev.ofl.verbs.PathMtu;
import dev.ofl.verbs.ffm.ibv_mtu;

/**
 * Names for the port codes that {@code <infiniband/verbs.h>} declares only as {@code uint8_t}:
 * physical state, link width and lane speed. The values are the kernel's {@code enum
 * ib_port_phys_state}, {@code enum ib_port_width} and {@code enum ib_port_speed}
 * (include/rdma/ib_verbs.h, https://github.com/torvalds/linux/blob/master/include/rdma/ib_verbs.h);
 * the texts follow rdma-core's {@code ibv_devinfo}. Stateless and thread-safe.
 */
final class PortCodes {
    private PortCodes() {
    }

    /**
     * Names a physical port state.
     *
     * @param code {@code phys_state}
     * @return for example {@code "LINK_UP"}, or {@code "unknown(<code>)"}
     */
    static String physicalState(int code) {
        return switch (code) {
            case 1 -> "SLEEP";
            case 2 -> "POLLING";
            case 3 -> "DISABLED";
            case 4 -> "PORT_CONFIGURATION_TRAINING";
            case 5 -> "LINK_UP";
            case 6 -> "LINK_ERROR_RECOVERY";
            case 7 -> "PHY_TEST";
            default -> unknown(code);
        };
    }

    /**
     * Names a link width.
     *
     * @param code {@code active_width}
     * @return for example {@code "4X"}, or {@code "unknown(<code>)"}
     */
    static String width(int code) {
        return switch (code) {
            case 1 -> "1X";
            case 16 -> "2X";
            case 2 -> "4X";
            case 4 -> "8X";
            case 8 -> "12X";
            default -> unknown(code);
        };
    }

    /**
     * Names a per-lane speed; the link carries this times the width.
     *
     * @param code {@code active_speed}
     * @return for example {@code "25.0 Gbps (EDR)"}, or {@code "unknown(<code>)"}
     */
    static String laneSpeed(int code) {
        return switch (code) {
            case 1 -> "2.5 Gbps (SDR)";
            case 2 -> "5.0 Gbps (DDR)";
            case 4 -> "10.0 Gbps (QDR)";
            case 8 -> "10.0 Gbps (FDR10)";
            case 16 -> "14.0 Gbps (FDR)";
            case 32 -> "25.0 Gbps (EDR)";
            case 64 -> "50.0 Gbps (HDR)";
            case 128 -> "100.0 Gbps (NDR)";
            default -> unknown(code);
        };
    }

    /**
     * Converts an MTU code to bytes, tolerating codes outside {@code IBV_MTU_*}.
     *
     * @param code an {@code enum ibv_mtu} value
     * @return the MTU in bytes, or {@code null} when the code is not an {@code IBV_MTU_*} value
     */
    static Integer mtuBytes(int code) {
        return code >= ibv_mtu.IBV_MTU_256 && code <= ibv_mtu.IBV_MTU_4096 ? PathMtu.toBytes(code) : null;
    }

    /**
     * Drops the C prefix of an enum name for display.
     *
     * @param cName for example {@code "IBV_PORT_ACTIVE"}
     * @param prefix for example {@code "IBV_PORT_"}
     * @return for example {@code "ACTIVE"}; {@code cName} unchanged when it lacks the prefix
     */
    static String shortName(String cName, String prefix) {
        return cName.startsWith(prefix) ? cName.substring(prefix.length()) : cName;
    }

    private static String unknown(int code) {
        return "unknown(" + code + ")";
    }
}
