package dev.ofl.verbs.rdma;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ofl.api.OflException;
import dev.ofl.api.spi.StagingPool;
import dev.ofl.verbs.GidSelectionException;
import java.lang.foreign.MemorySegment;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Opening and closing the backend's device and the staging memory registered with it: a GID
 * index override that carries no address names the override and the address; closing the device
 * closes its context; the staging memory's region and memory are released when it is freed.
 */
@Timeout(60)
class RdmaDeviceTest {
    private final RdmaSettings settings = RdmaSettings.from(TestEnvironment.rdmaProperties());

    @Test
    void anOverrideThatCarriesNoAddressIsNamedWithTheAddress() {
        Map<String, String> properties = new HashMap<>(TestEnvironment.rdmaProperties());
        // No device has this many GID entries: the override cannot carry the address.
        properties.put(RdmaSettings.GID_INDEX, "200");
        RdmaSettings override = RdmaSettings.from(properties);
        String ip = TestEnvironment.address().getHostAddress();
        OflException e = assertThrows(OflException.class, () -> RdmaDevice.open(TestEnvironment.address(), override));
        assertTrue(e.getMessage().startsWith("cannot use RDMA on " + ip + ": "), e.getMessage());
        GidSelectionException cause = assertInstanceOf(GidSelectionException.class, e.getCause());
        assertEquals(GidSelectionException.Reason.OVERRIDE_MISMATCH, cause.reason(), "the most specific reason");
        assertTrue(e.getMessage().contains("GID index override 200"), e.getMessage());
    }

    @Test
    void closingTheDeviceClosesItsDomainAndContext() {
        RdmaDevice device = RdmaDevice.open(TestEnvironment.address(), settings);
        device.close();
        assertThrows(IllegalStateException.class, device.context::queryDevice, "the context is closed");
        assertThrows(IllegalStateException.class, () -> device.domain.register(MemorySegment.ofArray(new byte[64]),
                0), "the domain is closed");
    }

    @Test
    void freeingStagingReleasesItsMemoryAndMayBeRepeated() {
        try (RdmaDevice device = RdmaDevice.open(TestEnvironment.address(), settings)) {
            RegisteredStaging staging = new RegisteredStaging(device);
            staging.free(); // nothing allocated yet: nothing to release
            MemorySegment memory = staging.allocate(2 * StagingPool.BLOCK_BYTES);
            assertEquals(0, memory.address() % StagingPool.BLOCK_BYTES, "aligned to the pool's blocks");
            assertEquals(2 * StagingPool.BLOCK_BYTES, memory.byteSize());
            staging.free();
            assertFalse(memory.scope().isAlive(), "the staging memory is freed");
            staging.free();
        }
    }
}
