package dev.ofl.verbs.ffm;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.lang.foreign.GroupLayout;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.PaddingLayout;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Pins every Java layout and constant to the system {@code <infiniband/verbs.h>}: compiles
 * {@code native-headers/verbs_layout.c} with gcc, runs it, and compares each printed fact.
 */
class VerbsLayoutTest {
    private static final String INSTALL = "apt-get install gcc libibverbs-dev";

    /** "struct" -> {sizeof, alignof}; "struct.path" -> {offset, size}. */
    private static final Map<String, long[]> FACTS = new LinkedHashMap<>();
    private static final Map<String, Long> CONSTANTS = new LinkedHashMap<>();

    @BeforeAll
    static void runLayoutProgram() throws IOException, InterruptedException {
        Path moduleDir = Path.of(System.getProperty("basedir", ".")).toAbsolutePath().normalize();
        Path source = moduleDir.resolveSibling("native-headers").resolve("verbs_layout.c");
        assertTrue(Files.isRegularFile(source), "missing " + source + " (the C side of this test)");
        Path header = Path.of("/usr/include/infiniband/verbs.h");
        if (!Files.isRegularFile(header)) {
            fail(header + " is missing: install the verbs headers and a C compiler (" + INSTALL + ")");
        }
        Path outDir = moduleDir.resolve("target").resolve("verbs-layout");
        Files.createDirectories(outDir);
        Path binary = outDir.resolve("verbs_layout");
        List<String> compile = List.of("gcc", "-std=gnu11", "-Wall", "-Wextra", "-Werror", "-o", binary.toString(),
                source.toString());
        String compileOutput;
        try {
            compileOutput = run(compile, outDir);
        } catch (IOException e) {
            fail("cannot run gcc (" + e.getMessage() + "): install it and the verbs headers (" + INSTALL + ")");
            return;
        }
        assertTrue(Files.isExecutable(binary), "gcc did not build " + binary + ":\n" + compileOutput);
        String output = run(List.of(binary.toString()), outDir);
        for (String line : output.split("\n")) {
            if (line.isBlank()) {
                continue;
            }
            String[] parts = line.trim().split(" ");
            if (parts[0].equals("const")) {
                CONSTANTS.put(parts[1], Long.parseLong(parts[2]));
            } else {
                FACTS.put(parts[0], new long[] {Long.parseLong(parts[1]), Long.parseLong(parts[2])});
            }
        }
        assertTrue(FACTS.size() > 100 && CONSTANTS.size() > 50, "verbs_layout printed too little:\n" + output);
    }

