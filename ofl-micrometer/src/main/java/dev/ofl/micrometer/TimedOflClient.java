package dev.ofl.micrometer;

import dev.ofl.api.ClientStatistics;
import dev.ofl.api.Completion;
import dev.ofl.api.Limits;
import dev.ofl.api.NanoClock;
import dev.ofl.api.OflClient;
import dev.ofl.api.OflStatus;
import dev.ofl.api.Region;
import dev.ofl.api.ResponseRanges;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import java.lang.foreign.MemorySegment;
import java.util.Arrays;
import java.util.Objects;
import java.util.concurrent.TimeUnit;

/**
 * An {@link OflClient} that records how long each call took in a Micrometer {@link Timer}: from
 * {@link #submit} to the {@link #await} that returned its outcome, on the client's
 * {@link OflClient#clock() clock}. Everything else is the wrapped client's.
 *
 * <p>The timer {@code ofl.client.call.latency} is tagged {@code backend}, {@code service}, any tags
 * passed, and {@code status}: {@code ok}, {@code refused}, {@code handler_failed}, {@code busy} or
 * {@code timed_out}, so that the latency of answered calls is not mixed with that of calls given up
 * at their deadline. It publishes the percentiles asked for (by default the median, p90, p99 and
 * p99.9) and a percentile histogram, which registries that aggregate across instances (Prometheus,
 * for one) use. A call that ends in an exception (a broken connection, a freed region) or whose
 * ticket a reconnect dropped records nothing; {@link ClientStatistics} counts those.
 *
 * <p>Recording allocates nothing (the start of each call in flight is kept in an array indexed by
 * ticket), so the wrapper keeps the call path free of garbage; it costs two clock reads and the
 * registry's histogram update per call. Like the client it wraps, it belongs to one thread at a
 * time; {@link #statistics()} may be read from any. Closing it closes the wrapped client; the
 * timers stay in the registry.
 */
public final class TimedOflClient implements OflClient {
    /** The timer's name. */
    public static final String METER = "ofl.client.call.latency";

    private static final double[] DEFAULT_PERCENTILES = {0.5, 0.9, 0.99, 0.999};

    private final OflClient client;
    private final NanoClock clock;
    private final Timer ok;
    private final Timer refused;
    private final Timer handlerFailed;
    private final Timer busy;
    private final Timer timedOut;
    /** The ticket each entry started, or -1; a ticket's entry is {@code ticket % length}. */
    private final long[] tickets;
    private final long[] startsNs;

    /**
     * Wraps a client, with the median, p90, p99 and p99.9 published.
     *
     * @param client the client whose calls to time
     * @param registry where the timers are registered
     * @param service the service name the client talks to, the {@code service} tag
     * @throws NullPointerException if an argument is {@code null}
     */
    public TimedOflClient(OflClient client, MeterRegistry registry, String service) {
        this(client, registry, service, Tags.empty(), DEFAULT_PERCENTILES);
    }

    /**
     * Wraps a client.
     *
     * @param client the client whose calls to time
     * @param registry where the timers are registered
     * @param service the service name the client talks to, the {@code service} tag
     * @param extraTags more tags for the timers, for example which replica
     * @param percentiles the percentiles to publish, each in {@code [0, 1]}; none publishes only the
     *     count, total, maximum and histogram
     * @throws NullPointerException if an argument is {@code null}
     * @throws IllegalArgumentException if a percentile lies outside {@code [0, 1]}
     */
    public TimedOflClient(OflClient client, MeterRegistry registry, String service, Iterable<Tag> extraTags,
            double... percentiles) {
        this.client = Objects.requireNonNull(client, "client");
        Objects.requireNonNull(registry, "registry");
        for (double percentile : percentiles) {
            if (!(percentile >= 0 && percentile <= 1)) {
                throw new IllegalArgumentException("a percentile lies in [0, 1], was " + percentile);
            }
        }
        Tags tags = Meters.tags(client.backend(), service, extraTags);
        this.clock = client.clock();
        this.ok = timer(registry, tags, "ok", percentiles);
        this.refused = timer(registry, tags, "refused", percentiles);
        this.handlerFailed = timer(registry, tags, "handler_failed", percentiles);
        this.busy = timer(registry, tags, "busy", percentiles);
        this.timedOut = timer(registry, tags, "timed_out", percentiles);
        // Outstanding tickets are consecutive and at most maxInFlight apart: no two share an entry.
        this.tickets = new long[client.limits().maxInFlight()];
        this.startsNs = new long[tickets.length];
        Arrays.fill(tickets, -1);
    }

    private static Timer timer(MeterRegistry registry, Tags tags, String status, double[] percentiles) {
        return Timer.builder(METER)
                .tags(tags.and("status", status))
                .description("time from submit to the await that returned the call's outcome")
                .publishPercentiles(percentiles)
                .publishPercentileHistogram()
                .register(registry);
    }

    /**
     * The client this one wraps.
     *
     * @return the wrapped client
     */
    public OflClient delegate() {
        return client;
    }

    @Override
    public Region registerRegion(MemorySegment segment) {
        return client.registerRegion(segment);
    }

    @Override
    public Region allocateRegion(long bytes) {
        return client.allocateRegion(bytes);
    }

    @Override
    public MemorySegment requestPayload() {
        return client.requestPayload();
    }

    @Override
    public long submit(int op, long generation, int payloadLength, ResponseRanges ranges) {
        long startNs = clock.nanoTime();
        long ticket = client.submit(op, generation, payloadLength, ranges);
        if (ticket >= 0) {
            int entry = (int) (ticket % tickets.length);
            tickets[entry] = ticket;
            startsNs[entry] = startNs;
        }
        return ticket;
    }

    @Override
    public int await(long ticket, long deadlineNs, Completion completion) {
        return record(ticket, client.await(ticket, deadlineNs, completion));
    }

    @Override
    public int poll(long ticket, long deadlineNs, Completion completion) {
        int status = client.poll(ticket, deadlineNs, completion);
        // Nothing yet: the ticket stays outstanding and is timed when its outcome comes.
        return status == OflStatus.PENDING ? status : record(ticket, status);
    }

    private int record(long ticket, int status) {
        if (ticket >= 0) {
            int entry = (int) (ticket % tickets.length);
            if (tickets[entry] == ticket) {
                tickets[entry] = -1;
                Timer timer = switch (status) {
                    case OflStatus.OK -> ok;
                    case OflStatus.REFUSED -> refused;
                    case OflStatus.HANDLER_FAILED -> handlerFailed;
                    case OflStatus.BUSY -> busy;
                    case OflStatus.TIMED_OUT -> timedOut;
                    default -> null;
                };
                if (timer != null) {
                    timer.record(clock.nanoTime() - startsNs[entry], TimeUnit.NANOSECONDS);
                }
            }
        }
        return status;
    }

    @Override
    public void reconnect() {
        client.reconnect();
        // The dropped tickets never reach await.
        Arrays.fill(tickets, -1);
    }

    @Override
    public ClientStatistics statistics() {
        return client.statistics();
    }

    @Override
    public boolean isBroken() {
        return client.isBroken();
    }

    @Override
    public int outstanding() {
        return client.outstanding();
    }

    @Override
    public Limits limits() {
        return client.limits();
    }

    @Override
    public NanoClock clock() {
        return clock;
    }

    @Override
    public String backend() {
        return client.backend();
    }

    @Override
    public void close() {
        client.close();
    }

    @Override
    public String toString() {
        return "timed " + client;
    }
}
