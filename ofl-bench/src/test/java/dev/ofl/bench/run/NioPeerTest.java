package dev.ofl.bench.run;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.List;
import org.junit.jupiter.api.Test;

class NioPeerTest {
    @Test
    void checkFindsEveryCorruptedByteOfTheCPeersPattern() {
        int length = 1000;
        ByteBuffer b = ByteBuffer.allocate(length).order(ByteOrder.LITTLE_ENDIAN);
        for (int i = 0; i < length; i++) {
            b.put(i, NioPeer.baseByte(i));
        }
        NioPeer.stamp(b, length, 77);
        assertEquals(0, NioPeer.check(b, length, 77));
        assertEquals(4, NioPeer.check(b, length, 78), "each of the 4 whole rows has a wrong iteration stamp");
        b.put(999, (byte) (b.get(999) + 1));
        assertEquals(1, NioPeer.check(b, length, 77));
    }

    @Test
    void parsesIbSendLatTypicalAndMedians() {
        String output = """
                ---------------------------------------------------------------------------------------
                 #bytes #iterations    t_min[usec]    t_max[usec]  t_typical[usec]    t_avg[usec]
                 64      1000          3.10           12.50        3.42               3.55
                ---------------------------------------------------------------------------------------
                """;
        assertEquals(3.42, Compare.ibTypicalMicros(output), 1e-9);
        assertEquals(null, Compare.ibTypicalMicros("no table"));
        assertEquals(2.0, Compare.median(List.of(3.0, 1.0, 2.0)), 1e-9);
        assertEquals(2.5, Compare.median(List.of(3.0, 1.0, 2.0, 4.0)), 1e-9);
    }
}
