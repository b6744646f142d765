package dev.ofl.api.wire;

/** Values of the header's {@code type} field. */
public final class MessageType {
    /** Client to server: a request, followed by its payload and range descriptors. */
    public static final int REQUEST = 1;
    /** Server to client: a piece of response data (TCP only; RDMA places data by RDMA WRITE). */
    public static final int DATA = 2;
    /** Server to client: the completion of a request, after all of its data. */
    public static final int RESPONSE = 3;

    private MessageType() {
    }
}
