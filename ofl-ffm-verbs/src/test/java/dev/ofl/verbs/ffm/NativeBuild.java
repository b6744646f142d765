package dev.ofl.verbs.ffm;

import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Building and running a small C program for each architecture of {@link NativeArch}, for the
 * tests that pin Java layouts and constants to C headers: the host's compiler, or a cross
 * compiler whose program runs under qemu-user.
 */
public final class NativeBuild {
    /** What the host's {@code gcc} builds for, asked once; empty if it cannot be asked. */
    private static volatile String hostMachine;

    private NativeBuild() {
    }

    /**
     * Whether the host's own {@code gcc} builds programs of this architecture, which the host then
     * runs as they are; otherwise a cross compiler builds them and qemu-user runs them. Asked of the
     * compiler ({@code gcc -dumpmachine}), not of {@code os.arch}: a JVM under emulation (./ofl
     * test-aarch64) is of another architecture than the host whose programs it starts.
     *
     * @param arch the architecture
     * @return {@code true} if {@code gcc} targets it
     */
    public static boolean buildsNatively(NativeArch arch) {
        String machine = hostMachine;
        if (machine == null) {
            try {
                Process process = new ProcessBuilder("gcc", "-dumpmachine").redirectErrorStream(true).start();
                machine = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
                if (!process.waitFor(60, TimeUnit.SECONDS) || process.exitValue() != 0) {
                    machine = "";
                }
            } catch (IOException e) {
                machine = "";
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                machine = "";
            }
            hostMachine = machine;
        }
        if (machine.isEmpty()) {
            return NativeArch.detected().orElse(null) == arch;
        }
        // gcc -dumpmachine says x86_64-linux-gnu, or x86_64-pc-linux-gnu on some systems.
        String cpu = triplet(arch).substring(0, triplet(arch).indexOf('-'));
        return machine.startsWith(cpu + "-");
    }

    /**
     * The GNU triplet: the cross compiler's prefix and its sysroot under {@code /usr}.
     *
     * @param arch the architecture
     * @return e.g. {@code aarch64-linux-gnu}
     */
    public static String triplet(NativeArch arch) {
        return switch (arch) {
            case X86_64 -> "x86_64-linux-gnu";
            case AARCH64 -> "aarch64-linux-gnu";
        };
    }

    /**
     * The qemu-user binary that runs another architecture's program.
     *
     * @param arch the architecture
     * @return e.g. {@code qemu-aarch64-static}
     */
    public static String qemu(NativeArch arch) {
        return switch (arch) {
            case X86_64 -> "qemu-x86_64-static";
            case AARCH64 -> "qemu-aarch64-static";
        };
    }

    /**
     * Runs a command to its end and returns its output; fails the test, naming the packages to
     * install, if it cannot start, does not finish in a minute, or exits non-zero.
     *
     * @param command the command and its arguments
     * @param dir the working directory
     * @param install the {@code apt-get install ...} line that provides the tools
     * @return standard output and error, merged
     * @throws IOException if the output cannot be read
     * @throws InterruptedException if interrupted while waiting
     */
    public static String run(List<String> command, Path dir, String install) throws IOException, InterruptedException {
        Process process;
        try {
            process = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true).start();
        } catch (IOException e) {
            fail("cannot run " + command.getFirst() + " (" + e.getMessage() + "): " + install);
            throw e;
        }
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!process.waitFor(60, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            fail(command + " did not finish");
        }
        if (process.exitValue() != 0) {
            fail(command + " exited with " + process.exitValue() + " (is " + install + " done?):\n" + output);
        }
        return output;
    }
}
