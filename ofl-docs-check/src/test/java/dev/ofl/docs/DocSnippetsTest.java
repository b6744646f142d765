package dev.ofl.docs;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.io.TempDir;

import javax.tools.Diagnostic;
import javax.tools.DiagnosticCollector;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.StandardJavaFileManager;
import javax.tools.ToolProvider;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Every Java snippet of the project's markdown compiles against the real artifacts, and those
 * marked to run do, over TCP on 127.0.0.1. See {@link Snippet} for the markers.
 */
class DocSnippetsTest {
    /** The port the README's snippets name; replaced by a free one when they run. */
    private static final String DOC_PORT = "18601";
    private static final long RUN_TIMEOUT_S = 120;
    /**
     * Nothing beyond what a body shows: a reader pastes a snippet with its import lines, so a
     * snippet that compiles only with imports of the harness's would not compile as pasted.
     */
    private static final String BODY_IMPORTS = "";

    @TempDir
    static Path work;

    private static final Map<String, Unit> UNITS = new LinkedHashMap<>();
    private static final Map<String, List<String>> ERRORS = new LinkedHashMap<>();
    private static URLClassLoader loader;

    /** One source file made from one snippet or a group that runs together. */
    private record Unit(String className, String source, List<Snippet> snippets, boolean runs) {
    }

    @BeforeAll
    static void compileEverySnippet() throws IOException {
        List<Snippet> snippets = new ArrayList<>();
        for (Path file : markdownFiles()) {
            snippets.addAll(Snippet.read(file));
        }
        List<Snippet> group = new ArrayList<>();
        for (Snippet snippet : snippets) {
            if (snippet.isCompilationUnit()) {
                add(new Unit(snippet.publicClass(), snippet.code(), List.of(snippet), snippet.runs()));
            } else if (snippet.startsGroup()) {
                flush(group);
                group.add(snippet);
            } else if (snippet.continuesGroup()) {
                if (group.isEmpty()) {
                    fail(snippet.where() + ": 'run after the previous' but no 'run with the next' block comes before it");
                }
                group.add(snippet);
            } else {
                flush(group);
                add(body(List.of(snippet), false));
            }
        }
        flush(group);

        Path sources = Files.createDirectories(work.resolve("src"));
        Path classes = Files.createDirectories(work.resolve("classes"));
        List<Path> files = new ArrayList<>();
        for (Unit unit : UNITS.values()) {
            Path file = sources.resolve(unit.className() + ".java");
            Files.writeString(file, unit.source());
            files.add(file);
        }
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        DiagnosticCollector<JavaFileObject> diagnostics = new DiagnosticCollector<>();
        try (StandardJavaFileManager fileManager = javac.getStandardFileManager(diagnostics, Locale.ROOT,
                StandardCharsets.UTF_8)) {
            List<String> options = List.of("-d", classes.toString(), "-classpath", System.getProperty("java.class.path"),
                    "--release", "22", "-proc:none", "-Xlint:all", "-Werror", "-encoding", "UTF-8");
            javac.getTask(null, fileManager, diagnostics, options, null, fileManager.getJavaFileObjectsFromPaths(files))
                    .call();
        }
        for (Diagnostic<? extends JavaFileObject> diagnostic : diagnostics.getDiagnostics()) {
            if (diagnostic.getKind() == Diagnostic.Kind.NOTE || diagnostic.getSource() == null) {
                continue;
            }
            String name = Path.of(diagnostic.getSource().toUri()).getFileName().toString().replace(".java", "");
            ERRORS.computeIfAbsent(name, n -> new ArrayList<>()).add(diagnostic.getKind() + " at line "
                    + diagnostic.getLineNumber() + ": " + diagnostic.getMessage(Locale.ROOT));
        }
        loader = new URLClassLoader(new URL[] {classes.toUri().toURL()}, DocSnippetsTest.class.getClassLoader());
    }

    private static List<Path> markdownFiles() throws IOException {
        Path root = Path.of(System.getProperty("basedir", ".")).toAbsolutePath().normalize().getParent();
        List<Path> files = new ArrayList<>(List.of(root.resolve("README.md")));
        try (DirectoryStream<Path> docs = Files.newDirectoryStream(root.resolve("docs"), "*.md")) {
            docs.forEach(files::add);
        }
        try (Stream<Path> modules = Files.list(root)) {
            modules.map(m -> m.resolve("README.md")).filter(Files::isRegularFile).forEach(files::add);
        }
        return files.stream().sorted().toList();
    }

    private static void flush(List<Snippet> group) {
        if (!group.isEmpty()) {
            add(body(List.copyOf(group), true));
            group.clear();
        }
    }

    private static void add(Unit unit) {
        if (UNITS.putIfAbsent(unit.className(), unit) != null) {
            fail(unit.snippets() + ": two snippets declare class " + unit.className() + "; rename one");
        }
    }

