package dev.ofl.api.wire;

import java.io.ByteArrayOutputStream;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Objects;
import javax.crypto.Mac;

/**
 * The wire format of peer authentication with a pre-shared key (docs/PROTOCOL.md 3.8): the
 * HELLO's offer, the server's challenge, the client's proof, the WELCOME's proof, and the two
 * HMAC-SHA-256 values over the transcript.
 *
 * <pre>
 * client                                               server
 *   HELLO    ext 0x8001 = key id u32 | client nonce [32]  -&gt;
 *                          &lt;-  AUTH_CHALLENGE (frame type 3) body = server nonce [32]
 *   AUTH_PROOF (frame type 4) body = client MAC [32]      -&gt;
 *                          &lt;-  WELCOME  last ext 0x8001 = server MAC [32]
 *
 * client MAC = HMAC-SHA-256(key, "ofl-psk-v1 client" | HELLO | AUTH_CHALLENGE)
 * server MAC = HMAC-SHA-256(key, "ofl-psk-v1 server" | HELLO | AUTH_CHALLENGE | AUTH_PROOF | WELCOME')
 *   each message whole, 16-byte frame and body, as sent; WELCOME' = the WELCOME with its
 *   last 32 bytes (the server MAC itself) set to zero
 * </pre>
 *
 * <p>Stateless; the MACs are computed with a caller's {@link Mac}, keyed by
 * {@link dev.ofl.api.PeerKeys#mac(int)}, so that the key never passes through here.
 */
public final class PskExchange {
    /** Extension type of the HELLO's offer and the WELCOME's proof: critical, bit 0x8000 set. */
    public static final int EXTENSION_TYPE = 0x8001;
    /** Bytes of each nonce. */
    public static final int NONCE_BYTES = 32;
    /** Bytes of each MAC: HMAC-SHA-256's output. */
    public static final int MAC_BYTES = 32;
    /** Bytes of an extension record's header (type u16, length u16). */
    public static final int RECORD_HEADER_BYTES = 4;
    /** Offset of the key id (u32) in the HELLO's record value. */
    public static final int KEY_ID_OFFSET = 0;
    /** Offset of the client nonce in the HELLO's record value. */
    public static final int CLIENT_NONCE_OFFSET = KEY_ID_OFFSET + 4;
    /** Length of the HELLO's record value. */
    public static final int OFFER_LENGTH = CLIENT_NONCE_OFFSET + NONCE_BYTES;
    /** Length of the WELCOME's record value. */
    public static final int WELCOME_PROOF_LENGTH = MAC_BYTES;

