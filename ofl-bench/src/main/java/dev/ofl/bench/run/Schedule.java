package dev.ofl.bench.run;

import java.util.ArrayList;
import java.util.List;

/**
 * The order in which blocks run: for every case, {@code repeats} rounds of the variants in order
 * and then in reverse (A B B A for two variants, A B C C B A for three), so a drift of the machine
 * over time (thermal, other load) weighs on every variant alike. Each block has its own warm-up.
 */
public final class Schedule {
    /**
     * One block of the schedule.
     *
     * @param index position in the schedule, from zero
     * @param testCase the case
     * @param variant the variant
     * @param repeat the round, from zero
     */
    public record Block(int index, ExchangeCase testCase, Variant variant, int repeat) {
    }

    private Schedule() {
    }

    /**
     * Builds the schedule.
     *
     * @param cases the cases, run one after another
     * @param variants the variants compared within each case
     * @param repeats rounds per case, at least one
     * @return the blocks in running order
     * @throws IllegalArgumentException if there are no cases or variants, or {@code repeats < 1}
     */
    public static List<Block> abba(List<ExchangeCase> cases, List<Variant> variants, int repeats) {
        if (cases.isEmpty() || variants.isEmpty() || repeats < 1) {
            throw new IllegalArgumentException("a schedule needs cases (" + cases.size() + "), variants ("
                    + variants.size() + ") and at least one repeat (" + repeats + ")");
        }
        List<Block> blocks = new ArrayList<>();
        for (ExchangeCase c : cases) {
            for (int r = 0; r < repeats; r++) {
                for (Variant v : variants) {
                    blocks.add(new Block(blocks.size(), c, v, r));
                }
                for (int i = variants.size() - 1; i >= 0; i--) {
                    blocks.add(new Block(blocks.size(), c, variants.get(i), r));
                }
            }
        }
        return blocks;
    }
}
