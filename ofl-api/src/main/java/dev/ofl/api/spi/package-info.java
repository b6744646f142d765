/**
 * The backend service-provider interface. A backend module declares
 * {@code provides dev.ofl.api.spi.OflBackend with ...} and {@link dev.ofl.api.Ofl} finds it by
 * name through {@link java.util.ServiceLoader}.
 */
package dev.ofl.api.spi;
