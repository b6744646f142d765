package dev.ofl.example;

import dev.ofl.api.Ofl;
import dev.ofl.api.OflHandler;
import dev.ofl.api.OflRequest;
import dev.ofl.api.OflResponse;
import dev.ofl.api.OflServer;
import dev.ofl.api.ServerConfig;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;

/**
 * The server of the example: answers {@link #OP_LOOKUP} with the rows whose numbers the payload
 * lists, copied from the mapped table straight into the response and committed row by row (a
 * long answer leaves in pieces while the rest is copied).
 *
 * <pre>
 * java -cp ... dev.ofl.example.EngramServer --table rows.bin --make-table 65536 --bind 10.0.0.1:18601 --backend rdma
 * </pre>
 */
public final class EngramServer implements OflHandler {
    /** The lookup operation: payload u32 row numbers (little-endian), response those rows. */
    public static final int OP_LOOKUP = 1;
    /** Refusal: a row number outside the table. */
    public static final int NO_SUCH_ROW = 404;
    /** Refusal: the client's ranges cannot hold the rows asked for. */
    public static final int TOO_MANY_ROWS = 413;
    /** Refusal: an operation other than {@link #OP_LOOKUP}, or a payload that is not whole row numbers. */
    public static final int BAD_REQUEST = 400;

    private final EngramTable table;

    /**
     * A handler over a table.
     *
     * @param table the rows to serve; must stay mapped while the server runs
     */
    public EngramServer(EngramTable table) {
        this.table = table;
    }

    @Override
    public int handle(OflRequest request, OflResponse response) {
        MemorySegment ids = request.payload();
        if (request.op() != OP_LOOKUP || ids.byteSize() % 4 != 0) {
            return BAD_REQUEST;
        }
        long count = ids.byteSize() / 4;
        if (count * EngramTable.ROW_BYTES > response.capacity()) {
            return TOO_MANY_ROWS;
        }
        // Every number is checked before the first row is committed: a refused lookup sends nothing.
        for (long i = 0; i < count; i++) {
            int row = ids.get(EngramTable.ROW_ID, i * 4);
            if (row < 0 || row >= table.count()) {
                return NO_SUCH_ROW;
            }
        }
        MemorySegment out = response.buffer();
        for (long i = 0; i < count; i++) {
            table.copyRow(ids.get(EngramTable.ROW_ID, i * 4), out, response.committed());
            response.commit(EngramTable.ROW_BYTES);
        }
        return 0;
    }

    /**
     * Runs a server until the process is stopped.
     *
     * @param args {@code --table FILE} (required), {@code --make-table ROWS} (write the table
     *     first), {@code --bind HOST:PORT}, {@code --backend tcp|rdma}, {@code --service NAME}
     * @throws IOException if the table cannot be written or mapped
     * @throws InterruptedException when stopped
     */
    public static void main(String[] args) throws IOException, InterruptedException {
        Map<String, String> options = options(args);
        Path file = Path.of(required(options, "table"));
        if (options.containsKey("make-table")) {
            EngramTable.write(file, Integer.parseInt(options.get("make-table")));
        }
        Map<String, String> settings = new HashMap<>();
        settings.put("backend", options.getOrDefault("backend", "tcp"));
        settings.put("bind", options.getOrDefault("bind", "127.0.0.1:18601"));
        settings.put("serviceName", options.getOrDefault("service", "engram"));
        try (Arena arena = Arena.ofShared()) {
            EngramTable table = EngramTable.map(file, arena);
            OflServer server = Ofl.serve(ServerConfig.builder().settings(settings).build(), new EngramServer(table));
            System.out.println("serving " + table.count() + " rows of " + file + " on " + server.localAddress()
                    + " over " + server.backend());
            Runtime.getRuntime().addShutdownHook(new Thread(server::close));
            server.awaitTermination();
        }
    }

    static Map<String, String> options(String[] args) {
        Map<String, String> options = new HashMap<>();
        for (int i = 0; i < args.length; i++) {
            if (!args[i].startsWith("--") || i + 1 == args.length) {
                throw new IllegalArgumentException("expected --name value pairs, got " + String.join(" ", args));
            }
            options.put(args[i].substring(2), args[++i]);
        }
        return options;
    }

    static String required(Map<String, String> options, String name) {
        String value = options.get(name);
        if (value == null) {
            throw new IllegalArgumentException("--" + name + " is required");
        }
        return value;
    }
}
