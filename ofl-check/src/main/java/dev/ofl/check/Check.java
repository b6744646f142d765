package dev.ofl.check;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.ofl.api.ClientConfig;
import dev.ofl.api.Limits;
import dev.ofl.api.Ofl;
import dev.ofl.api.OflException;
import dev.ofl.api.OflServer;
import dev.ofl.api.PeerKeys;
import dev.ofl.api.ServerConfig;
import dev.ofl.verbs.VerbsLibrary;
import java.io.IOException;
import java.io.PrintWriter;
import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.function.Consumer;
import java.util.function.Supplier;
import picocli.CommandLine;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;
import picocli.CommandLine.TypeConversionException;

/**
 * The {@code ofl check} command: checks ofl on a real address and device, as an operator would
 * before putting a link into service.
 *
 * <p>Three modes. Without {@code --serve} or {@code --connect}, both ends run in this process on
 * one host: an {@code ofl check} server on {@code --ip}:{@code --port} and the link checks
 * ({@link LinkChecks}) against it, then the backend conformance suite (the JUnit suite every
 * backend's build runs, through the JUnit Platform launcher) on {@code --ip} with ports the system
 * picks. With {@code --serve}, only the server, until the process is stopped; with
 * {@code --connect}, only the link checks against such a server on another host.
 *
 * <p>One line per check ({@code PASS name: detail} or {@code FAIL name: detail}), then
 * {@code N passed, M failed}. Exit status: {@value #PASSED} every check passed (or {@code --serve}
 * stopped by its own close), {@value #FAILED} a check failed or the server could not start,
 * {@value #USAGE} usage error.
 *
 * <p>One instance serves one invocation; not thread-safe.
 */
@Command(name = "ofl check", sortOptions = false, usageHelpAutoWidth = true,
        description = {
            "Checks ofl on a real address and device: link checks against an ofl check server, and the backend "
                    + "conformance suite.",
            "",
            "Default: both ends in this process on one host (the server on --ip:--port, then the conformance "
                    + "suite on --ip with system-picked ports).",
            "Across two hosts: --serve on one (runs until stopped), --connect --ip SERVER on the other (link checks "
                    + "only: the suite needs both ends in one process).",
            "",
            "Prints one line per check, PASS or FAIL with what was seen, then 'N passed, M failed'.",
            ""},
        exitCodeOnSuccess = Check.PASSED,
        exitCodeOnInvalidInput = Check.USAGE,
        exitCodeOnExecutionException = Check.FAILED,
        exitCodeListHeading = "%nExit status:%n",
        exitCodeList = {
            Check.PASSED + ":every check passed (--serve: the server was closed)",
            Check.FAILED + ":a check failed, or the server could not start",
            Check.USAGE + ":usage error"})
public final class Check implements Callable<Integer> {
    /** Every check passed. */
    static final int PASSED = 0;
    /** A check failed, or the server could not start. */
    static final int FAILED = 1;
    /** Bad options; {@code EX_USAGE} of {@code sysexits.h}, as the probe. */
    static final int USAGE = 64;

    @Spec
    private CommandSpec spec;

    @Option(names = "--backend", required = true, paramLabel = "NAME",
            description = "The backend to check: tcp or rdma.")
    private String backend;

    @Option(names = "--ip", required = true, paramLabel = "ADDR", converter = AddressLiteral.class,
            description = "The address to check: the server's bind address (default mode, --serve) or the "
                    + "server to connect to (--connect). A literal; names are not resolved. For rdma, the IPv4 "
                    + "address of the direct link (its RoCE v2 GID is found from it).")
    private InetAddress ip;

    @Option(names = "--port", required = true, paramLabel = "P",
            description = "The link checks' server port (1-65535).")
    private int port;

    @ArgGroup(exclusive = true, multiplicity = "0..1")
    private Mode mode = new Mode();

    @Option(names = "--local-ip", paramLabel = "ADDR", converter = AddressLiteral.class,
            description = "With --connect: this host's own address on the link, to connect from (default: "
                    + "routing chooses).")
    private InetAddress localIp;

    @Option(names = "--service", paramLabel = "NAME", defaultValue = CheckService.DEFAULT_SERVICE,
            description = "The service name both ends use (default: ${DEFAULT-VALUE}).")
    private String service;

    @Option(names = "--library", paramLabel = "PATH",
            description = "rdma: the libibverbs to use, a file name or path. Same as -D"
                    + VerbsLibrary.LIBRARY_PROPERTY + "; default: that property, else $"
                    + VerbsLibrary.LIBRARY_ENVIRONMENT + ", else " + VerbsLibrary.DEFAULT_LIBRARY + ".")
    private String library;

