/**
 * Module-internal access from the engine to package-private members of {@link dev.ofl.api}; not
 * exported, not an API.
 */
package dev.ofl.api.internal;
