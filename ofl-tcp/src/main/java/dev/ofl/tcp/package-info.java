/**
 * The TCP backend. Only {@link dev.ofl.tcp.TcpBackend} is public, for the service loader.
 */
package dev.ofl.tcp;