    @Option(names = "--device", paramLabel = "D",
            description = "rdma: use only this device (the backend property rdma.device).")
    private String device;

    @Option(names = "--gid-index", paramLabel = "N",
            description = "rdma: a GID index override (the backend property rdma.gidIndex), checked against --ip.")
    private Integer gidIndex;

    @Option(names = "--key-file", paramLabel = "FILE",
            description = "A pre-shared key (the file's bytes, at least " + PeerKeys.MIN_KEY_BYTES + "): the "
                    + "server requires it and the client proves it, and a link check asks that a client without "
                    + "it is refused. Never pass a key itself on the command line.")
    private Path keyFile;

    @Option(names = "--key-id", paramLabel = "N", defaultValue = "1",
            description = "With --key-file: the key's id, 0-4294967295, as the other end knows it (default: "
                    + "${DEFAULT-VALUE}).")
    private String keyId;

    @Option(names = "--max-request-bytes", paramLabel = "N",
            description = "The limits the client proposes (each default: a client's default); in the default "
                    + "mode and with --serve the server accepts at least them.")
    private Integer maxRequestBytes;

    @Option(names = "--max-response-bytes", paramLabel = "N", description = "See --max-request-bytes.")
    private Integer maxResponseBytes;

    @Option(names = "--max-ranges", paramLabel = "N", description = "See --max-request-bytes.")
    private Integer maxRanges;

    @Option(names = "--max-in-flight", paramLabel = "N", description = "See --max-request-bytes.")
    private Integer maxInFlight;

    @Option(names = "--min-gbps", paramLabel = "G", defaultValue = "0",
            description = "The bandwidth link.bandwidth must reach with the largest response the limits allow (at "
                    + "most 64 MiB), in Gb/s, for example 40 for a 40 Gb/s direct link; default 0: the figure is "
                    + "reported without a threshold.")
    private double minGbps;

    @Option(names = "--checks", paramLabel = "WHICH", defaultValue = "all",
            description = "Default mode only: all, link (the link checks alone) or conformance (the suite alone); "
                    + "default: ${DEFAULT-VALUE}.")
    private String checks;

    /** The parsed --key-id, set with the key. */
    private int keyIdValue;

    @Option(names = "--json",
            description = "Print the results as one JSON document on standard output; the check lines go to "
                    + "standard error.")
    private boolean json;

    @Option(names = "--verbose", description = "Show ofl's own log (warnings and refusals) on standard error.")
    private boolean verbose;

    @Option(names = {"-h", "--help"}, usageHelp = true, description = "Show this help and exit.")
    private boolean help;

    /** The mutually exclusive split modes. */
    static final class Mode {
        @Option(names = "--serve", description = "Only serve the link checks on --ip:--port until stopped "
                + "(SIGTERM or Ctrl-C drain and stop it); logs the handshakes it drops or refuses on standard error"
                + " (repeats counted and summarised).")
        boolean serve;

        @Option(names = "--connect", description = "Only run the link checks against a --serve on --ip:--port.")
        boolean connect;
    }

    /**
     * Creates the command; {@link #commandLine()} wraps it for execution.
     */
    public Check() {
    }

    /**
     * Runs the command and exits with its status.
     *
     * @param args the command-line arguments
     */
    public static void main(String[] args) {
        boolean verbose = List.of(args).contains("--verbose");
        // Before the first logger exists: ofl's servers log each refusal the checks provoke at WARN.
        System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", verbose ? "info" : "error");
        if (List.of(args).contains("--serve")) {
            // A serving end shows every handshake it dropped or refused: a client that sees only
            // "peer closed the connection" learns why from here.
            System.setProperty("org.slf4j.simpleLogger.log.dev.ofl.api.spi.BootstrapServer", "info");
        }
        System.exit(commandLine().execute(args));
    }

    /**
     * A picocli command line around a new command, as {@link #main(String[])} runs it; tests set its
     * writers and call {@link CommandLine#execute(String...)}.
     *
     * @return the command line
     */
    public static CommandLine commandLine() {
        return new CommandLine(new Check());
    }

