package dev.ofl.verbs.ffm;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.GroupLayout;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.PaddingLayout;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;

import static java.lang.foreign.MemoryLayout.PathElement.groupElement;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Pins every Java layout and constant to {@code <infiniband/verbs.h>} on each architecture of
 * {@link NativeArch}: compiles {@code native-headers/verbs_layout.c} for it, runs it, and compares
 * each printed fact with the layouts the Java side builds for that architecture. The host's own
 * architecture uses gcc and runs the program directly; the other is cross-compiled
 * ({@code aarch64-linux-gnu-gcc} on an x86-64 host) and run under qemu-user, so an x86-64 machine
 * checks the aarch64 layouts too. The verbs headers are the same for every architecture, so the
 * host's {@code /usr/include/infiniband} serves the cross compiler as well.
 */
class VerbsLayoutTest {
    private static final String INSTALL = "apt-get install gcc libibverbs-dev gcc-aarch64-linux-gnu "
            + "libc6-dev-arm64-cross qemu-user-static (./ofl test installs them)";
    private static final Path VERBS_HEADERS = Path.of("/usr/include/infiniband");

    private static final Map<NativeArch, Facts> FACTS_BY_ARCH = new EnumMap<>(NativeArch.class);

    /**
     * What verbs_layout.c printed for one architecture.
     *
     * @param layout "struct" to {sizeof, alignof}; "struct.path" to {offset, size}
     * @param constants constant name to value
     */
    private record Facts(Map<String, long[]> layout, Map<String, Long> constants) {
    }

    private static synchronized Facts facts(NativeArch arch) throws IOException, InterruptedException {
        Facts facts = FACTS_BY_ARCH.get(arch);
        if (facts == null) {
            facts = runLayoutProgram(arch);
            FACTS_BY_ARCH.put(arch, facts);
        }
        return facts;
    }

    private static Facts runLayoutProgram(NativeArch arch) throws IOException, InterruptedException {
        Path moduleDir = Path.of(System.getProperty("basedir", ".")).toAbsolutePath().normalize();
        Path source = moduleDir.resolveSibling("native-headers").resolve("verbs_layout.c");
        assertTrue(Files.isRegularFile(source), "missing " + source + " (the C side of this test)");
        if (!Files.isRegularFile(VERBS_HEADERS.resolve("verbs.h"))) {
            fail(VERBS_HEADERS.resolve("verbs.h") + " is missing: install the verbs headers and the C compilers (" + INSTALL + ")");
        }
        Path outDir = moduleDir.resolve("target").resolve("verbs-layout").resolve(NativeBuild.triplet(arch));
        Files.createDirectories(outDir);
        Path binary = outDir.resolve("verbs_layout");
        Files.deleteIfExists(binary);
        boolean onHost = NativeBuild.buildsNatively(arch);
        List<String> compile = new ArrayList<>();
        if (onHost) {
            compile.add("gcc");
        } else {
            // A cross compiler searches only its own sysroot; hand it the arch-independent verbs headers alone,
            // so that nothing else of the host's /usr/include leaks into the other architecture's build.
            Path include = outDir.resolve("include");
            Files.createDirectories(include);
            Path link = include.resolve("infiniband");
            Files.deleteIfExists(link);
            Files.createSymbolicLink(link, VERBS_HEADERS);
            compile.addAll(List.of(NativeBuild.triplet(arch) + "-gcc", "-I", include.toString()));
        }
        compile.addAll(List.of("-std=gnu11", "-Wall", "-Wextra", "-Werror", "-o", binary.toString(), source.toString()));
        String compileOutput = NativeBuild.run(compile, outDir, INSTALL);
        assertTrue(Files.isExecutable(binary), compile.getFirst() + " did not build " + binary + ":\n" + compileOutput);
        List<String> execute = onHost
                ? List.of(binary.toString())
                : List.of(NativeBuild.qemu(arch), "-L", "/usr/" + NativeBuild.triplet(arch), binary.toString());
        String output = NativeBuild.run(execute, outDir, INSTALL);
        Files.writeString(outDir.resolve("verbs_layout.txt"), output);
        Map<String, long[]> layout = new LinkedHashMap<>();
        Map<String, Long> constants = new LinkedHashMap<>();
        for (String line : output.split("\n")) {
            if (line.isBlank()) {
                continue;
            }
            String[] parts = line.trim().split(" ");
            if (parts[0].equals("const")) {
                constants.put(parts[1], Long.parseLong(parts[2]));
            } else {
                layout.put(parts[0], new long[] {Long.parseLong(parts[1]), Long.parseLong(parts[2])});
            }
        }
        assertTrue(layout.size() > 100 && constants.size() > 50, "verbs_layout for " + arch + " printed too little:\n" + output);
        return new Facts(layout, constants);
    }

