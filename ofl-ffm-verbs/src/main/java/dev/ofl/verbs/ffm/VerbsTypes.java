package dev.ofl.verbs.ffm;

import java.lang.foreign.AddressLayout;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/**
 * The C types of {@code <infiniband/verbs.h>} on 64-bit Linux (LP64: x86-64 and aarch64 alike), as
 * value layouts. The one type whose size differs between them, {@code pthread_mutex_t}, is
 * {@link NativeArch#pthreadMutexLayout()}.
 *
 * <p>{@code C_*} layouts are in native byte order and natural alignment, as the C compiler lays
 * them out. {@code BE_*} layouts are big-endian, for the {@code __be32} and {@code __be64} members
 * (GIDs, GUIDs, immediate data): reading through them yields the logical value, writing stores it
 * in network order. Stateless and thread-safe.
 */
public final class VerbsTypes {
    /** {@code char}. */
    public static final ValueLayout.OfByte C_CHAR = ValueLayout.JAVA_BYTE;
    /** {@code uint8_t}. Widen with {@link Byte#toUnsignedInt(byte)}. */
    public static final ValueLayout.OfByte C_UINT8 = ValueLayout.JAVA_BYTE;
    /** {@code uint16_t}. Widen with {@link Short#toUnsignedInt(short)}. */
    public static final ValueLayout.OfShort C_UINT16 = ValueLayout.JAVA_SHORT;
    /** {@code int} and every C {@code enum}. */
    public static final ValueLayout.OfInt C_INT = ValueLayout.JAVA_INT;
    /** {@code uint32_t} and {@code unsigned int}. Widen with {@link Integer#toUnsignedLong(int)}. */
    public static final ValueLayout.OfInt C_UINT32 = ValueLayout.JAVA_INT;
    /** {@code uint64_t}. */
    public static final ValueLayout.OfLong C_UINT64 = ValueLayout.JAVA_LONG;
    /** {@code size_t} and {@code ssize_t}. */
    public static final ValueLayout.OfLong C_SIZE_T = ValueLayout.JAVA_LONG;
    /** Any data or function pointer. */
    public static final AddressLayout C_POINTER = ValueLayout.ADDRESS;
    /** {@code __be32}: a 32-bit value stored in network (big-endian) order. */
    public static final ValueLayout.OfInt BE_UINT32 = ValueLayout.JAVA_INT.withOrder(ByteOrder.BIG_ENDIAN);
    /** {@code __be64}: a 64-bit value stored in network (big-endian) order. */
    public static final ValueLayout.OfLong BE_UINT64 = ValueLayout.JAVA_LONG.withOrder(ByteOrder.BIG_ENDIAN);

    private VerbsTypes() {
    }
}
