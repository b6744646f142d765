package dev.ofl.api;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.util.Arrays;
import java.util.HexFormat;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Key files read with the checks a key deserves, and keys kept once each. */
class PeerKeysTest {
    @TempDir
    Path dir;

    private Path keyFile(byte[] content, String permissions) throws IOException {
        Path file = dir.resolve("ofl.key");
        Files.write(file, content);
        if (FileSystems.getDefault().supportedFileAttributeViews().contains("posix")) {
            Files.setPosixFilePermissions(file, PosixFilePermissions.fromString(permissions));
        }
        return file;
    }

    @Test
    void aPrivateRandomKeyFileIsRead() throws IOException {
        byte[] key = new byte[32];
        new SecureRandom().nextBytes(key);
        assertArrayEquals(key, PeerKeys.readKeyFile(keyFile(key, "rw-------")));
    }

    @Test
    void aKeyFileOthersMayReadIsRefusedNamingTheFix() throws IOException {
        assumeTrue(FileSystems.getDefault().supportedFileAttributeViews().contains("posix"), "POSIX permissions");
        byte[] key = new byte[32];
        new SecureRandom().nextBytes(key);
        for (String open : new String[] {"rw-r-----", "rw----r--", "rw-rw----"}) {
            IOException refused = assertThrows(IOException.class, () -> PeerKeys.readKeyFile(keyFile(key, open)));
            assertTrue(refused.getMessage().contains("chmod 600"), refused.getMessage());
        }
    }

    @Test
    void aFileLargerThanAKeyFileIsRefusedWithoutReadingAllOfIt() throws IOException {
        IOException refused = assertThrows(IOException.class,
                () -> PeerKeys.readKeyFile(keyFile(new byte[PeerKeys.MAX_KEY_FILE_BYTES + 1], "rw-------")));
        assertTrue(refused.getMessage().contains("more than " + PeerKeys.MAX_KEY_FILE_BYTES), refused.getMessage());
    }

    @Test
    void aFifoOrDeviceIsRefusedBeforeAnyRead() throws Exception {
        Path fifo = dir.resolve("fifo");
        Process mkfifo;
        try {
            mkfifo = new ProcessBuilder("mkfifo", fifo.toString()).start();
        } catch (IOException e) {
            throw new org.opentest4j.TestAbortedException("no mkfifo here", e);
        }
        assumeTrue(mkfifo.waitFor() == 0 && Files.exists(fifo), "mkfifo made the FIFO");
        // A read of a FIFO with no writer blocks for ever: the refusal must come from the check alone.
        IOException refused = assertThrows(IOException.class, () -> PeerKeys.readKeyFile(fifo));
        assertTrue(refused.getMessage().contains("not a regular file"), refused.getMessage());
        Path zero = Path.of("/dev/zero");
        assumeTrue(Files.exists(zero), "/dev/zero");
        assertTrue(assertThrows(IOException.class, () -> PeerKeys.readKeyFile(zero)).getMessage()
                .contains("not a regular file"));
    }

    @Test
    void aShortKeyIsRefused() throws IOException {
        IOException refused = assertThrows(IOException.class,
                () -> PeerKeys.readKeyFile(keyFile(new byte[31], "rw-------")));
        assertTrue(refused.getMessage().contains("31 bytes"), refused.getMessage());
    }

    @Test
    void strengthIsEstimatedFromTheDistinctByteValues() {
        assertEquals(0, PeerKeys.estimatedBits("0".repeat(32).getBytes(StandardCharsets.US_ASCII)),
                "thirty-two '0' characters");
        assertEquals(32, PeerKeys.estimatedBits("01".repeat(16).getBytes(StandardCharsets.US_ASCII)));
        byte[] digits = {0x01, 0x23, 0x45, 0x67, (byte) 0x89, (byte) 0xab, (byte) 0xcd, (byte) 0xef};
        byte[] hex = HexFormat.of().formatHex(digits).repeat(4).getBytes(StandardCharsets.US_ASCII);
        assertEquals(256, PeerKeys.estimatedBits(hex), "64 hex digits using all sixteen");
        byte[] all = new byte[256];
        for (int i = 0; i < all.length; i++) {
            all[i] = (byte) i;
        }
        assertEquals(2048, PeerKeys.estimatedBits(all));
    }

    @Test
    void keysCompareByIdAndBytesWithoutShowingThem() {
        byte[] key = "thirty-two bytes of a shared key".getBytes(StandardCharsets.US_ASCII);
        PeerKeys one = PeerKeys.NONE.with(1, key);
        Arrays.fill(key, (byte) 'x');
        assertEquals(PeerKeys.NONE.with(1, "thirty-two bytes of a shared key".getBytes(StandardCharsets.US_ASCII)),
                one, "the key was copied in: overwriting the caller's array changes nothing");
        assertNotEquals(PeerKeys.NONE.with(1, key), one);
        assertEquals("PeerKeys[ids=1]", one.toString());
        assertEquals(one.mac(1).getAlgorithm(), "HmacSHA256");
    }
}
