package dev.ofl.verbs;

import org.junit.jupiter.api.Test;

import java.net.Inet4Address;
import java.net.InetAddress;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class GidTest {
    @Test
    void ipv4MappedGidHasTheDocumentedBytes() throws Exception {
        Gid gid = Gid.ipv4Mapped((Inet4Address) InetAddress.getByName("192.168.1.10"));
        assertEquals(0, gid.subnetPrefix());
        assertEquals(0x0000ffffc0a8010aL, gid.interfaceId());
        assertArrayEquals(new byte[] {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, (byte) 0xff, (byte) 0xff, (byte) 192, (byte) 168, 1, 10},
                gid.toBytes());
        assertEquals("::ffff:192.168.1.10", gid.toString());
        assertEquals("192.168.1.10", gid.ipv4().orElseThrow().getHostAddress());
        assertEquals(gid, Gid.fromBytes(gid.toBytes()));
    }

    @Test
    void formatsLikeIbvDevinfo() {
        Gid linkLocal = Gid.fromBytes(new byte[] {(byte) 0xfe, (byte) 0x80, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 1});
        assertEquals("fe80::200:0:0:1", linkLocal.toString());
        assertTrue(linkLocal.ipv4().isEmpty());
        assertEquals("::", Gid.ZERO.toString());
        assertTrue(Gid.ZERO.isZero());
        assertEquals("1::1", new Gid(0x0001_0000_0000_0000L, 1).toString());
    }

    @Test
    void refusesWrongLength() {
        assertThrows(IllegalArgumentException.class, () -> Gid.fromBytes(new byte[4]));
    }
}
