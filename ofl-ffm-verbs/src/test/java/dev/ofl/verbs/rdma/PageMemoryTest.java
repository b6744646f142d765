package dev.ofl.verbs.rdma;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import org.junit.jupiter.api.Test;

/**
 * {@link PageMemory}: whole pages are mapped for any size and counted, unmapped when the arena
 * closes; nothing is mapped for a size that is not positive or for an arena already closed.
 * Nothing here is softverbs: mmap and munmap alone.
 */
class PageMemoryTest {
    private static final long PAGE = 4096;

    @Test
    void mapsWholePagesAndUnmapsThemWithTheArena() {
        long bytesBefore = PageMemory.mappedBytes();
        long mappingsBefore = PageMemory.mappings();
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment one = PageMemory.allocate(arena, 1);
            assertEquals(1, one.byteSize(), "the segment is the size asked for");
            assertEquals(0, one.address() % PAGE, "a mapping starts on a page");
            assertEquals(bytesBefore + PAGE, PageMemory.mappedBytes(), "one byte maps one page");
            PageMemory.allocate(arena, PAGE);
            assertEquals(bytesBefore + 2 * PAGE, PageMemory.mappedBytes(), "a page maps one page");
            MemorySegment more = PageMemory.allocate(arena, PAGE + 1);
            assertEquals(bytesBefore + 4 * PAGE, PageMemory.mappedBytes(), "a page and a byte map two pages");
            assertEquals(mappingsBefore + 3, PageMemory.mappings());
            more.set(ValueLayout.JAVA_BYTE, PAGE, (byte) 7);
            assertEquals(7, more.get(ValueLayout.JAVA_BYTE, PAGE));
        }
        assertEquals(bytesBefore, PageMemory.mappedBytes(), "every page is unmapped when the arena closes");
        assertEquals(mappingsBefore, PageMemory.mappings());
    }

    @Test
    void refusesSizesThatAreNotPositive() {
        try (Arena arena = Arena.ofConfined()) {
            assertEquals("bytes 0 must be positive",
                    assertThrows(IllegalArgumentException.class, () -> PageMemory.allocate(arena, 0)).getMessage());
            assertEquals("bytes -1 must be positive",
                    assertThrows(IllegalArgumentException.class, () -> PageMemory.allocate(arena, -1)).getMessage());
        }
    }

    @Test
    void anArenaAlreadyClosedLeavesNoMappingBehind() {
        long bytesBefore = PageMemory.mappedBytes();
        long mappingsBefore = PageMemory.mappings();
        Arena arena = Arena.ofConfined();
        arena.close();
        assertThrows(IllegalStateException.class, () -> PageMemory.allocate(arena, PAGE));
        assertEquals(bytesBefore, PageMemory.mappedBytes(), "the page mapped for a closed arena is unmapped");
        assertEquals(mappingsBefore, PageMemory.mappings());
        assertFalse(arena.scope().isAlive());
    }
}
