package dev.ofl.bench.jmh;

import java.time.Duration;
import jdk.jfr.Recording;

/**
 * The JFR state a round-trip benchmark runs under, to compare the cost of ofl's per-request events
 * side by side in one run ({@code -p jfr=none,off,on}): {@code none} records nothing; {@code off}
 * runs a recording that leaves {@code dev.ofl.Call} and {@code dev.ofl.Handler} off, as they are
 * by default; {@code on} runs the same recording with both on and without threshold, so every
 * call commits one event on each side.
 */
final class OflEventsRecording implements AutoCloseable {
    private static final String[] PER_REQUEST = {"dev.ofl.Call", "dev.ofl.Handler"};

    private final Recording recording;

    private OflEventsRecording(Recording recording) {
        this.recording = recording;
    }

    /**
     * Starts what {@code mode} names.
     *
     * @param mode {@code none}, {@code off} or {@code on}
     * @return the running state, closed after the trial
     * @throws IllegalArgumentException for another mode
     */
    static OflEventsRecording start(String mode) {
        Recording recording = switch (mode) {
            case "none" -> null;
            case "off", "on" -> new Recording();
            default -> throw new IllegalArgumentException("jfr=" + mode + " is not a mode; use none, off or on");
        };
        if (recording != null) {
            for (String name : PER_REQUEST) {
                if (mode.equals("on")) {
                    recording.enable(name).withoutThreshold();
                } else {
                    recording.disable(name);
                }
            }
            // Bounded: a trial commits millions of events when they are on.
            recording.setMaxAge(Duration.ofSeconds(10));
            recording.start();
        }
        return new OflEventsRecording(recording);
    }

    @Override
    public void close() {
        if (recording != null) {
            recording.close();
        }
    }
}
