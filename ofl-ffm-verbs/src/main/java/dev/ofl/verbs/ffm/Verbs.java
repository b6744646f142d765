package dev.ofl.verbs.ffm;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.VarHandle;

import static dev.ofl.verbs.ffm.VerbsTypes.C_INT;
import static dev.ofl.verbs.ffm.VerbsTypes.C_POINTER;

/**
 * Downcall handles for libibverbs, created once per process and shared by every loaded library.
 *
 * <p>All handles are address-less: the first argument is the native function's address. For the
 * exported functions that address comes from {@code dev.ofl.verbs.VerbsLibrary}; for the data-path
 * verbs, which are {@code static inline} in {@code verbs.h} and exported by no library, it is a
 * function pointer read from the context's ops table ({@link ibv_context#OPS_POST_SEND_OFFSET} and
 * friends), once per queue pair or completion queue. Creating a handle needs no library, so these
 * fields initialise even where libibverbs is missing.
 *
 * <p>Handles of functions that set errno ({@link VerbsFunction#capturesErrno()}) take a
 * capture-state segment of {@link #CAPTURE_STATE_LAYOUT} as their second argument; read it with
 * {@link #errno(MemorySegment)}. Three data-path handles are {@code critical}: {@code post_recv},
 * {@code poll_cq} and {@code req_notify_cq} are short, never block and never call back into Java.
 * {@code post_send} is not: with the kernel's soft-RoCE (rxe) it is a system call in which the
 * kernel sends the packets itself, and with the link down the kernel was seen to spin in it for more
 * than 20 s (a "soft lockup" in the rxe guest's fault matrix); a critical call that stays in the
 * kernel holds every other thread of the JVM at its next safepoint.
 * {@code ibv_get_cq_event} blocks and is never critical.
 * Invoke every handle with {@code invokeExact} and the exact types of its descriptor
 * ({@code MemorySegment} for pointers, {@code byte} for {@code uint8_t}, {@code long} for
 * {@code size_t}). Thread-safe.
 */
public final class Verbs {
    /** Layout of the call state captured after a call: holds {@code errno}. */
    public static final StructLayout CAPTURE_STATE_LAYOUT = Linker.Option.captureStateLayout();

    private static final VarHandle ERRNO =
            CAPTURE_STATE_LAYOUT.varHandle(MemoryLayout.PathElement.groupElement("errno"));

    /** {@code int (*post_send)(struct ibv_qp *, struct ibv_send_wr *, struct ibv_send_wr **bad_wr)}. */
    public static final FunctionDescriptor POST_SEND_DESCRIPTOR = FunctionDescriptor.of(C_INT, C_POINTER, C_POINTER, C_POINTER);
    /** {@code int (*post_recv)(struct ibv_qp *, struct ibv_recv_wr *, struct ibv_recv_wr **bad_wr)}. */
    public static final FunctionDescriptor POST_RECV_DESCRIPTOR = FunctionDescriptor.of(C_INT, C_POINTER, C_POINTER, C_POINTER);
    /** {@code int (*poll_cq)(struct ibv_cq *, int num_entries, struct ibv_wc *)}. */
    public static final FunctionDescriptor POLL_CQ_DESCRIPTOR = FunctionDescriptor.of(C_INT, C_POINTER, C_INT, C_POINTER);
    /** {@code int (*req_notify_cq)(struct ibv_cq *, int solicited_only)}. */
    public static final FunctionDescriptor REQ_NOTIFY_CQ_DESCRIPTOR = FunctionDescriptor.of(C_INT, C_POINTER, C_INT);

    /** {@code (fn, qp, wr, badWr)int}: ops-table {@code post_send}; returns 0 or an errno value. Not critical: it may block. */
    public static final MethodHandle POST_SEND = plain(POST_SEND_DESCRIPTOR);
    /** {@code (fn, qp, wr, badWr)int}: ops-table {@code post_recv}; returns 0 or an errno value. Critical. */
    public static final MethodHandle POST_RECV = critical(POST_RECV_DESCRIPTOR);
    /** {@code (fn, cq, int, wc)int}: ops-table {@code poll_cq}; returns a count or a negative value. Critical. */
    public static final MethodHandle POLL_CQ = critical(POLL_CQ_DESCRIPTOR);
    /** {@code (fn, cq, int)int}: ops-table {@code req_notify_cq}; returns 0 or an errno value. Critical. */
    public static final MethodHandle REQ_NOTIFY_CQ = critical(REQ_NOTIFY_CQ_DESCRIPTOR);

