package dev.ofl.api.spi;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** The gate between a connection taking its next request and the server closing it while draining. */
class DrainGateTest {
    @Test
    void anIdleGateLetsRequestsInOneAtATime() {
        DrainGate gate = new DrainGate();
        assertTrue(gate.enter());
        assertFalse(gate.enter(), "a second request cannot get in while one is handled");
        gate.exit();
        assertTrue(gate.enter(), "after exit the next request gets in");
    }

    @Test
    void aBusyConnectionIsNotClosedUntilItsRequestFinished() {
        DrainGate gate = new DrainGate();
        assertTrue(gate.enter());
        assertFalse(gate.closeIfIdle(), "a request that got in finishes");
        gate.exit();
        assertTrue(gate.closeIfIdle(), "once idle the connection may be closed");
        assertFalse(gate.enter(), "no request gets in after the gate closed");
    }

    @Test
    void closingIsIdempotentAndExitCannotReopen() {
        DrainGate gate = new DrainGate();
        assertTrue(gate.closeIfIdle());
        assertTrue(gate.closeIfIdle(), "asking again still says closed");
        gate.exit();
        assertFalse(gate.enter(), "an exit without enter must not reopen a closed gate");
    }
}
