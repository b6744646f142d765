/**
 * Micrometer meters for ofl clients and servers. Each binder registers, once, meters that read
 * the client's or server's statistics snapshot whenever the registry is scraped: nothing is added
 * to ofl's hot path, and the registry holds the client or server only weakly (after it is
 * collected, its meters read {@code NaN}).
 *
 * <p>{@link dev.ofl.micrometer.TimedOflClient} wraps a client and times each call, from submit to
 * the await that returned its outcome, in a timer with percentiles: the one meter that the call
 * path feeds, without allocating.
 *
 * <p>Every meter carries the tags {@code backend} (from the client or server) and {@code service}
 * (given to the binder or wrapper), plus any tags given to it.
 */
package dev.ofl.micrometer;
