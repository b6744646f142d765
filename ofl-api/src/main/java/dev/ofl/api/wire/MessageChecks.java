package dev.ofl.api.wire;

import dev.ofl.api.Limits;
import java.lang.foreign.MemorySegment;

/**
 * The one place where data-path messages read from the wire are checked against the protocol and
 * the negotiated limits, before any field is used. Each check throws {@link ProtocolException}
 * naming the field and its value. Allocation-free unless it throws.
 */
public final class MessageChecks {
    private MessageChecks() {
    }

    private static void requireZero(String field, long value, String rule) throws ProtocolException {
        if (value != 0) {
            throw new ProtocolException(field, value, rule);
        }
    }

    private static void common(MessageHeader header) throws ProtocolException {
        if (header.magic() != MessageHeader.MAGIC) {
            throw new ProtocolException("magic", Integer.toUnsignedLong(header.magic()),
                    "expected 0x" + Integer.toHexString(MessageHeader.MAGIC) + " (\"OFL1\")");
        }
        if (header.version() != MessageHeader.VERSION) {
            throw new ProtocolException("version", header.version(), "expected " + MessageHeader.VERSION);
        }
        if (header.flags() != 0) {
            throw new ProtocolException("flags", header.flags(), "must be zero in version 1");
        }
        if (header.reserved0() != 0) {
            throw new ProtocolException("reserved (offset 34)", header.reserved0(), "must be zero");
        }
        if (header.reserved1() != 0) {
            throw new ProtocolException("reserved (offset 44)", header.reserved1(), "must be zero");
        }
    }

    /**
     * Checks a REQUEST header (server side).
     *
     * @param header the header read
     * @param limits the negotiated limits
     * @param expectedSequence the sequence the next request must carry
     * @return the whole message's length: header, padded payload and range descriptors
     * @throws ProtocolException naming the first field that fails
     */
    public static long checkRequest(MessageHeader header, Limits limits, long expectedSequence)
            throws ProtocolException {
        common(header);
        if (header.type() != MessageType.REQUEST) {
            throw new ProtocolException("type", header.type(), "a client sends only REQUEST (1)");
        }
        if (header.sequence() != expectedSequence) {
            throw new ProtocolException("sequence", header.sequence(), "expected " + expectedSequence);
        }
        if (header.payloadLength() > limits.maxRequestBytes()) {
            throw new ProtocolException("payload length", header.payloadLength(),
                    "exceeds the negotiated maxRequestBytes " + limits.maxRequestBytes());
        }
        if (header.rangeCount() > limits.maxRanges()) {
            throw new ProtocolException("range count", header.rangeCount(),
                    "exceeds the negotiated maxRanges " + limits.maxRanges());
        }
        requireZero("status", header.status(), "a REQUEST carries no status");
        requireZero("handler status", header.handlerStatus(), "a REQUEST carries no handler status");
        requireZero("response offset", header.responseOffset(), "a REQUEST carries no response offset");
        requireZero("response length", header.responseLength(), "a REQUEST carries no response length");
        return MessageHeader.requestLength((int) header.payloadLength(), header.rangeCount());
    }

    /**
     * Checks, for a transport that receives each request as one message (RDMA, in-process), that
     * the bytes received are exactly the message its checked header describes.
     *
     * @param received the bytes the transport received
     * @param described the length {@link #checkRequest} returned
     * @throws ProtocolException naming the received length when they differ
     */
    public static void checkRequestByteLength(long received, long described) throws ProtocolException {
        if (received != described) {
            throw new ProtocolException("request byte length", received,
                    "the header describes a message of " + described + " bytes");
        }
    }