    private static final byte[] CLIENT_LABEL = "ofl-psk-v1 client".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] SERVER_LABEL = "ofl-psk-v1 server".getBytes(StandardCharsets.US_ASCII);

    static {
        if (OFFER_LENGTH != 36 || Bootstrap.AUTH_BODY_LENGTH != NONCE_BYTES || NONCE_BYTES != MAC_BYTES) {
            throw new AssertionError("authentication layout does not add up");
        }
    }

    private PskExchange() {
    }

    /**
     * The client's offer in a HELLO.
     *
     * @param keyId the id of the key the client will prove (unsigned on the wire)
     * @param clientNonce {@value #NONCE_BYTES} random bytes
     */
    public record Offer(int keyId, byte[] clientNonce) {
        /** Checks the nonce's length and copies it. */
        public Offer {
            if (clientNonce.length != NONCE_BYTES) {
                throw new IllegalArgumentException("a nonce has " + NONCE_BYTES + " bytes, not " + clientNonce.length);
            }
            clientNonce = clientNonce.clone();
        }

        /**
         * The client's nonce.
         *
         * @return a copy
         */
        @Override
        public byte[] clientNonce() {
            return clientNonce.clone();
        }

        /**
         * The extension record that carries this offer.
         *
         * @return type, length and value
         */
        public byte[] record() {
            MemorySegment value = MemorySegment.ofArray(new byte[OFFER_LENGTH]);
            value.set(MessageHeader.U32_LE, KEY_ID_OFFSET, keyId);
            MemorySegment.copy(MemorySegment.ofArray(clientNonce), 0, value, CLIENT_NONCE_OFFSET, NONCE_BYTES);
            return PskExchange.record(EXTENSION_TYPE, (byte[]) value.heapBase().orElseThrow());
        }

        @Override
        public boolean equals(Object other) {
            return other instanceof Offer o && keyId == o.keyId && Arrays.equals(clientNonce, o.clientNonce);
        }

        @Override
        public int hashCode() {
            return Objects.hash(keyId, Arrays.hashCode(clientNonce));
        }

        @Override
        public String toString() {
            return "Offer[keyId=" + Integer.toUnsignedString(keyId) + "]";
        }
    }

    /**
     * Encodes one extension record.
     *
     * @param type the record type
     * @param value the value, at most 65,535 bytes
     * @return type, length and value
     */
    public static byte[] record(int type, byte[] value) {
        MemorySegment out = MemorySegment.ofArray(new byte[RECORD_HEADER_BYTES + value.length]);
        out.set(MessageHeader.U16_LE, 0, (short) type);
        out.set(MessageHeader.U16_LE, 2, (short) value.length);
        MemorySegment.copy(MemorySegment.ofArray(value), 0, out, RECORD_HEADER_BYTES, value.length);
        return (byte[]) out.heapBase().orElseThrow();
    }

    /**
     * Finds the client's offer in a HELLO's checked extension area.
     *
     * @param extensions the area, already checked by {@link Bootstrap#decodeBody}
     * @return the offer, or {@code null} if the HELLO offers no authentication
     * @throws ProtocolException if the record's length is not {@value #OFFER_LENGTH} or it appears
     *     twice
     */
    public static Offer findOffer(byte[] extensions) throws ProtocolException {
        int at = onlyRecord(extensions, "authentication offer");
        if (at < 0) {
            return null;
        }
        MemorySegment in = MemorySegment.ofArray(extensions);
        int length = Short.toUnsignedInt(in.get(MessageHeader.U16_LE, at + 2));
        if (length != OFFER_LENGTH) {
            throw new ProtocolException("authentication offer length", length, "must be " + OFFER_LENGTH);
        }
        int value = at + RECORD_HEADER_BYTES;
        return new Offer(in.get(MessageHeader.U32_LE, value + KEY_ID_OFFSET),
                Arrays.copyOfRange(extensions, value + CLIENT_NONCE_OFFSET, value + OFFER_LENGTH));
    }

    /**
     * Finds the server's proof in an accepting WELCOME's checked extension area.
     *
     * @param extensions the area, already checked by {@link Bootstrap#decodeBody}
     * @return the server's MAC, or {@code null} if the WELCOME carries none
     * @throws ProtocolException if the record's length is not {@value #WELCOME_PROOF_LENGTH}, it
     *     appears twice, or it is not the last record (the MAC must be the message's last bytes)
     */
    public static byte[] findServerProof(byte[] extensions) throws ProtocolException {
        int at = onlyRecord(extensions, "authentication proof");
        if (at < 0) {
            return null;
        }
        int length = Short.toUnsignedInt(MemorySegment.ofArray(extensions).get(MessageHeader.U16_LE, at + 2));
        if (length != WELCOME_PROOF_LENGTH) {
            throw new ProtocolException("authentication proof length", length, "must be " + WELCOME_PROOF_LENGTH);
        }
        if (at + RECORD_HEADER_BYTES + length != extensions.length) {
            throw new ProtocolException("authentication proof offset", at, "must be the last extension record");
        }
        return Arrays.copyOfRange(extensions, at + RECORD_HEADER_BYTES, extensions.length);
    }

    /**
     * An extension area without the authentication records, for the checks that refuse unknown
     * critical extensions and for the transport, which does not see them.
     *
     * @param extensions a checked extension area
     * @return the other records, in order
     */
    public static byte[] withoutAuthentication(byte[] extensions) {
        ByteArrayOutputStream rest = new ByteArrayOutputStream(extensions.length);
        MemorySegment in = MemorySegment.ofArray(extensions);
        for (int at = 0; at < extensions.length; ) {
            int type = Short.toUnsignedInt(in.get(MessageHeader.U16_LE, at));
            int end = at + RECORD_HEADER_BYTES + Short.toUnsignedInt(in.get(MessageHeader.U16_LE, at + 2));
            if (type != EXTENSION_TYPE) {
                rest.write(extensions, at, end - at);
            }
            at = end;
        }
        return rest.toByteArray();
    }

    /**
     * An extension area with a zeroed proof record appended: the WELCOME the server MACs and then
     * fills in with {@link #fillServerProof}.
     *
     * @param extensions the transport's own records
     * @return the area with the placeholder last
     */
    public static byte[] withProofPlaceholder(byte[] extensions) {
        byte[] placeholder = record(EXTENSION_TYPE, new byte[WELCOME_PROOF_LENGTH]);
        byte[] out = Arrays.copyOf(extensions, extensions.length + placeholder.length);
        System.arraycopy(placeholder, 0, out, extensions.length, placeholder.length);
        return out;
    }

    /**
     * The client's MAC.
     *
     * @param mac HMAC-SHA-256 keyed with the offered key
     * @param hello the HELLO as sent, frame and body
     * @param challenge the AUTH_CHALLENGE as sent, frame and body
     * @return {@value #MAC_BYTES} bytes
     */
    public static byte[] clientProof(Mac mac, byte[] hello, byte[] challenge) {
        mac.reset();
        mac.update(CLIENT_LABEL);
        mac.update(hello);
        mac.update(challenge);
        return mac.doFinal();
    }

    /**
     * The server's MAC over the whole transcript, the WELCOME included with its own MAC bytes
     * read as zero.
     *
     * @param mac HMAC-SHA-256 keyed with the offered key
     * @param hello the HELLO as sent
     * @param challenge the AUTH_CHALLENGE as sent
     * @param proof the AUTH_PROOF as sent
     * @param welcome the WELCOME, whose last {@value #MAC_BYTES} bytes are the proof's value
     *     (ignored: read as zero)
     * @return {@value #MAC_BYTES} bytes
     */
    public static byte[] serverProof(Mac mac, byte[] hello, byte[] challenge, byte[] proof, byte[] welcome) {
        mac.reset();
        mac.update(SERVER_LABEL);
        mac.update(hello);
        mac.update(challenge);
        mac.update(proof);
        mac.update(welcome, 0, welcome.length - MAC_BYTES);
        mac.update(new byte[MAC_BYTES]);
        return mac.doFinal();
    }

    /**
     * Writes the server's MAC into the last bytes of a WELCOME encoded with
     * {@link #withProofPlaceholder}.
     *
     * @param welcome the encoded WELCOME, changed in place
     * @param serverMac the MAC from {@link #serverProof}
     */
    public static void fillServerProof(byte[] welcome, byte[] serverMac) {
        System.arraycopy(serverMac, 0, welcome, welcome.length - MAC_BYTES, MAC_BYTES);
    }

    /** The offset of the one record of our type, -1 if none; a second one is a protocol violation. */
    private static int onlyRecord(byte[] extensions, String field) throws ProtocolException {
        return Bootstrap.findExtension(extensions, EXTENSION_TYPE, field);
    }
}
