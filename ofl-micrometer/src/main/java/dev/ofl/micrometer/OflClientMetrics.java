package dev.ofl.micrometer;

import dev.ofl.api.ClientStatistics;
import dev.ofl.api.OflClient;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.binder.MeterBinder;
import java.util.Objects;
import java.util.function.ToLongFunction;

/**
 * Binds an {@link OflClient}'s {@link ClientStatistics} to a {@link MeterRegistry} as function
 * counters, read from {@link OflClient#statistics()} (safe from any thread) when the registry is
 * scraped. The meters, all tagged {@code backend} and {@code service}:
 * <table>
 * <caption>Client meters</caption>
 * <tr><th>Meter</th><th>Extra tag</th><th>Counts</th></tr>
 * <tr><td>{@code ofl.client.calls}</td><td></td><td>requests submitted</td></tr>
 * <tr><td>{@code ofl.client.responses}</td><td>{@code status}: {@code ok}, {@code refused},
 *     {@code handler_failed}</td><td>responses received, by status</td></tr>
 * <tr><td>{@code ofl.client.timeouts}</td><td></td><td>calls that timed out</td></tr>
 * <tr><td>{@code ofl.client.breaks}</td><td>{@code cause}: {@code timeout}, {@code peer_loss},
 *     {@code transport_failure}, {@code protocol_error}, {@code interrupt}, {@code freed_region}</td><td>connections
 *     broken, by cause</td></tr>
 * <tr><td>{@code ofl.client.reconnects}</td><td></td><td>successful reconnects</td></tr>
 * </table>
 *
 * <p>Binding the same client twice to one registry registers nothing new (Micrometer keeps the
 * first meter of a name and tags). Immutable and thread-safe.
 */
public final class OflClientMetrics implements MeterBinder {
    private final OflClient client;
    private final Tags tags;

    /**
     * Prepares the binding; nothing is registered until {@link #bindTo(MeterRegistry)}.
     *
     * @param client the client to observe
     * @param service the service name the client talks to, the {@code service} tag
     * @param extraTags more tags for every meter, for example which replica
     * @throws NullPointerException if an argument is {@code null}
     */
    public OflClientMetrics(OflClient client, String service, Iterable<Tag> extraTags) {
        this.client = Objects.requireNonNull(client, "client");
        this.tags = Meters.tags(client.backend(), service, extraTags);
    }

    /**
     * Prepares the binding with only the {@code backend} and {@code service} tags.
     *
     * @param client the client to observe
     * @param service the service name the client talks to, the {@code service} tag
     * @throws NullPointerException if an argument is {@code null}
     */
    public OflClientMetrics(OflClient client, String service) {
        this(client, service, Tags.empty());
    }

    @Override
    public void bindTo(MeterRegistry registry) {
        counter(registry, "ofl.client.calls", Tags.empty(), "requests submitted", ClientStatistics::calls);
        response(registry, "ok", ClientStatistics::ok);
        response(registry, "refused", ClientStatistics::refused);
        response(registry, "handler_failed", ClientStatistics::handlerFailures);
        counter(registry, "ofl.client.timeouts", Tags.empty(), "calls that timed out", ClientStatistics::timeouts);
        brk(registry, "timeout", ClientStatistics::timeouts);
        brk(registry, "peer_loss", ClientStatistics::peerLosses);
        brk(registry, "transport_failure", ClientStatistics::transportFailures);
        brk(registry, "protocol_error", ClientStatistics::protocolErrors);
        brk(registry, "interrupt", ClientStatistics::interrupts);
        brk(registry, "freed_region", ClientStatistics::freedRegions);
        brk(registry, "link_failure", ClientStatistics::linkFailures);
        counter(registry, "ofl.client.reconnects", Tags.empty(), "successful reconnects",
                ClientStatistics::reconnects);
    }

    private void response(MeterRegistry registry, String status, ToLongFunction<ClientStatistics> count) {
        counter(registry, "ofl.client.responses", Tags.of("status", status), "responses received, by status",
                count);
    }

    private void brk(MeterRegistry registry, String cause, ToLongFunction<ClientStatistics> count) {
        counter(registry, "ofl.client.breaks", Tags.of("cause", cause), "connections broken, by cause", count);
    }

    private void counter(MeterRegistry registry, String name, Tags extra, String description,
            ToLongFunction<ClientStatistics> count) {
        Meters.counter(registry, client, OflClient::statistics, name, tags.and(extra), description, count);
    }
}