    /**
     * Checks a REQUEST's range descriptors (server side).
     *
     * @param message the buffer holding the whole request
     * @param headerOffset where its header starts
     * @param header the checked header
     * @param limits the negotiated limits
     * @return the response capacity: the sum of the range lengths
     * @throws ProtocolException naming the first range that fails
     */
    public static long checkRanges(MemorySegment message, long headerOffset, MessageHeader header, Limits limits)
            throws ProtocolException {
        long at = headerOffset + MessageHeader.rangesOffset((int) header.payloadLength());
        long total = 0;
        for (int i = 0; i < header.rangeCount(); i++, at += RangeDescriptor.LENGTH) {
            long length = RangeDescriptor.length(message, at);
            if (length == 0) {
                throw new ProtocolException("range[" + i + "].length", length, "must be at least 1");
            }
            total += length;
            if (total > limits.maxResponseBytes()) {
                throw new ProtocolException("range[" + i + "].length", length,
                        "makes the ranges exceed the negotiated maxResponseBytes " + limits.maxResponseBytes());
            }
        }
        return total;
    }

    /**
     * Checks a DATA or RESPONSE header (client side) for the oldest outstanding request.
     *
     * @param header the header read
     * @param expectedSequence the oldest outstanding request's sequence
     * @param received response bytes already received for it
     * @param capacity its ranges' total length
     * @return the header's type, {@link MessageType#DATA} or {@link MessageType#RESPONSE}
     * @throws ProtocolException naming the first field that fails
     */
    public static int checkServerMessage(MessageHeader header, long expectedSequence, long received, long capacity)
            throws ProtocolException {
        return checkServerMessage(header, expectedSequence, received, capacity, 0);
    }

    /**
     * Checks a DATA or RESPONSE header (client side) for the oldest outstanding request, on a
     * connection that may have negotiated failure reasons ({@link FailureReason}): a
     * {@code HANDLER_FAILED} RESPONSE may then report a length of up to {@code reasonBytes}, which
     * must be every byte received for the request.
     *
     * @param header the header read
     * @param expectedSequence the oldest outstanding request's sequence
     * @param received response bytes already received for it
     * @param capacity its ranges' total length
     * @param reasonBytes the longest failure reason accepted: {@link FailureReason#MAX_BYTES} when
     *     negotiated, otherwise 0
     * @return the header's type, {@link MessageType#DATA} or {@link MessageType#RESPONSE}
     * @throws ProtocolException naming the first field that fails
     */
    public static int checkServerMessage(MessageHeader header, long expectedSequence, long received, long capacity,
            int reasonBytes) throws ProtocolException {
        common(header);
        int type = header.type();
        if (type != MessageType.DATA && type != MessageType.RESPONSE) {
            throw new ProtocolException("type", type, "a server sends DATA (2) or RESPONSE (3)");
        }
        if (header.sequence() != expectedSequence) {
            throw new ProtocolException("sequence", header.sequence(),
                    "expected the oldest outstanding request, " + expectedSequence);
        }
        if (header.rangeCount() != 0) {
            throw new ProtocolException("range count", header.rangeCount(), "must be zero from a server");
        }
        if (type == MessageType.DATA) {
            long length = header.payloadLength();
            if (header.responseOffset() != received) {
                throw new ProtocolException("response offset", header.responseOffset(),
                        "pieces arrive in order; expected " + received);
            }
            if (length == 0 || length > capacity - received) {
                throw new ProtocolException("payload length", length,
                        "a piece must be 1.." + (capacity - received) + " bytes (the ranges' space left)");
            }
            return type;
        }
        if (header.payloadLength() != 0) {
            throw new ProtocolException("payload length", header.payloadLength(), "a RESPONSE carries no payload");
        }
        checkStatus(header, received, received, reasonBytes);
        return type;
    }

    /**
     * Checks a RESPONSE header that arrived by RDMA WRITE WITH IMMEDIATE (client side). Unlike
     * TCP, the client cannot count the bytes that were placed, so an OK response's length is only
     * bounded by the ranges' capacity.
     *
     * @param header the header read from the completion ring
     * @param expectedSequence the oldest outstanding request's sequence
     * @param capacity its ranges' total length
     * @throws ProtocolException naming the first field that fails
     */
    public static void checkRdmaResponse(MessageHeader header, long expectedSequence, long capacity)
            throws ProtocolException {
        checkRdmaResponse(header, expectedSequence, capacity, 0);
    }

