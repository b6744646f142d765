package dev.ofl.api.internal;

import dev.ofl.api.Completion;
import dev.ofl.api.Region;
import java.lang.foreign.MemorySegment;

/**
 * The engine's way to the members of {@link dev.ofl.api} that only the engine may use: making a
 * {@link Region} and filling a {@link Completion}. Those members are package-private, so that code
 * using the API cannot forge a region handle or fake an outcome; {@link dev.ofl.api} hands an
 * implementation of {@link Members} to this class once, when {@link Completion} is initialised.
 *
 * <p>The package is not exported by the module: on the module path only {@code dev.ofl.api} itself
 * reaches it. (On the class path module boundaries do not apply; the members are still not part of
 * the public API.) Thread-safe.
 */
public final class ApiAccess {
    /** The package-private members of {@link dev.ofl.api} that the engine needs. */
    public interface Members {
        /**
         * Makes a region handle.
         *
         * @param owner the client that registered it
         * @param id a small index unique within the owner
         * @param segment the registered host memory (a native segment)
         * @return the handle
         */
        Region newRegion(Object owner, int id, MemorySegment segment);

        /**
         * Fills a completion holder with one request's outcome.
         *
         * @param completion the holder
         * @param ticket the ticket that completed
         * @param status an {@link dev.ofl.api.OflStatus} value
         * @param handlerStatus the handler's status (non-zero only for a refusal)
         * @param responseLength bytes placed into the ranges (zero unless OK)
         * @param failureReason the server's reason with HANDLER_FAILED, or {@code null}
         */
        void complete(Completion completion, long ticket, int status, int handlerStatus, long responseLength,
                String failureReason);
    }

    private static volatile Members members;

    private ApiAccess() {
    }

    /**
     * Installs the members; called once, by {@link Completion}'s static initialiser.
     *
     * @param installed the implementation
     * @throws IllegalStateException if the members were installed already
     */
    public static synchronized void install(Members installed) {
        if (members != null) {
            throw new IllegalStateException("ApiAccess.install: the members of dev.ofl.api are installed already");
        }
        members = installed;
    }

    /**
     * The members, installing them first if {@link Completion} has not been initialised yet.
     *
     * @return the implementation {@link dev.ofl.api} installed
     */
    public static Members members() {
        Members current = members;
        if (current == null) {
            try {
                Class.forName(Completion.class.getName(), true, Completion.class.getClassLoader());
            } catch (ClassNotFoundException e) {
                throw new IllegalStateException("ApiAccess.members: cannot initialise " + Completion.class, e);
            }
            current = members;
        }
        return current;
    }
}
