package dev.ofl.verbs;

import dev.ofl.verbs.ffm.ibv_access_flags;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/** The locked-memory check: the decision on given numbers, the system call, and the accounting. */
class MemlockLimitTest {
    private static final long MIB = 1 << 20;
    private static final long PAGE = 4096;

    @Test
    void aRegistrationThatFitsIsAllowed() {
        MemlockLimit limit = MemlockLimit.of(8 * MIB, 8 * MIB);

        assertEquals(Optional.empty(), MemlockLimit.refusal(limit, false, 0, 8 * MIB), "exactly the limit fits");
        assertEquals(Optional.empty(), MemlockLimit.refusal(limit, false, 6 * MIB, 2 * MIB));
    }

    @Test
    void aRegistrationAboveTheLimitIsRefusedWithTheNumbersAndTheFix() {
        MemlockLimit limit = MemlockLimit.of(8 * MIB, 16 * MIB);

        String message = MemlockLimit.refusal(limit, false, 6 * MIB, 2 * MIB + PAGE).orElseThrow();

        assertTrue(message.contains("registering 2101248 bytes"), message);
        assertTrue(message.contains("would pin 8392704 bytes"), message);
        assertTrue(message.contains("6291456 bytes (6 MiB) of it already registered by ofl"), message);
        assertTrue(message.contains("soft 8388608 bytes (8 MiB), hard 16777216 bytes (16 MiB)"), message);
        assertTrue(message.contains("ulimit -l"), message);
        assertTrue(message.contains("LimitMEMLOCK="), message);
    }

    @Test
    void noLimitOrTheCapabilityLetsEverythingThrough() {
        assertEquals(Optional.empty(), MemlockLimit.refusal(MemlockLimit.of(MemlockLimit.UNLIMITED,
                MemlockLimit.UNLIMITED), false, Long.MAX_VALUE / 4, Long.MAX_VALUE / 4));
        assertEquals(Optional.empty(), MemlockLimit.refusal(MemlockLimit.of(64 * 1024, 64 * 1024), true, 0, 1 << 30),
                "CAP_IPC_LOCK lifts the limit");
        assertTrue(MemlockLimit.refusal(MemlockLimit.of(0, 0), false, 0, PAGE).isPresent(), "a zero limit pins nothing");
    }

    @Test
    void aRefusedReservationThrowsWithTheCallAndCountsNothing() {
        long before = MemlockLimit.registeredBytes();
        MemlockLimit tiny = MemlockLimit.of(PAGE, PAGE);

        VerbsException e = assertThrows(VerbsException.class,
                () -> MemlockLimit.reserve(2 * PAGE, "address 0x1000, length 8192", tiny, false));

        assertEquals("ibv_reg_mr", e.function());
        assertTrue(e.getMessage().contains("address 0x1000, length 8192"), e::getMessage);
        assertTrue(e.fix().startsWith("not called: registering 8192 bytes"), e::fix);
        assertTrue(e.fix().contains("ulimit -l") && e.fix().contains("LimitMEMLOCK="), e::fix);
        assertEquals(before, MemlockLimit.registeredBytes(), "a refused registration is not counted");

        MemlockLimit.reserve(2 * PAGE, "with CAP_IPC_LOCK", tiny, true);
        assertEquals(before + 2 * PAGE, MemlockLimit.registeredBytes(), "an accepted one is");
        MemlockLimit.released(2 * PAGE);
        assertEquals(before, MemlockLimit.registeredBytes());
    }

    @Test
    void registrationsPinWholePages() {
        assertEquals(PAGE, MemlockLimit.pinnedBytes(0x1000, 1, PAGE));
        assertEquals(PAGE, MemlockLimit.pinnedBytes(0x1000, PAGE, PAGE));
        assertEquals(2 * PAGE, MemlockLimit.pinnedBytes(0x1000, PAGE + 1, PAGE));
        assertEquals(2 * PAGE, MemlockLimit.pinnedBytes(0x1fff, 2, PAGE), "two bytes across a page boundary");
        assertEquals(PAGE, MemlockLimit.pinnedBytes(0x1040, 64, PAGE));
    }

