package dev.ofl.api.spi;

import dev.ofl.api.PeerKeys;
import dev.ofl.api.RefusalCode;
import dev.ofl.api.wire.Bootstrap;
import dev.ofl.api.wire.MessageHeader;
import dev.ofl.api.wire.ProtocolException;
import dev.ofl.api.wire.PskExchange;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.Arrays;
import java.util.Objects;
import javax.crypto.Mac;

/**
 * The server's step of peer authentication (docs/PROTOCOL.md 3.8), run right after the HELLO
 * body is decoded and before anything else is decided or allocated for the peer: the listener
 * sends the challenge ({@link #challengeFor}) and reads the proof without blocking, within the
 * deadline counted from the accept; the connection's thread then checks the offer and the proof
 * ({@link #authenticate}). A client that passes gets a {@link Proven} with which the server seals
 * its WELCOME.
 *
 * <p>Thread-safe: one instance per server, one call per connection.
 */
public final class PeerAuthentication {
    private static final SecureRandom RANDOM = new SecureRandom();

    private final PeerKeys keys;

    /**
     * Creates the server's step.
     *
     * @param keys the keys the server accepts; {@link PeerKeys#NONE} turns authentication off
     */
    public PeerAuthentication(PeerKeys keys) {
        this.keys = Objects.requireNonNull(keys, "keys");
    }

    /**
     * Whether this server requires authentication.
     *
     * @return {@code true} if it holds at least one key
     */
    public boolean required() {
        return !keys.isEmpty();
    }

    /**
     * What the server's step decided.
     *
     * @param hello the HELLO without its authentication record, for the remaining checks and the
     *     transport; the HELLO as received when authentication is off
     * @param refusal {@link RefusalCode#ACCEPTED}, or why the client is to be refused
     * @param reason a sentence for the refusal (key ids only, never key material); empty when
     *     accepted
     * @param proven the state that seals the WELCOME, or {@code null} when authentication is off
     *     or refused
     */
    public record Outcome(Bootstrap.Endpoint hello, RefusalCode refusal, String reason, Proven proven) {
        /**
         * Whether the client may go on to the remaining checks.
         *
         * @return {@code true} if not refused
         */
        public boolean accepted() {
            return refusal == RefusalCode.ACCEPTED;
        }
    }

    /**
     * The challenge for a client whose HELLO offers one of this server's keys, sent by the
     * listener as soon as the HELLO is whole, without blocking; the listener then reads the proof
     * within the same accept-time deadline, so that a client that never proves holds only a
     * pending place, evictable like one whose HELLO is still arriving (docs/PROTOCOL.md 3.4.1).
     *
     * @param helloMessage the HELLO as received, frame and body
     * @return the AUTH_CHALLENGE frame and nonce to send, or {@code null} when no exchange is due:
     *     authentication off, or a HELLO that {@link #authenticate} refuses without one (another
     *     version, malformed, no offer, an unknown key id)
     */
    public byte[] challengeFor(byte[] helloMessage) {
        if (keys.isEmpty() || helloMessage.length <= Bootstrap.FRAME_LENGTH) {
            return null;
        }
        try {
            Bootstrap.Frame frame = Bootstrap.decodeFrame(Arrays.copyOf(helloMessage, Bootstrap.FRAME_LENGTH),
                    Bootstrap.HELLO);
            if (frame.version() != MessageHeader.VERSION) {
                return null;
            }
            Bootstrap.Endpoint hello = Bootstrap.decodeBody(Arrays.copyOfRange(helloMessage, Bootstrap.FRAME_LENGTH,
                    helloMessage.length));
            PskExchange.Offer offer = PskExchange.findOffer(hello.extensions());
            return offer != null && keys.contains(offer.keyId())
                    ? Bootstrap.encodeFrame(Bootstrap.AUTH_CHALLENGE, nonce()) : null;
        } catch (ProtocolException e) {
            return null;
        }
    }

