package dev.ofl.api.spi;

import dev.ofl.api.Limits;
import dev.ofl.api.Region;
import dev.ofl.api.ResponseRanges;
import dev.ofl.api.wire.MessageHeader;
import dev.ofl.api.wire.MessageType;
import dev.ofl.api.wire.RangeDescriptor;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.List;

/**
 * What every client backend does to a request before sending it: the checks of
 * {@link dev.ofl.api.OflClient#submit} (nothing is sent when one fails) and the encoding of the
 * REQUEST message into a send slot. Allocation-free unless a check fails.
 */
public final class RequestEncoder {
    /** How a transport names a destination range to the server. */
    public interface RangeAddressing {
        /**
         * How a range is named to the server: the address its first byte goes to.
         *
         * @param region the range's region
         * @param offset the range's offset in it
         * @return the address for the range descriptor (zero where the server needs none)
         */
        long rangeAddress(Region region, long offset);

        /**
         * The key that lets the server write into a region on this connection.
         *
         * @param region the region
         * @return the key for the range descriptor (zero where the server needs none)
         * @throws IllegalArgumentException if the region is not usable on this connection
         */
        int rangeKey(Region region);
    }

    private final MessageHeader header = new MessageHeader();

    /** Creates an encoder; one per client. */
    public RequestEncoder() {
    }

    /**
     * Checks a submission against the negotiated limits and the client's regions.
     *
     * @param owner the submitting client
     * @param regions the client's regions, indexed by {@link Region#id()}
     * @param limits the negotiated limits
     * @param payloadLength the payload length given
     * @param ranges the ranges given
     * @throws IllegalArgumentException naming what does not fit
     */
    public static void check(Object owner, List<Region> regions, Limits limits, int payloadLength,
            ResponseRanges ranges) {
        if (payloadLength < 0 || payloadLength > limits.maxRequestBytes()) {
            throw new IllegalArgumentException("payload length " + payloadLength + " is outside 0.."
                    + limits.maxRequestBytes() + " (the negotiated maxRequestBytes)");
        }
        int count = ranges.count();
        if (count > limits.maxRanges()) {
            throw new IllegalArgumentException(count + " ranges exceed the negotiated maxRanges " + limits.maxRanges());
        }
        if (ranges.totalLength() > limits.maxResponseBytes()) {
            throw new IllegalArgumentException("ranges of " + ranges.totalLength()
                    + " bytes exceed the negotiated maxResponseBytes " + limits.maxResponseBytes());
        }
        for (int i = 0; i < count; i++) {
            Region region = ranges.region(i);
            if (region.owner() != owner || region.id() >= regions.size() || regions.get(region.id()) != region) {
                throw new IllegalArgumentException("range " + i + " lies in " + region
                        + ", which is not registered with this client");
            }
        }
    }

    /**
     * Writes a checked request into a send slot whose payload area already holds the payload.
     *
     * @param slot the send slot: header at 0, payload at {@link MessageHeader#LENGTH}
     * @param sequence the request's sequence on its connection
     * @param op the op
     * @param generation the generation
     * @param payloadLength the payload length
     * @param ranges the checked ranges
     * @param addressing how ranges are named to the server
     * @return the message length to send
     */
    public long encode(MemorySegment slot, long sequence, int op, long generation, int payloadLength,
            ResponseRanges ranges, RangeAddressing addressing) {
        int count = ranges.count();
        header.wrap(slot, 0)
                .reset(MessageType.REQUEST, sequence)
                .op(op)
                .generation(generation)
                .payloadLength(payloadLength)
                .rangeCount(count);
        long rangesOffset = MessageHeader.rangesOffset(payloadLength);
        for (long pad = MessageHeader.LENGTH + payloadLength; pad < rangesOffset; pad++) {
            slot.set(ValueLayout.JAVA_BYTE, pad, (byte) 0);
        }
        for (int i = 0; i < count; i++) {
            Region region = ranges.region(i);
            RangeDescriptor.write(slot, rangesOffset + (long) i * RangeDescriptor.LENGTH,
                    addressing.rangeAddress(region, ranges.offset(i)), (int) ranges.length(i),
                    addressing.rangeKey(region));
        }
        return rangesOffset + (long) count * RangeDescriptor.LENGTH;
    }
}
