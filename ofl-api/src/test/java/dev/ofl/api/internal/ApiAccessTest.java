package dev.ofl.api.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ofl.api.Completion;
import dev.ofl.api.OflStatus;
import dev.ofl.api.Region;
import java.io.IOException;
import java.io.InputStream;
import java.lang.foreign.Arena;
import java.lang.module.ModuleDescriptor;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.jar.JarFile;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

class ApiAccessTest {

    @Test
    void theUserPackageOffersNoWayToForgeARegionOrAnOutcome() {
        assertEquals(0, Region.class.getConstructors().length, "Region has no public constructor");
        for (Method method : Completion.class.getDeclaredMethods()) {
            if (Modifier.isPublic(method.getModifiers())) {
                assertTrue(method.getParameterCount() == 0, "Completion's public methods only read: " + method);
            }
        }
    }

    @Test
    void theEngineMakesRegionsAndFillsCompletionsThroughTheMembers() {
        Object owner = new Object();
        try (Arena arena = Arena.ofConfined()) {
            Region region = ApiAccess.members().newRegion(owner, 3, arena.allocate(64));
            assertSame(owner, region.owner());
            assertEquals(3, region.id());
            assertEquals(64, region.byteSize());
        }
        Completion completion = new Completion();
        ApiAccess.members().complete(completion, 9, OflStatus.OK, 0, 128, null);
        assertEquals(9, completion.ticket());
        assertEquals(OflStatus.OK, completion.status());
        assertEquals(128, completion.responseLength());
    }

    @Test
    void theMembersAreInstalledOnlyOnce() {
        ApiAccess.Members installed = ApiAccess.members();
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> ApiAccess.install(installed));
        assertTrue(e.getMessage().contains("installed already"), e.getMessage());
        assertSame(installed, ApiAccess.members());
    }

    @Test
    void theModuleKeepsThisPackageToItself() throws IOException {
        Path classes = Path.of(ApiAccess.class.getProtectionDomain().getCodeSource().getLocation().getPath());
        ModuleDescriptor module;
        if (Files.isDirectory(classes)) {
            try (InputStream in = Files.newInputStream(classes.resolve("module-info.class"))) {
                module = ModuleDescriptor.read(in);
            }
        } else {
            try (JarFile jar = new JarFile(classes.toFile());
                    InputStream in = jar.getInputStream(jar.getEntry("module-info.class"))) {
                module = ModuleDescriptor.read(in);
            }
        }
        Set<String> exported = module.exports().stream().map(ModuleDescriptor.Exports::source)
                .collect(Collectors.toSet());
        assertEquals(Set.of("dev.ofl.api", "dev.ofl.api.spi", "dev.ofl.api.wire"), exported,
                "dev.ofl.api.internal is not exported: " + module);
    }
}
