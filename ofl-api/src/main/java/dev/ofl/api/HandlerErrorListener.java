package dev.ofl.api;

/**
 * Told about every exception an {@link OflHandler} throws, in place of the server's default log.
 * Set it with {@link ServerConfig.Builder#handlerErrorListener}; without one, the server logs the
 * first failure of each kind (exception type and message) with its stack trace through slf4j and
 * then only counts repeats, one line per kind at most every 10 seconds.
 *
 * <p>Called on the connection's thread after the handler threw and before the client is sent
 * {@link OflStatus#HANDLER_FAILED}: a slow listener delays that response and the connection's next
 * request. Called concurrently by different connections: an implementation must be thread-safe.
 * A listener that throws does not harm the connection: what it throws is written to the default
 * log instead.
 */
@FunctionalInterface
public interface HandlerErrorListener {
    /**
     * Reports one handler failure.
     *
     * @param request the request the handler failed on; valid only during this call (copy what
     *     you keep, the payload is reused by the next request)
     * @param failure what the handler threw
     */
    void handlerFailed(OflRequest request, Exception failure);
}
