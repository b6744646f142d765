package dev.ofl.api;

import java.security.InvalidKeyException;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * Pre-shared keys for peer authentication (docs/PROTOCOL.md 3.8), each under a numeric key id.
 * A server accepts any of its keys, so that keys can be rotated without a flag day: add the new key
 * next to the old one, move the clients to it, then drop the old one. A client uses one key.
 *
 * <p>Immutable and thread-safe. The key bytes are copied in and never leave: there is no getter,
 * {@link #toString()} shows only the key ids, and the only use is {@link #mac(int)}, which returns
 * an HMAC-SHA-256 already keyed. {@link #equals} compares ids and keys, for configuration tests.
 */
public final class PeerKeys {
    /** No keys: peer authentication is off. */
    public static final PeerKeys NONE = new PeerKeys(Map.of());
    /** Shortest key accepted, in bytes: HMAC-SHA-256's output length (RFC 2104, section 3). */
    public static final int MIN_KEY_BYTES = 32;
    private static final String ALGORITHM = "HmacSHA256";

    /** Key id to key bytes, in the order they were added. */
    private final Map<Integer, byte[]> keys;

    private PeerKeys(Map<Integer, byte[]> keys) {
        this.keys = keys;
    }

    /**
     * Returns these keys plus one more.
     *
     * @param keyId the key's id, sent in the clear so that the server can pick the key; any value,
     *     read as an unsigned 32-bit number on the wire
     * @param key at least {@value #MIN_KEY_BYTES} random bytes, the same at both ends; copied, so
     *     the caller may overwrite its array afterwards
     * @return the new set
     * @throws IllegalArgumentException if the key is shorter than {@value #MIN_KEY_BYTES} bytes or
     *     the id is already taken
     */
    public PeerKeys with(int keyId, byte[] key) {
        if (key == null || key.length < MIN_KEY_BYTES) {
            throw new IllegalArgumentException("authentication key " + Integer.toUnsignedString(keyId) + " has "
                    + (key == null ? "no" : String.valueOf(key.length)) + " bytes; at least " + MIN_KEY_BYTES
                    + " random bytes are required (for example: head -c 32 /dev/urandom > ofl.key)");
        }
        if (keys.containsKey(keyId)) {
            throw new IllegalArgumentException("authentication key id " + Integer.toUnsignedString(keyId)
                    + " is given twice; each key needs its own id");
        }
        Map<Integer, byte[]> more = new LinkedHashMap<>(keys);
        more.put(keyId, key.clone());
        return new PeerKeys(more);
    }

    /**
     * Whether authentication is off.
     *
     * @return {@code true} if there are no keys
     */
    public boolean isEmpty() {
        return keys.isEmpty();
    }

    /**
     * Whether a key id is one of these keys.
     *
     * @param keyId the id
     * @return {@code true} if present
     */
    public boolean contains(int keyId) {
        return keys.containsKey(keyId);
    }

    /**
     * The key ids, in the order the keys were added.
     *
     * @return the ids
     */
    public Set<Integer> keyIds() {
        return Collections.unmodifiableSet(new LinkedHashSet<>(keys.keySet()));
    }

    /**
     * The id of the first key added: the one a client proves.
     *
     * @return the id
     * @throws IllegalStateException if there are no keys
     */
    public int firstKeyId() {
        if (keys.isEmpty()) {
            throw new IllegalStateException("no authentication key is configured");
        }
        return keys.keySet().iterator().next();
    }

    /**
     * A fresh HMAC-SHA-256 keyed with one of these keys. The key cannot be read back from it.
     *
     * @param keyId the key's id
     * @return a new, initialised MAC, for one thread
     * @throws IllegalArgumentException if the id is not one of these keys
     */
    public Mac mac(int keyId) {
        byte[] key = keys.get(keyId);
        if (key == null) {
            throw new IllegalArgumentException("no authentication key has id " + Integer.toUnsignedString(keyId));
        }
        try {
            Mac mac = Mac.getInstance(ALGORITHM);
            mac.init(new SecretKeySpec(key, ALGORITHM));
            return mac;
        } catch (NoSuchAlgorithmException | InvalidKeyException e) {
            throw new IllegalStateException("this JDK cannot compute " + ALGORITHM
                    + ", which every Java SE implementation must provide: " + e, e);
        }
    }

    @Override
    public boolean equals(Object other) {
        if (!(other instanceof PeerKeys that) || !keys.keySet().equals(that.keys.keySet())) {
            return false;
        }
        for (Map.Entry<Integer, byte[]> entry : keys.entrySet()) {
            if (!Arrays.equals(entry.getValue(), that.keys.get(entry.getKey()))) {
                return false;
            }
        }
        return true;
    }

    @Override
    public int hashCode() {
        return keys.keySet().hashCode();
    }

    /**
     * Names the key ids, never the keys.
     *
     * @return for example {@code PeerKeys[ids=1, 2]}
     */
    @Override
    public String toString() {
        StringBuilder ids = new StringBuilder("PeerKeys[ids=");
        String separator = "";
        for (int id : keys.keySet()) {
            ids.append(separator).append(Integer.toUnsignedString(id));
            separator = ", ";
        }
        return ids.append(']').toString();
    }
}