    private static String run(List<String> command, Path dir) throws IOException, InterruptedException {
        Process process = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true).start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!process.waitFor(60, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            fail(command + " did not finish");
        }
        if (process.exitValue() != 0) {
            fail(command + " exited with " + process.exitValue() + " (is " + INSTALL + " done?):\n" + output);
        }
        return output;
    }

    @Test
    void everyCFactMatchesTheJavaLayout() throws ReflectiveOperationException {
        List<String> mismatches = new ArrayList<>();
        for (Map.Entry<String, long[]> fact : FACTS.entrySet()) {
            String key = fact.getKey();
            long[] c = fact.getValue();
            int dot = key.indexOf('.');
            GroupLayout layout = layoutOf(dot < 0 ? key : key.substring(0, dot));
            if (dot < 0) {
                if (layout.byteSize() != c[0] || layout.byteAlignment() != c[1]) {
                    mismatches.add(key + ": C sizeof " + c[0] + " align " + c[1] + ", Java size " + layout.byteSize()
                            + " align " + layout.byteAlignment());
                }
                continue;
            }
            List<MemoryLayout.PathElement> path = resolve(layout, key.substring(dot + 1).split("\\."));
            if (path == null) {
                mismatches.add(key + ": C offset " + c[0] + " size " + c[1] + ", no such member in the Java layout");
                continue;
            }
            MemoryLayout.PathElement[] elements = path.toArray(MemoryLayout.PathElement[]::new);
            long offset = layout.byteOffset(elements);
            long size = layout.select(elements).byteSize();
            if (offset != c[0] || size != c[1]) {
                mismatches.add(key + ": C offset " + c[0] + " size " + c[1] + ", Java offset " + offset + " size " + size);
            }
        }
        assertTrue(mismatches.isEmpty(), "Java layouts differ from <infiniband/verbs.h>:\n" + String.join("\n", mismatches));
    }

    @Test
    void everyJavaMemberIsCheckedByTheCProgram() throws ReflectiveOperationException {
        Set<String> structs = new TreeSet<>();
        FACTS.keySet().stream().filter(k -> k.indexOf('.') < 0).forEach(structs::add);
        List<String> unchecked = new ArrayList<>();
        for (String struct : structs) {
            collectMembers(layoutOf(struct), struct, unchecked);
        }
        unchecked.removeIf(FACTS::containsKey);
        assertTrue(unchecked.isEmpty(), "Java members that verbs_layout.c does not print: " + unchecked);
    }

    @Test
    void everyStructClassIsCheckedByTheCProgram() throws IOException, URISyntaxException {
        List<String> missing = new ArrayList<>();
        for (String name : ffmClassNames()) {
            if (name.startsWith("ibv_") && !FACTS.containsKey(name) && !isConstantsClass(name)) {
                missing.add(name);
            }
        }
        assertTrue(missing.isEmpty(), "struct classes that verbs_layout.c does not print: " + missing);
    }

    @Test
    void constantsMatchTheHeader() throws IOException, URISyntaxException, ReflectiveOperationException {
        Map<String, Integer> java = new LinkedHashMap<>();
        for (String name : ffmClassNames()) {
            if (!isConstantsClass(name)) {
                continue;
            }
            for (Field field : Class.forName("dev.ofl.verbs.ffm." + name).getFields()) {
                if (Modifier.isStatic(field.getModifiers()) && field.getType() == int.class && field.getName().startsWith("IBV_")) {
                    java.put(field.getName(), field.getInt(null));
                }
            }
        }
        List<String> mismatches = new ArrayList<>();
        CONSTANTS.forEach((name, value) -> {
            Integer javaValue = java.get(name);
            if (javaValue == null) {
                mismatches.add(name + ": C " + value + ", not defined in Java");
            } else if (javaValue.longValue() != value) {
                mismatches.add(name + ": C " + value + ", Java " + javaValue);
            }
        });
        java.keySet().stream().filter(n -> !CONSTANTS.containsKey(n))
                .forEach(n -> mismatches.add(n + ": Java " + java.get(n) + ", not printed by verbs_layout.c"));
        assertTrue(mismatches.isEmpty(), "constants differ from <infiniband/verbs.h>:\n" + String.join("\n", mismatches));
    }

    @Test
    void opsTableOffsetsAreTheOnesTheDataPathUses() {
        assertEquals(96, ibv_context.OPS_POLL_CQ_OFFSET);
        assertEquals(104, ibv_context.OPS_REQ_NOTIFY_CQ_OFFSET);
        assertEquals(208, ibv_context.OPS_POST_SEND_OFFSET);
        assertEquals(216, ibv_context.OPS_POST_RECV_OFFSET);
        assertEquals(52, ibv_port_attr.sizeof());
        assertEquals(48, ibv_port_attr.EXPORTED_QUERY_PORT_BYTES);
        assertEquals(ibv_port_attr.FLAGS_OFFSET + 1, ibv_port_attr.EXPORTED_QUERY_PORT_BYTES);
    }

    private static boolean isConstantsClass(String name) {
        try {
            return !Stream.of(Class.forName("dev.ofl.verbs.ffm." + name).getMethods()).anyMatch(m -> m.getName().equals("$LAYOUT"));
        } catch (ClassNotFoundException e) {
            throw new AssertionError(e);
        }
    }

    private static List<String> ffmClassNames() throws IOException, URISyntaxException {
        Path dir = Path.of(Verbs.class.getProtectionDomain().getCodeSource().getLocation().toURI())
                .resolve("dev/ofl/verbs/ffm");
        try (Stream<Path> files = Files.list(dir)) {
            return files.map(p -> p.getFileName().toString()).filter(n -> n.endsWith(".class") && !n.contains("$"))
                    .map(n -> n.substring(0, n.length() - ".class".length())).sorted().toList();
        }
    }

    private static GroupLayout layoutOf(String struct) throws ReflectiveOperationException {
        return (GroupLayout) Class.forName("dev.ofl.verbs.ffm." + struct).getMethod("$LAYOUT").invoke(null);
    }

    /** Resolves a C member path; members of anonymous unions ({@code $anon$N}) are reached as C does. */
    private static List<MemoryLayout.PathElement> resolve(MemoryLayout layout, String[] names) {
        List<MemoryLayout.PathElement> path = new ArrayList<>();
        MemoryLayout current = layout;
        for (String name : names) {
            if (!(current instanceof GroupLayout group)) {
                return null;
            }
            List<String> hops = find(group, name);
            if (hops == null) {
                return null;
            }
            for (String hop : hops) {
                path.add(MemoryLayout.PathElement.groupElement(hop));
                current = ((GroupLayout) current).memberLayouts().stream()
                        .filter(m -> m.name().orElse("").equals(hop)).findFirst().orElseThrow();
            }
        }
        return path;
    }

    private static List<String> find(GroupLayout group, String name) {
        for (MemoryLayout member : group.memberLayouts()) {
            String memberName = member.name().orElse("");
            if (memberName.equals(name)) {
                return List.of(name);
            }
            if (memberName.startsWith("$anon$") && member instanceof GroupLayout anonymous) {
                List<String> inner = find(anonymous, name);
                if (inner != null) {
                    List<String> hops = new ArrayList<>();
                    hops.add(memberName);
                    hops.addAll(inner);
                    return hops;
                }
            }
        }
        return null;
    }

    private static void collectMembers(GroupLayout group, String prefix, List<String> out) {
        for (MemoryLayout member : group.memberLayouts()) {
            if (member instanceof PaddingLayout) {
                continue;
            }
            String name = member.name().orElseThrow(() -> new AssertionError("unnamed member in " + prefix));
            if (name.startsWith("$anon$")) {
                collectMembers((GroupLayout) member, prefix, out);
                continue;
            }
            String path = prefix + "." + name;
            out.add(path);
            if (member instanceof GroupLayout nested) {
                collectMembers(nested, path, out);
            }
        }
    }
}