    /** See {@link VerbsFunction#IBV_GET_DEVICE_LIST}; {@code (fn, state, int *)MemorySegment}. */
    public static final MethodHandle IBV_GET_DEVICE_LIST = VerbsFunction.IBV_GET_DEVICE_LIST.downcallHandle();
    /** See {@link VerbsFunction#IBV_FREE_DEVICE_LIST}; {@code (fn, list)void}. */
    public static final MethodHandle IBV_FREE_DEVICE_LIST = VerbsFunction.IBV_FREE_DEVICE_LIST.downcallHandle();
    /** See {@link VerbsFunction#IBV_GET_DEVICE_NAME}; {@code (fn, device)MemorySegment}. */
    public static final MethodHandle IBV_GET_DEVICE_NAME = VerbsFunction.IBV_GET_DEVICE_NAME.downcallHandle();
    /** See {@link VerbsFunction#IBV_OPEN_DEVICE}; {@code (fn, state, device)MemorySegment}. */
    public static final MethodHandle IBV_OPEN_DEVICE = VerbsFunction.IBV_OPEN_DEVICE.downcallHandle();
    /** See {@link VerbsFunction#IBV_CLOSE_DEVICE}; {@code (fn, context)int}. */
    public static final MethodHandle IBV_CLOSE_DEVICE = VerbsFunction.IBV_CLOSE_DEVICE.downcallHandle();
    /** See {@link VerbsFunction#IBV_QUERY_DEVICE}; {@code (fn, context, attr)int}. */
    public static final MethodHandle IBV_QUERY_DEVICE = VerbsFunction.IBV_QUERY_DEVICE.downcallHandle();
    /** See {@link VerbsFunction#IBV_QUERY_PORT}; {@code (fn, context, byte, attr)int}. */
    public static final MethodHandle IBV_QUERY_PORT = VerbsFunction.IBV_QUERY_PORT.downcallHandle();
    /** See {@link VerbsFunction#IBV_QUERY_GID}; {@code (fn, state, context, byte, int, gid)int}. */
    public static final MethodHandle IBV_QUERY_GID = VerbsFunction.IBV_QUERY_GID.downcallHandle();
    /** See {@link VerbsFunction#IBV_QUERY_GID_EX}; {@code (fn, context, int, int, entry, int, long)int}. */
    public static final MethodHandle IBV_QUERY_GID_EX = VerbsFunction.IBV_QUERY_GID_EX.downcallHandle();
    /** See {@link VerbsFunction#IBV_QUERY_GID_TABLE}; {@code (fn, context, entries, long, int, long)long}. */
    public static final MethodHandle IBV_QUERY_GID_TABLE = VerbsFunction.IBV_QUERY_GID_TABLE.downcallHandle();
    /** See {@link VerbsFunction#IBV_ALLOC_PD}; {@code (fn, state, context)MemorySegment}. */
    public static final MethodHandle IBV_ALLOC_PD = VerbsFunction.IBV_ALLOC_PD.downcallHandle();
    /** See {@link VerbsFunction#IBV_DEALLOC_PD}; {@code (fn, pd)int}. */
    public static final MethodHandle IBV_DEALLOC_PD = VerbsFunction.IBV_DEALLOC_PD.downcallHandle();
    /** See {@link VerbsFunction#IBV_REG_MR}; {@code (fn, state, pd, addr, long, int)MemorySegment}. */
    public static final MethodHandle IBV_REG_MR = VerbsFunction.IBV_REG_MR.downcallHandle();
    /** See {@link VerbsFunction#IBV_DEREG_MR}; {@code (fn, mr)int}. */
    public static final MethodHandle IBV_DEREG_MR = VerbsFunction.IBV_DEREG_MR.downcallHandle();
    /** See {@link VerbsFunction#IBV_CREATE_COMP_CHANNEL}; {@code (fn, state, context)MemorySegment}. */
    public static final MethodHandle IBV_CREATE_COMP_CHANNEL = VerbsFunction.IBV_CREATE_COMP_CHANNEL.downcallHandle();
    /** See {@link VerbsFunction#IBV_DESTROY_COMP_CHANNEL}; {@code (fn, channel)int}. */
    public static final MethodHandle IBV_DESTROY_COMP_CHANNEL = VerbsFunction.IBV_DESTROY_COMP_CHANNEL.downcallHandle();
    /** See {@link VerbsFunction#IBV_CREATE_CQ}; {@code (fn, state, context, int, cqContext, channel, int)MemorySegment}. */
    public static final MethodHandle IBV_CREATE_CQ = VerbsFunction.IBV_CREATE_CQ.downcallHandle();
    /** See {@link VerbsFunction#IBV_DESTROY_CQ}; {@code (fn, cq)int}. */
    public static final MethodHandle IBV_DESTROY_CQ = VerbsFunction.IBV_DESTROY_CQ.downcallHandle();
    /** See {@link VerbsFunction#IBV_GET_CQ_EVENT}; {@code (fn, state, channel, cqOut, contextOut)int}. Blocks. */
    public static final MethodHandle IBV_GET_CQ_EVENT = VerbsFunction.IBV_GET_CQ_EVENT.downcallHandle();
    /** See {@link VerbsFunction#IBV_ACK_CQ_EVENTS}; {@code (fn, cq, int)void}. */
    public static final MethodHandle IBV_ACK_CQ_EVENTS = VerbsFunction.IBV_ACK_CQ_EVENTS.downcallHandle();
    /** See {@link VerbsFunction#IBV_CREATE_QP}; {@code (fn, state, pd, initAttr)MemorySegment}. */
    public static final MethodHandle IBV_CREATE_QP = VerbsFunction.IBV_CREATE_QP.downcallHandle();
    /** See {@link VerbsFunction#IBV_MODIFY_QP}; {@code (fn, qp, attr, int)int}. */
    public static final MethodHandle IBV_MODIFY_QP = VerbsFunction.IBV_MODIFY_QP.downcallHandle();
    /** See {@link VerbsFunction#IBV_QUERY_QP}; {@code (fn, qp, attr, int, initAttr)int}. */
    public static final MethodHandle IBV_QUERY_QP = VerbsFunction.IBV_QUERY_QP.downcallHandle();
    /** See {@link VerbsFunction#IBV_DESTROY_QP}; {@code (fn, qp)int}. */
    public static final MethodHandle IBV_DESTROY_QP = VerbsFunction.IBV_DESTROY_QP.downcallHandle();
    /** See {@link VerbsFunction#IBV_GET_ASYNC_EVENT}; {@code (fn, state, context, event)int}. Blocks unless non-blocking. */
    public static final MethodHandle IBV_GET_ASYNC_EVENT = VerbsFunction.IBV_GET_ASYNC_EVENT.downcallHandle();
    /** See {@link VerbsFunction#IBV_ACK_ASYNC_EVENT}; {@code (fn, event)void}. */
    public static final MethodHandle IBV_ACK_ASYNC_EVENT = VerbsFunction.IBV_ACK_ASYNC_EVENT.downcallHandle();
    /** See {@link VerbsFunction#IBV_WC_STATUS_STR}; {@code (fn, int)MemorySegment}. */
    public static final MethodHandle IBV_WC_STATUS_STR = VerbsFunction.IBV_WC_STATUS_STR.downcallHandle();

    private Verbs() {
    }

    /**
     * Reads errno from a capture-state segment filled by a handle that captures it.
     *
     * @param captureState a segment of {@link #CAPTURE_STATE_LAYOUT}
     * @return the errno value the call left
     */
    public static int errno(MemorySegment captureState) {
        return (int) ERRNO.get(captureState, 0L);
    }

    @SuppressWarnings("restricted")
    private static MethodHandle plain(FunctionDescriptor descriptor) {
        return Linker.nativeLinker().downcallHandle(descriptor);
    }

    @SuppressWarnings("restricted")
    private static MethodHandle critical(FunctionDescriptor descriptor) {
        return Linker.nativeLinker().downcallHandle(descriptor, Linker.Option.critical(false));
    }
}
