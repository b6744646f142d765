package dev.ofl.verbs;

import java.util.Objects;

/**
 * A libibverbs call failed, or the verbs environment cannot do what was asked.
 *
 * <p>The message names the C function, the errno or return code with its text, the values
 * involved, and the fix (which package, property, flag or limit). The parts are also available
 * separately for programs that react to them. Immutable.
 */
public class VerbsException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /** Marks {@link #errno()} and {@link #returnCode()} when the failure came from no C call. */
    public static final int NO_CODE = 0;

    private final String function;
    private final int errno;
    private final long returnCode;
    private final String values;
    private final String fix;

    /**
     * Creates an exception from its parts; the message is assembled from them.
     *
     * @param function the C function that failed, or {@code null} when no C call failed
     * @param errno the errno value it reported (positive), or {@link #NO_CODE}
     * @param returnCode the value it returned, or {@link #NO_CODE}
     * @param values what was asked, for example {@code "port 1, index 3"}
     * @param fix what to do about it
     * @param cause the underlying failure, or {@code null}
     */
    public VerbsException(String function, int errno, long returnCode, String values, String fix, Throwable cause) {
        super(message(function, errno, returnCode, values, fix), cause);
        this.function = function;
        this.errno = errno;
        this.returnCode = returnCode;
        this.values = Objects.requireNonNull(values, "values");
        this.fix = Objects.requireNonNull(fix, "fix");
    }

    /**
     * Creates an exception for a function that returned NULL or -1 and set errno.
     *
     * @param function the C function
     * @param errno the captured errno
     * @param values what was asked
     * @param fix what to do about it
     * @return the exception
     */
    public static VerbsException errno(String function, int errno, String values, String fix) {
        return new VerbsException(function, errno, NO_CODE, values, fix, null);
    }

    /**
     * Creates an exception for a function that returns an errno value (positive or negated)
     * instead of setting errno, such as {@code ibv_modify_qp} or {@code _ibv_query_gid_table}.
     *
     * @param function the C function
     * @param returnCode the value it returned
     * @param values what was asked
     * @param fix what to do about it
     * @return the exception
     */
    public static VerbsException returned(String function, long returnCode, String values, String fix) {
        int errno = returnCode > 0 && returnCode < 4096 ? (int) returnCode
                : returnCode < 0 && returnCode > -4096 ? (int) -returnCode : NO_CODE;
        return new VerbsException(function, errno, returnCode, values, fix, null);
    }

    private static String message(String function, int errno, long returnCode, String values, String fix) {
        StringBuilder text = new StringBuilder();
        if (function != null) {
            text.append(function).append('(').append(values).append(") failed");
            if (returnCode != NO_CODE) {
                text.append(": returned ").append(returnCode);
                if (errno != NO_CODE) {
                    text.append(' ').append(Errno.describe(errno));
                }
            } else if (errno != NO_CODE) {
                text.append(": errno ").append(Errno.describe(errno));
            }
        } else {
            text.append(values);
        }
        return text.append(". Fix: ").append(fix).toString();
    }

    /**
     * Returns the C function that failed.
     *
     * @return the function name, or {@code null} when no C call failed
     */
    public String function() {
        return function;
    }

    /**
     * Returns the errno value, whether captured or derived from an errno-style return value.
     *
     * @return a positive errno, or {@link #NO_CODE}
     */
    public int errno() {
        return errno;
    }

    /**
     * Returns the value the function returned, for functions that return a code.
     *
     * @return the return code, or {@link #NO_CODE} for functions that returned NULL or -1
     */
    public long returnCode() {
        return returnCode;
    }

    /**
     * Returns the values involved in the failed request.
     *
     * @return a short description such as {@code "port 1, index 3"}
     */
    public String values() {
        return values;
    }

    /**
     * Returns what to do about the failure.
     *
     * @return the fix, in one or two sentences
     */
    public String fix() {
        return fix;
    }
}