    /** Wraps bodies in one method, in order; an OflServer named server is closed after the last. */
    private static Unit body(List<Snippet> snippets, boolean runs) {
        Snippet first = snippets.get(0);
        String className = first.file().getFileName().toString().replaceAll("\\W", "_") + "_" + first.line();
        StringBuilder imports = new StringBuilder(BODY_IMPORTS);
        StringBuilder method = new StringBuilder();
        int tries = 0;
        for (Snippet snippet : snippets) {
            imports.append(snippet.imports());
            method.append("// ").append(snippet.where()).append('\n').append(snippet.statements());
            if (runs && snippet.statements().contains("OflServer server =") && snippet != snippets.getLast()) {
                method.append("try {\n");
                tries++;
            }
        }
        for (int i = 0; i < tries; i++) {
            method.append("} finally {\nserver.close();\n}\n");
        }
        String source = imports + "\npublic final class " + className + " {\n"
                + "    public static void run() throws Exception {\n" + method + "    }\n}\n";
        if (runs) {
            source = source.replace(DOC_PORT, "PORT");
            source = source.replace("public final class " + className + " {\n",
                    "public final class " + className + " {\n    public static int PORT;\n");
        }
        return new Unit(className, source, snippets, runs);
    }

    @TestFactory
    Stream<DynamicTest> everySnippetCompiles() {
        assertTrue(UNITS.values().stream().anyMatch(u -> u.snippets().get(0).file().endsWith("README.md")),
                "README.md has Java snippets");
        assertTrue(UNITS.values().stream().anyMatch(u -> u.snippets().get(0).file().endsWith("GUIDE.md")),
                "docs/GUIDE.md has Java snippets");
        return UNITS.values().stream().map(unit -> DynamicTest.dynamicTest(unit.snippets().toString(), () -> {
            List<String> errors = ERRORS.getOrDefault(unit.className(), List.of());
            assertTrue(errors.isEmpty(), () -> unit.snippets() + " does not compile:\n" + String.join("\n", errors)
                    + "\n--- as compiled ---\n" + numbered(unit.source()));
        }));
    }

    @TestFactory
    Stream<DynamicTest> snippetsMarkedToRunRun() {
        List<Unit> running = UNITS.values().stream().filter(Unit::runs).toList();
        assertTrue(running.size() >= 2, "the README's server and client, and the guide's example, run: " + running);
        return running.stream().map(unit -> DynamicTest.dynamicTest(unit.snippets().toString(), () -> {
            assertTrue(ERRORS.getOrDefault(unit.className(), List.of()).isEmpty(), "compiles first");
            String printed = run(unit);
            Snippet first = unit.snippets().get(0);
            if (first.checksOutput()) {
                assertEquals(first.nextPlainBlock(), printed, first.where() + ": the output shown after it");
            }
        }));
    }

    @Test
    void theMarkersAreRecognised() {
        long bodies = UNITS.values().stream().filter(u -> !u.snippets().get(0).isCompilationUnit()).count();
        assertTrue(bodies >= 4, "README server, client and RDMA, and the guide's config and fallback: " + UNITS.keySet());
    }

    /** Runs a unit's entry point on another thread, bounded, and returns what it printed. */
    private static String run(Unit unit) throws Exception {
        Class<?> type = Class.forName(unit.className(), true, loader);
        Method entry;
        Object[] arguments;
        if (unit.snippets().get(0).isCompilationUnit()) {
            entry = type.getMethod("main", String[].class);
            arguments = new Object[] {new String[0]};
        } else {
            type.getDeclaredField("PORT").setInt(null, freePort());
            entry = type.getMethod("run");
            arguments = new Object[0];
        }
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        PrintStream out = System.out;
        ExecutorService runner = Executors.newSingleThreadExecutor();
        try {
            System.setOut(new PrintStream(captured, true, StandardCharsets.UTF_8));
            Future<?> done = runner.submit(() -> {
                try {
                    entry.invoke(null, arguments);
                } catch (InvocationTargetException e) {
                    throw new AssertionError(unit.snippets() + " threw " + e.getCause(), e.getCause());
                } catch (IllegalAccessException e) {
                    throw new AssertionError(e);
                }
                return null;
            });
            done.get(RUN_TIMEOUT_S, TimeUnit.SECONDS);
        } finally {
            System.setOut(out);
            runner.shutdownNow();
        }
        String printed = captured.toString(StandardCharsets.UTF_8);
        out.print(printed);
        return printed;
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        }
    }

    private static String numbered(String source) {
        StringBuilder numbered = new StringBuilder();
        String[] lines = source.split("\n", -1);
        for (int i = 0; i < lines.length; i++) {
            numbered.append(String.format(Locale.ROOT, "%4d  %s%n", i + 1, lines[i]));
        }
        return numbered.toString();
    }
}
