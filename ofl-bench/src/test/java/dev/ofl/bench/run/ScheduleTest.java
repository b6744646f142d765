package dev.ofl.bench.run;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.ofl.api.WaitMode;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class ScheduleTest {
    private static final Variant A = new Variant("tcp", WaitMode.BUSY_POLL, false, false);
    private static final Variant B = new Variant("tcp", WaitMode.BUSY_POLL, true, false);
    private static final Variant C = new Variant("tcp", WaitMode.BLOCKING, true, false);
    private static final ExchangeCase SMALL = ExchangeCase.parse("64/64");
    private static final ExchangeCase SEED = ExchangeCase.parse("184416/24");

    private static List<Variant> variants(List<Schedule.Block> blocks) {
        List<Variant> order = new ArrayList<>();
        for (Schedule.Block b : blocks) {
            order.add(b.variant());
        }
        return order;
    }

    @Test
    void twoVariantsRunAbbaInEveryRound() {
        List<Schedule.Block> blocks = Schedule.abba(List.of(SMALL), List.of(A, B), 2);
        assertEquals(List.of(A, B, B, A, A, B, B, A), variants(blocks));
        assertEquals(List.of(0, 0, 0, 0, 1, 1, 1, 1), blocks.stream().map(Schedule.Block::repeat).toList());
    }

    @Test
    void threeVariantsMirror() {
        assertEquals(List.of(A, B, C, C, B, A), variants(Schedule.abba(List.of(SMALL), List.of(A, B, C), 1)));
    }

    @Test
    void casesRunOneAfterAnotherWithIndexesInOrder() {
        List<Schedule.Block> blocks = Schedule.abba(List.of(SMALL, SEED), List.of(A, B), 1);
        assertEquals(8, blocks.size());
        for (int i = 0; i < blocks.size(); i++) {
            assertEquals(i, blocks.get(i).index());
            assertEquals(i < 4 ? SMALL : SEED, blocks.get(i).testCase());
        }
    }

    @Test
    void refusesEmptyInputs() {
        assertThrows(IllegalArgumentException.class, () -> Schedule.abba(List.of(), List.of(A), 1));
        assertThrows(IllegalArgumentException.class, () -> Schedule.abba(List.of(SMALL), List.of(), 1));
        assertThrows(IllegalArgumentException.class, () -> Schedule.abba(List.of(SMALL), List.of(A), 0));
    }
}
