/**
 * Optional binding of ofl's statistics to Micrometer: {@link dev.ofl.micrometer.OflClientMetrics}
 * and {@link dev.ofl.micrometer.OflServerMetrics} are {@code MeterBinder}s that register function
 * counters and gauges reading {@link dev.ofl.api.OflClient#statistics()} and
 * {@link dev.ofl.api.OflServer#statistics()} when the registry is read;
 * {@link dev.ofl.micrometer.TimedOflClient} times each call of a client it wraps.
 */
// micrometer-core is an automatic module; its types are part of this module's API.
@SuppressWarnings({"requires-automatic", "requires-transitive-automatic"})
module dev.ofl.micrometer {
    requires transitive dev.ofl.api;
    requires transitive micrometer.core;

    exports dev.ofl.micrometer;
}
