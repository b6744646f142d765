package dev.ofl.verbs.ffm;

import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

/** Golden bytes for the accessors whose byte order matters. */
class StructAccessorTest {
    @Test
    void sendImmediateIsStoredInNetworkOrder() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment wr = ibv_send_wr.allocate(arena);
            ibv_send_wr.imm_data(wr, 0x01020304);
            assertArrayEquals(new byte[] {1, 2, 3, 4}, wr.asSlice(36, 4).toArray(ValueLayout.JAVA_BYTE));
            assertEquals(0x01020304, ibv_send_wr.imm_data(wr));
            assertEquals(Integer.reverseBytes(0x01020304), ibv_send_wr.invalidate_rkey(wr), "same bytes, native order");
        }
    }

    @Test
    void completionImmediateIsReadFromNetworkOrder() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment wc = ibv_wc.allocate(arena);
            wc.asSlice(24, 4).copyFrom(MemorySegment.ofArray(new byte[] {(byte) 0xde, (byte) 0xad, (byte) 0xbe, (byte) 0xef}));
            assertEquals(0xdeadbeef, ibv_wc.imm_data(wc));
        }
    }

    @Test
    void rdmaFieldsLandWhereProvidersReadThem() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment wr = ibv_send_wr.allocate(arena);
            ibv_send_wr.wr_rdma_remote_addr(wr, 0x1122334455667788L);
            ibv_send_wr.wr_rdma_rkey(wr, 0xcafe);
            assertEquals(0x1122334455667788L, wr.get(ValueLayout.JAVA_LONG, 40));
            assertEquals(0xcafe, wr.get(ValueLayout.JAVA_INT, 48));
        }
    }

    @Test
    void gidHalvesAreBigEndian() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment gid = ibv_gid.allocate(arena);
            ibv_gid.global_interface_id(gid, 0x0000ffffc0a8010aL);
            byte[] expected = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, (byte) 0xff, (byte) 0xff, (byte) 192, (byte) 168, 1, 10};
            assertArrayEquals(expected, ibv_gid.raw(gid).toArray(ValueLayout.JAVA_BYTE));
        }
    }

    @Test
    void nestedAddressVectorSitsInsideQpAttr() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment attr = ibv_qp_attr.allocate(arena);
            ibv_ah_attr.is_global(ibv_qp_attr.ah_attr(attr), (byte) 1);
            ibv_global_route.sgid_index(ibv_ah_attr.grh(ibv_qp_attr.ah_attr(attr)), (byte) 3);
            assertEquals(1, attr.get(ValueLayout.JAVA_BYTE, 85));
            assertEquals(3, attr.get(ValueLayout.JAVA_BYTE, 76));
        }
    }
}
