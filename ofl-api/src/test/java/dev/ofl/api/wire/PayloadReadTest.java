package dev.ofl.api.wire;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.MemorySegment;
import org.junit.jupiter.api.Test;

/**
 * The payload-read extension's records (docs/PROTOCOL.md 7.3.1), byte for byte, found among other
 * records, and refused when doubled or of the wrong length.
 */
class PayloadReadTest {
    private static final byte[] OTHER = PskExchange.record(0x0123, new byte[] {9, 9, 9});

    private static byte[] concat(byte[]... parts) {
        int n = 0;
        for (byte[] p : parts) {
            n += p.length;
        }
        byte[] all = new byte[n];
        int at = 0;
        for (byte[] p : parts) {
            System.arraycopy(p, 0, all, at, p.length);
            at += p.length;
        }
        return all;
    }

    @Test
    void recordsHaveTheSpecifiedBytes() {
        assertArrayEquals(Hex.bytes("02 00 00 00"), PayloadRead.offer());
        assertArrayEquals(Hex.bytes("02 00 04 00  00 10 00 00"), PayloadRead.answer(4096));
        assertArrayEquals(Hex.bytes("02 00 04 00  ff ff ff 7f"), PayloadRead.answer(Integer.MAX_VALUE));
        assertThrows(IllegalArgumentException.class, () -> PayloadRead.answer(-1));
    }

    @Test
    void theOfferIsFoundAmongOtherRecordsAndItsValueIgnored() throws ProtocolException {
        assertFalse(PayloadRead.offered(new byte[0]));
        assertFalse(PayloadRead.offered(OTHER));
        assertTrue(PayloadRead.offered(concat(OTHER, PayloadRead.offer())));
        assertTrue(PayloadRead.offered(concat(PskExchange.record(PayloadRead.EXTENSION_TYPE, new byte[] {1}), OTHER)));
        ProtocolException twice = assertThrows(ProtocolException.class,
                () -> PayloadRead.offered(concat(PayloadRead.offer(), OTHER, PayloadRead.offer())));
        assertEquals("payload read offer count", twice.field());
    }

    @Test
    void theAnswerIsReadOrReportedMissingOrRefused() throws ProtocolException {
        assertEquals(PayloadRead.NOT_NEGOTIATED, PayloadRead.inlineBytes(OTHER));
        assertEquals(4096, PayloadRead.inlineBytes(concat(OTHER, PayloadRead.answer(4096))));
        assertEquals(0, PayloadRead.inlineBytes(PayloadRead.answer(0)));
        // A u32: values above the int range stay positive.
        byte[] large = PayloadRead.answer(0);
        large[4] = (byte) 0xff;
        large[7] = (byte) 0xff;
        assertEquals(0xff0000ffL, PayloadRead.inlineBytes(large));
        ProtocolException length = assertThrows(ProtocolException.class,
                () -> PayloadRead.inlineBytes(PayloadRead.offer()));
        assertEquals("payload read answer length", length.field());
        ProtocolException twice = assertThrows(ProtocolException.class,
                () -> PayloadRead.inlineBytes(concat(PayloadRead.answer(1), PayloadRead.answer(2))));
        assertEquals("payload read answer count", twice.field());
    }

    @Test
    void anAnnouncementIsHeaderDescriptorAndRanges() {
        assertEquals(80, PayloadRead.announcementLength(0));
        assertEquals(80 + 16 * 16, PayloadRead.announcementLength(16));
        assertEquals(MessageHeader.LENGTH, PayloadRead.DESCRIPTOR_OFFSET);
        MemorySegment header = MemorySegment.ofArray(new byte[MessageHeader.LENGTH]);
        MessageHeader h = new MessageHeader().wrap(header, 0).reset(MessageType.REQUEST, 3);
        h.flags(PayloadRead.FLAG);
        assertEquals(1, h.flags());
        assertEquals(1, header.get(java.lang.foreign.ValueLayout.JAVA_BYTE, MessageHeader.FLAGS_OFFSET));
        h.flags(0xfffe);
        assertEquals(0xfffe, h.flags());
    }
}
