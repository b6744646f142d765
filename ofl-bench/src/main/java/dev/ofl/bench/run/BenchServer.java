package dev.ofl.bench.run;

import dev.ofl.api.ConnectionThreads;
import dev.ofl.api.Limits;
import dev.ofl.api.Ofl;
import dev.ofl.api.OflServer;
import dev.ofl.api.ServerConfig;
import dev.ofl.api.WaitMode;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * The server role: one ofl server per bound address, backend and wait mode, on the port
 * {@link #port(int, String, WaitMode)} gives, each answering {@link ExchangeHandler} requests. It
 * prints one {@code listening} line per server and then {@code ready}, and runs until the process
 * is stopped (SIGTERM or SIGINT close the servers).
 */
@Command(name = "server", mixinStandardHelpOptions = true, sortOptions = false,
        description = "Serve checked exchanges for 'ofl-bench client' on explicit addresses.")
public final class BenchServer implements Callable<Integer> {
    /** The service name both roles use. */
    public static final String SERVICE = "ofl-bench";
    /** The default base port. */
    public static final int DEFAULT_PORT = 18515;

    @Spec
    private CommandSpec spec;

    @Option(names = "--bind", required = true, split = ",", paramLabel = "ADDRESS",
            description = "Address to serve on, one per link; repeatable or comma-separated.")
    private List<String> binds;

    @Option(names = "--port", paramLabel = "PORT",
            description = "Base port: tcp busy on PORT, tcp blocking PORT+1, rdma busy PORT+2, rdma blocking"
                    + " PORT+3 (default: ${DEFAULT-VALUE}).")
    private int port = DEFAULT_PORT;

    @Option(names = "--backend", split = ",", paramLabel = "tcp|rdma",
            description = "Backends to serve (default: ${DEFAULT-VALUE}).")
    private List<String> backends = new ArrayList<>(List.of("tcp"));

    @Option(names = "--wait", split = ",", paramLabel = "busy|blocking",
            description = "Wait modes to serve, each on its own port (default: ${DEFAULT-VALUE}).")
    private List<String> waits = new ArrayList<>(List.of("busy", "blocking"));

    @Option(names = "--cpu", paramLabel = "N",
            description = "Pin the server's threads (connection threads and those they start) to CPU N"
                    + " (default: no pinning).")
    private int cpu = -1;

    @Option(names = "--max-request-bytes", paramLabel = "BYTES",
            description = "Largest request a client may negotiate (default: ${DEFAULT-VALUE}).")
    private String maxRequest = "4MiB";

    @Option(names = "--max-response-bytes", paramLabel = "BYTES",
            description = "Largest response a client may negotiate (default: ${DEFAULT-VALUE}).")
    private String maxResponse = "64MiB";

    @Option(names = "--property", paramLabel = "KEY=VALUE",
            description = "A backend property, e.g. rdma.blockingSpinMicros=0, for the servers of the backend its "
                    + "prefix names; repeatable.")
    private Map<String, String> properties = new LinkedHashMap<>();

    @Option(names = "--connection-threads", paramLabel = "virtual|platform",
            description = "Threads of blocking-mode connections (default: ${DEFAULT-VALUE}); busy polling always uses"
                    + " platform threads.")
    private String connectionThreads = "virtual";

    private final PrintStream out;

    /** Creates the role printing to standard output. */
    public BenchServer() {
        this.out = System.out;
    }

    /**
     * The port a backend and wait mode are served on.
     *
     * @param base the base port
     * @param backend {@code tcp} or {@code rdma}
     * @param waitMode the wait mode
     * @return the port
     * @throws IllegalArgumentException for another backend
     */
    public static int port(int base, String backend, WaitMode waitMode) {
        int backendOffset = switch (backend) {
            case "tcp" -> 0;
            case "rdma" -> 2;
            default -> throw new IllegalArgumentException("backend '" + backend + "' is not one of tcp, rdma");
        };
        return base + backendOffset + (waitMode == WaitMode.BUSY_POLL ? 0 : 1);
    }

    /**
     * Parses a wait-mode name.
     *
     * @param name {@code busy} or {@code blocking}
     * @return the mode
     * @throws IllegalArgumentException for another name
     */
    public static WaitMode parseWait(String name) {
        return switch (name) {
            case "busy" -> WaitMode.BUSY_POLL;
            case "blocking" -> WaitMode.BLOCKING;
            default -> throw new IllegalArgumentException("wait mode '" + name + "' is not one of busy, blocking");
        };
    }

    /**
     * Parses a connection-thread kind.
     *
     * @param name {@code virtual} or {@code platform}
     * @return the kind
     * @throws IllegalArgumentException for another name
     */
    public static ConnectionThreads parseThreads(String name) {
        return switch (name) {
            case "virtual" -> ConnectionThreads.VIRTUAL;
            case "platform" -> ConnectionThreads.PLATFORM;
            default -> throw new IllegalArgumentException("connection threads '" + name
                    + "' is not one of virtual, platform");
        };
    }

    /**
     * Serves until the process is stopped.
     *
     * @return 0 after a stop, 1 if a server could not start
     */
    @Override
    public Integer call() throws InterruptedException {
        Limits limits;
        ConnectionThreads threads;
        List<WaitMode> modes = new ArrayList<>();
        List<InetAddress> addresses = new ArrayList<>();
        try {
            limits = new Limits((int) ExchangeCase.parseBytes(maxRequest), (int) ExchangeCase.parseBytes(maxResponse),
                    1, 1);
            for (String w : waits) {
                modes.add(parseWait(w));
            }
            for (String b : backends) {
                port(port, b, WaitMode.BUSY_POLL);
            }
            threads = parseThreads(connectionThreads);
            for (String b : binds) {
                addresses.add(InetAddress.getByName(b));
            }
        } catch (IllegalArgumentException | UnknownHostException e) {
            throw new ParameterException(spec.commandLine(), e.getMessage());
        }
        if (cpu >= 0) {
            // Threads started from here on (accept and connection threads) inherit the mask.
            Affinity.pinCurrentThread(cpu);
        }
        List<OflServer> servers = new ArrayList<>();
        ExchangeHandler handler = new ExchangeHandler(cpu);
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            closeAll(servers);
            stopped.countDown();
        }, "ofl-bench-server-stop"));
        try {
            for (String backend : backends) {
                Optional<String> cause = Ofl.unavailabilityCause(backend);
                if (cause.isPresent()) {
                    System.err.println("ofl-bench server: backend " + backend + " cannot run here: " + cause.get());
                    closeAll(servers);
                    return 1;
                }
                for (WaitMode mode : modes) {
                    for (InetAddress address : addresses) {
                        OflServer server = Ofl.serve(ServerConfig.builder()
                                .backend(backend)
                                .bind(new InetSocketAddress(address, port(port, backend, mode)))
                                .serviceName(SERVICE)
                                .limits(limits)
                                .maxConnections(16)
                                .waitMode(mode)
                                .connectionThreads(threads)
                                .properties(ofBackend(properties, backend))
                                .build(), handler);
                        synchronized (servers) {
                            servers.add(server);
                        }
                        out.println("listening " + backend + " " + Variant.waitName(mode) + " "
                                + server.localAddress().getAddress().getHostAddress() + ":"
                                + server.localAddress().getPort());
                    }
                }
            }
        } catch (RuntimeException e) {
            System.err.println("ofl-bench server: could not start: " + e.getMessage());
            closeAll(servers);
            return 1;
        }
        out.println("ready" + (cpu >= 0 ? " (pinned to CPU " + cpu + ")" : ""));
        out.flush();
        stopped.await();
        return 0;
    }

    private static void closeAll(List<OflServer> servers) {
        synchronized (servers) {
            for (OflServer s : servers) {
                try {
                    s.close();
                } catch (RuntimeException e) {
                    System.err.println("ofl-bench server: closing " + s.localAddress() + ": " + e.getMessage());
                }
            }
            servers.clear();
        }
    }

    /** The --property entries for one backend: those whose key starts with its name and a dot. */
    static Map<String, String> ofBackend(Map<String, String> properties, String backend) {
        Map<String, String> mine = new LinkedHashMap<>();
        properties.forEach((key, value) -> {
            if (key.startsWith(backend + ".")) {
                mine.put(key, value);
            }
        });
        return mine;
    }
}
