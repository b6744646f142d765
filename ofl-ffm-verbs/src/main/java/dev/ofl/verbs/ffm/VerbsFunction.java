package dev.ofl.verbs.ffm;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.invoke.MethodHandle;

import static dev.ofl.verbs.ffm.VerbsTypes.C_INT;
import static dev.ofl.verbs.ffm.VerbsTypes.C_POINTER;
import static dev.ofl.verbs.ffm.VerbsTypes.C_SIZE_T;
import static dev.ofl.verbs.ffm.VerbsTypes.C_UINT32;
import static dev.ofl.verbs.ffm.VerbsTypes.C_UINT8;

/**
 * The exported libibverbs functions the binding calls: symbol, C signature, how the function
 * reports failure, and whether errno is captured.
 *
 * <p>Each entry's downcall handle is address-less: it takes the symbol's address (resolved per
 * loaded library by {@code dev.ofl.verbs.VerbsLibrary}) as its first argument, so the handles can
 * live in {@code static final} fields of {@link Verbs} even when no library is loadable. When
 * {@link #capturesErrno()} is true the handle's second argument is a capture-state segment of
 * {@link Verbs#CAPTURE_STATE_LAYOUT}. Immutable and thread-safe.
 */
public enum VerbsFunction {
    /** {@code struct ibv_device **ibv_get_device_list(int *num_devices)}: NULL and errno. */
    IBV_GET_DEVICE_LIST("ibv_get_device_list", FunctionDescriptor.of(C_POINTER, C_POINTER), true, true),
    /** {@code void ibv_free_device_list(struct ibv_device **list)}. */
    IBV_FREE_DEVICE_LIST("ibv_free_device_list", FunctionDescriptor.ofVoid(C_POINTER), false, true),
    /** {@code const char *ibv_get_device_name(struct ibv_device *device)}. */
    IBV_GET_DEVICE_NAME("ibv_get_device_name", FunctionDescriptor.of(C_POINTER, C_POINTER), false, true),
    /** {@code struct ibv_context *ibv_open_device(struct ibv_device *device)}: NULL and errno. */
    IBV_OPEN_DEVICE("ibv_open_device", FunctionDescriptor.of(C_POINTER, C_POINTER), true, true),
    /** {@code int ibv_close_device(struct ibv_context *context)}: 0 or an errno value. */
    IBV_CLOSE_DEVICE("ibv_close_device", FunctionDescriptor.of(C_INT, C_POINTER), false, true),
    /** {@code int ibv_query_device(struct ibv_context *, struct ibv_device_attr *)}: 0 or an errno value. */
    IBV_QUERY_DEVICE("ibv_query_device", FunctionDescriptor.of(C_INT, C_POINTER, C_POINTER), false, true),
    /**
     * {@code int ibv_query_port(struct ibv_context *, uint8_t port_num, struct _compat_ibv_port_attr *)}
     * (the exported default version, which writes 48 bytes): 0 or an errno value.
     */
    IBV_QUERY_PORT("ibv_query_port", FunctionDescriptor.of(C_INT, C_POINTER, C_UINT8, C_POINTER), false, true),
    /** {@code int ibv_query_gid(struct ibv_context *, uint8_t port_num, int index, union ibv_gid *)}: 0 or -1 and errno. */
    IBV_QUERY_GID("ibv_query_gid", FunctionDescriptor.of(C_INT, C_POINTER, C_UINT8, C_INT, C_POINTER), true, true),
    /**
     * {@code int _ibv_query_gid_ex(struct ibv_context *, uint32_t port_num, uint32_t gid_index,
     * struct ibv_gid_entry *, uint32_t flags, size_t entry_size)} ({@code IBVERBS_1.11}, rdma-core 32):
     * 0 or a positive errno value ({@code ENODATA} for an empty slot).
     */
    IBV_QUERY_GID_EX("_ibv_query_gid_ex",
            FunctionDescriptor.of(C_INT, C_POINTER, C_UINT32, C_UINT32, C_POINTER, C_UINT32, C_SIZE_T), false, false),
    /**
     * {@code ssize_t _ibv_query_gid_table(struct ibv_context *, struct ibv_gid_entry *, size_t max_entries,
     * uint32_t flags, size_t entry_size)} ({@code IBVERBS_1.11}, rdma-core 32): the number of valid
     * entries or a negative errno value.
     */
    IBV_QUERY_GID_TABLE("_ibv_query_gid_table",
            FunctionDescriptor.of(C_SIZE_T, C_POINTER, C_POINTER, C_SIZE_T, C_UINT32, C_SIZE_T), false, false),
    /** {@code struct ibv_pd *ibv_alloc_pd(struct ibv_context *)}: NULL and errno. */
    IBV_ALLOC_PD("ibv_alloc_pd", FunctionDescriptor.of(C_POINTER, C_POINTER), true, true),
    /** {@code int ibv_dealloc_pd(struct ibv_pd *)}: 0 or an errno value. */
    IBV_DEALLOC_PD("ibv_dealloc_pd", FunctionDescriptor.of(C_INT, C_POINTER), false, true),
    /**
     * {@code struct ibv_mr *ibv_reg_mr(struct ibv_pd *, void *addr, size_t length, int access)} (the
     * exported {@code IBVERBS_1.1} function, not the header macro): NULL and errno.
     */
    IBV_REG_MR("ibv_reg_mr", FunctionDescriptor.of(C_POINTER, C_POINTER, C_POINTER, C_SIZE_T, C_INT), true, true),
    /** {@code int ibv_dereg_mr(struct ibv_mr *)}: 0 or an errno value. */
    IBV_DEREG_MR("ibv_dereg_mr", FunctionDescriptor.of(C_INT, C_POINTER), false, true),
    /** {@code struct ibv_comp_channel *ibv_create_comp_channel(struct ibv_context *)}: NULL and errno. */
    IBV_CREATE_COMP_CHANNEL("ibv_create_comp_channel", FunctionDescriptor.of(C_POINTER, C_POINTER), true, true),
    /** {@code int ibv_destroy_comp_channel(struct ibv_comp_channel *)}: 0 or an errno value. */
    IBV_DESTROY_COMP_CHANNEL("ibv_destroy_comp_channel", FunctionDescriptor.of(C_INT, C_POINTER), false, true),
    /**
     * {@code struct ibv_cq *ibv_create_cq(struct ibv_context *, int cqe, void *cq_context,
     * struct ibv_comp_channel *, int comp_vector)}: NULL and errno.
     */
    IBV_CREATE_CQ("ibv_create_cq",
            FunctionDescriptor.of(C_POINTER, C_POINTER, C_INT, C_POINTER, C_POINTER, C_INT), true, true),
    /** {@code int ibv_destroy_cq(struct ibv_cq *)}: 0 or an errno value. */
    IBV_DESTROY_CQ("ibv_destroy_cq", FunctionDescriptor.of(C_INT, C_POINTER), false, true),
    /**
     * {@code int ibv_get_cq_event(struct ibv_comp_channel *, struct ibv_cq **, void **cq_context)}:
     * blocks on the channel's fd; 0, or -1 and errno.
     */
    IBV_GET_CQ_EVENT("ibv_get_cq_event", FunctionDescriptor.of(C_INT, C_POINTER, C_POINTER, C_POINTER), true, true),
    /** {@code void ibv_ack_cq_events(struct ibv_cq *, unsigned int nevents)}. */
    IBV_ACK_CQ_EVENTS("ibv_ack_cq_events", FunctionDescriptor.ofVoid(C_POINTER, C_UINT32), false, true),
    /** {@code struct ibv_qp *ibv_create_qp(struct ibv_pd *, struct ibv_qp_init_attr *)}: NULL and errno. */
    IBV_CREATE_QP("ibv_create_qp", FunctionDescriptor.of(C_POINTER, C_POINTER, C_POINTER), true, true),
    /** {@code int ibv_modify_qp(struct ibv_qp *, struct ibv_qp_attr *, int attr_mask)}: 0 or an errno value. */
    IBV_MODIFY_QP("ibv_modify_qp", FunctionDescriptor.of(C_INT, C_POINTER, C_POINTER, C_INT), false, true),
    /**
     * {@code int ibv_query_qp(struct ibv_qp *, struct ibv_qp_attr *, int attr_mask,
     * struct ibv_qp_init_attr *)}: 0 or an errno value.
     */
    IBV_QUERY_QP("ibv_query_qp", FunctionDescriptor.of(C_INT, C_POINTER, C_POINTER, C_INT, C_POINTER), false, true),
    /** {@code int ibv_destroy_qp(struct ibv_qp *)}: 0 or an errno value. */
    IBV_DESTROY_QP("ibv_destroy_qp", FunctionDescriptor.of(C_INT, C_POINTER), false, true),
    /**
     * {@code int ibv_get_async_event(struct ibv_context *, struct ibv_async_event *)}: reads the
     * context's {@code async_fd}, so it blocks unless that descriptor is non-blocking; 0, or -1 and errno.
     */
    IBV_GET_ASYNC_EVENT("ibv_get_async_event", FunctionDescriptor.of(C_INT, C_POINTER, C_POINTER), true, true),
    /** {@code void ibv_ack_async_event(struct ibv_async_event *)}. */
    IBV_ACK_ASYNC_EVENT("ibv_ack_async_event", FunctionDescriptor.ofVoid(C_POINTER), false, true),
    /** {@code const char *ibv_wc_status_str(enum ibv_wc_status)}: a static string; short and non-blocking. */
    IBV_WC_STATUS_STR("ibv_wc_status_str", FunctionDescriptor.of(C_POINTER, C_INT), false, true);

