package dev.ofl.api.wire;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.lang.foreign.MemorySegment;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/** Golden bytes of the 16-byte range descriptor (docs/PROTOCOL.md 4.3 and 11.4). */
class RangeDescriptorTest {
    /** PROTOCOL.md 11.4: 4,096 bytes at 0x00007F3A12340000, rkey 0x1234. */
    private static final String RDMA = "00 00 34 12 3a 7f 00 00  00 10 00 00 34 12 00 00";

    @Test
    void encodesToTheGoldenBytes() {
        byte[] bytes = new byte[RangeDescriptor.LENGTH];
        RangeDescriptor.write(MemorySegment.ofArray(bytes), 0, 0x00007F3A12340000L, 4096, 0x1234);
        assertArrayEquals(Hex.bytes(RDMA), bytes, () -> Hex.dump(bytes));
    }

    @Test
    void decodesFromTheGoldenBytes() {
        MemorySegment in = MemorySegment.ofArray(Hex.bytes(RDMA));
        assertEquals(0x00007F3A12340000L, RangeDescriptor.address(in, 0));
        assertEquals(4096, RangeDescriptor.length(in, 0));
        assertEquals(0x1234, RangeDescriptor.key(in, 0));
    }

    @Test
    void tcpDescriptorCarriesOnlyTheLengthAndLengthIsUnsigned() {
        byte[] bytes = new byte[40];
        Arrays.fill(bytes, (byte) 0x33);
        MemorySegment buffer = MemorySegment.ofArray(bytes);
        RangeDescriptor.write(buffer, 24, 0, -1, 0);
        assertArrayEquals(Hex.bytes("00 00 00 00 00 00 00 00  ff ff ff ff 00 00 00 00"),
                Arrays.copyOfRange(bytes, 24, 40));
        assertEquals(0xFFFF_FFFFL, RangeDescriptor.length(buffer, 24));
        assertEquals((byte) 0x33, bytes[23], "the byte before the descriptor");
        assertArrayEquals(new int[] {0, 8, 12, 16}, new int[] {RangeDescriptor.ADDRESS_OFFSET,
            RangeDescriptor.LENGTH_OFFSET, RangeDescriptor.KEY_OFFSET, RangeDescriptor.LENGTH});
    }
}
