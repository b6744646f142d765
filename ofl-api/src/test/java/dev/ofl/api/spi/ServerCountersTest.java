package dev.ofl.api.spi;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.ofl.api.ServerStatistics;
import dev.ofl.api.wire.WireStatus;
import org.junit.jupiter.api.Test;

/** Each event lands in its own counter of the snapshot, and only there. */
class ServerCountersTest {
    @Test
    void newCountersAreZero() {
        assertEquals(new ServerStatistics(0, 0, 0, 0, 0, 0, 0, 0, 0, 0), new ServerCounters().snapshot());
    }

    @Test
    void requestsAreCountedWithTheirOutcome() {
        ServerCounters counters = new ServerCounters();
        counters.request(WireStatus.OK);
        counters.request(WireStatus.REFUSED);
        counters.request(WireStatus.REFUSED);
        counters.request(WireStatus.HANDLER_FAILED);
        counters.request(WireStatus.HANDLER_FAILED);
        counters.request(WireStatus.HANDLER_FAILED);
        assertEquals(new ServerStatistics(0, 0, 6, 2, 3, 0, 0, 0, 0, 0), counters.snapshot());
    }

    @Test
    void connectionEventsHaveTheirOwnCounters() {
        ServerCounters counters = new ServerCounters();
        counters.connectionAccepted();
        counters.connectionRefused();
        counters.connectionRefused();
        counters.protocolViolation();
        counters.protocolViolation();
        counters.protocolViolation();
        for (int i = 0; i < 4; i++) {
            counters.undeliveredResponse();
        }
        for (int i = 0; i < 5; i++) {
            counters.busyResponse();
        }
        assertEquals(new ServerStatistics(1, 2, 0, 0, 0, 3, 4, 5, 0, 0), counters.snapshot(),
                "a BUSY answer is neither a request handed to the handler nor a refusal by it");
    }
}
