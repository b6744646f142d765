package dev.ofl.verbs;

import dev.ofl.verbs.ffm.ibv_mtu;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class PathMtuTest {
    @Test
    void pathMtuIsTheSmallerActiveMtu() {
        assertEquals(ibv_mtu.IBV_MTU_1024, PathMtu.pathMtu(ibv_mtu.IBV_MTU_4096, ibv_mtu.IBV_MTU_1024));
        assertEquals(ibv_mtu.IBV_MTU_1024, PathMtu.pathMtu(ibv_mtu.IBV_MTU_1024, ibv_mtu.IBV_MTU_4096));
        assertEquals(ibv_mtu.IBV_MTU_4096, PathMtu.pathMtu(ibv_mtu.IBV_MTU_4096, ibv_mtu.IBV_MTU_4096));
    }

    @Test
    void convertsBothWays() {
        int[] bytes = {256, 512, 1024, 2048, 4096};
        for (int i = 0; i < bytes.length; i++) {
            assertEquals(bytes[i], PathMtu.toBytes(i + 1));
            assertEquals(i + 1, PathMtu.fromBytes(bytes[i]));
        }
    }

    @Test
    void refusesNonMtuValuesNamingThem() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> PathMtu.pathMtu(6, 3));
        assertTrue(e.getMessage().contains("local active MTU 6"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> PathMtu.toBytes(0));
        assertThrows(IllegalArgumentException.class, () -> PathMtu.fromBytes(1500));
    }
}
