package dev.ofl.api.spi;

/**
 * What the listener read of one socket's bootstrap before handing it to a connection thread: the
 * whole HELLO and, when the server holds the key it offered, the challenge sent and the client's
 * proof as read (its frame, and the MAC unless the frame failed its checks).
 *
 * @param hello the HELLO, frame and body
 * @param challenge the AUTH_CHALLENGE sent, frame and nonce; {@code null} when none was due
 * @param proof the AUTH_PROOF read; {@code null} when no challenge was sent
 */
record Handshake(byte[] hello, byte[] challenge, byte[] proof) {
}
