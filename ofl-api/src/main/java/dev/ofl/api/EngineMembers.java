package dev.ofl.api;

import dev.ofl.api.internal.ApiAccess;
import java.lang.foreign.MemorySegment;

/** The package-private members of this package that the engine reaches through {@link ApiAccess}. */
final class EngineMembers implements ApiAccess.Members {
    @Override
    public Region newRegion(Object owner, int id, MemorySegment segment) {
        return new Region(owner, id, segment);
    }

    @Override
    public void complete(Completion completion, long ticket, int status, int handlerStatus, long responseLength,
            String failureReason) {
        completion.set(ticket, status, handlerStatus, responseLength, failureReason);
    }
}
