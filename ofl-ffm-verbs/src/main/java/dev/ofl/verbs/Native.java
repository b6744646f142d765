package dev.ofl.verbs;

import dev.ofl.verbs.ffm.Verbs;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/** Small helpers shared by the wrappers. */
final class Native {
    private Native() {
    }

    /** Rethrows what a downcall handle threw; downcalls throw no checked exceptions. */
    static RuntimeException unchecked(Throwable thrown) {
        if (thrown instanceof RuntimeException runtime) {
            return runtime;
        }
        if (thrown instanceof Error error) {
            throw error;
        }
        return new IllegalStateException("unexpected checked exception from a downcall", thrown);
    }

    static MemorySegment captureState(Arena arena) {
        return arena.allocate(Verbs.CAPTURE_STATE_LAYOUT);
    }

    static String hex(MemorySegment address) {
        return "0x" + Long.toHexString(address.address());
    }
}
