package dev.ofl.api.wire;

import dev.ofl.api.Limits;
import dev.ofl.api.RefusalCode;

/**
 * The server's decision on a HELLO, shared by every backend so that all refuse the same things in
 * the same order: version, critical extensions, transport, service name, limits. Capacity checks
 * (connection cap, shutdown) belong to the server and come after; peer authentication, when the
 * server holds keys, comes before the body checks and takes its record out of the HELLO
 * ({@link PskExchange#withoutAuthentication}).
 *
 * @param code {@link RefusalCode#ACCEPTED} or why not
 * @param reason a sentence naming the values that did not match; empty when accepted
 */
public record HelloCheck(RefusalCode code, String reason) {
    private static final HelloCheck ACCEPT = new HelloCheck(RefusalCode.ACCEPTED, "");

    /**
     * Whether the HELLO was accepted.
     *
     * @return {@code true} if {@link #code()} is {@link RefusalCode#ACCEPTED}
     */
    public boolean accepted() {
        return code == RefusalCode.ACCEPTED;
    }

    /**
     * Refuses a HELLO whose frame speaks another version, before its body is read.
     *
     * @param clientVersion the frame's version
     * @return a VERSION_MISMATCH decision, or accepted if the versions match
     */
    public static HelloCheck version(int clientVersion) {
        if (clientVersion != MessageHeader.VERSION) {
            return new HelloCheck(RefusalCode.VERSION_MISMATCH, "this server speaks protocol version "
                    + MessageHeader.VERSION + ", the client " + clientVersion);
        }
        return ACCEPT;
    }

    /**
     * Decides on a decoded HELLO body.
     *
     * @param hello the client's endpoint
     * @param transport the server's {@link TransportKind}
     * @param serviceName the server's service name
     * @param maxima the server's limits
     * @return the decision
     */
    public static HelloCheck body(Bootstrap.Endpoint hello, int transport, String serviceName, Limits maxima) {
        int critical = Bootstrap.firstCriticalExtension(hello.extensions());
        if (critical >= 0) {
            return new HelloCheck(RefusalCode.UNSUPPORTED_EXTENSION, "critical extension type 0x"
                    + Integer.toHexString(critical) + " is not supported by this server");
        }
        if (hello.transport() != transport) {
            return new HelloCheck(RefusalCode.TRANSPORT_MISMATCH, "this server runs the "
                    + TransportKind.name(transport) + " transport, the client asked for "
                    + TransportKind.name(hello.transport()));
        }
        if (!hello.serviceName().equals(serviceName)) {
            return new HelloCheck(RefusalCode.SERVICE_MISMATCH, "this server serves '" + serviceName
                    + "', the client asked for '" + PeerText.escape(hello.serviceName()) + "'");
        }
        String exceeds = hello.limits().exceeds(maxima);
        if (exceeds != null) {
            return new HelloCheck(RefusalCode.LIMITS_EXCEEDED, exceeds);
        }
        return ACCEPT;
    }
}
