package dev.ofl.bench.run;

import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * The {@code ofl-bench} entry point: the {@code server} and {@code client} roles for separate
 * processes and hosts, {@code compare} (ofl against plain C and Java NIO peers), and the NIO peer
 * itself.
 */
@Command(name = "ofl-bench", mixinStandardHelpOptions = true,
        description = "ofl benchmarks across processes and hosts.",
        subcommands = {BenchServer.class, BenchClient.class, Compare.class, NioPeer.class})
public final class Bench {
    private Bench() {
    }

    /**
     * Runs a subcommand and exits with its status.
     *
     * @param args the subcommand and its options; {@code --help} lists them
     */
    public static void main(String[] args) {
        System.exit(new CommandLine(new Bench()).execute(args));
    }
}
