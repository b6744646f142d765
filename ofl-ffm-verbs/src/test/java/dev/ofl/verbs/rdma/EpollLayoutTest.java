package dev.ofl.verbs.rdma;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ofl.verbs.ffm.NativeArch;
import dev.ofl.verbs.ffm.NativeBuild;
import java.io.IOException;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.StructLayout;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Pins {@link CompletionPoller}'s {@code struct epoll_event} layout (packed on x86-64, naturally
 * aligned on aarch64) and its epoll and fcntl constants to the C library's headers compiled for
 * each architecture of {@link NativeArch}: {@code src/test/c/epoll_layout.c} is built with the
 * host's compiler, or a cross compiler and run under qemu-user, so an x86-64 machine checks the
 * aarch64 layout too.
 */
class EpollLayoutTest {
    private static final String INSTALL = "apt-get install gcc gcc-aarch64-linux-gnu libc6-dev-arm64-cross "
            + "qemu-user-static";

    private static List<String> cFacts(NativeArch arch) throws IOException, InterruptedException {
        Path moduleDir = Path.of(System.getProperty("basedir", ".")).toAbsolutePath().normalize();
        Path source = moduleDir.resolve("src/test/c/epoll_layout.c");
        assertTrue(Files.isRegularFile(source), "missing " + source);
        Path outDir = moduleDir.resolve("target/epoll-layout").resolve(NativeBuild.triplet(arch));
        Files.createDirectories(outDir);
        Path binary = outDir.resolve("epoll_layout");
        Files.deleteIfExists(binary);
        boolean onHost = NativeBuild.buildsNatively(arch);
        NativeBuild.run(List.of(onHost ? "gcc" : NativeBuild.triplet(arch) + "-gcc", "-std=gnu11", "-Wall", "-Wextra",
                "-Werror", "-o", binary.toString(), source.toString()), outDir, INSTALL);
        return NativeBuild.run(onHost ? List.of(binary.toString())
                : List.of(NativeBuild.qemu(arch), "-L", "/usr/" + NativeBuild.triplet(arch), binary.toString()), outDir,
                INSTALL).lines().toList();
    }

    @ParameterizedTest
    @EnumSource(NativeArch.class)
    void theJavaSideMatchesTheCHeaders(NativeArch arch) throws IOException, InterruptedException {
        StructLayout event = CompletionPoller.epollEvent(arch);
        Map<String, Long> java = new HashMap<>();
        java.put("EPOLL_CLOEXEC", (long) CompletionPoller.EPOLL_CLOEXEC);
        java.put("EPOLL_CTL_ADD", (long) CompletionPoller.EPOLL_CTL_ADD);
        java.put("EPOLL_CTL_DEL", (long) CompletionPoller.EPOLL_CTL_DEL);
        java.put("EPOLL_CTL_MOD", (long) CompletionPoller.EPOLL_CTL_MOD);
        java.put("EPOLLIN", (long) CompletionPoller.EPOLLIN);
        java.put("EPOLLONESHOT", (long) CompletionPoller.EPOLLONESHOT);
        java.put("F_GETFL", (long) CompletionPoller.F_GETFL);
        java.put("F_SETFL", (long) CompletionPoller.F_SETFL);
        java.put("O_NONBLOCK", (long) CompletionPoller.O_NONBLOCK);
        List<String> facts = cFacts(arch);
        List<String> mismatches = new ArrayList<>();
        int constants = 0;
        for (String line : facts) {
            String[] f = line.split(" ");
            if (f[0].equals("epoll_event")) {
                long size = event.byteSize();
                long events = event.byteOffset(MemoryLayout.PathElement.groupElement("events"));
                long data = event.byteOffset(MemoryLayout.PathElement.groupElement("data"));
                String javaFact = "epoll_event " + size + " " + events + " " + data;
                if (!javaFact.equals(line)) {
                    mismatches.add("C: " + line + ", Java: " + javaFact);
                }
            } else if (f[0].equals("const")) {
                constants++;
                Long value = java.get(f[1]);
                if (value == null || value != Long.parseLong(f[2])) {
                    mismatches.add("C: " + line + ", Java: " + value);
                }
            }
        }
        assertEquals(java.size(), constants, () -> "the C program printed " + facts);
        assertTrue(facts.stream().anyMatch(l -> l.startsWith("epoll_event ")), () -> "no layout in " + facts);
        assertTrue(mismatches.isEmpty(), () -> arch + ": " + mismatches);
    }
}
