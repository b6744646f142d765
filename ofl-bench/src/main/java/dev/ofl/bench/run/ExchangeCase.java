package dev.ofl.bench.run;

import java.util.Locale;

/**
 * One request/response shape: bytes sent and bytes answered, both checked byte for byte.
 *
 * @param name the label in tables, JSON and charts
 * @param requestBytes request payload bytes, at least {@link ExchangeHandler#HEADER_BYTES}
 * @param responseBytes response bytes, zero or more
 */
public record ExchangeCase(String name, long requestBytes, long responseBytes) {
    /**
     * Checks the sizes.
     *
     * @throws IllegalArgumentException if the request is shorter than the header or the response negative
     */
    public ExchangeCase {
        if (requestBytes < ExchangeHandler.HEADER_BYTES || requestBytes > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("case " + name + ": request of " + requestBytes
                    + " bytes; it must be " + ExchangeHandler.HEADER_BYTES + ".." + Integer.MAX_VALUE
                    + " bytes (the header takes " + ExchangeHandler.HEADER_BYTES + ")");
        }
        if (responseBytes < 0 || responseBytes > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("case " + name + ": response of " + responseBytes
                    + " bytes; it must be 0.." + Integer.MAX_VALUE);
        }
    }

    /**
     * Parses {@code REQUEST/RESPONSE} with optional {@code K}, {@code KiB}, {@code MiB} suffixes
     * (powers of two), for example {@code 184416/24} or {@code 64/12MiB}; the name is the text.
     *
     * @param text the case
     * @return the case
     * @throws IllegalArgumentException if the text is not of that form
     */
    public static ExchangeCase parse(String text) {
        int slash = text.indexOf('/');
        if (slash < 0) {
            throw new IllegalArgumentException("case '" + text + "' is not REQUEST/RESPONSE bytes, e.g. 64/64 or 64/12MiB");
        }
        return new ExchangeCase(text, parseBytes(text.substring(0, slash)), parseBytes(text.substring(slash + 1)));
    }

    /**
     * Parses a byte count with an optional {@code K}/{@code KiB}, {@code M}/{@code MiB} or {@code B} suffix.
     *
     * @param text the count
     * @return bytes
     * @throws IllegalArgumentException if the text is not a count
     */
    public static long parseBytes(String text) {
        String t = text.strip().toLowerCase(Locale.ROOT);
        long unit = 1;
        if (t.endsWith("mib") || t.endsWith("m")) {
            unit = 1 << 20;
            t = t.substring(0, t.length() - (t.endsWith("mib") ? 3 : 1));
        } else if (t.endsWith("kib") || t.endsWith("k")) {
            unit = 1 << 10;
            t = t.substring(0, t.length() - (t.endsWith("kib") ? 3 : 1));
        } else if (t.endsWith("b")) {
            t = t.substring(0, t.length() - 1);
        }
        try {
            return Math.multiplyExact(Long.parseLong(t.strip()), unit);
        } catch (NumberFormatException | ArithmeticException e) {
            throw new IllegalArgumentException("'" + text + "' is not a byte count such as 64, 16KiB or 12MiB");
        }
    }
}