    @Test
    void limitsAreDescribedWithUnlimitedNamedAsSuch() {
        assertEquals("unlimited", MemlockLimit.describe(MemlockLimit.UNLIMITED));
        assertEquals("8388608 bytes (8 MiB)", MemlockLimit.describe(8 * MIB));
        assertEquals("65536 bytes (64 KiB)", MemlockLimit.describe(64 * 1024));
        assertEquals("100 bytes", MemlockLimit.describe(100));
        assertEquals("soft 65536 bytes (64 KiB), hard unlimited",
                MemlockLimit.of(64 * 1024, MemlockLimit.UNLIMITED).toString());
        assertThrows(IllegalArgumentException.class, () -> MemlockLimit.of(-2, 0));
    }

    @Test
    void getrlimitAgreesWithTheShellsUlimit() throws Exception {
        MemlockLimit limit = MemlockLimit.current();

        assertEquals(shellLimit("-Sl"), limit.softBytes(), limit::toString);
        assertEquals(shellLimit("-Hl"), limit.hardBytes(), limit::toString);
    }

    @Test
    void thePageSizeIsAPowerOfTwo() {
        long page = MemlockLimit.pageSize();
        assertTrue(page >= 4096 && Long.bitCount(page) == 1, () -> "page size " + page);
    }

    @Test
    void theCapabilityIsReadFromTheEffectiveSet() throws IOException {
        String capEff = Files.readAllLines(Path.of("/proc/self/status")).stream()
                .filter(line -> line.startsWith("CapEff:")).findFirst().orElseThrow().substring(7).strip();
        boolean expected = (Long.parseUnsignedLong(capEff, 16) & (1L << 14)) != 0;
        assertEquals(expected, MemlockLimit.canLockWithoutLimit(), "CapEff " + capEff);
    }

    @Test
    void registeredMemoryIsCountedUntilDeregistered() {
        VerbsLibrary softverbs = VerbsLibrary.load(softverbsLibrary());
        Context context;
        try (DeviceList devices = DeviceList.open(softverbs)) {
            context = devices.byName("softverbs0").open();
        }
        try (context; Arena arena = Arena.ofConfined()) {
            ProtectionDomain pd = context.allocateProtectionDomain();
            MemorySegment memory = arena.allocate(3 * PAGE - 100, PAGE);
            long pinned = MemlockLimit.pinnedBytes(memory.address(), memory.byteSize(), MemlockLimit.pageSize());
            long before = MemlockLimit.registeredBytes();

            MemoryRegion region = pd.register(memory, ibv_access_flags.IBV_ACCESS_LOCAL_WRITE);
            assertEquals(before + pinned, MemlockLimit.registeredBytes());

            region.close();
            assertEquals(before, MemlockLimit.registeredBytes());
        }
    }

    /** {@code ulimit} in KiB, or "unlimited", read from bash, in bytes or {@link MemlockLimit#UNLIMITED}. */
    private static long shellLimit(String flag) throws IOException, InterruptedException {
        Process bash = new ProcessBuilder("bash", "-c", "ulimit " + flag).redirectErrorStream(true).start();
        if (!bash.waitFor(30, TimeUnit.SECONDS)) {
            bash.destroyForcibly();
            fail("bash -c 'ulimit " + flag + "' did not finish in 30 s");
        }
        String out = new String(bash.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
        assertEquals(0, bash.exitValue(), out);
        return out.equals("unlimited") ? MemlockLimit.UNLIMITED : Long.parseLong(out) * 1024;
    }

    /** softverbs' library: the one ofl.test.softverbs names (an emulated JVM's architecture's), else the build's. */
    private static String softverbsLibrary() {
        String named = System.getProperty("ofl.test.softverbs", "");
        if (!named.isBlank()) {
            return named;
        }
        Path moduleDir = Path.of(System.getProperty("basedir", ".")).toAbsolutePath().normalize();
        Path library = moduleDir.resolveSibling("ofl-softverbs").resolve("target/lib/libibverbs.so.1");
        if (!Files.isRegularFile(library)) {
            fail(library + " is missing: build ofl-softverbs first (mvn -pl ofl-softverbs package)");
        }
        return library.toString();
    }
}
