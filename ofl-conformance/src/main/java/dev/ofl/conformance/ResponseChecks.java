package dev.ofl.conformance;

import static dev.ofl.conformance.Fixture.CALL_TIMEOUT_NS;
import static dev.ofl.conformance.Fixture.SENTINEL;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.fail;

import dev.ofl.api.Completion;
import dev.ofl.api.OflClient;
import dev.ofl.api.OflStatus;
import dev.ofl.api.ResponseRanges;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.Set;

/** Checks of what landed in region memory, byte by byte, and of the bytes that must not have changed. */
final class ResponseChecks {
    private ResponseChecks() {
    }

    static void assertBytes(byte[] expected, MemorySegment memory, long offset, String what) {
        long mismatch = MemorySegment.mismatch(memory, offset, offset + expected.length,
                MemorySegment.ofArray(expected), 0, expected.length);
        if (mismatch >= 0) {
            fail(what + ": byte " + mismatch + " of " + expected.length + " is "
                    + memory.get(ValueLayout.JAVA_BYTE, offset + mismatch) + ", expected " + expected[(int) mismatch]);
        }
    }

    static void assertSentinel(MemorySegment memory, long offset, long length, String what) {
        for (long i = 0; i < length; i++) {
            byte actual = memory.get(ValueLayout.JAVA_BYTE, offset + i);
            if (actual != SENTINEL) {
                fail(what + ": byte at " + (offset + i) + " changed to " + actual);
            }
        }
    }

    static void assertOutsideRangesUntouched(MemorySegment memory, MemorySegment[] rangeMemory,
            long[] offsets, int[] lengths, String what) {
        boolean[] inRange = new boolean[(int) memory.byteSize()];
        for (int i = 0; i < lengths.length; i++) {
            if (rangeMemory[i] == memory) {
                for (int k = 0; k < lengths[i]; k++) {
                    inRange[(int) offsets[i] + k] = true;
                }
            }
        }
        for (int at = 0; at < inRange.length; at++) {
            if (!inRange[at] && memory.get(ValueLayout.JAVA_BYTE, at) != SENTINEL) {
                fail(what + ": byte " + at + " outside every range changed to " + memory.get(ValueLayout.JAVA_BYTE, at));
            }
        }
    }

    /** One echo through the client, byte-checked; {@code ranges} null means one range over {@code memory}. */
    static void assertEchoWorks(OflClient client, MemorySegment memory, ResponseRanges ranges, String what) {
        ResponseRanges target = ranges;
        if (target == null) {
            target = ResponseRanges.of(client.registerRegion(memory));
        }
        int length = (int) Math.min(200, Math.min(memory.byteSize(), client.limits().maxRequestBytes()));
        byte[] payload = Patterns.randomBytes(length, what.hashCode());
        MemorySegment.copy(MemorySegment.ofArray(payload), 0, client.requestPayload(), 0, length);
        Completion completion = new Completion();
        assertEquals(OflStatus.OK, client.call(TestOp.ECHO.code(), 0, length, target, CALL_TIMEOUT_NS, completion),
                () -> what + ": " + completion);
        assertEquals(length, completion.responseLength(), what);
        assertBytes(payload, memory, 0, what);
        assertFalse(client.isBroken(), what);
    }

    /** Calls echo {@code calls} times, each payload written in place; returns the payload addresses used. */
    static Set<Long> payloadAddressesOverCalls(OflClient client, MemorySegment memory, ResponseRanges ranges,
            int calls, String what) {
        Set<Long> addresses = new LinkedHashSet<>();
        Completion completion = new Completion();
        for (int i = 0; i < calls; i++) {
            MemorySegment area = client.requestPayload();
            assertEquals(client.limits().maxRequestBytes(), area.byteSize(), what + ": payload area size");
            addresses.add(area.address());
            byte[] payload = Patterns.randomBytes(50 + i, i * 31L + what.length());
            MemorySegment.copy(MemorySegment.ofArray(payload), 0, area, 0, payload.length);
            int status = client.call(TestOp.ECHO.code(), i, payload.length, ranges, CALL_TIMEOUT_NS, completion);
            assertEquals(OflStatus.OK, status, () -> what + ": " + completion);
            assertEquals(payload.length, completion.responseLength(), what);
            assertBytes(payload, memory, 0, what + ", call " + i);
        }
        return Collections.unmodifiableSet(addresses);
    }
}
