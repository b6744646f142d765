package dev.ofl.verbs.rdma;

import java.util.Map;
import java.util.OptionalInt;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class RdmaSettingsTest {
    @Test
    void defaultsAreTimeout14AndSixRetries() {
        RdmaSettings settings = RdmaSettings.from(Map.of());
        assertNull(settings.device());
        assertEquals(OptionalInt.empty(), settings.gidIndex());
        assertEquals(14, settings.timeout());
        assertEquals(6, settings.retryCount());
        assertEquals(6, settings.rts(1, RdmaSettings.RNR_RETRY_BOUNDED).retryCount());
        assertEquals(0, settings.blockingSpinMicros());
    }

    @Test
    void blockingSpinIsZeroToTenMilliseconds() {
        assertEquals(0, RdmaSettings.from(Map.of(RdmaSettings.BLOCKING_SPIN_MICROS, "0")).blockingSpinMicros());
        assertEquals(10_000, RdmaSettings.from(Map.of(RdmaSettings.BLOCKING_SPIN_MICROS, "10000"))
                .blockingSpinMicros());
        assertThrows(IllegalArgumentException.class,
                () -> RdmaSettings.from(Map.of(RdmaSettings.BLOCKING_SPIN_MICROS, "10001")));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> RdmaSettings.from(Map.of(RdmaSettings.BLOCKING_SPIN_MICROS, "-1")));
        assertEquals("rdma.blockingSpinMicros = -1 is outside 0..10000", e.getMessage());
    }

    @Test
    void acceptsEveryRetryCountUpToSix() {
        for (int n = 0; n <= 6; n++) {
            assertEquals(n, RdmaSettings.from(Map.of(RdmaSettings.RETRY_COUNT, " " + n + " ")).retryCount());
        }
        RdmaSettings settings = RdmaSettings.from(Map.of(RdmaSettings.DEVICE, "mlx5_0",
                RdmaSettings.GID_INDEX, "3", RdmaSettings.TIMEOUT, "18"));
        assertEquals("mlx5_0", settings.device());
        assertEquals(OptionalInt.of(3), settings.gidIndex());
        assertEquals(18, settings.timeout());
    }

    @Test
    void retryExhaustionIsTheSpecificationsTimerForEveryTry() {
        // 4.096 us x 2^timeout per try, retryCount + 1 tries: the bound a server waits on a lost peer.
        assertEquals(4096L * (1L << 14) * 7, RdmaSettings.from(Map.of()).retryExhaustionNs());
        assertEquals(4096L * 2, RdmaSettings.from(Map.of(RdmaSettings.TIMEOUT, "1", RdmaSettings.RETRY_COUNT, "0"))
                .retryExhaustionNs());
        assertEquals(4096L * (1L << 31) * 4, RdmaSettings.from(Map.of(RdmaSettings.TIMEOUT, "31",
                RdmaSettings.RETRY_COUNT, "3")).retryExhaustionNs());
    }

    @Test
    void refusesRetryCountSevenSayingWhyAndWhatToUse() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> RdmaSettings.from(Map.of(RdmaSettings.RETRY_COUNT, "7")));
        String message = e.getMessage();
        assertTrue(message.startsWith("rdma.retryCount = 7 is refused"), message);
        assertTrue(message.contains("rxe") && message.contains("retry for ever"), message);
        assertTrue(message.contains("never be reported"), message);
        assertTrue(message.contains("use 0..6") && message.contains("rdma.timeout"), message);
    }

    @Test
    void refusesOutOfRangeAndNonNumbersNamingTheKey() {
        IllegalArgumentException high = assertThrows(IllegalArgumentException.class,
                () -> RdmaSettings.from(Map.of(RdmaSettings.RETRY_COUNT, "8")));
        assertEquals("rdma.retryCount = 8 is outside 0..6", high.getMessage());
        IllegalArgumentException negative = assertThrows(IllegalArgumentException.class,
                () -> RdmaSettings.from(Map.of(RdmaSettings.RETRY_COUNT, "-1")));
        assertEquals("rdma.retryCount = -1 is outside 0..6", negative.getMessage());
        IllegalArgumentException word = assertThrows(IllegalArgumentException.class,
                () -> RdmaSettings.from(Map.of(RdmaSettings.RETRY_COUNT, "seven")));
        assertEquals("rdma.retryCount = 'seven' is not a number", word.getMessage());
        IllegalArgumentException timeout = assertThrows(IllegalArgumentException.class,
                () -> RdmaSettings.from(Map.of(RdmaSettings.TIMEOUT, "0")));
        assertEquals("rdma.timeout = 0 is outside 1..31", timeout.getMessage());
        IllegalArgumentException unknown = assertThrows(IllegalArgumentException.class,
                () -> RdmaSettings.from(Map.of("rdma.retries", "3")));
        assertTrue(unknown.getMessage().startsWith("unknown RDMA property 'rdma.retries'"), unknown.getMessage());
    }
}
