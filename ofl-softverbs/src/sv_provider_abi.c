// The provider-facing ABI of libibverbs (version node IBVERBS_PRIVATE_34): ibv_cmd_*, the
// verbs_* context helpers and execute_ioctl. Hardware provider libraries (libmlx5, libefa) import
// it, and programs such as perftest's tools link those libraries directly; built with immediate
// binding, they cannot even start unless every symbol resolves. softverbs has no kernel commands
// to issue and loads no providers, so registering a driver does nothing and every command fails
// with EOPNOTSUPP (no provider device ever exists here to call one, so none is reached in practice).
#define _GNU_SOURCE
#include "sv_internal.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>

// Read by providers when they destroy objects of a disassociated device; never true here.
SV_EXPORT bool verbs_allow_disassociate_destroy;

// Providers call this from a constructor as they load: nothing to register, softverbs serves only
// its own device.
SV_EXPORT void verbs_register_driver_34(const void *driver)
{
    (void)driver;
}

// Provider logging: providers have no device here, so there is nothing of theirs to log.
SV_EXPORT void __verbs_log(void *ctx, unsigned int level, const char *fmt, ...)
{
    (void)ctx;
    (void)level;
    (void)fmt;
}

// One body for every kernel command: none exists without a kernel device. The arguments differ per
// command and are never read.
static int sv_no_kernel_command(const char *name)
{
    static bool warned;
    if (!warned) {
        warned = true;
        fprintf(stderr, "softverbs: %s called: provider commands need a kernel RDMA device\n", name);
    }
    errno = EOPNOTSUPP;
    return EOPNOTSUPP;
}

#define SV_NO_KERNEL(name) \
    SV_EXPORT int name(void) { return sv_no_kernel_command(#name); }

SV_NO_KERNEL(_verbs_init_and_alloc_context)
SV_NO_KERNEL(execute_ioctl)
SV_NO_KERNEL(ibv_cmd_advise_mr)
SV_NO_KERNEL(ibv_cmd_alloc_dm)
SV_NO_KERNEL(ibv_cmd_alloc_mw)
SV_NO_KERNEL(ibv_cmd_alloc_pd)
SV_NO_KERNEL(ibv_cmd_attach_mcast)
SV_NO_KERNEL(ibv_cmd_close_xrcd)
SV_NO_KERNEL(ibv_cmd_create_ah)
SV_NO_KERNEL(ibv_cmd_create_counters)
SV_NO_KERNEL(ibv_cmd_create_cq_ex)
SV_NO_KERNEL(ibv_cmd_create_flow)
SV_NO_KERNEL(ibv_cmd_create_flow_action_esp)
SV_NO_KERNEL(ibv_cmd_create_qp_ex)
SV_NO_KERNEL(ibv_cmd_create_qp_ex2)
SV_NO_KERNEL(ibv_cmd_create_rwq_ind_table)
SV_NO_KERNEL(ibv_cmd_create_srq)
SV_NO_KERNEL(ibv_cmd_create_srq_ex)
SV_NO_KERNEL(ibv_cmd_create_wq)
SV_NO_KERNEL(ibv_cmd_dealloc_mw)
SV_NO_KERNEL(ibv_cmd_dealloc_pd)
SV_NO_KERNEL(ibv_cmd_dereg_mr)
SV_NO_KERNEL(ibv_cmd_destroy_ah)
SV_NO_KERNEL(ibv_cmd_destroy_counters)
SV_NO_KERNEL(ibv_cmd_destroy_cq)
SV_NO_KERNEL(ibv_cmd_destroy_flow)
SV_NO_KERNEL(ibv_cmd_destroy_flow_action)
SV_NO_KERNEL(ibv_cmd_destroy_qp)
SV_NO_KERNEL(ibv_cmd_destroy_rwq_ind_table)
SV_NO_KERNEL(ibv_cmd_destroy_srq)
SV_NO_KERNEL(ibv_cmd_destroy_wq)
SV_NO_KERNEL(ibv_cmd_detach_mcast)
SV_NO_KERNEL(ibv_cmd_free_dm)
SV_NO_KERNEL(ibv_cmd_get_context)
SV_NO_KERNEL(ibv_cmd_modify_cq)
SV_NO_KERNEL(ibv_cmd_modify_flow_action_esp)
SV_NO_KERNEL(ibv_cmd_modify_qp)
SV_NO_KERNEL(ibv_cmd_modify_qp_ex)
SV_NO_KERNEL(ibv_cmd_modify_srq)
SV_NO_KERNEL(ibv_cmd_modify_wq)
SV_NO_KERNEL(ibv_cmd_open_qp)
SV_NO_KERNEL(ibv_cmd_open_xrcd)
SV_NO_KERNEL(ibv_cmd_query_context)
SV_NO_KERNEL(ibv_cmd_query_device_any)
SV_NO_KERNEL(ibv_cmd_query_mr)
SV_NO_KERNEL(ibv_cmd_query_port)
SV_NO_KERNEL(ibv_cmd_query_qp)
SV_NO_KERNEL(ibv_cmd_query_srq)
SV_NO_KERNEL(ibv_cmd_read_counters)
SV_NO_KERNEL(ibv_cmd_reg_dm_mr)
SV_NO_KERNEL(ibv_cmd_reg_dmabuf_mr)
SV_NO_KERNEL(ibv_cmd_reg_mr)
SV_NO_KERNEL(ibv_cmd_rereg_mr)
SV_NO_KERNEL(ibv_cmd_resize_cq)
SV_NO_KERNEL(verbs_init_cq)
SV_NO_KERNEL(verbs_open_device)
SV_NO_KERNEL(verbs_set_ops)
SV_NO_KERNEL(verbs_uninit_context)
