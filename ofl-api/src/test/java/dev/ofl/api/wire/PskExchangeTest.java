package dev.ofl.api.wire;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ofl.api.ClientConfig;
import dev.ofl.api.Limits;
import dev.ofl.api.PeerKeys;
import dev.ofl.api.RefusalCode;
import dev.ofl.api.ServerConfig;
import java.net.InetSocketAddress;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.Set;
import javax.crypto.Mac;
import org.junit.jupiter.api.Test;

/**
 * The test vectors of docs/PROTOCOL.md 11.6, reproduced from the code (golden bytes and MACs), and
 * every way the authentication records can be malformed.
 */
class PskExchangeTest {
    /** PROTOCOL.md 11.6: key id 7, key = bytes 00..1f. */
    private static final byte[] KEY = Hex.bytes("""
            00 01 02 03 04 05 06 07  08 09 0a 0b 0c 0d 0e 0f
            10 11 12 13 14 15 16 17  18 19 1a 1b 1c 1d 1e 1f""");
    private static final int KEY_ID = 7;
    private static final byte[] CLIENT_NONCE = Hex.bytes("""
            a0 a1 a2 a3 a4 a5 a6 a7  a8 a9 aa ab ac ad ae af
            b0 b1 b2 b3 b4 b5 b6 b7  b8 b9 ba bb bc bd be bf""");
    private static final byte[] SERVER_NONCE = Hex.bytes("""
            c0 c1 c2 c3 c4 c5 c6 c7  c8 c9 ca cb cc cd ce cf
            d0 d1 d2 d3 d4 d5 d6 d7  d8 d9 da db dc dd de df""");
    private static final String HELLO = """
            4f 46 4c 42 01 00 01 00  6e 00 00 00 00 00 00 00
            00 00 01 06 00 00 04 00  00 00 00 01 10 00 08 00
            00 00 00 00 00 00 00 00  00 00 00 00 00 00 00 00
            00 00 00 00 00 00 00 00  00 00 00 00 00 00 00 00
            00 00 00 00 00 00 00 00  00 00 28 00 00 00 00 00
            6c 6f 6f 6b 75 70 01 80  24 00 07 00 00 00 a0 a1
            a2 a3 a4 a5 a6 a7 a8 a9  aa ab ac ad ae af b0 b1
            b2 b3 b4 b5 b6 b7 b8 b9  ba bb bc bd be bf""";
    private static final String CHALLENGE = """
            4f 46 4c 42 01 00 03 00  20 00 00 00 00 00 00 00
            c0 c1 c2 c3 c4 c5 c6 c7  c8 c9 ca cb cc cd ce cf
            d0 d1 d2 d3 d4 d5 d6 d7  d8 d9 da db dc dd de df""";
    private static final String PROOF = """
            4f 46 4c 42 01 00 04 00  20 00 00 00 00 00 00 00
            a4 02 fc e9 67 d1 3e f6  58 66 cb 73 70 60 59 87
            e1 8a 6e a5 52 28 c0 92  91 95 1b d3 54 ee a8 84""";
    private static final String WELCOME = """
            4f 46 4c 42 01 00 02 00  6a 00 00 00 00 00 00 00
            00 00 01 06 00 00 04 00  00 00 00 01 10 00 08 00
            00 00 00 00 00 00 00 00  00 00 00 00 00 00 00 00
            00 00 00 00 00 00 00 00  00 00 00 00 00 00 00 00
            00 00 00 00 00 00 00 00  00 00 24 00 00 00 00 00
            6c 6f 6f 6b 75 70 01 80  20 00 b8 bc 0b 1e 27 77
            69 92 8a 99 18 99 5c eb  cf 1b fd 96 8d e0 aa f3
            db 61 34 bd 27 ff a8 82  ad f0""";
    private static final String CLIENT_MAC =
            "a402fce967d13ef65866cb7370605987e18a6ea55228c09291951bd354eea884";
    private static final String SERVER_MAC =
            "b8bc0b1e277769928a9918995cebcf1bfd968de0aaf3db6134bd27ffa882adf0";

    private static Mac mac() {
        return PeerKeys.NONE.with(KEY_ID, KEY).mac(KEY_ID);
    }

    private static Bootstrap.Endpoint lookup(byte[] extensions) {
        return new Bootstrap.Endpoint(RefusalCode.ACCEPTED, TransportKind.TCP, "lookup", Limits.CLIENT_DEFAULTS, 0, 0,
                null, 0, 0, 0, "", extensions);
    }

    private static byte[] body(byte[] message) {
        return Arrays.copyOfRange(message, Bootstrap.FRAME_LENGTH, message.length);
    }

