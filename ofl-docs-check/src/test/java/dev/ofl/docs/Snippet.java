package dev.ofl.docs;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One fenced {@code ```java} block of a markdown file, with the marker comment that may precede it.
 *
 * <p>The convention, which ofl-docs-check/README.md documents for writers:
 * <ul>
 * <li>No marker: the block is a whole compilation unit (imports, then one top-level class); it is
 *     compiled.</li>
 * <li>{@code <!-- snippet: program -->}: a whole compilation unit whose class has
 *     {@code main(String[])}; compiled and run. With {@code prints the next block} in the marker,
 *     what it prints must equal the next plain fenced block of the file.</li>
 * <li>{@code <!-- snippet: body -->}: optional {@code import} lines, then statements; compiled as
 *     the body of a method that may throw any exception, with {@code dev.ofl.api.*},
 *     {@code java.lang.foreign.*}, {@code java.net.*}, {@code java.time.*}, {@code java.util.*} and
 *     {@code java.util.concurrent.*} imported on demand.</li>
 * <li>{@code <!-- snippet: body, run with the next ... -->} and {@code <!-- snippet: body, run after
 *     the previous -->}: bodies that run together, in order, as one method; an
 *     {@code OflServer server} one of them declares is closed after the last. Port 18601 in them is
 *     replaced by a free port.</li>
 * </ul>
 *
 * @param file the markdown file
 * @param line the 1-based line of the opening fence
 * @param marker the marker's text after {@code snippet:}, lower case, or {@code ""} without one
 * @param code the block's text
 * @param nextPlainBlock the text of the next fenced block without a language, or {@code null}
 */
record Snippet(Path file, int line, String marker, String code, String nextPlainBlock) {
    private static final Pattern MARKER = Pattern.compile("^<!--\\s*snippet:\\s*(.*?)\\s*-->\\s*$");
    private static final Pattern PUBLIC_CLASS = Pattern.compile("(?m)^public\\s+(?:final\\s+)?class\\s+(\\w+)");

    /**
     * Reads every Java block of a markdown file.
     *
     * @param file the file
     * @return its blocks, in order
     * @throws IOException if it cannot be read
     */
    static List<Snippet> read(Path file) throws IOException {
        List<String> lines = Files.readAllLines(file);
        List<Snippet> snippets = new ArrayList<>();
        for (int i = 0; i < lines.size(); i++) {
            if (!lines.get(i).strip().equals("```java")) {
                continue;
            }
            String marker = "";
            if (i > 0) {
                Matcher matcher = MARKER.matcher(lines.get(i - 1).strip());
                if (matcher.matches()) {
                    marker = matcher.group(1).toLowerCase(Locale.ROOT);
                }
            }
            int end = closingFence(lines, i + 1, file);
            String code = String.join("\n", lines.subList(i + 1, end)) + "\n";
            snippets.add(new Snippet(file, i + 1, marker, code, nextPlainBlock(lines, end + 1)));
            i = end;
        }
        return snippets;
    }

    private static int closingFence(List<String> lines, int from, Path file) {
        for (int j = from; j < lines.size(); j++) {
            if (lines.get(j).strip().equals("```")) {
                return j;
            }
        }
        throw new AssertionError(file + ":" + from + ": a ```java block is never closed");
    }

    private static String nextPlainBlock(List<String> lines, int from) {
        for (int j = from; j < lines.size(); j++) {
            String line = lines.get(j).strip();
            if (line.startsWith("```") && !line.equals("```")) {
                return null;
            }
            if (line.equals("```")) {
                int end = closingFence(lines, j + 1, Path.of("?"));
                return String.join("\n", lines.subList(j + 1, end)) + "\n";
            }
        }
        return null;
    }

    /** True for a block to compile as written, with its own imports and class. */
    boolean isCompilationUnit() {
        return marker.isEmpty() || marker.startsWith("program");
    }

    /** True for a body that runs with its neighbours. */
    boolean runs() {
        return marker.startsWith("program") || marker.contains("run with the next")
                || marker.contains("run after the previous");
    }

    /** True for the first body of a group that runs together. */
    boolean startsGroup() {
        return marker.contains("run with the next");
    }

    /** True for a body that joins the group before it. */
    boolean continuesGroup() {
        return marker.contains("run after the previous");
    }

    /** True when the output must equal the next plain block. */
    boolean checksOutput() {
        return marker.contains("prints the next block");
    }

    /**
     * Returns the public class a compilation unit declares.
     *
     * @return its simple name
     */
    String publicClass() {
        Matcher matcher = PUBLIC_CLASS.matcher(code);
        if (!matcher.find()) {
            throw new AssertionError(where() + ": a block without a marker must be a whole compilation unit with one "
                    + "public class; mark a fragment with <!-- snippet: body --> (see ofl-docs-check/README.md)");
        }
        return matcher.group(1);
    }

    /**
     * Returns the import lines of a body.
     *
     * @return the lines, each ending in a newline
     */
    String imports() {
        StringBuilder imports = new StringBuilder();
        for (String line : code.split("\n", -1)) {
            if (line.startsWith("import ")) {
                imports.append(line).append('\n');
            }
        }
        return imports.toString();
    }

    /**
     * Returns the statements of a body: the block without its import lines.
     *
     * @return the statements
     */
    String statements() {
        StringBuilder statements = new StringBuilder();
        for (String line : code.split("\n", -1)) {
            if (!line.startsWith("import ")) {
                statements.append(line).append('\n');
            }
        }
        return statements.toString();
    }

    /**
     * Names the block for messages.
     *
     * @return {@code file:line}
     */
    String where() {
        return file.getFileName() + ":" + line;
    }

    @Override
    public String toString() {
        return where() + (marker.isEmpty() ? "" : " (" + marker + ")");
    }
}
