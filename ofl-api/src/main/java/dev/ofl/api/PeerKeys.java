package dev.ofl.api;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFileAttributeView;
import java.nio.file.attribute.PosixFilePermission;
import java.security.InvalidKeyException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;
import java.util.Collections;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Pre-shared keys for peer authentication (docs/PROTOCOL.md 3.8), each under a numeric key id.
 * A server accepts any of its keys, so that keys can be rotated without a flag day: add the new key
 * next to the old one, move the clients to it, then drop the old one. A client uses one key.
 *
 * <p>Immutable and thread-safe. The key bytes are copied in once, into one key object per key, and
 * never leave: there is no getter, {@link #toString()} shows only the key ids, and the only use is
 * {@link #mac(int)}, which returns an HMAC-SHA-256 already keyed. {@link #equals} compares ids and
 * keys, for configuration tests. {@link #readKeyFile(Path)} reads a key from a file with the checks
 * a key file deserves.
 */
public final class PeerKeys {
    /** No keys: peer authentication is off. */
    public static final PeerKeys NONE = new PeerKeys(Map.of());
    /** Shortest key accepted, in bytes: HMAC-SHA-256's output length (RFC 2104, section 3). */
    public static final int MIN_KEY_BYTES = 32;
    /** Largest key file {@link #readKeyFile} reads: a key is tens of bytes, never kilobytes. */
    public static final int MAX_KEY_FILE_BYTES = 4096;
    /** Below this estimate of a key's strength, {@link #readKeyFile} warns. */
    private static final int WEAK_KEY_BITS = 128;
    private static final String ALGORITHM = "HmacSHA256";
    private static final Logger LOG = LoggerFactory.getLogger(PeerKeys.class);

    /** Key id to key, in the order they were added; each key copied once, into its spec. */
    private final Map<Integer, SecretKeySpec> keys;

    private PeerKeys(Map<Integer, SecretKeySpec> keys) {
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
        Map<Integer, SecretKeySpec> more = new LinkedHashMap<>(keys);
        more.put(keyId, new SecretKeySpec(key, ALGORITHM));
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
        SecretKeySpec key = keys.get(keyId);
        if (key == null) {
            throw new IllegalArgumentException("no authentication key has id " + Integer.toUnsignedString(keyId));
        }
        try {
            Mac mac = Mac.getInstance(ALGORITHM);
            mac.init(key);
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
        for (Map.Entry<Integer, SecretKeySpec> entry : keys.entrySet()) {
            byte[] mine = entry.getValue().getEncoded();
            byte[] theirs = that.keys.get(entry.getKey()).getEncoded();
            boolean same = MessageDigest.isEqual(mine, theirs);
            Arrays.fill(mine, (byte) 0);
            Arrays.fill(theirs, (byte) 0);
            if (!same) {
                return false;
            }
        }
        return true;
    }

    /**
     * Reads a key from a file, as a service reads its configured key: the file's whole content is
     * the key (for example {@code head -c 32 /dev/urandom > ofl.key; chmod 600 ofl.key}).
     * Refused: anything but a regular file (a FIFO or a device would hang or never end), a file
     * larger than {@value #MAX_KEY_FILE_BYTES} bytes, a file that its group or others may read or
     * write (where the file system has POSIX permissions), a key shorter than
     * {@value #MIN_KEY_BYTES} bytes. A key that looks weak (few distinct byte values for its
     * length: under 128 bits by the estimate length × log2(distinct values)) is accepted with a
     * WARN naming the file, never the key.
     *
     * @param file the key file
     * @return the key bytes; the caller should clear them once configured
     * @throws IOException if the file cannot be read or breaks a rule, with the fix in the message
     */
    public static byte[] readKeyFile(Path file) throws IOException {
        if (!Files.isRegularFile(file)) {
            throw new IOException("key file " + file + " is not a regular file" + (Files.exists(file)
                    ? " (a FIFO, device or directory): write the key into a file" : ": it does not exist"));
        }
        PosixFileAttributeView posix = Files.getFileAttributeView(file, PosixFileAttributeView.class);
        if (posix != null) {
            Set<PosixFilePermission> open = EnumSet.of(PosixFilePermission.GROUP_READ,
                    PosixFilePermission.GROUP_WRITE, PosixFilePermission.OTHERS_READ, PosixFilePermission.OTHERS_WRITE);
            open.retainAll(posix.readAttributes().permissions());
            if (!open.isEmpty()) {
                throw new IOException("key file " + file + " may be read or written by others (" + open
                        + "): run chmod 600 " + file);
            }
        }
        byte[] key;
        try (InputStream in = Files.newInputStream(file)) {
            // One byte past the cap tells a file that is too large without reading all of it.
            key = in.readNBytes(MAX_KEY_FILE_BYTES + 1);
        }
        if (key.length > MAX_KEY_FILE_BYTES) {
            Arrays.fill(key, (byte) 0);
            throw new IOException("key file " + file + " holds more than " + MAX_KEY_FILE_BYTES + " bytes: it is not "
                    + "a key file (a key is " + MIN_KEY_BYTES + " or more random bytes)");
        }
        if (key.length < MIN_KEY_BYTES) {
            Arrays.fill(key, (byte) 0);
            throw new IOException("key file " + file + " holds " + key.length + " bytes; a key has at least "
                    + MIN_KEY_BYTES + " random bytes (head -c 32 /dev/urandom > " + file + ")");
        }
        long bits = estimatedBits(key);
        if (bits < WEAK_KEY_BITS) {
            LOG.warn("the key in {} looks weak: {} bytes with few distinct values (about {} bits of {} wanted); "
                    + "make a random one: head -c 32 /dev/urandom > {}", file, key.length, bits, WEAK_KEY_BITS, file);
        }
        return key;
    }

    /** An upper bound on a key's strength: its length times log2 of the distinct byte values in it. */
    static long estimatedBits(byte[] key) {
        boolean[] seen = new boolean[256];
        int distinct = 0;
        for (byte b : key) {
            if (!seen[b & 0xff]) {
                seen[b & 0xff] = true;
                distinct++;
            }
        }
        return distinct <= 1 ? 0 : (long) Math.floor(key.length * Math.log(distinct) / Math.log(2));
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
