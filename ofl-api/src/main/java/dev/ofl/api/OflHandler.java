package dev.ofl.api;

/**
 * The server's application logic: answers one request by writing response bytes and returning a
 * status.
 *
 * <p>Called on the connection's own thread, one request at a time per connection, concurrently
 * across connections: an implementation shared by connections must be thread-safe.
 */
@FunctionalInterface
public interface OflHandler {
    /**
     * Handles one request.
     *
     * @param request the request; valid only during this call
     * @param response where to write the response; valid only during this call
     * @return zero to complete the request with the committed bytes, or a non-zero value to refuse
     *     it: the client then sees {@link OflStatus#REFUSED} with this value and no data, and the
     *     connection stays usable
     * @throws Exception if handling failed: the client sees {@link OflStatus#HANDLER_FAILED}, the
     *     failure is logged, and the connection stays usable
     */
    int handle(OflRequest request, OflResponse response) throws Exception;
}