    @Test
    void theCodeReproducesTheTestVectors() throws ProtocolException {
        byte[] hello = Bootstrap.encode(Bootstrap.HELLO,
                lookup(new PskExchange.Offer(KEY_ID, CLIENT_NONCE).record()));
        assertArrayEquals(Hex.bytes(HELLO), hello, () -> Hex.dump(hello));

        byte[] challenge = Bootstrap.encodeFrame(Bootstrap.AUTH_CHALLENGE, SERVER_NONCE);
        assertArrayEquals(Hex.bytes(CHALLENGE), challenge, () -> Hex.dump(challenge));

        byte[] clientMac = PskExchange.clientProof(mac(), hello, challenge);
        assertArrayEquals(Hex.bytes(CLIENT_MAC), clientMac, () -> Hex.dump(clientMac));
        byte[] proof = Bootstrap.encodeFrame(Bootstrap.AUTH_PROOF, clientMac);
        assertArrayEquals(Hex.bytes(PROOF), proof, () -> Hex.dump(proof));

        byte[] welcome = Bootstrap.encode(Bootstrap.WELCOME, lookup(PskExchange.withProofPlaceholder(new byte[0])));
        byte[] serverMac = PskExchange.serverProof(mac(), hello, challenge, proof, welcome);
        assertArrayEquals(Hex.bytes(SERVER_MAC), serverMac, () -> Hex.dump(serverMac));
        PskExchange.fillServerProof(welcome, serverMac);
        assertArrayEquals(Hex.bytes(WELCOME), welcome, () -> Hex.dump(welcome));
    }

    @Test
    void theTestVectorsDecode() throws ProtocolException {
        byte[] hello = Hex.bytes(HELLO);
        assertEquals(new Bootstrap.Frame(1, Bootstrap.HELLO, 110), Bootstrap.decodeFrame(hello, Bootstrap.HELLO));
        Bootstrap.Endpoint decoded = Bootstrap.decodeBody(body(hello));
        assertEquals(new PskExchange.Offer(KEY_ID, CLIENT_NONCE), PskExchange.findOffer(decoded.extensions()));
        assertEquals(0, PskExchange.withoutAuthentication(decoded.extensions()).length);

        assertEquals(new Bootstrap.Frame(1, Bootstrap.AUTH_CHALLENGE, 32),
                Bootstrap.decodeFrame(Hex.bytes(CHALLENGE), Bootstrap.WELCOME, Bootstrap.AUTH_CHALLENGE));
        assertEquals(new Bootstrap.Frame(1, Bootstrap.AUTH_PROOF, 32),
                Bootstrap.decodeFrame(Hex.bytes(PROOF), Bootstrap.AUTH_PROOF));

        byte[] welcome = Hex.bytes(WELCOME);
        Bootstrap.Endpoint accepted = Bootstrap.decodeBody(body(welcome));
        assertArrayEquals(Hex.bytes(SERVER_MAC), PskExchange.findServerProof(accepted.extensions()));
        // The MAC is computed with its own bytes read as zero, so the filled WELCOME verifies too.
        assertArrayEquals(Hex.bytes(SERVER_MAC), PskExchange.serverProof(mac(), hello, Hex.bytes(CHALLENGE),
                Hex.bytes(PROOF), welcome));
    }

    @Test
    void everyByteOfTheTranscriptChangesTheMacs() {
        byte[] hello = Hex.bytes(HELLO);
        byte[] challenge = Hex.bytes(CHALLENGE);
        for (int i = 0; i < hello.length; i++) {
            byte[] changed = hello.clone();
            changed[i] ^= 1;
            assertFalse(Arrays.equals(Hex.bytes(CLIENT_MAC), PskExchange.clientProof(mac(), changed, challenge)),
                    "HELLO byte " + i);
        }
        byte[] welcome = Hex.bytes(WELCOME);
        for (int i = 0; i < welcome.length - PskExchange.MAC_BYTES; i++) {
            byte[] changed = welcome.clone();
            changed[i] ^= 1;
            assertFalse(Arrays.equals(Hex.bytes(SERVER_MAC),
                    PskExchange.serverProof(mac(), hello, challenge, Hex.bytes(PROOF), changed)), "WELCOME byte " + i);
        }
        for (int i = 0; i < KEY.length; i++) {
            byte[] other = KEY.clone();
            other[i] ^= (byte) 0x80;
            assertFalse(Arrays.equals(Hex.bytes(CLIENT_MAC), PskExchange.clientProof(
                    PeerKeys.NONE.with(KEY_ID, other).mac(KEY_ID), hello, challenge)), "key byte " + i);
        }
    }

    private static void assertRefused(String field, byte[] extensions, boolean offer) {
        ProtocolException e = assertThrows(ProtocolException.class, () -> {
            if (offer) {
                PskExchange.findOffer(extensions);
            } else {
                PskExchange.findServerProof(extensions);
            }
        });
        assertEquals(field, e.field(), e::getMessage);
    }

