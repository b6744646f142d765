package dev.ofl.softverbs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The jar's library is this platform's ELF shared object, private to the user, and chosen only when nothing else is. */
class SoftverbsTest {
    private static final short EM_X86_64 = 62;
    private static final short EM_AARCH64 = 183;

    @AfterEach
    void clearProperty() {
        System.clearProperty(Softverbs.LIBRARY_PROPERTY);
    }

    @Test
    void theLibraryIsAnElfSharedObjectForThisMachine() throws IOException {
        Path library = Softverbs.library();
        byte[] bytes = Files.readAllBytes(library);
        ByteBuffer elf = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
        assertEquals(0x7f, bytes[0]);
        assertEquals("ELF", new String(bytes, 1, 3, java.nio.charset.StandardCharsets.US_ASCII));
        assertEquals(3, elf.getShort(16), "e_type ET_DYN");
        short expected = System.getProperty("os.arch").equals("aarch64") ? EM_AARCH64 : EM_X86_64;
        assertEquals(expected, elf.getShort(18), "e_machine");
        assertEquals(Set.of(PosixFilePermission.OWNER_READ, PosixFilePermission.OWNER_EXECUTE),
                Files.getPosixFilePermissions(library));
        assertEquals(Set.of(PosixFilePermission.OWNER_READ, PosixFilePermission.OWNER_WRITE,
                PosixFilePermission.OWNER_EXECUTE), Files.getPosixFilePermissions(library.getParent()));
        assertEquals(library, Softverbs.library(), "extracted once per process");
    }

    @Test
    void theJarCarriesTheAarch64LibraryWhenBuiltWithItsCompiler() {
        // ./ofl test installs the cross compiler, so the jars it builds carry both architectures.
        // On an aarch64 host the library is that architecture's own build.
        boolean expected = System.getProperty("os.arch").equals("aarch64")
                || Files.isExecutable(Path.of("/usr/bin/aarch64-linux-gnu-gcc"));
        boolean carried = Softverbs.class.getResource("linux-aarch64/libibverbs.so.1") != null;
        assertEquals(expected, carried, "linux-aarch64 in the jar when aarch64-linux-gnu-gcc is installed");
    }

    @Test
    void useSelectsTheLibraryForTheRdmaBackend() {
        Path library = Softverbs.use();
        assertEquals(library.toString(), System.getProperty(Softverbs.LIBRARY_PROPERTY));
        assertEquals(library, Softverbs.use(), "a second call is harmless");
    }

    @Test
    void useNeverReplacesALibraryChosenElsewhere() {
        System.setProperty(Softverbs.LIBRARY_PROPERTY, "/usr/lib/x86_64-linux-gnu/libibverbs.so.1");
        IllegalStateException e = assertThrows(IllegalStateException.class, Softverbs::use);
        assertTrue(e.getMessage().contains("already names /usr/lib/x86_64-linux-gnu/libibverbs.so.1"), e.getMessage());
        assertEquals("/usr/lib/x86_64-linux-gnu/libibverbs.so.1", System.getProperty(Softverbs.LIBRARY_PROPERTY));
    }

    @Test
    void mainCopiesTheLibraryForAnotherProcess() throws IOException {
        Path dir = Files.createTempDirectory("softverbs-main");
        Softverbs.main(new String[] {dir.resolve("lib").toString()});
        Path copy = dir.resolve("lib/libibverbs.so.1");
        assertTrue(Files.isRegularFile(copy));
        assertEquals(Files.size(Softverbs.library()), Files.size(copy));
    }
}
