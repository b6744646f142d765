package dev.ofl.probe;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectWriter;
import dev.ofl.api.Limits;
import dev.ofl.verbs.MemlockLimit;
import dev.ofl.verbs.VerbsLibrary;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;
import picocli.CommandLine.TypeConversionException;

import java.io.PrintWriter;
import java.net.Inet4Address;
import java.util.OptionalInt;
import java.util.concurrent.Callable;
import java.util.regex.Pattern;

/**
 * The {@code ofl probe} command. Without {@code --ip} it lists every RDMA device with its ports
 * and GID table; with {@code --ip} it answers which device, port and GID index ofl would use for
 * that local address and the path MTU it would offer, or why none fits. It runs the RDMA
 * backend's own bindings, availability probe and GID selection, and only reads.
 *
 * <p>Exit status: {@value ExitStatus#FOUND} found (or listed), {@value ExitStatus#NOT_FOUND} no GID
 * fits the address, {@value ExitStatus#NO_DEVICE} no device, {@value ExitStatus#LIBRARY_MISSING}
 * library missing, {@value ExitStatus#KERNEL_WITHOUT_RDMA} kernel without RDMA,
 * {@value ExitStatus#FAILURE} any other failure, {@value ExitStatus#USAGE} usage error.
 *
 * <p>One instance serves one invocation; not thread-safe.
 */
@Command(name = "ofl probe", sortOptions = false, usageHelpAutoWidth = true,
        description = {
            "Read-only discovery of RDMA devices, ports and GIDs through libibverbs, with the same bindings and "
                    + "GID selection as ofl's RDMA backend.",
            "",
            "Without --ip: lists every device with its ports (state, physical state, link layer, active MTU, "
                    + "width, speed) and every GID (index, type, netdev, the IPv4 address it maps).",
            "With --ip: tells which device, port and GID index ofl would use for that local address and the "
                    + "path MTU it would offer, or says precisely why none fits.",
            "Either way: shows the locked-memory limit (RLIMIT_MEMLOCK) and what a client and a server would "
                    + "register for the limits the --max-* options give (a client's defaults otherwise).",
            ""},
        footerHeading = "%n",
        footer = "It never modifies anything: it opens devices and queries them.",
        exitCodeOnSuccess = ExitStatus.FOUND,
        exitCodeOnInvalidInput = ExitStatus.USAGE,
        exitCodeOnExecutionException = ExitStatus.FAILURE,
        exitCodeListHeading = "%nExit status:%n",
        exitCodeList = {
            ExitStatus.FOUND + ":a GID fits the --ip address, or the listing succeeded",
            ExitStatus.NOT_FOUND + ":no GID fits the --ip address (the output says why, per device)",
            ExitStatus.NO_DEVICE + ":no RDMA device: the kernel supports RDMA but the library lists none",
            ExitStatus.LIBRARY_MISSING + ":the verbs library cannot be loaded",
            ExitStatus.KERNEL_WITHOUT_RDMA + ":the kernel has no RDMA support (ibv_get_device_list: ENOSYS)",
            ExitStatus.FAILURE + ":other failure: native access disabled, incompatible library, unreadable device",
            ExitStatus.USAGE + ":usage error"})
public final class Probe implements Callable<Integer> {
    private static final ObjectWriter JSON = new ObjectMapper().writerWithDefaultPrettyPrinter();

    @Spec
    private CommandSpec spec;

    @Option(names = "--ip", paramLabel = "ADDR", converter = Ipv4Literal.class,
            description = "Local IPv4 address (a literal, not a name) to answer for: which device, port and GID "
                    + "index ofl would use and the path MTU it would offer, or why none fits (address not local, "
                    + "no RoCE v2 GID carries it, port down, only a RoCE v1 entry, GID on another netdev).")
    private Inet4Address ip;

    @Option(names = "--gid-index", paramLabel = "N",
            description = "With --ip: check a GID index override as the backend would. It is accepted only if "
                    + "entry N is a RoCE v2 GID carrying the address on an active port; else exit 1 names the "
                    + "index to use.")
    private Integer gidIndex;

    @Option(names = "--device", paramLabel = "NAME",
            description = "With --ip: consider only this device, as the RDMA backend does when its rdma.device "
                    + "property names one; listing still shows every device.")
    private String device;

    @Option(names = "--json",
            description = "Print the report as one JSON document on standard output, failures included, "
                    + "for scripts.")
    private boolean json;

    @Option(names = "--library", paramLabel = "PATH",
            description = "libibverbs to probe: a file name or path, e.g. ofl-softverbs/target/lib/libibverbs.so.1. "
                    + "Same effect as -D" + VerbsLibrary.LIBRARY_PROPERTY + "; default: that property, else $"
                    + VerbsLibrary.LIBRARY_ENVIRONMENT + ", else " + VerbsLibrary.DEFAULT_LIBRARY + ".")
    private String library;