    /**
     * Runs the checks the options ask for.
     *
     * @return the exit status
     * @throws ParameterException for options that do not fit together
     * @throws InterruptedException if interrupted while serving
     */
    @Override
    public Integer call() throws InterruptedException {
        backend = backend.strip().toLowerCase(Locale.ROOT);
        boolean rdma = backend.equals("rdma");
        if (!rdma && (library != null || device != null || gidIndex != null)) {
            throw new ParameterException(spec.commandLine(), "--library, --device and --gid-index are for "
                    + "--backend rdma, not " + backend);
        }
        if (port < 1 || port > 65_535) {
            throw new ParameterException(spec.commandLine(), "--port must be 1-65535, got " + port);
        }
        if (!(minGbps >= 0) || Double.isInfinite(minGbps)) {
            throw new ParameterException(spec.commandLine(), "--min-gbps must be a number of Gb/s, 0 or more, got "
                    + minGbps);
        }
        if (mode.serve && minGbps > 0) {
            throw new ParameterException(spec.commandLine(), "--min-gbps is for the side that runs the link checks "
                    + "(the default mode or --connect), not --serve");
        }
        if (gidIndex != null && (gidIndex < 0 || gidIndex > 255)) {
            throw new ParameterException(spec.commandLine(), "--gid-index must be 0-255, got " + gidIndex);
        }
        if (localIp != null && !mode.connect) {
            throw new ParameterException(spec.commandLine(), "--local-ip is for --connect; otherwise --ip is both "
                    + "ends' address");
        }
        if (!List.of("all", "link", "conformance").contains(checks)) {
            throw new ParameterException(spec.commandLine(), "--checks must be all, link or conformance, got '"
                    + checks + "'");
        }
        if (!checks.equals("all") && (mode.serve || mode.connect)) {
            throw new ParameterException(spec.commandLine(), "--checks is for the default mode; --connect runs the "
                    + "link checks, --serve runs none");
        }
        Limits limits = limits();
        byte[] key = key();
        if (library != null) {
            System.setProperty(VerbsLibrary.LIBRARY_PROPERTY, library);
        }
        if (!Ofl.backends().contains(backend)) {
            throw new ParameterException(spec.commandLine(), "no backend named '" + backend + "'; present: "
                    + Ofl.backends());
        }
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter lines = json ? spec.commandLine().getErr() : out;
        Map<String, String> properties = new LinkedHashMap<>();
        if (device != null) {
            properties.put("rdma.device", device);
        }
        if (gidIndex != null) {
            properties.put("rdma.gidIndex", Integer.toString(gidIndex));
        }
        InetSocketAddress address = new InetSocketAddress(ip, port);
        String where = backend + " on " + address.getAddress().getHostAddress() + ":" + port
                + (rdma ? ", library " + VerbsLibrary.configuredLibrary() : "") + (properties.isEmpty() ? ""
                : ", " + properties) + (limits.equals(Limits.CLIENT_DEFAULTS) ? "" : ", " + limits)
                + (key == null ? "" : ", key id " + Integer.toUnsignedString(keyIdValue));
        List<CheckResult> results = new ArrayList<>();
        Consumer<CheckResult> report = result -> {
            results.add(result);
            lines.println(result.line());
            lines.flush();
        };
        lines.println("ofl check: " + where + (mode.serve ? ", serving the link checks" : mode.connect
                ? ", against a remote ofl check server" : ", both ends in this process") + ", service '" + service
                + "'");
        lines.flush();
        Optional<String> unavailable = Ofl.unavailabilityCause(backend);
        report.accept(new CheckResult("backend.available", unavailable.isEmpty(), unavailable.orElse(backend
                + " can run here")));
        if (mode.serve) {
            return unavailable.isEmpty() ? serve(address, properties, limits, key, lines) : FAILED;
        }
        if (unavailable.isEmpty()) {
            if (mode.connect || !checks.equals("conformance")) {
                runLink(address, properties, limits, key, report);
            }
            if (!mode.connect && !checks.equals("link")) {
                ConformanceRun.run(backend, ip, properties, report);
            }
        }
        if (key != null) {
            Arrays.fill(key, (byte) 0);
        }
        long passed = results.stream().filter(CheckResult::passed).count();
        long failed = results.size() - passed;
        lines.println(passed + " passed, " + failed + " failed");
        lines.flush();
        if (json) {
            out.println(toJson(results, passed, failed));
            out.flush();
        }
        return failed == 0 ? PASSED : FAILED;
    }

    private ServerConfig serverConfig(InetSocketAddress address, Map<String, String> properties, Limits limits,
            byte[] key) {
        // The server accepts at least what the client proposes, and keeps its defaults' maxima otherwise.
        Limits defaults = Limits.SERVER_DEFAULTS;
        ServerConfig.Builder builder = ServerConfig.builder().backend(backend).bind(address).serviceName(service)
                .properties(properties).limits(new Limits(
                        Math.max(defaults.maxRequestBytes(), limits.maxRequestBytes()),
                        Math.max(defaults.maxResponseBytes(), limits.maxResponseBytes()),
                        Math.max(defaults.maxRanges(), limits.maxRanges()),
                        Math.max(defaults.maxInFlight(), limits.maxInFlight())));
        if (key != null) {
            builder.authenticationKey(keyIdValue, key);
        }
        return builder.build();
    }

