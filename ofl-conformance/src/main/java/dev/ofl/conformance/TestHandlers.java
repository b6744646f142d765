package dev.ofl.conformance;

import static dev.ofl.conformance.Fixture.INT_LE;

import dev.ofl.api.OflConnectionException;
import dev.ofl.api.OflHandler;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;

/** The handlers behaviours share; each behaviour with special needs writes its own. */
final class TestHandlers {
    private TestHandlers() {
    }

    /** Echoes the payload, whatever the op. */
    static OflHandler echo() {
        return (request, response) -> {
            response.write(request.payload());
            return 0;
        };
    }

    /**
     * Echo, refusal (status from the payload), refusal after committed data, and failures, by
     * {@link TestOp}; any other op echoes.
     */
    static OflHandler outcomes() {
        return (request, response) -> switch (TestOp.ofOrEcho(request.op())) {
            case REFUSE -> request.payload().get(INT_LE, 0);
            case REFUSE_AFTER_DATA -> {
                response.write(MemorySegment.ofArray(new byte[Math.min(100, (int) response.capacity())]));
                yield request.payload().get(INT_LE, 0);
            }
            case THROW -> {
                response.write(MemorySegment.ofArray(new byte[Math.min(10, (int) response.capacity())]));
                throw new IllegalStateException("handler failure injected by the conformance suite");
            }
            case THROW_CHECKED -> throw new Exception("checked handler failure injected by the conformance suite");
            // A handler that is itself an ofl client may see its own connection break: still a
            // handler failure, not a reason to end this connection.
            case THROW_CONNECTION -> throw new OflConnectionException("a downstream connection of the handler broke");
            case THROW_MESSAGE -> throw new IllegalArgumentException(new String(
                    request.payload().toArray(ValueLayout.JAVA_BYTE), StandardCharsets.UTF_8));
            case THROW_AFTER_PIECE -> {
                // Past every transport's piece size: part of the response is on its way before the throw.
                response.commit(Math.min(600 << 10, response.capacity()));
                throw new IllegalStateException("failed after the first piece");
            }
            case ECHO, BLOCK -> {
                response.write(request.payload());
                yield 0;
            }
        };
    }
}
