package dev.ofl.micrometer;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Tags;
import java.util.Objects;
import java.util.function.Function;
import java.util.function.ToLongFunction;

/** What the client and server binders share: the common tags and counters read from a snapshot. */
final class Meters {
    private Meters() {
    }

    static Tags tags(String backend, String service, Iterable<Tag> extraTags) {
        Objects.requireNonNull(service, "service");
        Objects.requireNonNull(extraTags, "extraTags");
        return Tags.of("backend", backend, "service", service).and(extraTags);
    }

    /**
     * Registers a counter reading {@code count} of a fresh snapshot of {@code owner} at each
     * scrape; the registry holds {@code owner} weakly.
     */
    static <T, S> void counter(MeterRegistry registry, T owner, Function<T, S> snapshot, String name, Tags tags,
            String description, ToLongFunction<S> count) {
        FunctionCounter.builder(name, owner, o -> count.applyAsLong(snapshot.apply(o)))
                .tags(tags)
                .description(description)
                .register(registry);
    }
}