    /**
     * Authenticates a client whose HELLO was decoded, once the listener has read its proof (or
     * found no exchange due). With authentication off the HELLO passes unchanged (an offer in it
     * is then an unknown critical extension, refused later). Reads nothing: the exchange's bytes
     * were read by the listener, within the bootstrap deadline counted from the accept.
     *
     * @param helloMessage the HELLO as received, frame and body
     * @param hello the decoded HELLO
     * @param challenge what {@link #challengeFor} returned for it and the listener sent, or {@code null}
     * @param proofMessage the client's AUTH_PROOF frame and MAC as read, or {@code null} without a challenge
     * @return the decision
     * @throws ProtocolException if the offer or the proof frame is malformed
     */
    public Outcome authenticate(byte[] helloMessage, Bootstrap.Endpoint hello, byte[] challenge, byte[] proofMessage)
            throws ProtocolException {
        if (keys.isEmpty()) {
            return new Outcome(hello, RefusalCode.ACCEPTED, "", null);
        }
        PskExchange.Offer offer = PskExchange.findOffer(hello.extensions());
        if (offer == null) {
            return new Outcome(hello, RefusalCode.AUTHENTICATION_REQUIRED, "this server requires peer "
                    + "authentication and the client offered none; give the client one of the server's keys "
                    + "(ClientConfig.Builder.authenticationKey)", null);
        }
        String keyId = Integer.toUnsignedString(offer.keyId());
        if (!keys.contains(offer.keyId())) {
            return new Outcome(hello, RefusalCode.AUTHENTICATION_FAILED, "the client offered key id " + keyId
                    + ", which is not one of this server's keys", null);
        }
        if (challenge == null || proofMessage == null || proofMessage.length < Bootstrap.FRAME_LENGTH) {
            throw new IllegalStateException("no authentication exchange for an offer of key id " + keyId);
        }
        // The listener stops reading at a proof frame that fails its checks: they are made here.
        Bootstrap.Frame frame = Bootstrap.decodeFrame(Arrays.copyOf(proofMessage, Bootstrap.FRAME_LENGTH),
                Bootstrap.AUTH_PROOF);
        if (frame.version() != MessageHeader.VERSION) {
            throw new ProtocolException("version", frame.version(), "the proof must be in the HELLO's version");
        }
        if (proofMessage.length != Bootstrap.FRAME_LENGTH + Bootstrap.AUTH_BODY_LENGTH) {
            throw new IllegalStateException("the proof of key id " + keyId + " was handed over incomplete");
        }
        byte[] clientMac = Arrays.copyOfRange(proofMessage, Bootstrap.FRAME_LENGTH, proofMessage.length);
        Mac mac = keys.mac(offer.keyId());
        byte[] expected = PskExchange.clientProof(mac, helloMessage, challenge);
        if (!MessageDigest.isEqual(expected, clientMac)) {
            return new Outcome(hello, RefusalCode.AUTHENTICATION_FAILED, "the client's proof for key id " + keyId
                    + " is wrong: it holds another key under that id, or the HELLO was changed on the way", null);
        }
        Bootstrap.Endpoint stripped = withExtensions(hello, PskExchange.withoutAuthentication(hello.extensions()));
        return new Outcome(stripped, RefusalCode.ACCEPTED, "", new Proven(mac, helloMessage, challenge,
                proofMessage.clone()));
    }

    /**
     * A client that proved its key: what the server needs to prove the same key back in its
     * WELCOME. Used by one thread.
     */
    public static final class Proven {
        private final Mac mac;
        private final byte[] hello;
        private final byte[] challenge;
        private final byte[] proof;

        Proven(Mac mac, byte[] hello, byte[] challenge, byte[] proof) {
            this.mac = mac;
            this.hello = hello;
            this.challenge = challenge;
            this.proof = proof;
        }

        /**
         * Encodes an accepting WELCOME whose last extension record is the server's MAC over the
         * whole transcript, this WELCOME included.
         *
         * @param welcome the transport's accepting WELCOME
         * @return the bytes to send
         */
        public byte[] seal(Bootstrap.Endpoint welcome) {
            byte[] message = Bootstrap.encode(Bootstrap.WELCOME,
                    withExtensions(welcome, PskExchange.withProofPlaceholder(welcome.extensions())));
            PskExchange.fillServerProof(message, PskExchange.serverProof(mac, hello, challenge, proof, message));
            return message;
        }
    }

    static Bootstrap.Endpoint withExtensions(Bootstrap.Endpoint e, byte[] extensions) {
        return new Bootstrap.Endpoint(e.status(), e.transport(), e.serviceName(), e.limits(), e.qpn(), e.psn(),
                e.gid(), e.mtu(), e.ringAddress(), e.ringKey(), e.text(), extensions);
    }

    static byte[] concat(byte[] first, byte[] second) {
        byte[] out = new byte[first.length + second.length];
        System.arraycopy(first, 0, out, 0, first.length);
        System.arraycopy(second, 0, out, first.length, second.length);
        return out;
    }

    static byte[] nonce() {
        byte[] nonce = new byte[PskExchange.NONCE_BYTES];
        RANDOM.nextBytes(nonce);
        return nonce;
    }
}
