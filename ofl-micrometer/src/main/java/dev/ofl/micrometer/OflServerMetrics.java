package dev.ofl.micrometer;

import dev.ofl.api.OflServer;
import dev.ofl.api.ServerStatistics;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.binder.MeterBinder;
import java.util.Objects;
import java.util.function.ToLongFunction;

/**
 * Binds an {@link OflServer}'s {@link ServerStatistics} to a {@link MeterRegistry}: function
 * counters read from {@link OflServer#statistics()} and a gauge of open connections, read when
 * the registry is scraped. The meters, all tagged {@code backend} and {@code service}:
 * <table>
 * <caption>Server meters</caption>
 * <tr><th>Meter</th><th>Extra tag</th><th>Counts</th></tr>
 * <tr><td>{@code ofl.server.connections}</td><td>{@code outcome}: {@code accepted},
 *     {@code refused}</td><td>client connections accepted or refused at bootstrap</td></tr>
 * <tr><td>{@code ofl.server.connections.open}</td><td></td><td>(gauge) connections open now</td></tr>
 * <tr><td>{@code ofl.server.requests}</td><td></td><td>requests handed to the handler</td></tr>
 * <tr><td>{@code ofl.server.refusals}</td><td></td><td>requests the handler refused</td></tr>
 * <tr><td>{@code ofl.server.handler.failures}</td><td></td><td>handler invocations that threw</td></tr>
 * <tr><td>{@code ofl.server.protocol.violations}</td><td></td><td>connections closed for breaking
 *     the protocol</td></tr>
 * <tr><td>{@code ofl.server.responses.undelivered}</td><td></td><td>responses lost because the
 *     connection broke while they were delivered</td></tr>
 * <tr><td>{@code ofl.server.responses.busy}</td><td></td><td>requests answered BUSY without
 *     running the handler: no response staging free in time</td></tr>
 * </table>
 *
 * <p>Immutable and thread-safe.
 */
public final class OflServerMetrics implements MeterBinder {
    private final OflServer server;
    private final Tags tags;

    /**
     * Prepares the binding; nothing is registered until {@link #bindTo(MeterRegistry)}.
     *
     * @param server the server to observe
     * @param service the service name the server serves, the {@code service} tag
     * @param extraTags more tags for every meter
     * @throws NullPointerException if an argument is {@code null}
     */
    public OflServerMetrics(OflServer server, String service, Iterable<Tag> extraTags) {
        this.server = Objects.requireNonNull(server, "server");
        this.tags = Meters.tags(server.backend(), service, extraTags);
    }

    /**
     * Prepares the binding with only the {@code backend} and {@code service} tags.
     *
     * @param server the server to observe
     * @param service the service name the server serves, the {@code service} tag
     * @throws NullPointerException if an argument is {@code null}
     */
    public OflServerMetrics(OflServer server, String service) {
        this(server, service, Tags.empty());
    }

    @Override
    public void bindTo(MeterRegistry registry) {
        counter(registry, "ofl.server.connections", Tags.of("outcome", "accepted"),
                "client connections accepted or refused at bootstrap", ServerStatistics::connectionsAccepted);
        counter(registry, "ofl.server.connections", Tags.of("outcome", "refused"),
                "client connections accepted or refused at bootstrap", ServerStatistics::connectionsRefused);
        Gauge.builder("ofl.server.connections.open", server, OflServer::connectionCount)
                .tags(tags)
                .description("client connections open now")
                .register(registry);
        counter(registry, "ofl.server.requests", Tags.empty(), "requests handed to the handler",
                ServerStatistics::requests);
        counter(registry, "ofl.server.refusals", Tags.empty(), "requests the handler refused",
                ServerStatistics::refusals);
        counter(registry, "ofl.server.handler.failures", Tags.empty(), "handler invocations that threw",
                ServerStatistics::handlerFailures);
        counter(registry, "ofl.server.protocol.violations", Tags.empty(),
                "connections closed for breaking the protocol", ServerStatistics::protocolViolations);
        counter(registry, "ofl.server.responses.undelivered", Tags.empty(),
                "responses lost because the connection broke while they were delivered",
                ServerStatistics::undeliveredResponses);
        counter(registry, "ofl.server.responses.busy", Tags.empty(),
                "requests answered BUSY without running the handler: no response staging free in time",
                ServerStatistics::busyResponses);
        counter(registry, "ofl.server.send.timeouts", Tags.empty(),
                "connections broken because a response could not be sent within the send timeout",
                ServerStatistics::sendTimeouts);
        counter(registry, "ofl.server.link.failures", Tags.empty(),
                "connections broken because the server's device said the link failed (a port down, a device failure)",
                ServerStatistics::linkFailures);
    }

    private void counter(MeterRegistry registry, String name, Tags extra, String description,
            ToLongFunction<ServerStatistics> count) {
        Meters.counter(registry, server, OflServer::statistics, name, tags.and(extra), description, count);
    }
}