    /** The client's proposal: the options given, a client's defaults for the rest. */
    private Limits limits() {
        Limits defaults = Limits.CLIENT_DEFAULTS;
        try {
            return new Limits(maxRequestBytes != null ? maxRequestBytes : defaults.maxRequestBytes(),
                    maxResponseBytes != null ? maxResponseBytes : defaults.maxResponseBytes(),
                    maxRanges != null ? maxRanges : defaults.maxRanges(),
                    maxInFlight != null ? maxInFlight : defaults.maxInFlight());
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), "--max-* limits: " + e.getMessage());
        }
    }

    /** The key file's bytes, or null without --key-file; checks the id and the key's length. */
    private byte[] key() {
        if (keyFile == null) {
            return null;
        }
        try {
            keyIdValue = Integer.parseUnsignedInt(keyId);
        } catch (NumberFormatException e) {
            throw new ParameterException(spec.commandLine(), "--key-id must be 0-4294967295, got '" + keyId + "'");
        }
        try {
            return PeerKeys.readKeyFile(keyFile);
        } catch (IOException e) {
            throw new ParameterException(spec.commandLine(), "--key-file: " + e.getMessage());
        }
    }

    /** Serves until the server is closed (by the shutdown hook on SIGTERM or Ctrl-C). */
    private int serve(InetSocketAddress address, Map<String, String> properties, Limits limits, byte[] key,
            PrintWriter lines) throws InterruptedException {
        OflServer server;
        try {
            server = Ofl.serve(serverConfig(address, properties, limits, key), new CheckService());
        } catch (OflException | IllegalArgumentException e) {
            lines.println("FAIL serve: " + e.getMessage());
            lines.flush();
            return FAILED;
        }
        Thread closer = new Thread(server::close, "ofl-check-shutdown");
        Runtime.getRuntime().addShutdownHook(closer);
        lines.println("ofl check: listening on " + server.localAddress() + "; run ofl check --connect --backend "
                + backend + " --ip " + address.getAddress().getHostAddress() + " --port " + port
                + " on the other host; stop with Ctrl-C or SIGTERM");
        lines.flush();
        try {
            server.awaitTermination();
        } finally {
            server.close();
        }
        return PASSED;
    }

    private void runLink(InetSocketAddress address, Map<String, String> properties, Limits limits, byte[] key,
            Consumer<CheckResult> report) {
        Supplier<ClientConfig.Builder> unauthenticated = () -> ClientConfig.builder().backend(backend)
                .server(address).localAddress(mode.connect ? localIp : ip).serviceName(service).limits(limits)
                .properties(properties).connectTimeout(Duration.ofSeconds(10));
        Supplier<ClientConfig.Builder> client = key == null ? unauthenticated
                : () -> unauthenticated.get().authenticationKey(keyIdValue, key);
        LinkChecks checks = new LinkChecks(client, key == null ? null : unauthenticated, report, minGbps);
        if (mode.connect) {
            checks.run();
            return;
        }
        OflServer server;
        try {
            server = Ofl.serve(serverConfig(address, properties, limits, key), new CheckService());
        } catch (OflException | IllegalArgumentException e) {
            report.accept(new CheckResult("link.serve", false, e.getMessage()));
            return;
        }
        try {
            checks.run();
        } finally {
            server.close();
        }
    }

    private String toJson(List<CheckResult> results, long passed, long failed) {
        Map<String, Object> document = new LinkedHashMap<>();
        document.put("backend", backend);
        document.put("address", ip.getHostAddress());
        document.put("port", port);
        document.put("mode", mode.connect ? "connect" : "local");
        document.put("passed", passed);
        document.put("failed", failed);
        List<Map<String, Object>> checkList = new ArrayList<>();
        for (CheckResult result : results) {
            Map<String, Object> check = new LinkedHashMap<>();
            check.put("name", result.name());
            check.put("passed", result.passed());
            check.put("detail", result.detail());
            checkList.add(check);
        }
        document.put("checks", checkList);
        try {
            return new ObjectMapper().writerWithDefaultPrettyPrinter().writeValueAsString(document);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("maps of strings, numbers and booleans always serialize", e);
        }
    }

    /** An IP address literal, never a name to resolve (a typo must not become a lookup). */
    static final class AddressLiteral implements ITypeConverter<InetAddress> {
        @Override
        public InetAddress convert(String value) {
            try {
                return value.indexOf(':') >= 0 ? Inet6Address.ofLiteral(value) : Inet4Address.ofLiteral(value);
            } catch (IllegalArgumentException e) {
                throw new TypeConversionException("'" + value + "' is not an IP address literal such as 10.0.0.1");
            }
        }
    }
}
