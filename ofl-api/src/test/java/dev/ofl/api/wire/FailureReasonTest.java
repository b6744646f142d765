package dev.ofl.api.wire;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** The failure reason's record, its text as a server sends it and as a client reads it (docs/PROTOCOL.md 3.7, 4.6). */
class FailureReasonTest {
    @Test
    void theRecordIsTypeThreeWithAnEmptyValue() throws ProtocolException {
        assertArrayEquals(new byte[] {0x03, 0x00, 0x00, 0x00}, FailureReason.record());
        assertTrue(FailureReason.present(FailureReason.record()));
        assertFalse(FailureReason.present(new byte[0]));
        byte[] beside = PskExchange.record(0x0002, new byte[0]);
        byte[] both = new byte[beside.length + 4];
        System.arraycopy(beside, 0, both, 0, beside.length);
        System.arraycopy(FailureReason.record(), 0, both, beside.length, 4);
        assertTrue(FailureReason.present(both), "found after another record");
        byte[] twice = new byte[8];
        System.arraycopy(FailureReason.record(), 0, twice, 0, 4);
        System.arraycopy(FailureReason.record(), 0, twice, 4, 4);
        ProtocolException e = assertThrows(ProtocolException.class, () -> FailureReason.present(twice));
        assertEquals("failure reason record count", e.field());
    }

    @Test
    void aServerSendsTheClassNameAndMessageEscaped() {
        byte[] reason = FailureReason.encode(new IllegalStateException("no row 7\nFORGED LOG LINE"), 256);
        assertEquals("java.lang.IllegalStateException: no row 7\\nFORGED LOG LINE",
                new String(reason, StandardCharsets.UTF_8));
        assertEquals("java.lang.RuntimeException",
                new String(FailureReason.encode(new RuntimeException(), 256), StandardCharsets.UTF_8));
    }

    @Test
    void aReasonIsCutToTheRangesAndTheMaximumAtACharacterBoundary() {
        // 36 bytes of "java.lang.IllegalArgumentException: " and one of "x": an odd prefix.
        String message = "x" + "é".repeat(400);
        byte[] whole = FailureReason.encode(new IllegalArgumentException(message), 1 << 20);
        assertTrue(whole.length <= FailureReason.MAX_BYTES && whole.length >= FailureReason.MAX_BYTES - 1,
                () -> "cut to the maximum: " + whole.length);
        String decoded = new String(whole, StandardCharsets.UTF_8);
        assertFalse(decoded.contains("\uFFFD"), "no character was split");
        assertEquals(FailureReason.MAX_BYTES - 1, whole.length, "the prefix is odd, so the last two-byte é is dropped");
        byte[] small = FailureReason.encode(new IllegalArgumentException(message), 38);
        assertEquals("java.lang.IllegalArgumentException: x", new String(small, StandardCharsets.UTF_8),
                "cut before an é that would not fit whole");
        assertEquals(0, FailureReason.encode(new IllegalArgumentException("x"), 0).length);
    }

    @Test
    void aClientTrustsNothingItReads() {
        byte[] hostile = {'o', 'k', 0x1b, '[', '2', 'J', '\n', (byte) 0xC3, (byte) 0x28, (byte) 0xFF};
        String text = FailureReason.decode(hostile);
        assertEquals("ok\\u001b[2J\\n\uFFFD(\uFFFD", text);
        assertEquals(FailureReason.MAX_BYTES, FailureReason.decode("a".repeat(1000).getBytes(StandardCharsets.UTF_8))
                .length(), "at most the maximum is read");
    }
}
