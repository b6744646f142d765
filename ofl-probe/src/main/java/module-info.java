/**
 * {@code ofl probe}: read-only discovery of RDMA devices, ports and GIDs, and the answer to
 * "which device, port and GID index would ofl use for this local address".
 *
 * <p>Built on {@code dev.ofl.verbs}, the same bindings and the same GID selection
 * ({@link dev.ofl.verbs.GidSelector}) as the RDMA backend. picocli sets the command's option fields
 * and Jackson reads the report records by reflection, so the package is opened to both, and to
 * nothing else. Run it with {@code --enable-native-access=dev.ofl.verbs} on the module path, or
 * {@code --enable-native-access=ALL-UNNAMED} on the class path as the {@code ofl} launcher does.
 */
module dev.ofl.probe {
    requires dev.ofl.api;
    requires dev.ofl.verbs;
    requires info.picocli;
    requires com.fasterxml.jackson.databind;

    opens dev.ofl.probe to info.picocli, com.fasterxml.jackson.databind;
}
