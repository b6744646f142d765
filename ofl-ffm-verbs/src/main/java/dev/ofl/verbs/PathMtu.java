package dev.ofl.verbs;

import dev.ofl.verbs.ffm.ibv_mtu;

/**
 * Path MTU arithmetic over the {@code IBV_MTU_*} codes of {@link ibv_mtu}. The codes grow with the
 * size (256 = 1 ... 4096 = 5), so the smaller code is the smaller MTU. Stateless and thread-safe.
 */
public final class PathMtu {
    private PathMtu() {
    }

    /**
     * Returns the path MTU for a connection: the smaller of the two ports' active MTUs.
     *
     * @param localActiveMtu this port's {@code active_mtu} code
     * @param remoteActiveMtu the peer's {@code active_mtu} code, from the bootstrap
     * @return the smaller code
     * @throws IllegalArgumentException naming the value if either is not an {@code IBV_MTU_*} code
     */
    public static int pathMtu(int localActiveMtu, int remoteActiveMtu) {
        check("local active MTU", localActiveMtu);
        check("remote active MTU", remoteActiveMtu);
        return Math.min(localActiveMtu, remoteActiveMtu);
    }

    /**
     * Converts an MTU code to bytes.
     *
     * @param mtu an {@code IBV_MTU_*} code
     * @return 256, 512, 1024, 2048 or 4096
     * @throws IllegalArgumentException if {@code mtu} is not such a code
     */
    public static int toBytes(int mtu) {
        check("MTU code", mtu);
        return 128 << mtu;
    }

    /**
     * Converts a size in bytes to its MTU code.
     *
     * @param bytes 256, 512, 1024, 2048 or 4096
     * @return the {@code IBV_MTU_*} code
     * @throws IllegalArgumentException if {@code bytes} is not one of those sizes
     */
    public static int fromBytes(int bytes) {
        return switch (bytes) {
            case 256 -> ibv_mtu.IBV_MTU_256;
            case 512 -> ibv_mtu.IBV_MTU_512;
            case 1024 -> ibv_mtu.IBV_MTU_1024;
            case 2048 -> ibv_mtu.IBV_MTU_2048;
            case 4096 -> ibv_mtu.IBV_MTU_4096;
            default -> throw new IllegalArgumentException(
                    "MTU of " + bytes + " bytes is not an RDMA MTU; use 256, 512, 1024, 2048 or 4096");
        };
    }

    private static void check(String what, int mtu) {
        if (mtu < ibv_mtu.IBV_MTU_256 || mtu > ibv_mtu.IBV_MTU_4096) {
            throw new IllegalArgumentException(what + " " + mtu + " is not an IBV_MTU_* code (1 = 256 ... 5 = 4096)");
        }
    }
}
