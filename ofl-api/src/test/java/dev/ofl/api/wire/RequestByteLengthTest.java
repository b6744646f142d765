package dev.ofl.api.wire;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class RequestByteLengthTest {
    @Test
    void aMessageOfExactlyTheDescribedLengthPasses() {
        assertDoesNotThrow(() -> MessageChecks.checkRequestByteLength(192, 192));
    }

    @Test
    void anyOtherLengthIsRefusedNamingTheField() {
        ProtocolException longer = assertThrows(ProtocolException.class,
                () -> MessageChecks.checkRequestByteLength(200, 192));
        assertTrue(longer.getMessage().contains("request byte length"), longer.getMessage());
        assertTrue(longer.getMessage().contains("192"), longer.getMessage());
        assertThrows(ProtocolException.class, () -> MessageChecks.checkRequestByteLength(100, 192));
    }
}
