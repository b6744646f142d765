package dev.ofl.api;

import java.nio.charset.StandardCharsets;

/** Checks service names: 1 to 64 bytes of UTF-8 with no control characters. */
final class ServiceName {
    static final int MAX_BYTES = 64;

    private ServiceName() {
    }

    static String check(String name) {
        if (name == null || name.isEmpty()) {
            throw new IllegalArgumentException("serviceName must be set: both ends must name the same service");
        }
        int bytes = name.getBytes(StandardCharsets.UTF_8).length;
        if (bytes > MAX_BYTES) {
            throw new IllegalArgumentException("serviceName '" + name + "' is " + bytes
                    + " bytes of UTF-8; at most " + MAX_BYTES + " are allowed");
        }
        for (int i = 0; i < name.length(); i++) {
            if (Character.isISOControl(name.charAt(i))) {
                throw new IllegalArgumentException("serviceName must not contain control characters");
            }
        }
        return name;
    }
}
