package dev.ofl.verbs;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.io.InputStream;
import java.lang.module.ModuleDescriptor;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * The module opens its hand-written layer to everyone, the raw binding to the probe alone, and the
 * backend to no one (the service loader finds it through {@code provides}).
 */
class ModuleExportsTest {

    @Test
    void theRawBindingIsExportedOnlyToTheProbeAndTheBackendNotAtAll() throws IOException {
        Path classes = Path.of(QueuePair.class.getProtectionDomain().getCodeSource().getLocation().getPath());
        ModuleDescriptor module;
        try (InputStream in = Files.newInputStream(classes.resolve("module-info.class"))) {
            module = ModuleDescriptor.read(in);
        }
        Map<String, Set<String>> exports = module.exports().stream()
                .collect(Collectors.toMap(ModuleDescriptor.Exports::source, ModuleDescriptor.Exports::targets));
        assertEquals(Map.of("dev.ofl.verbs", Set.of(), "dev.ofl.verbs.ffm", Set.of("dev.ofl.probe")), exports,
                module.toString());
        assertEquals(Set.of(), module.opens(), "nothing is opened to reflection");
    }
}
