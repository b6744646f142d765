package dev.ofl.fuzz;

import dev.ofl.api.Limits;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/**
 * A second reading of the validation tables of {@code docs/PROTOCOL.md} §9, written from the
 * document (§4.1's offsets, literal numbers on purpose) rather than from {@code MessageHeader}, so
 * that a fuzz target can compare the production checks with the specification. Each method returns
 * the name of the first field that fails, in the table's order, or {@code null} if none does.
 */
final class SpecOracle {
    private static final ValueLayout.OfInt U32 = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfShort U16 = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfLong U64 = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    private SpecOracle() {
    }

    private static long u8(MemorySegment m, long at) {
        return Byte.toUnsignedLong(m.get(ValueLayout.JAVA_BYTE, at));
    }

    private static long u16(MemorySegment m, long at) {
        return Short.toUnsignedLong(m.get(U16, at));
    }

    private static long u32(MemorySegment m, long at) {
        return Integer.toUnsignedLong(m.get(U32, at));
    }

    private static long u64(MemorySegment m, long at) {
        return m.get(U64, at);
    }

    /** §4.1: magic "OFL1", version 1, flags 0, the two reserved fields 0. */
    private static String common(MemorySegment m) {
        if (u32(m, 0) != 0x314C464FL) {
            return "magic";
        }
        if (u8(m, 4) != 1) {
            return "version";
        }
        if (u16(m, 6) != 0) {
            return "flags";
        }
        if (u16(m, 34) != 0) {
            return "reserved (offset 34)";
        }
        if (u32(m, 44) != 0) {
            return "reserved (offset 44)";
        }
        return null;
    }

    /** §9.3, the header rows. */
    static String request(MemorySegment m, Limits limits, long sequence) {
        String common = common(m);
        if (common != null) {
            return common;
        }
        if (u8(m, 5) != 1) {
            return "type";
        }
        if (u64(m, 8) != sequence) {
            return "sequence";
        }
        if (u32(m, 28) > limits.maxRequestBytes()) {
            return "payload length";
        }
        if (u16(m, 32) > limits.maxRanges()) {
            return "range count";
        }
        if (u32(m, 36) != 0) {
            return "status";
        }
        if (u32(m, 40) != 0) {
            return "handler status";
        }
        if (u64(m, 48) != 0) {
            return "response offset";
        }
        if (u64(m, 56) != 0) {
            return "response length";
        }
        return null;
    }

    /** §9.3, the range rows, for a REQUEST of {@code payload} bytes and {@code count} descriptors. */
    static String ranges(MemorySegment m, int payload, int count, Limits limits) {
        long at = 64 + ((payload + 7) & ~7L);
        long sum = 0;
        for (int i = 0; i < count; i++, at += 16) {
            long length = u32(m, at + 8);
            if (length < 1) {
                return "range[" + i + "].length";
            }
            sum += length;
            if (sum > limits.maxResponseBytes()) {
                return "range[" + i + "].length";
            }
        }
        return null;
    }

    /**
     * §9.4, for the oldest outstanding request (one is outstanding); {@code reasons}: failure
     * reasons were negotiated (§3.7).
     */
    static String serverMessage(MemorySegment m, long sequence, long received, long capacity, boolean reasons) {
        String common = common(m);
        if (common != null) {
            return common;
        }
        long type = u8(m, 5);
        if (type != 2 && type != 3) {
            return "type";
        }
        if (u64(m, 8) != sequence) {
            return "sequence";
        }
        if (u16(m, 32) != 0) {
            return "range count";
        }
        if (type == 2) {
            if (u64(m, 48) != received) {
                return "response offset";
            }
            long length = u32(m, 28);
            return length >= 1 && length <= capacity - received ? null : "payload length";
        }
        if (u32(m, 28) != 0) {
            return "payload length";
        }
        return status(m, received, received, reasons);
    }

    /** §9.5, after the completion checks of §7.4; {@code reasons} as for §9.4. */
    static String rdmaResponse(MemorySegment m, long sequence, long capacity, boolean reasons) {
        String common = common(m);
        if (common != null) {
            return common;
        }
        if (u8(m, 5) != 3) {
            return "type";
        }
        if (u64(m, 8) != sequence) {
            return "sequence";
        }
        if (u16(m, 32) != 0) {
            return "range count";
        }
        if (u32(m, 28) != 0) {
            return "payload length";
        }
        return status(m, 0, capacity, reasons);
    }

    /** The RESPONSE status rows shared by §9.4 and §9.5; lengths are unsigned on the wire. */
    private static String status(MemorySegment m, long minLength, long maxLength, boolean reasons) {
        long status = u32(m, 36);
        long handlerStatus = u32(m, 40);
        long length = u64(m, 56);
        if (status == 0) {
            if (Long.compareUnsigned(length, minLength) < 0 || Long.compareUnsigned(length, maxLength) > 0) {
                return "response length";
            }
            return handlerStatus != 0 ? "handler status" : null;
        }
        if (status == 1) {
            if (handlerStatus == 0) {
                return "handler status";
            }
            return length != 0 ? "response length" : null;
        }
        if (status == 2) {
            if (length == 0) {
                return null;
            }
            // A reason: at most 256 bytes; over TCP every byte received, over RDMA within the ranges.
            boolean tcp = minLength == maxLength;
            boolean fits = reasons && Long.compareUnsigned(length, 256) <= 0
                    && (tcp ? length == minLength : Long.compareUnsigned(length, maxLength) <= 0);
            return fits ? null : "response length";
        }
        if (status == 3) {
            // BUSY: the handler never ran, so nothing was sent before it and it carries nothing.
            if (length != 0 || minLength != 0) {
                return "response length";
            }
            return handlerStatus != 0 ? "handler status" : null;
        }
        return "status";
    }
}