    private final String symbol;
    private final FunctionDescriptor descriptor;
    private final boolean capturesErrno;
    private final boolean required;

    VerbsFunction(String symbol, FunctionDescriptor descriptor, boolean capturesErrno, boolean required) {
        this.symbol = symbol;
        this.descriptor = descriptor;
        this.capturesErrno = capturesErrno;
        this.required = required;
    }

    /**
     * Returns the exported symbol name, resolved to its default version by {@code dlsym}.
     *
     * @return the symbol name
     */
    public String symbol() {
        return symbol;
    }

    /**
     * Returns the C signature.
     *
     * @return the function descriptor
     */
    public FunctionDescriptor descriptor() {
        return descriptor;
    }

    /**
     * Tells whether the function reports failure through errno, so the handle captures it.
     *
     * @return true when the handle takes a capture-state segment after the address
     */
    public boolean capturesErrno() {
        return capturesErrno;
    }

    /**
     * Tells whether every supported libibverbs exports the symbol; optional ones are missing from
     * rdma-core releases before 32.
     *
     * @return true if a library without it is unusable
     */
    public boolean required() {
        return required;
    }

    /**
     * Creates the address-less downcall handle: {@code (MemorySegment address[, MemorySegment
     * captureState], args...)}. Called once per entry by {@link Verbs}.
     *
     * @return a new method handle
     */
    @SuppressWarnings("restricted")
    MethodHandle downcallHandle() {
        Linker linker = Linker.nativeLinker();
        if (capturesErrno) {
            return linker.downcallHandle(descriptor, Linker.Option.captureCallState("errno"));
        }
        if (this == IBV_WC_STATUS_STR) {
            return linker.downcallHandle(descriptor, Linker.Option.critical(false));
        }
        return linker.downcallHandle(descriptor);
    }
}
