/**
 * softverbs as a dependency: the user-space libibverbs stand-in, packaged for Linux on x86-64 and
 * aarch64, with {@link dev.ofl.softverbs.Softverbs} to extract it and point the ofl RDMA backend at
 * it.
 */
module dev.ofl.softverbs {
    exports dev.ofl.softverbs;
}
