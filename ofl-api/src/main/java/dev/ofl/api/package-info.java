/**
 * Client, server and handler interfaces of ofl, with the value types they exchange.
 *
 * <p>Start at {@link dev.ofl.api.Ofl}: it builds an {@link dev.ofl.api.OflClient} or an
 * {@link dev.ofl.api.OflServer} for the backend a configuration names. Hot-path methods
 * ({@code submit}, {@code await}) return status values ({@link dev.ofl.api.OflStatus}); exceptions
 * ({@link dev.ofl.api.OflException} and subclasses) signal misuse, configuration errors and broken
 * connections.
 */
package dev.ofl.api;
