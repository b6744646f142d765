package dev.ofl.probe;

import com.fasterxml.jackson.databind.JsonNode;
import dev.ofl.api.Limits;
import dev.ofl.probe.ProbeReport.Memlock;
import dev.ofl.verbs.MemlockLimit;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The probe's locked-memory section: the estimate, the verdict, and the options that size it. */
class ProbeMemlockTest {
    private static final long PAGE = 4096;
    private static final long MIB = 1 << 20;
    /**
     * No library: loading one here would make later tests in this JVM that open
     * "libibverbs.so.1" by name get it (one library per soname). The section is shown regardless.
     */
    private static final String ABSENT = "/nonexistent/ofl-probe-test/libibverbs.so.1";

    @Test
    void theDefaultsCostWhatTheOperationsGuideSays() {
        // docs/OPERATIONS.md 3.3: slot = 262,464 bytes for the client defaults.
        assertEquals(262_464, MemlockEstimate.slotBytes(Limits.CLIENT_DEFAULTS));
        // 9 send slots (one spare) and a ring of 8 headers, each rounded to pages.
        assertEquals(pages(9 * 262_464) + PAGE, MemlockEstimate.clientBytes(Limits.CLIENT_DEFAULTS, PAGE));
        // docs/PROTOCOL.md 13: 8 receive slots of 4,416 bytes (payloads up to 4,096 inline; the server
        // reads larger ones), 35,328 bytes, and 256 completion headers, 16,384 bytes.
        assertEquals(pages(35_328) + 16_384, MemlockEstimate.serverConnectionBytes(Limits.CLIENT_DEFAULTS, PAGE));
        // The staging pool, registered once per server: the default budget.
        assertEquals(64 * MIB, MemlockEstimate.stagingBytes(Limits.CLIENT_DEFAULTS));
        assertEquals(128 * MIB, MemlockEstimate.stagingBytes(new Limits(1024, 128 << 20, 16, 8)));
    }

    @Test
    void aOneConnectionServerCountsItsStagingPool() {
        Memlock memlock = MemlockEstimate.of(MemlockLimit.of(8 * MIB, 8 * MIB), false, Limits.CLIENT_DEFAULTS, 1, PAGE);
        assertEquals(64 * MIB + MemlockEstimate.serverConnectionBytes(Limits.CLIENT_DEFAULTS, PAGE),
                memlock.serverBytes(), "a one-connection server pins about 64 MiB, mostly the pool");
        assertEquals(64 * MIB, memlock.serverStagingBytes());
    }

    @Test
    void aLimitTooLowForTheServerSaysByHowMuchAndTheFix() {
        Memlock memlock = MemlockEstimate.of(MemlockLimit.of(8 * MIB, 8 * MIB), false, Limits.CLIENT_DEFAULTS, 2, PAGE);

        long connection = MemlockEstimate.serverConnectionBytes(Limits.CLIENT_DEFAULTS, PAGE);
        long server = 64 * MIB + 2 * connection;
        assertEquals(server, memlock.serverBytes());
        assertEquals(8 * MIB, memlock.softBytes());
        assertTrue(memlock.verdict().startsWith("a client fits"), memlock::verdict);
        assertTrue(memlock.verdict().contains("a server with 2 connections needs "
                + MemlockLimit.describe(server) + ", above the soft limit by "
                + MemlockLimit.describe(server - 8 * MIB)), memlock::verdict);
        assertTrue(memlock.verdict().contains("ulimit -l") && memlock.verdict().contains("LimitMEMLOCK="),
                memlock::verdict);
    }

    @Test
    void unlimitedAndTheCapabilityAreNamedAsSuch() {
        Memlock unlimited = MemlockEstimate.of(MemlockLimit.of(MemlockLimit.UNLIMITED, MemlockLimit.UNLIMITED), false,
                Limits.SERVER_DEFAULTS, 64, PAGE);
        assertEquals("unlimited", unlimited.soft());
        assertEquals(null, unlimited.softBytes());
        assertTrue(unlimited.verdict().startsWith("unlimited"), unlimited::verdict);

        Memlock capable = MemlockEstimate.of(MemlockLimit.of(64 * 1024, 64 * 1024), true, Limits.CLIENT_DEFAULTS, 1, PAGE);
        assertTrue(capable.verdict().contains("CAP_IPC_LOCK"), capable::verdict);
        assertFalse(capable.verdict().contains("Fix:"), capable::verdict);
    }

    @Test
    void theCommandReportsThisProcesssLimitAndTheEstimateForItsOptions() {
        ProbeRun run = ProbeRun.of("--library", ABSENT, "--json", "--max-response-bytes", "1048576",
                "--max-in-flight", "4", "--connections", "3");

        JsonNode memlock = run.json().path("memlock");
        MemlockLimit limit = MemlockLimit.current();
        assertEquals(MemlockLimit.describe(limit.softBytes()), memlock.path("soft").asText(), run::toString);
        assertEquals(MemlockLimit.describe(limit.hardBytes()), memlock.path("hard").asText(), run::toString);
        assertEquals(1_048_576, memlock.path("maxResponseBytes").asInt());
        assertEquals(4, memlock.path("maxInFlight").asInt());
        Limits limits = new Limits(Limits.CLIENT_DEFAULTS.maxRequestBytes(), 1 << 20, Limits.MAX_RANGES, 4);
        long connection = MemlockEstimate.serverConnectionBytes(limits, MemlockLimit.pageSize());
        assertEquals(connection, memlock.path("serverConnectionBytes").asLong());
        assertEquals(64 * MIB, memlock.path("serverStagingBytes").asLong());
        assertEquals(64 * MIB + 3 * connection, memlock.path("serverBytes").asLong());
    }

    @Test
    void theHumanReportShowsTheLimitEvenWithoutALibrary() {
        ProbeRun run = ProbeRun.of("--library", ABSENT);

        assertEquals(ExitStatus.LIBRARY_MISSING, run.exitStatus(), run::toString);
        assertTrue(run.err().contains("locked memory (RLIMIT_MEMLOCK, of this process): soft "
                + MemlockLimit.describe(MemlockLimit.current().softBytes())), run::toString);
        assertTrue(run.err().contains("a server: its staging pool "), run::toString);
    }

    @Test
    void limitsOutsideTheProtocolAreAUsageError() {
        ProbeRun run = ProbeRun.of("--max-in-flight", "0");

        assertEquals(ExitStatus.USAGE, run.exitStatus(), run::toString);
        assertTrue(run.err().contains("maxInFlight = 0"), run::toString);
        assertEquals(ExitStatus.USAGE, ProbeRun.of("--connections", "0").exitStatus());
    }

    private static long pages(long bytes) {
        return (bytes + PAGE - 1) / PAGE * PAGE;
    }
}
