package dev.ofl.api.wire;

/** Values of a bootstrap body's {@code transport} field. */
public final class TransportKind {
    /** Data path over the bootstrap TCP connection itself. */
    public static final int TCP = 1;
    /** Data path over an RDMA RC queue pair; the TCP connection stays open for liveness. */
    public static final int RDMA = 2;
    /**
     * Data path inside one process, for test fixtures such as an in-memory fake transport; the TCP
     * connection carries the bootstrap and liveness only. Never meaningful between two hosts.
     */
    public static final int IN_PROCESS = 127;

    private TransportKind() {
    }

    /**
     * Names a transport value.
     *
     * @param kind the value
     * @return {@code "tcp"}, {@code "rdma"}, {@code "in-process"} or {@code "unknown(n)"}
     */
    public static String name(int kind) {
        return switch (kind) {
            case TCP -> "tcp";
            case RDMA -> "rdma";
            case IN_PROCESS -> "in-process";
            default -> "unknown(" + kind + ")";
        };
    }
}
