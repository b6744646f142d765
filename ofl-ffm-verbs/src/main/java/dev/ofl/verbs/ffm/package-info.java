/**
 * The generated-shaped libibverbs binding: one class per C struct (named as in C, with a
 * {@code $LAYOUT()}, {@code *_OFFSET} constants and static accessors), one class per C enum of
 * constants, the C value layouts in {@link dev.ofl.verbs.ffm.VerbsTypes}, and the downcall
 * handles in {@link dev.ofl.verbs.ffm.Verbs}. Layouts are those of the architecture this JVM runs
 * on ({@link dev.ofl.verbs.ffm.NativeArch}: x86-64 or aarch64), chosen when each class loads.
 *
 * <p>The layouts are written in the shape jextract generates (jextract cannot be installed on the
 * build machines); {@code native-headers/} holds the include list and command that would
 * regenerate them, and a C program whose output a test compares with every layout and constant.
 * Nothing here owns native memory or checks return codes: that is {@link dev.ofl.verbs}'s job.
 * Everything here is stateless and thread-safe.
 */
package dev.ofl.verbs.ffm;
