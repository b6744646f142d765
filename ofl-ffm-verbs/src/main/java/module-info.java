/**
 * libibverbs through the Foreign Function and Memory API.
 *
 * <p>{@link dev.ofl.verbs.ffm} is the generated-shaped layer: struct layouts, constants and
 * downcall handles, as jextract would emit them from {@code <infiniband/verbs.h>}.
 * {@link dev.ofl.verbs} is the hand-written layer on top: it loads the library, probes whether
 * RDMA is usable, owns the native object tree (context, protection domain, memory regions,
 * completion queues, queue pairs) and selects the RoCE v2 GID for a local address.
 *
 * <p>{@code dev.ofl.verbs.rdma} holds the RDMA backend of ofl, found by the service loader under the
 * name {@code "rdma"}.
 *
 * <p>This module calls native code: grant it access with
 * {@code --enable-native-access=dev.ofl.verbs} (or {@code ALL-UNNAMED} on the class path).
 */
// "module": the probe is not observable when this module compiles; the export names it anyway.
@SuppressWarnings("module")
module dev.ofl.verbs {
    requires dev.ofl.api;
    requires org.slf4j;
    // dev.ofl.DeviceEvent, one JFR event per asynchronous device event.
    requires jdk.jfr;

    exports dev.ofl.verbs;
    // The raw binding is for the layer that owns native objects; the probe reads its constants.
    exports dev.ofl.verbs.ffm to dev.ofl.probe;

    provides dev.ofl.api.spi.OflBackend with dev.ofl.verbs.rdma.RdmaBackend;
}