    /**
     * Checks a RESPONSE header that arrived by RDMA WRITE WITH IMMEDIATE (client side), on a
     * connection that may have negotiated failure reasons ({@link FailureReason}).
     *
     * @param header the header read from the completion ring
     * @param expectedSequence the oldest outstanding request's sequence
     * @param capacity its ranges' total length
     * @param reasonBytes the longest failure reason accepted: {@link FailureReason#MAX_BYTES} when
     *     negotiated, otherwise 0
     * @throws ProtocolException naming the first field that fails
     */
    public static void checkRdmaResponse(MessageHeader header, long expectedSequence, long capacity, int reasonBytes)
            throws ProtocolException {
        common(header);
        if (header.type() != MessageType.RESPONSE) {
            throw new ProtocolException("type", header.type(), "the completion ring holds only RESPONSE (3)");
        }
        if (header.sequence() != expectedSequence) {
            throw new ProtocolException("sequence", header.sequence(),
                    "expected the oldest outstanding request, " + expectedSequence);
        }
        requireZero("range count", header.rangeCount(), "a RESPONSE carries no ranges");
        requireZero("payload length", header.payloadLength(), "a RESPONSE carries no payload");
        checkStatus(header, 0, capacity, reasonBytes);
    }

    /**
     * The status rules of a RESPONSE, the same for every transport: OK carries a length in
     * {@code [minLength, maxLength]} and no handler status, REFUSED a non-zero handler status and
     * no length, HANDLER_FAILED no length or, with reasons negotiated, the reason's (at most
     * {@code reasonBytes}, within the ranges, and over TCP every byte received), BUSY neither data
     * nor handler status. The rule's text is built only when it fails: this runs on every response.
     */
    private static void checkStatus(MessageHeader header, long minLength, long maxLength, int reasonBytes)
            throws ProtocolException {
        int status = header.status();
        switch (status) {
            case WireStatus.OK -> {
                if (header.responseLength() < minLength || header.responseLength() > maxLength) {
                    throw new ProtocolException("response length", header.responseLength(), minLength == maxLength
                            ? "does not match the " + minLength + " bytes received"
                            : "exceeds the request's ranges, " + maxLength + " bytes");
                }
                if (header.handlerStatus() != 0) {
                    throw new ProtocolException("handler status", header.handlerStatus(), "must be zero with OK");
                }
            }
            case WireStatus.REFUSED -> {
                if (header.handlerStatus() == 0) {
                    throw new ProtocolException("handler status", 0, "a refusal carries a non-zero status");
                }
                if (header.responseLength() != 0) {
                    throw new ProtocolException("response length", header.responseLength(), "a refusal has none");
                }
            }
            case WireStatus.HANDLER_FAILED -> {
                long length = header.responseLength();
                if (length != 0 && (length > Math.min(reasonBytes, maxLength) || length < minLength)) {
                    throw new ProtocolException("response length", length, reasonBytes == 0
                            ? "a failure has none (no failure reason was negotiated)"
                            : "a failure reason is 1.." + Math.min(reasonBytes, maxLength) + " bytes, "
                                    + (minLength == maxLength ? "all of the " + minLength + " bytes received"
                                            : "within the ranges"));
                }
            }
            case WireStatus.BUSY -> {
                if (header.responseLength() != 0 || minLength != 0) {
                    throw new ProtocolException("response length", Math.max(header.responseLength(), minLength),
                            "BUSY answers a request whose handler never ran: it has no data");
                }
                if (header.handlerStatus() != 0) {
                    throw new ProtocolException("handler status", header.handlerStatus(), "must be zero with BUSY");
                }
            }
            default -> throw new ProtocolException("status", status, "not a known wire status");
        }
    }
}
