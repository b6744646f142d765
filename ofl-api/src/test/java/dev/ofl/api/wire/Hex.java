package dev.ofl.api.wire;

import java.util.HexFormat;

/** Golden bytes written as hex dumps in the tests, as in docs/PROTOCOL.md section 11. */
final class Hex {
    private Hex() {
    }

    /** Parses hex digits, ignoring whitespace. */
    static byte[] bytes(String dump) {
        return HexFormat.of().parseHex(dump.replaceAll("\\s+", ""));
    }

    /** Formats bytes as a dump of 16 per line, for failure messages. */
    static String dump(byte[] bytes) {
        StringBuilder out = new StringBuilder();
        for (int i = 0; i < bytes.length; i += 16) {
            out.append('\n').append(HexFormat.ofDelimiter(" ").formatHex(bytes, i, Math.min(bytes.length, i + 16)));
        }
        return out.toString();
    }
}