    @Test
    void malformedRecordsNameTheirField() throws ProtocolException {
        assertNull(PskExchange.findOffer(Hex.bytes("01 00 00 00  01 81 00 00")));
        assertNull(PskExchange.findServerProof(new byte[0]));
        assertRefused("authentication offer length", PskExchange.record(PskExchange.EXTENSION_TYPE, new byte[35]),
                true);
        assertRefused("authentication offer length", PskExchange.record(PskExchange.EXTENSION_TYPE, new byte[37]),
                true);
        byte[] offer = new PskExchange.Offer(1, CLIENT_NONCE).record();
        byte[] twice = Arrays.copyOf(offer, offer.length * 2);
        System.arraycopy(offer, 0, twice, offer.length, offer.length);
        assertRefused("authentication offer count", twice, true);

        assertRefused("authentication proof length", PskExchange.record(PskExchange.EXTENSION_TYPE, new byte[31]),
                false);
        byte[] notLast = Arrays.copyOf(PskExchange.withProofPlaceholder(new byte[0]), 36 + 4);
        notLast[36] = 0x02;
        assertRefused("authentication proof offset", notLast, false);
        byte[] proofTwice = PskExchange.withProofPlaceholder(PskExchange.withProofPlaceholder(new byte[0]));
        assertRefused("authentication proof count", proofTwice, false);
    }

    @Test
    void authenticationFramesHaveExactlyThirtyTwoBodyBytes() {
        for (long length : new long[] {0, 31, 33, 64, 0xFFFF_FFFFL}) {
            for (int type : new int[] {Bootstrap.AUTH_CHALLENGE, Bootstrap.AUTH_PROOF}) {
                byte[] frame = Arrays.copyOf(Hex.bytes(CHALLENGE), Bootstrap.FRAME_LENGTH);
                frame[Bootstrap.FRAME_TYPE_OFFSET] = (byte) type;
                java.lang.foreign.MemorySegment.ofArray(frame).set(MessageHeader.U32_LE,
                        Bootstrap.FRAME_BODY_LENGTH_OFFSET, (int) length);
                ProtocolException e = assertThrows(ProtocolException.class,
                        () -> Bootstrap.decodeFrame(frame, type));
                assertEquals("bootstrap body length", e.field());
            }
        }
        ProtocolException e = assertThrows(ProtocolException.class,
                () -> Bootstrap.decodeFrame(Hex.bytes(PROOF), Bootstrap.WELCOME, Bootstrap.AUTH_CHALLENGE));
        assertEquals("bootstrap type", e.field());
    }

    @Test
    void keysAreCheckedAndNeverShown() {
        assertThrows(IllegalArgumentException.class, () -> PeerKeys.NONE.with(1, new byte[PeerKeys.MIN_KEY_BYTES - 1]));
        assertThrows(IllegalArgumentException.class, () -> PeerKeys.NONE.with(1, KEY).with(1, KEY));
        assertThrows(IllegalArgumentException.class, () -> PeerKeys.NONE.with(1, KEY).mac(2));
        PeerKeys keys = PeerKeys.NONE.with(-1, KEY).with(KEY_ID, KEY);
        assertEquals("PeerKeys[ids=4294967295, 7]", keys.toString());
        assertEquals(-1, keys.firstKeyId());
        byte[] mine = KEY.clone();
        PeerKeys copied = PeerKeys.NONE.with(KEY_ID, mine);
        Arrays.fill(mine, (byte) 0);
        assertArrayEquals(Hex.bytes(CLIENT_MAC), PskExchange.clientProof(copied.mac(KEY_ID), Hex.bytes(HELLO),
                Hex.bytes(CHALLENGE)), "the key was copied when added");
        ServerConfig server = ServerConfig.builder().bind(new InetSocketAddress("127.0.0.1", 1)).serviceName("s")
                .authenticationKey(KEY_ID, KEY).authenticationKey(8, KEY).build();
        ClientConfig client = ClientConfig.builder().server(new InetSocketAddress("127.0.0.1", 1)).serviceName("s")
                .authenticationKey(9, KEY).authenticationKey(KEY_ID, KEY).build();
        assertEquals(Set.of(KEY_ID, 8), server.authentication().keyIds());
        assertEquals(KEY_ID, client.authentication().firstKeyId(), "a client proves the key it was given last");
        for (String shown : new String[] {server.toString(), client.toString()}) {
            assertTrue(shown.contains("PeerKeys[ids="), shown);
            assertFalse(shown.contains(Arrays.toString(KEY)) || shown.contains(HexFormat.of().formatHex(KEY)), shown);
        }
        IllegalArgumentException tooShort = assertThrows(IllegalArgumentException.class,
                () -> ClientConfig.builder().authenticationKey(1, new byte[16]));
        assertTrue(tooShort.getMessage().contains("at least 32"), tooShort::getMessage);
        assertEquals(PeerKeys.NONE, ServerConfig.builder().bind(new InetSocketAddress("127.0.0.1", 1))
                .serviceName("s").build().authentication(), "off by default");
    }
}
