package dev.ofl.api;

import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.net.InetSocketAddress;
import org.junit.jupiter.api.Test;

class ServerClockTest {
    private static ServerConfig.Builder builder() {
        return ServerConfig.builder().bind(new InetSocketAddress("127.0.0.1", 0)).serviceName("clock");
    }

    @Test
    void theSystemClockIsTheDefaultAndAnInjectedOneIsKept() {
        assertSame(NanoClock.SYSTEM, builder().build().clock());
        NanoClock mine = () -> 42L;
        assertSame(mine, builder().clock(mine).build().clock());
    }

    @Test
    void aMissingClockIsRefused() {
        assertThrows(NullPointerException.class, () -> builder().clock(null).build());
    }
}
