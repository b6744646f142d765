package dev.ofl.api.wire;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** Text a peer chose never reaches a log line or a refusal with a control character in it. */
class PeerTextTest {
    @Test
    void plainTextIsReturnedAsItIs() {
        String name = "embeddings-v2 é";
        assertSame(name, PeerText.escape(name));
    }

    @Test
    void lineBreaksAndTabsAreEscaped() {
        assertEquals("a\\nFAKE 12:00 ERROR x\\r\\tb", PeerText.escape("a\nFAKE 12:00 ERROR x\r\tb"));
    }

    @Test
    void escapingTwiceChangesNothing() {
        String once = PeerText.escape("a\nb\u001bc\\d");
        assertEquals(once, PeerText.escape(once));
    }

    @Test
    void terminalEscapesDelC1AndBidiOverridesAreEscaped() {
        assertEquals("\\u001b[31mred\\u007f\\u0085\\u2028\\u202eabc\\u2066",
                PeerText.escape("\u001b[31mred\u007f\u0085\u2028\u202eabc\u2066"));
    }

    @Test
    void noControlCharacterSurvives() {
        StringBuilder all = new StringBuilder();
        for (char c = 0; c < 0x3000; c++) {
            all.append(c);
        }
        String escaped = PeerText.escape(all.substring(0, 1000)) + PeerText.escape(all.substring(0x2000, 0x2100));
        escaped.chars().forEach(c -> assertFalse(Character.isISOControl(c) || c == 0x2028 || c == 0x2029
                || (c >= 0x202a && c <= 0x202e), () -> "control character " + Integer.toHexString(c) + " left"));
    }

    @Test
    void overlongTextIsCutAndTheCutSaysSo() {
        String escaped = PeerText.escape("x".repeat(5000));
        assertTrue(escaped.startsWith("x".repeat(1100) + "...(3900 more characters)"), escaped);
    }

    @Test
    void nullIsNamed() {
        assertEquals("null", PeerText.escape(null));
    }
}
