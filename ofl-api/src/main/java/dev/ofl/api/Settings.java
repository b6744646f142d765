package dev.ofl.api;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Reads configuration given as text, name by name: what {@link ClientConfig.Builder#settings} and
 * {@link ServerConfig.Builder#settings} share. Every value is checked here for its form (the
 * builders' {@code build()} then checks it as it checks a value set in code), and every failure
 * names the setting, the value and the forms accepted, so that a typo in a configuration file
 * fails at start-up and says where.
 */
final class Settings {
    /** The names under which limits are set, after the {@code limits.} prefix. */
    static final Set<String> LIMIT_NAMES = Set.of("maxRequestBytes", "maxResponseBytes", "maxRanges", "maxInFlight");

    private Settings() {
    }

    /**
     * The entries of {@code properties} whose names start with {@code prefix}, the prefix removed;
     * the others are left out (a properties file holds more than ofl's settings).
     */
    static Map<String, String> withPrefix(Properties properties, String prefix) {
        Map<String, String> out = new TreeMap<>();
        for (String name : properties.stringPropertyNames()) {
            if (name.startsWith(prefix)) {
                out.put(name.substring(prefix.length()), properties.getProperty(name));
            }
        }
        return out;
    }

    /** An unknown name: refused with every name that is known, so that a typo is seen at once. */
    static IllegalArgumentException unknown(String name, Set<String> known) {
        return new IllegalArgumentException("unknown setting \"" + name + "\"; known: " + String.join(", ",
                new TreeSet<>(known)) + ", limits.{" + String.join(",", new TreeSet<>(LIMIT_NAMES))
                + "} and properties.<backend property>");
    }

    private static IllegalArgumentException bad(String name, String value, String forms, Exception cause) {
        String why = cause == null || cause.getMessage() == null ? "" : " (" + cause.getMessage() + ")";
        return new IllegalArgumentException("setting \"" + name + "\" = \"" + value + "\" is not " + forms + why,
                cause);
    }

    /** Text without surrounding blanks; refuses an empty value. */
    static String text(String name, String value) {
        String v = value == null ? "" : value.strip();
        if (v.isEmpty()) {
            throw new IllegalArgumentException("setting \"" + name + "\" is empty");
        }
        return v;
    }

    /**
     * A duration: ISO-8601 ({@code PT5S}) or a number with a unit, {@code ns}, {@code us},
     * {@code ms}, {@code s}, {@code m} or {@code h} ({@code 250ms}, {@code 5s}, {@code 1.5s}).
     */
    static Duration duration(String name, String value) {
        String v = text(name, value);
        String forms = "a duration (250ms, 5s, 1.5s, 2m, PT5S)";
        if (v.startsWith("P") || v.startsWith("p")) {
            try {
                return Duration.parse(v);
            } catch (DateTimeParseException e) {
                throw bad(name, value, forms, e);
            }
        }
        int unitAt = 0;
        while (unitAt < v.length() && (Character.isDigit(v.charAt(unitAt)) || v.charAt(unitAt) == '.')) {
            unitAt++;
        }
        String number = v.substring(0, unitAt);
        String unit = v.substring(unitAt).strip().toLowerCase(Locale.ROOT);
        long nanosPerUnit = switch (unit) {
            case "ns" -> 1L;
            case "us", "µs" -> 1_000L;
            case "ms" -> 1_000_000L;
            case "s" -> 1_000_000_000L;
            case "m", "min" -> 60_000_000_000L;
            case "h" -> 3_600_000_000_000L;
            default -> throw bad(name, value, forms + "; the unit is missing or unknown", null);
        };
        try {
            java.math.BigDecimal nanos = new java.math.BigDecimal(number)
                    .multiply(java.math.BigDecimal.valueOf(nanosPerUnit));
            return Duration.ofNanos(nanos.setScale(0, java.math.RoundingMode.HALF_UP).longValueExact());
        } catch (NumberFormatException | ArithmeticException e) {
            throw bad(name, value, forms, e);
        }
    }

    /**
     * A byte count: a whole number with an optional unit, {@code B}, {@code KiB}, {@code MiB} or
     * {@code GiB} ({@code K}, {@code M}, {@code G} are read as the same powers of two).
     */
    static long bytes(String name, String value) {
        String v = text(name, value);
        String forms = "a byte count (4096, 256KiB, 16MiB, 1GiB)";
        int unitAt = 0;
        while (unitAt < v.length() && Character.isDigit(v.charAt(unitAt))) {
            unitAt++;
        }
        int shift = switch (v.substring(unitAt).strip().toLowerCase(Locale.ROOT)) {
            case "", "b" -> 0;
            case "k", "kib" -> 10;
            case "m", "mib" -> 20;
            case "g", "gib" -> 30;
            default -> throw bad(name, value, forms + "; the unit is unknown", null);
        };
        try {
            long n = Long.parseLong(v.substring(0, unitAt));
            if (n > Long.MAX_VALUE >> shift) {
                throw new ArithmeticException("too large");
            }
            return n << shift;
        } catch (NumberFormatException | ArithmeticException e) {
            throw bad(name, value, forms, e);
        }
    }

    /** A byte count that fits an {@code int}, as the limits are. */
    static int intBytes(String name, String value) {
        long n = bytes(name, value);
        if (n > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("setting \"" + name + "\" = \"" + value + "\" is larger than "
                    + Integer.MAX_VALUE + " bytes");
        }
        return (int) n;
    }

    /** A whole number. */
    static int integer(String name, String value) {
        try {
            return Integer.parseInt(text(name, value));
        } catch (NumberFormatException e) {
            throw bad(name, value, "a whole number", null);
        }
    }

    /** {@code true} or {@code false}, nothing else (a misspelt {@code ture} is not false). */
    static boolean bool(String name, String value) {
        return switch (text(name, value).toLowerCase(Locale.ROOT)) {
            case "true" -> true;
            case "false" -> false;
            default -> throw bad(name, value, "true or false", null);
        };
    }

    /** A constant of {@code type}, in any case, with {@code -} for {@code _} ({@code busy-poll}). */
    static <E extends Enum<E>> E constant(String name, String value, Class<E> type) {
        String v = text(name, value).toUpperCase(Locale.ROOT).replace('-', '_');
        for (E e : type.getEnumConstants()) {
            if (e.name().equals(v)) {
                return e;
            }
        }
        StringBuilder forms = new StringBuilder("one of");
        for (E e : type.getEnumConstants()) {
            forms.append(' ').append(e.name().toLowerCase(Locale.ROOT).replace('_', '-'));
        }
        throw bad(name, value, forms.toString(), null);
    }

    /** {@code busy-spin} or {@code yield}: the idle strategies that have names. */
    static IdleStrategy idleStrategy(String name, String value) {
        return switch (text(name, value).toLowerCase(Locale.ROOT).replace('_', '-')) {
            case "busy-spin" -> IdleStrategy.BUSY_SPIN;
            case "yield" -> IdleStrategy.YIELD;
            default -> throw bad(name, value, "busy-spin or yield (other strategies are set in code)", null);
        };
    }

    /** An IP address (a host name is resolved once, now). */
    static InetAddress address(String name, String value) {
        String v = text(name, value);
        if (v.startsWith("[") && v.endsWith("]")) {
            v = v.substring(1, v.length() - 1);
        }
        if (v.isBlank()) {
            // InetAddress.getByName("") is the loopback address: an empty host must not become one.
            throw bad(name, value, "an IP address or a host name; the host is empty", null);
        }
        try {
            return InetAddress.getByName(v);
        } catch (UnknownHostException e) {
            throw bad(name, value, "an IP address or a host name that resolves", e);
        }
    }

    /** {@code host:port}, with an IPv6 address in brackets ({@code [::1]:7000}). */
    static InetSocketAddress socketAddress(String name, String value) {
        String v = text(name, value);
        String forms = "host:port (10.0.0.2:7000, [fd00::2]:7000)";
        int colon = v.lastIndexOf(':');
        if (colon <= 0 || v.indexOf(':') != colon && !v.startsWith("[")) {
            throw bad(name, value, forms, null);
        }
        int port;
        try {
            port = Integer.parseInt(v.substring(colon + 1));
        } catch (NumberFormatException e) {
            throw bad(name, value, forms + "; the port is not a number", null);
        }
        if (port < 0 || port > 65_535) {
            throw bad(name, value, forms + "; the port is out of range", null);
        }
        return new InetSocketAddress(address(name, v.substring(0, colon)), port);
    }

    /** A key file's bytes, read with {@link PeerKeys#readKeyFile}'s checks. */
    static byte[] keyFile(String name, String value) {
        try {
            return PeerKeys.readKeyFile(Path.of(text(name, value)));
        } catch (IOException e) {
            throw new IllegalArgumentException("setting \"" + name + "\": " + e.getMessage(), e);
        }
    }

    /**
     * The two groups of names both builders read alike: {@code limits.*} (the limits with it
     * applied are returned) and {@code properties.*} (put into {@code backendProperties}; the
     * limits are returned unchanged).
     *
     * @return the limits to keep, or {@code null} when the name belongs to neither group
     */
    static Limits group(String name, String value, Limits limits, Map<String, String> backendProperties,
            Set<String> known) {
        if (name.startsWith("limits.")) {
            return limit(limits, name, value, known);
        }
        if (name.startsWith("properties.") && name.length() > "properties.".length()) {
            backendProperties.put(name.substring("properties.".length()), text(name, value));
            return limits;
        }
        return null;
    }

    /** Applies one {@code limits.} setting to {@code limits}, or refuses an unknown name. */
    static Limits limit(Limits limits, String name, String value, Set<String> known) {
        String field = name.substring("limits.".length());
        int req = limits.maxRequestBytes();
        int resp = limits.maxResponseBytes();
        int ranges = limits.maxRanges();
        int inFlight = limits.maxInFlight();
        switch (field) {
            case "maxRequestBytes" -> req = intBytes(name, value);
            case "maxResponseBytes" -> resp = intBytes(name, value);
            case "maxRanges" -> ranges = integer(name, value);
            case "maxInFlight" -> inFlight = integer(name, value);
            default -> throw unknown(name, known);
        }
        try {
            return new Limits(req, resp, ranges, inFlight);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("setting \"" + name + "\": " + e.getMessage(), e);
        }
    }
}
