package dev.ofl.verbs;

/**
 * Linux errno values and their texts, for messages. A table rather than {@code strerror}: it needs
 * no native access, gives the same text on every libc, and adds the symbolic name, which is what
 * people search for. Stateless and thread-safe.
 */
public final class Errno {
    /** Operation not permitted. */
    public static final int EPERM = 1;
    /** No such file or directory. */
    public static final int ENOENT = 2;
    /** Interrupted system call. */
    public static final int EINTR = 4;
    /** Input/output error. */
    public static final int EIO = 5;
    /** Bad file descriptor. */
    public static final int EBADF = 9;
    /** Resource temporarily unavailable. */
    public static final int EAGAIN = 11;
    /** Cannot allocate memory. */
    public static final int ENOMEM = 12;
    /** Permission denied. */
    public static final int EACCES = 13;
    /** Bad address. */
    public static final int EFAULT = 14;
    /** Device or resource busy. */
    public static final int EBUSY = 16;
    /** No such device. */
    public static final int ENODEV = 19;
    /** Invalid argument. */
    public static final int EINVAL = 22;
    /** Function not implemented: what libibverbs reports when the kernel has no RDMA support. */
    public static final int ENOSYS = 38;
    /** No data available: an empty GID table slot. */
    public static final int ENODATA = 61;
    /** Operation not supported. */
    public static final int EOPNOTSUPP = 95;
    /** Connection timed out. */
    public static final int ETIMEDOUT = 110;

    private static final String[] NAMES = new String[134];
    private static final String[] TEXTS = new String[134];

    static {
        define(1, "EPERM", "Operation not permitted");
        define(2, "ENOENT", "No such file or directory");
        define(3, "ESRCH", "No such process");
        define(4, "EINTR", "Interrupted system call");
        define(5, "EIO", "Input/output error");
        define(6, "ENXIO", "No such device or address");
        define(7, "E2BIG", "Argument list too long");
        define(9, "EBADF", "Bad file descriptor");
        define(11, "EAGAIN", "Resource temporarily unavailable");
        define(12, "ENOMEM", "Cannot allocate memory");
        define(13, "EACCES", "Permission denied");
        define(14, "EFAULT", "Bad address");
        define(16, "EBUSY", "Device or resource busy");
        define(17, "EEXIST", "File exists");
        define(19, "ENODEV", "No such device");
        define(22, "EINVAL", "Invalid argument");
        define(23, "ENFILE", "Too many open files in system");
        define(24, "EMFILE", "Too many open files");
        define(25, "ENOTTY", "Inappropriate ioctl for device");
        define(28, "ENOSPC", "No space left on device");
        define(32, "EPIPE", "Broken pipe");
        define(34, "ERANGE", "Numerical result out of range");
        define(38, "ENOSYS", "Function not implemented");
        define(61, "ENODATA", "No data available");
        define(71, "EPROTO", "Protocol error");
        define(93, "EPROTONOSUPPORT", "Protocol not supported");
        define(95, "EOPNOTSUPP", "Operation not supported");
        define(98, "EADDRINUSE", "Address already in use");
        define(99, "EADDRNOTAVAIL", "Cannot assign requested address");
        define(101, "ENETUNREACH", "Network is unreachable");
        define(104, "ECONNRESET", "Connection reset by peer");
        define(105, "ENOBUFS", "No buffer space available");
        define(107, "ENOTCONN", "Transport endpoint is not connected");
        define(110, "ETIMEDOUT", "Connection timed out");
        define(111, "ECONNREFUSED", "Connection refused");
        define(113, "EHOSTUNREACH", "No route to host");
        define(115, "EINPROGRESS", "Operation now in progress");
        define(122, "EDQUOT", "Disk quota exceeded");
        define(125, "ECANCELED", "Operation canceled");
    }

    private Errno() {
    }

    private static void define(int errno, String name, String text) {
        NAMES[errno] = name;
        TEXTS[errno] = text;
    }

    /**
     * Returns the symbolic name of an errno value.
     *
     * @param errno a positive errno value
     * @return for example {@code "ENOSYS"}, or {@code "errno <n>"} when unknown
     */
    public static String name(int errno) {
        String name = errno > 0 && errno < NAMES.length ? NAMES[errno] : null;
        return name != null ? name : "errno " + errno;
    }

    /**
     * Returns the text {@code strerror} gives for an errno value on glibc.
     *
     * @param errno a positive errno value
     * @return for example {@code "Function not implemented"}, or {@code "Unknown error <n>"}
     */
    public static String text(int errno) {
        String text = errno > 0 && errno < TEXTS.length ? TEXTS[errno] : null;
        return text != null ? text : "Unknown error " + errno;
    }

    /**
     * Describes an errno value for a message.
     *
     * @param errno a positive errno value
     * @return for example {@code "ENOSYS (38, Function not implemented)"}
     */
    public static String describe(int errno) {
        return name(errno) + " (" + errno + ", " + text(errno) + ")";
    }
}
