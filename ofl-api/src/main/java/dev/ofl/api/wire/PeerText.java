package dev.ofl.api.wire;

import java.util.Arrays;

/**
 * Makes text a peer chose safe to put in a log line or a refusal: a peer controls service names and
 * refusal reasons, and a line feed in one would forge a log line, an escape sequence would drive
 * the operator's terminal. Stateless and thread-safe.
 */
public final class PeerText {
    /** More than any field a peer may send (a refusal text is at most 1,024 bytes): the rest is cut. */
    private static final int MAX_CHARS = 1100;

    private PeerText() {
    }

    /**
     * Escapes control characters (C0, DEL, C1, and the Unicode line and paragraph separators and
     * bidirectional overrides) as {@code \n}, {@code \r}, {@code \t} or {@code \}{@code uXXXX},
     * and cuts text longer than 1,100 characters, marking the cut. Backslashes are left as they
     * are, so that escaping text of up to 1,100 characters twice changes nothing: the aim is that no line or terminal control
     * survives, not that the original can be told back from the result.
     *
     * @param text what the peer sent, or {@code null}
     * @return the text with every control character escaped; {@code "null"} for {@code null}
     */
    public static String escape(String text) {
        if (text == null) {
            return "null";
        }
        int length = Math.min(text.length(), MAX_CHARS);
        int i = 0;
        while (i < length && !needsEscape(text.charAt(i))) {
            i++;
        }
        if (i == text.length()) {
            return text;
        }
        StringBuilder out = new StringBuilder(length + 16).append(text, 0, i);
        for (; i < length; i++) {
            char c = text.charAt(i);
            switch (c) {
                case '\n' -> out.append("\\n");
                case '\r' -> out.append("\\r");
                case '\t' -> out.append("\\t");
                default -> {
                    if (needsEscape(c)) {
                        out.append(String.format("\\u%04x", (int) c));
                    } else {
                        out.append(c);
                    }
                }
            }
        }
        if (text.length() > length) {
            out.append("...(").append(text.length() - length).append(" more characters)");
        }
        return out.toString();
    }

    /**
     * Cuts UTF-8 text to at most {@code maxBytes} bytes at a character boundary, so that the
     * receiver always gets whole characters (a refusal's text, a failure's reason).
     *
     * @param text UTF-8 bytes
     * @param maxBytes the most bytes to keep, at least 0
     * @return {@code text} itself when it fits, otherwise a cut copy
     */
    static byte[] cutUtf8(byte[] text, int maxBytes) {
        if (text.length <= maxBytes) {
            return text;
        }
        int cut = maxBytes;
        // Back up over continuation bytes (10xxxxxx) to the start of the character cut through.
        while (cut > 0 && (text[cut] & 0xC0) == 0x80) {
            cut--;
        }
        return Arrays.copyOf(text, cut);
    }

    private static boolean needsEscape(char c) {
        return Character.isISOControl(c) || c == '\u2028' || c == '\u2029'
                || (c >= '\u202a' && c <= '\u202e') || (c >= '\u2066' && c <= '\u2069');
    }
}
