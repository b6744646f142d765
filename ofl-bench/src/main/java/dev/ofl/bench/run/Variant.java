package dev.ofl.bench.run;

import dev.ofl.api.WaitMode;

/**
 * One arm of an A/B comparison: the backend, the wait mode of client and server, and how the
 * request and the response bytes are produced.
 *
 * @param backend {@code tcp} or {@code rdma}
 * @param waitMode how both sides wait
 * @param requestInPlace {@code true}: the client writes the request straight into
 *     {@code requestPayload()}; {@code false}: it prepares it in its own memory and copies it in
 * @param responseInPlace {@code true}: the server writes into {@code OflResponse.buffer()} and
 *     commits; {@code false}: it prepares in scratch memory and writes (copies)
 */
public record Variant(String backend, WaitMode waitMode, boolean requestInPlace, boolean responseInPlace) {
    /**
     * The label in tables and charts, e.g. {@code tcp busy req=inplace resp=copy}.
     *
     * @return the label
     */
    public String label() {
        return backend + " " + waitName(waitMode) + " req=" + mode(requestInPlace) + " resp=" + mode(responseInPlace);
    }

    /**
     * The command-line name of a wait mode.
     *
     * @param mode the mode
     * @return {@code busy} or {@code blocking}
     */
    public static String waitName(WaitMode mode) {
        return mode == WaitMode.BUSY_POLL ? "busy" : "blocking";
    }

    private static String mode(boolean inPlace) {
        return inPlace ? "inplace" : "copy";
    }
}
