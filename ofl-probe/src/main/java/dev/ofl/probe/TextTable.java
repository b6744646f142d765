package dev.ofl.probe;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;

/**
 * A plain-text table: left-aligned columns two spaces apart, widths from the widest cell, no
 * trailing blanks. Not thread-safe.
 */
final class TextTable {
    private final List<String[]> rows = new ArrayList<>();
    private final int columns;

    /**
     * Starts a table.
     *
     * @param header the column titles
     */
    TextTable(String... header) {
        columns = header.length;
        rows.add(header.clone());
    }

    /**
     * Adds a row.
     *
     * @param cells one value per column; {@code null} prints as {@code -}
     * @return this table
     */
    TextTable row(Object... cells) {
        if (cells.length != columns) {
            throw new IllegalArgumentException("a row of this table has " + columns + " cells, got " + cells.length);
        }
        String[] row = new String[columns];
        for (int i = 0; i < columns; i++) {
            row[i] = cells[i] == null ? "-" : cells[i].toString();
        }
        rows.add(row);
        return this;
    }

    /**
     * Prints the table.
     *
     * @param out where to print
     * @param indent what to put before each line
     */
    void print(PrintWriter out, String indent) {
        int[] widths = new int[columns];
        for (String[] row : rows) {
            for (int i = 0; i < columns; i++) {
                widths[i] = Math.max(widths[i], row[i].length());
            }
        }
        for (String[] row : rows) {
            StringBuilder line = new StringBuilder(indent);
            for (int i = 0; i < columns; i++) {
                line.append(row[i]);
                if (i < columns - 1) {
                    line.append(" ".repeat(widths[i] - row[i].length() + 2));
                }
            }
            out.println(line.toString().stripTrailing());
        }
    }
}
