package dev.ofl.conformance;

import java.util.HashMap;
import java.util.Map;

/**
 * The operation codes the suite's test handlers understand. Each constant has its own wire code;
 * the class refuses to load if two share one, so a handler can never mistake one behaviour for
 * another.
 */
enum TestOp {
    /** Echo the payload. */
    ECHO(1),
    /** Refuse with the status in the payload's first four bytes. */
    REFUSE(2),
    /** Commit some bytes, then refuse with the status in the payload's first four bytes. */
    REFUSE_AFTER_DATA(3),
    /** Commit some bytes, then throw an unchecked exception. */
    THROW(4),
    /** Throw a checked exception. */
    THROW_CHECKED(5),
    /** Throw an {@link dev.ofl.api.OflConnectionException}, as a handler that is itself a client may see. */
    THROW_CONNECTION(6),
    /** Block until the test releases the handler. */
    BLOCK(7),
    /** Throw an {@link IllegalArgumentException} whose message is the payload, read as UTF-8. */
    THROW_MESSAGE(8),
    /** Commit 600 KiB (a piece on every transport), then throw. */
    THROW_AFTER_PIECE(9);

    private static final Map<Integer, TestOp> BY_CODE = new HashMap<>();

    static {
        for (TestOp op : values()) {
            TestOp previous = BY_CODE.putIfAbsent(op.code, op);
            if (previous != null) {
                throw new IllegalStateException("test op codes collide: " + previous + " and " + op + " are both "
                        + op.code + "; give each constant its own code");
            }
        }
    }

    private final int code;

    TestOp(int code) {
        this.code = code;
    }

    /** The value passed as {@code op} to {@code submit}. */
    int code() {
        return code;
    }

    /** The constant with this code, or {@link #ECHO} for a code no constant has. */
    static TestOp ofOrEcho(int code) {
        return BY_CODE.getOrDefault(code, ECHO);
    }
}
