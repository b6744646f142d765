package dev.ofl.api.wire;

import java.nio.charset.StandardCharsets;

/**
 * The wire format of a handler failure's reason (docs/PROTOCOL.md 3.7 and 4.6): a short text
 * telling the client why its request ended {@code HANDLER_FAILED}, carried only when both peers
 * agreed to it, so that a peer that predates it never sees one.
 *
 * <pre>
 * HELLO     ext 0x0003, empty      the client accepts a reason with HANDLER_FAILED
 * WELCOME   ext 0x0003, empty      the server sends one (only to a client that offered)
 * RESPONSE  HANDLER_FAILED, response length n (1 .. 256)
 *           the first n bytes of the response stream hold the reason, UTF-8
 * </pre>
 *
 * <p>The reason travels as response bytes (DATA pieces over TCP, RDMA WRITEs over RDMA), the
 * only memory of the client's a server may write; a RESPONSE header has no room for text, and the
 * client's ranges hold nothing trustworthy after a failure anyway. Stateless.
 */
public final class FailureReason {
    /** Extension type of the HELLO's offer and the WELCOME's answer: optional, bit 0x8000 clear. */
    public static final int EXTENSION_TYPE = 0x0003;
    /** The longest reason, in bytes of UTF-8. */
    public static final int MAX_BYTES = 256;

    static {
        if ((EXTENSION_TYPE & Bootstrap.EXTENSION_CRITICAL) != 0) {
            throw new AssertionError("the failure reason extension must be optional");
        }
    }

    private FailureReason() {
    }

    /**
     * The HELLO's offer, and the WELCOME's answer: the same record, type and an empty value.
     *
     * @return the record
     */
    public static byte[] record() {
        return PskExchange.record(EXTENSION_TYPE, new byte[0]);
    }

    /**
     * Whether an extension area holds the record (a HELLO's offer or a WELCOME's answer). A value
     * is ignored, left for a later version to give a meaning.
     *
     * @param extensions a checked extension area
     * @return {@code true} if a record of the type is there
     * @throws ProtocolException if the record appears twice
     */
    public static boolean present(byte[] extensions) throws ProtocolException {
        return Bootstrap.findExtension(extensions, EXTENSION_TYPE, "failure reason record") >= 0;
    }

    /**
     * A handler's exception as the reason a server sends: its class name, a colon and its message,
     * with every control character escaped ({@link PeerText#escape}), cut at a character boundary
     * to at most {@code maxBytes} bytes of UTF-8.
     *
     * @param failure what the handler threw
     * @param maxBytes the most bytes the client's ranges can take, at most {@link #MAX_BYTES}
     * @return the reason's bytes; empty when {@code maxBytes} is zero
     */
    public static byte[] encode(Throwable failure, long maxBytes) {
        String message = failure.getMessage();
        String text = PeerText.escape(failure.getClass().getName() + (message == null ? "" : ": " + message));
        return PeerText.cutUtf8(text.getBytes(StandardCharsets.UTF_8), (int) Math.min(MAX_BYTES, Math.max(0, maxBytes)));
    }

    /**
     * A received reason as text for the application: invalid UTF-8 is replaced, not trusted, and
     * control characters are escaped, whatever the server did.
     *
     * @param reason the bytes the server placed, at most {@link #MAX_BYTES}
     * @return the text
     */
    public static String decode(byte[] reason) {
        // new String replaces malformed input: nothing the server sent is taken as it is.
        return PeerText.escape(new String(reason, 0, Math.min(reason.length, MAX_BYTES), StandardCharsets.UTF_8));
    }
}
