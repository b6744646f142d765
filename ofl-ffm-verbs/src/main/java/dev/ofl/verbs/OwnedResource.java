package dev.ofl.verbs;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * Base of the owning wrappers: one native object, its owner, and the children it must outlive.
 *
 * <p>{@link #close()} closes the children first (by {@link #closeRank()}, then newest first),
 * destroys the native object only if they all closed, and is idempotent. Lifecycle methods
 * synchronise on the object.
 */
abstract class OwnedResource implements AutoCloseable {
    private final OwnedResource owner;
    private final List<OwnedResource> children = new ArrayList<>();
    private boolean closed;

    OwnedResource(OwnedResource owner) {
        this.owner = owner;
    }

    /** Registers this object with its owner; called once the native object exists. */
    final void attach() {
        if (owner != null) {
            owner.adopt(this);
        }
    }

    private synchronized void adopt(OwnedResource child) {
        if (closed) {
            throw new IllegalStateException(getClass().getSimpleName() + " is closed; cannot add "
                    + child.getClass().getSimpleName());
        }
        children.add(child);
    }

    private synchronized void release(OwnedResource child) {
        children.remove(child);
    }

    /** Order among siblings when the owner closes: lower ranks close first. */
    int closeRank() {
        return 0;
    }

    /** Destroys the native object; throws a {@link VerbsException} naming the call on failure. */
    abstract void destroy();

    final synchronized void ensureOpen() {
        if (closed) {
            throw new IllegalStateException(getClass().getSimpleName() + " is closed");
        }
    }

    final synchronized boolean isClosed() {
        return closed;
    }

    /**
     * Closes the children, then the native object. Does nothing when already closed.
     *
     * @throws VerbsException if a child or the native object could not be destroyed; this object
     *     then stays open (its native object still exists) and {@code close()} may be retried
     */
    @Override
    public final void close() {
        synchronized (this) {
            if (closed) {
                return;
            }
            List<OwnedResource> ordered = new ArrayList<>(children);
            java.util.Collections.reverse(ordered);
            ordered.sort(Comparator.comparingInt(OwnedResource::closeRank));
            VerbsException failure = null;
            for (OwnedResource child : ordered) {
                try {
                    child.close();
                } catch (VerbsException e) {
                    if (failure == null) {
                        failure = e;
                    } else {
                        failure.addSuppressed(e);
                    }
                }
            }
            if (failure != null) {
                throw failure;
            }
            destroy();
            closed = true;
        }
        if (owner != null) {
            owner.release(this);
        }
    }
}