    @ParameterizedTest
    @EnumSource(NativeArch.class)
    void everyCFactMatchesTheJavaLayout(NativeArch arch) throws ReflectiveOperationException, IOException, InterruptedException {
        List<String> mismatches = new ArrayList<>();
        for (Map.Entry<String, long[]> fact : facts(arch).layout().entrySet()) {
            String key = fact.getKey();
            long[] c = fact.getValue();
            int dot = key.indexOf('.');
            GroupLayout layout = layoutOf(dot < 0 ? key : key.substring(0, dot), arch);
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
        assertTrue(mismatches.isEmpty(), "Java layouts for " + arch + " differ from <infiniband/verbs.h> compiled for " + arch
                + ":\n" + String.join("\n", mismatches));
    }

    @ParameterizedTest
    @EnumSource(NativeArch.class)
    void everyJavaMemberIsCheckedByTheCProgram(NativeArch arch) throws ReflectiveOperationException, IOException, InterruptedException {
        Map<String, long[]> facts = facts(arch).layout();
        Set<String> structs = new TreeSet<>();
        facts.keySet().stream().filter(k -> k.indexOf('.') < 0).forEach(structs::add);
        List<String> unchecked = new ArrayList<>();
        for (String struct : structs) {
            collectMembers(layoutOf(struct, arch), struct, unchecked);
        }
        unchecked.removeIf(facts::containsKey);
        assertTrue(unchecked.isEmpty(), "Java members (" + arch + ") that verbs_layout.c does not print: " + unchecked);
    }

    @ParameterizedTest
    @EnumSource(NativeArch.class)
    void everyStructClassIsCheckedByTheCProgram(NativeArch arch) throws IOException, URISyntaxException, InterruptedException {
        Map<String, long[]> facts = facts(arch).layout();
        List<String> missing = new ArrayList<>();
        for (String name : ffmClassNames()) {
            if (name.startsWith("ibv_") && !facts.containsKey(name) && !isConstantsClass(name)) {
                missing.add(name);
            }
        }
        assertTrue(missing.isEmpty(), "struct classes that verbs_layout.c does not print: " + missing);
    }

    @ParameterizedTest
    @EnumSource(NativeArch.class)
    void constantsMatchTheHeader(NativeArch arch) throws IOException, URISyntaxException, ReflectiveOperationException,
            InterruptedException {
        Map<String, Long> constants = facts(arch).constants();
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
        constants.forEach((name, value) -> {
            Integer javaValue = java.get(name);
            if (javaValue == null) {
                mismatches.add(name + ": C " + value + ", not defined in Java");
            } else if (javaValue.longValue() != value) {
                mismatches.add(name + ": C " + value + ", Java " + javaValue);
            }
        });
        java.keySet().stream().filter(n -> !constants.containsKey(n))
                .forEach(n -> mismatches.add(n + ": Java " + java.get(n) + ", not printed by verbs_layout.c"));
        assertTrue(mismatches.isEmpty(), "constants differ from <infiniband/verbs.h> on " + arch + ":\n" + String.join("\n", mismatches));
    }

    @ParameterizedTest
    @EnumSource(NativeArch.class)
    void opsTableOffsetsAreTheOnesTheDataPathUses(NativeArch arch) {
        GroupLayout context = ibv_context.layout(arch);
        assertEquals(96, context.byteOffset(groupElement("ops"), groupElement("poll_cq")));
        assertEquals(104, context.byteOffset(groupElement("ops"), groupElement("req_notify_cq")));
        assertEquals(208, context.byteOffset(groupElement("ops"), groupElement("post_send")));
        assertEquals(216, context.byteOffset(groupElement("ops"), groupElement("post_recv")));
        assertEquals(96, ibv_context.OPS_POLL_CQ_OFFSET);
        assertEquals(104, ibv_context.OPS_REQ_NOTIFY_CQ_OFFSET);
        assertEquals(208, ibv_context.OPS_POST_SEND_OFFSET);
        assertEquals(216, ibv_context.OPS_POST_RECV_OFFSET);
        assertEquals(52, ibv_port_attr.sizeof());
        assertEquals(48, ibv_port_attr.EXPORTED_QUERY_PORT_BYTES);
        assertEquals(ibv_port_attr.FLAGS_OFFSET + 1, ibv_port_attr.EXPORTED_QUERY_PORT_BYTES);
    }

    /**
     * What makes per-architecture layouts necessary, and enough for three structs: the C facts of
     * the two architectures differ in exactly the structs holding a {@code pthread_mutex_t} and the
     * members from the mutex on. This also proves the cross build really is another architecture.
     */
    @Test
    void architecturesDifferOnlyFromThePthreadMutexOn() throws IOException, InterruptedException {
        Map<String, long[]> x86 = facts(NativeArch.X86_64).layout();
        Map<String, long[]> arm = facts(NativeArch.AARCH64).layout();
        assertEquals(x86.keySet(), arm.keySet());
        Set<String> differing = new TreeSet<>();
        x86.forEach((key, value) -> {
            if (!Arrays.equals(value, arm.get(key))) {
                differing.add(key);
            }
        });
        assertEquals(new TreeSet<>(List.of(
                "ibv_context", "ibv_context.mutex", "ibv_context.abi_compat",
                "ibv_cq", "ibv_cq.mutex", "ibv_cq.cond", "ibv_cq.comp_events_completed", "ibv_cq.async_events_completed",
                "ibv_qp", "ibv_qp.mutex", "ibv_qp.cond", "ibv_qp.events_completed")), differing);
        assertEquals(List.of(336L, 8L), List.of(arm.get("ibv_context")[0], arm.get("ibv_context")[1]));
        assertEquals(328L, arm.get("ibv_context.abi_compat")[0]);
        assertEquals(facts(NativeArch.X86_64).constants(), facts(NativeArch.AARCH64).constants());
    }

    @Test
    void runtimeLayoutsAreThoseOfThisJvmsArchitecture() {
        NativeArch arch = NativeArch.current();
        assertEquals(ibv_context.layout(arch), ibv_context.$LAYOUT());
        assertEquals(ibv_cq.layout(arch), ibv_cq.$LAYOUT());
        assertEquals(ibv_qp.layout(arch), ibv_qp.$LAYOUT());
        try (Arena arena = Arena.ofConfined()) {
            assertEquals(arch.pthreadMutexBytes(), ibv_context.mutex(ibv_context.allocate(arena)).byteSize());
            assertEquals(arch.pthreadMutexBytes(), ibv_cq.mutex(ibv_cq.allocate(arena)).byteSize());
            assertEquals(arch.pthreadMutexBytes(), ibv_qp.mutex(ibv_qp.allocate(arena)).byteSize());
        }
    }

    @Test
    void architectureComesFromOsArch() {
        assertEquals(Optional.of(NativeArch.X86_64), NativeArch.fromOsArch("amd64"));
        assertEquals(Optional.of(NativeArch.X86_64), NativeArch.fromOsArch("x86_64"));
        assertEquals(Optional.of(NativeArch.AARCH64), NativeArch.fromOsArch("aarch64"));
        for (String other : List.of("arm", "riscv64", "ppc64le", "s390x", "x86", "")) {
            assertEquals(Optional.empty(), NativeArch.fromOsArch(other), other);
        }
        assertEquals(40, NativeArch.X86_64.pthreadMutexBytes());
        assertEquals(48, NativeArch.AARCH64.pthreadMutexBytes());
        String message = NativeArch.unsupportedMessage("riscv64");
        assertTrue(message.contains("'riscv64'") && message.contains("x86-64") && message.contains("aarch64"), message);
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

    /**
     * The struct's layout on {@code arch}: built by its {@code layout(NativeArch)} where it has one
     * (the structs that embed a {@code pthread_mutex_t}), else its one {@code $LAYOUT()}, which the
     * C comparison then proves to be the same on every architecture.
     */
    private static GroupLayout layoutOf(String struct, NativeArch arch) throws ReflectiveOperationException {
        Class<?> type = Class.forName("dev.ofl.verbs.ffm." + struct);
        try {
            return (GroupLayout) type.getMethod("layout", NativeArch.class).invoke(null, arch);
        } catch (NoSuchMethodException e) {
            return (GroupLayout) type.getMethod("$LAYOUT").invoke(null);
        }
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
