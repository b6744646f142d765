/**
 * The hand-written libibverbs layer: it loads the library ({@link dev.ofl.verbs.VerbsLibrary}),
 * probes once whether RDMA is usable ({@link dev.ofl.verbs.RdmaAvailability}), owns the native
 * object tree and selects the RoCE v2 GID for a local address ({@link dev.ofl.verbs.GidSelector}).
 *
 * <p>Ownership: every native object has one owning wrapper. Wrappers form the tree
 * {@code Context -> ProtectionDomain -> (MemoryRegion, QueuePair)} and
 * {@code Context -> (CompletionChannel, CompletionQueue)}; closing a parent closes its children
 * first, {@code close()} is idempotent, and a constructor that fails releases what it had
 * created. Creating and closing objects is thread-safe; the data-path methods
 * ({@code QueuePair.postSend}, {@code QueuePair.postRecv}, {@code CompletionQueue.poll},
 * {@code CompletionQueue.requestNotify}) are allocation-free, return status values instead of
 * throwing, and must not race with {@code close()} of the same object.
 *
 * <p>Errors are {@link dev.ofl.verbs.VerbsException}s that name the C function, the errno or
 * return code with its text, the values involved and the fix.
 */
package dev.ofl.verbs;
