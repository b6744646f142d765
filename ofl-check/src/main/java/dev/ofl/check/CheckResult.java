package dev.ofl.check;

import java.util.Objects;

/**
 * The outcome of one check: its name, whether it passed, and what was seen (on failure, why).
 * Immutable.
 *
 * @param name the check's name, for example {@code link.echo-64} or {@code conformance.EchoAndRanges.…}
 * @param passed whether the check passed
 * @param detail one line: what was checked, or on failure what went wrong and the values involved
 */
public record CheckResult(String name, boolean passed, String detail) {
    /**
     * Validates the fields.
     *
     * @throws NullPointerException if a field is missing
     */
    public CheckResult {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(detail, "detail");
    }

    /**
     * The line the command prints for this result.
     *
     * @return {@code PASS name: detail} or {@code FAIL name: detail}
     */
    public String line() {
        return (passed ? "PASS " : "FAIL ") + name + (detail.isEmpty() ? "" : ": " + detail);
    }
}