    @Option(names = "--max-request-bytes", paramLabel = "N",
            description = "For the locked-memory estimate: the client's maxRequestBytes (default: ${DEFAULT-VALUE}, "
                    + "a client's default).")
    private int maxRequestBytes = Limits.CLIENT_DEFAULTS.maxRequestBytes();

    @Option(names = "--max-response-bytes", paramLabel = "N",
            description = "For the locked-memory estimate: maxResponseBytes (default: ${DEFAULT-VALUE}).")
    private int maxResponseBytes = Limits.CLIENT_DEFAULTS.maxResponseBytes();

    @Option(names = "--max-ranges", paramLabel = "N",
            description = "For the locked-memory estimate: maxRanges (default: ${DEFAULT-VALUE}).")
    private int maxRanges = Limits.CLIENT_DEFAULTS.maxRanges();

    @Option(names = "--max-in-flight", paramLabel = "N",
            description = "For the locked-memory estimate: maxInFlight (default: ${DEFAULT-VALUE}).")
    private int maxInFlight = Limits.CLIENT_DEFAULTS.maxInFlight();

    @Option(names = "--connections", paramLabel = "N",
            description = "For the locked-memory estimate: connections one server holds at once, at most its "
                    + "maxConnections (default: ${DEFAULT-VALUE}).")
    private int connections = 1;

    @Option(names = {"-h", "--help"}, usageHelp = true, description = "Show this help and exit.")
    private boolean help;

    /**
     * Creates the command; {@link #commandLine()} wraps it for execution.
     */
    public Probe() {
    }

    /**
     * Runs the probe and exits with its status.
     *
     * @param args the command-line arguments
     */
    public static void main(String[] args) {
        System.exit(commandLine().execute(args));
    }

    /**
     * Returns a picocli command line around a new probe, as {@link #main(String[])} runs it; tests
     * set its output and error writers and call {@link CommandLine#execute(String...)}.
     *
     * @return the command line
     */
    public static CommandLine commandLine() {
        return new CommandLine(new Probe());
    }

    /**
     * Probes and prints the report.
     *
     * @return the exit status
     * @throws ParameterException for {@code --gid-index} without {@code --ip} or below 0
     */
    @Override
    public Integer call() {
        if (device != null && ip == null) {
            throw new ParameterException(spec.commandLine(),
                    "--device restricts the answer for an address: give --ip ADDR too");
        }
        if (gidIndex != null && ip == null) {
            throw new ParameterException(spec.commandLine(),
                    "--gid-index checks an override for an address: give --ip ADDR too");
        }
        if (gidIndex != null && gidIndex < 0) {
            throw new ParameterException(spec.commandLine(), "--gid-index must be 0 or more, got " + gidIndex);
        }
        Limits limits;
        try {
            limits = new Limits(maxRequestBytes, maxResponseBytes, maxRanges, maxInFlight);
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), "--max-* options: " + e.getMessage());
        }
        if (connections < 1) {
            throw new ParameterException(spec.commandLine(), "--connections must be 1 or more, got " + connections);
        }
        String probed = library != null ? library : VerbsLibrary.configuredLibrary();
        ProbeReport report = Discovery.run(probed, ip, device,
                gidIndex == null ? OptionalInt.empty() : OptionalInt.of(gidIndex));
        try {
            report = report.withMemlock(MemlockEstimate.of(MemlockLimit.current(), MemlockLimit.canLockWithoutLimit(),
                    limits, connections, MemlockLimit.pageSize()));
        } catch (IllegalCallerException e) {
            // Without native access getrlimit cannot be called either; the report already says
            // NATIVE_ACCESS_DISABLED with its fix, so the section is left out.
        }
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        if (json) {
            out.println(toJson(report));
        } else {
            HumanReport.print(report, out, err);
        }
        out.flush();
        err.flush();
        return report.exitStatus();
    }

    /**
     * Renders a report as indented JSON.
     *
     * @param report the report
     * @return the JSON document
     */
    static String toJson(ProbeReport report) {
        try {
            return JSON.writeValueAsString(report);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("the report records always serialize: " + e.getMessage(), e);
        }
    }

    /**
     * Parses a dotted-quad IPv4 literal without name resolution. The shortened forms that
     * {@link Inet4Address#ofLiteral(String)} also takes ({@code 10.1} for {@code 10.0.0.1}) are
     * refused: in a probe they are far more often a typo than intended.
     */
    static final class Ipv4Literal implements ITypeConverter<Inet4Address> {
        private static final Pattern DOTTED_QUAD = Pattern.compile("\\d{1,3}(\\.\\d{1,3}){3}");

        @Override
        public Inet4Address convert(String value) {
            if (DOTTED_QUAD.matcher(value).matches()) {
                try {
                    return Inet4Address.ofLiteral(value);
                } catch (IllegalArgumentException e) {
                    // a component above 255: refused below like any other non-address
                }
            }
            throw new TypeConversionException("'" + value + "' is not an IPv4 address literal such as 10.0.0.1 "
                    + "(ofl uses RoCE v2 over IPv4; names are not resolved)");
        }
    }
}
