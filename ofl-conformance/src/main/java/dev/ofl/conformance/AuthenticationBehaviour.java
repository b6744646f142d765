package dev.ofl.conformance;

import static dev.ofl.conformance.ResponseChecks.assertEchoWorks;
import static dev.ofl.conformance.TestHandlers.echo;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ofl.api.ClientConfig;
import dev.ofl.api.OflClient;
import dev.ofl.api.OflRefusedException;
import dev.ofl.api.OflServer;
import dev.ofl.api.RefusalCode;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/**
 * Peer authentication (PROTOCOL.md 3.8): peers holding the same key under the same id connect,
 * serve and reconnect; a server with two keys accepts either; a client without a key, with
 * another key, or with an unknown key id is refused by a server with keys, and a client with a
 * key by a server without; every refusal leaves the server serving and accepts no connection.
 */
abstract class AuthenticationBehaviour extends ConformanceBehaviour {
    private static final byte[] OLD_KEY = key(0x40);
    private static final byte[] NEW_KEY = key(0x80);

    AuthenticationBehaviour(TransportUnderTest transport) {
        super(transport);
    }

    private static byte[] key(int first) {
        byte[] key = new byte[32];
        for (int i = 0; i < key.length; i++) {
            key[i] = (byte) (first + i);
        }
        return key;
    }

    private void assertRefused(OflServer server, RefusalCode code, Consumer<ClientConfig.Builder> client) {
        long accepted = server.statistics().connectionsAccepted();
        OflRefusedException refused = assertThrows(OflRefusedException.class, () -> fixture.connect(server, client));
        assertEquals(code, refused.code(), refused::getMessage);
        assertEquals(accepted, server.statistics().connectionsAccepted(), "a refused client was not accepted");
    }

    /** Both keys of a server in rotation connect, serve and reconnect; the server proves each back. */
    @Test
    void peersWithTheSameKeyConnectServeAndReconnect() {
        OflServer server = fixture.serve(b -> b.authenticationKey(1, OLD_KEY).authenticationKey(2, NEW_KEY), echo());
        OflClient old = fixture.connect(server, b -> b.authenticationKey(1, OLD_KEY));
        assertEchoWorks(old, fixture.allocate(256), null, "a client proving the old key");
        OflClient renewed = fixture.connect(server, b -> b.authenticationKey(2, NEW_KEY));
        assertEchoWorks(renewed, fixture.allocate(256), null, "a client proving the new key");
        renewed.reconnect();
        assertEchoWorks(renewed, fixture.allocate(256), null, "the same client after reconnect");
        assertEquals(3, server.statistics().connectionsAccepted());
    }

    /** Every mismatch is refused with its code, and the server goes on serving its keyed clients. */
    @Test
    void everyMismatchIsRefusedWithItsCode() {
        OflServer server = fixture.serve(b -> b.authenticationKey(2, NEW_KEY), echo());
        assertRefused(server, RefusalCode.AUTHENTICATION_REQUIRED, b -> { });
        assertRefused(server, RefusalCode.AUTHENTICATION_FAILED, b -> b.authenticationKey(2, OLD_KEY));
        assertRefused(server, RefusalCode.AUTHENTICATION_FAILED, b -> b.authenticationKey(1, OLD_KEY));
        OflServer open = fixture.serve(b -> { }, echo());
        assertRefused(open, RefusalCode.UNSUPPORTED_EXTENSION, b -> b.authenticationKey(2, NEW_KEY));
        assertEchoWorks(fixture.connect(server, b -> b.authenticationKey(2, NEW_KEY)), fixture.allocate(256), null,
                "a keyed client after the refusals");
        assertTrue(server.statistics().connectionsRefused() >= 3, server.statistics()::toString);
    }
}
