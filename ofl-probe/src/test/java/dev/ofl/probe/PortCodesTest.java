package dev.ofl.probe;

import org.junit.jupiter.api.Test;

import java.io.PrintWriter;
import java.io.StringWriter;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

/** The port code names (kernel enums, ibv_devinfo texts) and the table layout. */
class PortCodesTest {
    @Test
    void widthsFollowTheKernelsOddEncoding() {
        assertEquals("1X", PortCodes.width(1));
        assertEquals("4X", PortCodes.width(2));
        assertEquals("8X", PortCodes.width(4));
        assertEquals("12X", PortCodes.width(8));
        assertEquals("2X", PortCodes.width(16));
        assertEquals("unknown(3)", PortCodes.width(3));
    }

    @Test
    void speedsArePerLane() {
        assertEquals("2.5 Gbps (SDR)", PortCodes.laneSpeed(1));
        assertEquals("25.0 Gbps (EDR)", PortCodes.laneSpeed(32));
        assertEquals("100.0 Gbps (NDR)", PortCodes.laneSpeed(128));
        assertEquals("unknown(0)", PortCodes.laneSpeed(0));
    }

    @Test
    void physicalStatesAndMtus() {
        assertEquals("LINK_UP", PortCodes.physicalState(5));
        assertEquals("DISABLED", PortCodes.physicalState(3));
        assertEquals(4096, PortCodes.mtuBytes(5));
        assertEquals(256, PortCodes.mtuBytes(1));
        assertNull(PortCodes.mtuBytes(0));
        assertEquals("ACTIVE", PortCodes.shortName("IBV_PORT_ACTIVE", "IBV_PORT_"));
        assertEquals("unknown(9)", PortCodes.shortName("unknown(9)", "IBV_PORT_"));
    }

    @Test
    void tableColumnsAlignWithoutTrailingBlanks() {
        StringWriter out = new StringWriter();
        new TextTable("A", "LONG HEADER", "C").row(1, null, "x").row("wide cell", 2, "").print(new PrintWriter(out, true), "  ");

        assertEquals(String.join(System.lineSeparator(),
                "  A          LONG HEADER  C",
                "  1          -            x",
                "  wide cell  2",
                ""), out.toString());
    }
}
