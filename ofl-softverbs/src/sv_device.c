// softverbs device model: the one emulated RoCE v2 device "softverbs0", its context, its device
// and port attributes, its GID table built from the host's IPv4 addresses, the *_str helpers and
// the verbs this device does not support (they fail the way a provider says "not supported").
#define _GNU_SOURCE
#include "sv_internal.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct ibv_device sv_device = {
    .node_type = IBV_NODE_CA,
    .transport_type = IBV_TRANSPORT_IB,
    .name = SV_DEVICE_NAME,
    .dev_name = "uverbs0",
    .dev_path = "/dev/infiniband/uverbs0",
    .ibdev_path = "/sys/class/infiniband/" SV_DEVICE_NAME,
};

static bool sv_disabled(void)
{
    const char *v = getenv("SOFTVERBS_DISABLE");
    return v && *v && strcmp(v, "0") != 0;
}

enum ibv_mtu sv_active_mtu(void)
{
    const char *v = getenv("SOFTVERBS_MTU");
    if (!v)
        return IBV_MTU_4096;
    switch (atoi(v)) {
    case 256: return IBV_MTU_256;
    case 512: return IBV_MTU_512;
    case 1024: return IBV_MTU_1024;
    case 2048: return IBV_MTU_2048;
    default: return IBV_MTU_4096;
    }
}

// SOFTVERBS_GID_GAP_FILE names a file holding a count of empty entries to leave after index 0,
// read again at every look at the table: a test rewrites it to renumber the GIDs while processes
// run, as an address added or removed renumbers a real device's table.
static const char *sv_gid_gap_file(void)
{
    const char *v = getenv("SOFTVERBS_GID_GAP_FILE");
    return v && *v ? v : NULL;
}

static int sv_gid_gap(void)
{
    const char *path = sv_gid_gap_file();
    if (!path)
        return 0;
    FILE *f = fopen(path, "r");
    if (!f)
        return 0;
    int gap = 0;
    if (fscanf(f, "%d", &gap) != 1)
        gap = 0;
    fclose(f);
    if (gap < 0)
        gap = 0;
    if (gap > SV_GID_TBL_LEN - 2)
        gap = SV_GID_TBL_LEN - 2;
    return gap;
}

void sv_refresh_gids_if_renumbering(void)
{
    if (!sv_gid_gap_file())
        return;
    pthread_mutex_lock(&sv.lock);
    sv_refresh_gids();
    pthread_mutex_unlock(&sv.lock);
}

// Called with sv.lock held. Index 0 is the link-local GID, then one IPv4-mapped GID per address.
void sv_refresh_gids(void)
{
    struct sv_gid gids[SV_GID_TBL_LEN];
    memset(gids, 0, sizeof(gids));
    uint64_t guid = htobe64(SV_NODE_GUID);
    gids[0].gid.raw[0] = 0xfe;
    gids[0].gid.raw[1] = 0x80;
    memcpy(&gids[0].gid.raw[8], &guid, 8);
    gids[0].valid = true;
    int n = 1 + sv_gid_gap();
    struct ifaddrs *ifa_list = NULL;
    if (getifaddrs(&ifa_list) == 0) {
        for (struct ifaddrs *ifa = ifa_list; ifa && n < SV_GID_TBL_LEN; ifa = ifa->ifa_next) {
            if (!ifa->ifa_addr || ifa->ifa_addr->sa_family != AF_INET)
                continue;
            const struct sockaddr_in *sin = (const struct sockaddr_in *)ifa->ifa_addr;
            gids[n].gid.raw[10] = 0xff;
            gids[n].gid.raw[11] = 0xff;
            memcpy(&gids[n].gid.raw[12], &sin->sin_addr, 4);
            gids[n].ifindex = if_nametoindex(ifa->ifa_name);
            if (gids[0].ifindex == 0 && !(ifa->ifa_flags & IFF_LOOPBACK))
                gids[0].ifindex = gids[n].ifindex;
            gids[n].valid = true;
            n++;
        }
        freeifaddrs(ifa_list);
    }
    if (gids[0].ifindex == 0)
        gids[0].ifindex = if_nametoindex("lo");
    memcpy(sv.gids, gids, sizeof(gids));
}

bool sv_gid_is_local(const uint8_t gid[16])
{
    for (int i = 0; i < SV_GID_TBL_LEN; i++)
        if (sv.gids[i].valid && memcmp(sv.gids[i].gid.raw, gid, 16) == 0)
            return true;
    return false;
}

SV_EXPORT struct ibv_device **ibv_get_device_list(int *num_devices)
{
    if (num_devices)
        *num_devices = 0;
    // Mirrors real libibverbs on a kernel without RDMA support.
    if (sv_disabled()) {
        errno = ENOSYS;
        return NULL;
    }
    struct ibv_device **list = calloc(2, sizeof(*list));
    if (!list) {
        errno = ENOMEM;
        return NULL;
    }
    list[0] = &sv_device;
    if (num_devices)
        *num_devices = 1;
    return list;
}

SV_EXPORT void ibv_free_device_list(struct ibv_device **list) { free(list); }

SV_EXPORT const char *ibv_get_device_name(struct ibv_device *device)
{
    return device ? device->name : NULL;
}

SV_EXPORT __be64 ibv_get_device_guid(struct ibv_device *device)
{
    (void)device;
    return htobe64(SV_NODE_GUID);
}

SV_EXPORT int ibv_get_device_index(struct ibv_device *device)
{
    return device == &sv_device ? 0 : -1;
}

static int sv_query_port_ex(struct ibv_context *ctx, uint8_t port, struct ibv_port_attr *attr, size_t len);
static int sv_query_device_ex(struct ibv_context *ctx, const struct ibv_query_device_ex_input *input,
                              struct ibv_device_attr_ex *attr, size_t attr_size);

// ---- asynchronous events ----

// What one event is on a context's pipe; ibv_get_async_event reads one whole (pipe writes of
// fewer than PIPE_BUF bytes are atomic).
struct sv_async_record {
    uint32_t type;
    uint32_t port;
    uint64_t element; // the QP or CQ of the event, 0 for port and device events
};

static pthread_mutex_t sv_contexts_lock = PTHREAD_MUTEX_INITIALIZER;
static struct sv_context *sv_contexts;
static bool sv_port_down;

bool sv_port_is_down(void)
{
    return __atomic_load_n(&sv_port_down, __ATOMIC_RELAXED);
}

// Raises one event on every context open now, as the kernel does for port and device events. A
// context whose pipe is full loses it (nobody has read its events for thousands of them).
static void sv_raise_to_all(enum ibv_event_type type, uint32_t port)
{
    struct sv_async_record r = {.type = (uint32_t)type, .port = port, .element = 0};
    pthread_mutex_lock(&sv_contexts_lock);
    for (struct sv_context *c = sv_contexts; c; c = c->next) {
        ssize_t n = write(c->async_pipe[1], &r, sizeof(r));
        (void)n;
    }
    pthread_mutex_unlock(&sv_contexts_lock);
}

// softverbs' own test hook (not a libibverbs function): takes port 1 down (up == 0) or brings it
// back, as a cable pulled and plugged in again. ibv_query_port reports the state; every open
// context receives IBV_EVENT_PORT_ERR or IBV_EVENT_PORT_ACTIVE, once per change; while the port
// is down nothing is received, so a requester's retries run out unless it comes back in time.
// Queue pairs keep their state, as on hardware. Returns the previous state (1 up, 0 down).
SV_EXPORT int softverbs_set_port_state(int up)
{
    bool down = up == 0;
    bool was = __atomic_exchange_n(&sv_port_down, down, __ATOMIC_RELAXED);
    if (was != down)
        sv_raise_to_all(down ? IBV_EVENT_PORT_ERR : IBV_EVENT_PORT_ACTIVE, 1);
    return was ? 0 : 1;
}

// softverbs' own test hook: a fatal error of the device, as after a firmware failure. Every context
// open now receives IBV_EVENT_DEVICE_FATAL and each of its queue pairs enters ERR (its outstanding
// work flushes), as mlx5 does when it finds the device dead. Contexts opened later work again.
SV_EXPORT void softverbs_device_fatal(void)
{
    pthread_mutex_lock(&sv_contexts_lock);
    pthread_mutex_lock(&sv.lock);
    for (struct sv_qp *qp = sv.qps; qp; qp = qp->next_all) {
        for (struct sv_context *c = sv_contexts; c; c = c->next) {
            if (qp->qp.context == &c->vctx.context && qp->state != IBV_QPS_RESET && qp->state != IBV_QPS_ERR) {
                sv_qp_enter_error(qp);
                break;
            }
        }
    }
    pthread_mutex_unlock(&sv.lock);
    struct sv_async_record r = {.type = IBV_EVENT_DEVICE_FATAL, .port = 0, .element = 0};
    for (struct sv_context *c = sv_contexts; c; c = c->next) {
        ssize_t n = write(c->async_pipe[1], &r, sizeof(r));
        (void)n;
    }
    pthread_mutex_unlock(&sv_contexts_lock);
}

SV_EXPORT struct ibv_context *ibv_open_device(struct ibv_device *device)
{
    if (device != &sv_device) {
        errno = ENODEV;
        return NULL;
    }
    if (sv_engine_start() != 0)
        return NULL;
    struct sv_context *c = calloc(1, sizeof(*c));
    if (!c) {
        errno = ENOMEM;
        return NULL;
    }
    // Events are raised only by the test hooks below; the read end is what callers poll.
    if (pipe2(c->async_pipe, O_CLOEXEC) != 0) {
        free(c);
        return NULL;
    }
    int wflags = fcntl(c->async_pipe[1], F_GETFL);
    if (wflags < 0 || fcntl(c->async_pipe[1], F_SETFL, wflags | O_NONBLOCK) != 0) {
        close(c->async_pipe[0]);
        close(c->async_pipe[1]);
        free(c);
        return NULL;
    }
    struct ibv_context *ctx = &c->vctx.context;
    c->vctx.sz = sizeof(struct verbs_context);
    c->vctx.query_port = sv_query_port_ex;
    c->vctx.query_device_ex = sv_query_device_ex;
    ctx->device = device;
    ctx->cmd_fd = -1;
    ctx->async_fd = c->async_pipe[0];
    ctx->num_comp_vectors = 1;
    ctx->abi_compat = __VERBS_ABI_IS_EXTENDED;
    pthread_mutex_init(&ctx->mutex, NULL);
    ctx->ops.poll_cq = sv_poll_cq;
    ctx->ops.req_notify_cq = sv_req_notify_cq;
    ctx->ops.post_send = sv_post_send;
    ctx->ops.post_recv = sv_post_recv;
    pthread_mutex_lock(&sv.lock);
    sv_refresh_gids();
    pthread_mutex_unlock(&sv.lock);
    pthread_mutex_lock(&sv_contexts_lock);
    c->next = sv_contexts;
    sv_contexts = c;
    pthread_mutex_unlock(&sv_contexts_lock);
    return ctx;
}

SV_EXPORT int ibv_close_device(struct ibv_context *ctx)
{
    struct sv_context *c = sv_container_of(ctx, struct sv_context, vctx.context);
    pthread_mutex_lock(&sv_contexts_lock);
    for (struct sv_context **p = &sv_contexts; *p; p = &(*p)->next) {
        if (*p == c) {
            *p = c->next;
            break;
        }
    }
    pthread_mutex_unlock(&sv_contexts_lock);
    close(c->async_pipe[0]);
    close(c->async_pipe[1]);
    pthread_mutex_destroy(&ctx->mutex);
    free(c);
    return 0;
}

static void sv_fill_device_attr(struct ibv_device_attr *a)
{
    memset(a, 0, sizeof(*a));
    snprintf(a->fw_ver, sizeof(a->fw_ver), "softverbs 0.1.0");
    a->node_guid = htobe64(SV_NODE_GUID);
    a->sys_image_guid = htobe64(SV_NODE_GUID);
    a->max_mr_size = UINT64_MAX;
    a->page_size_cap = 0xfffff000;
    a->vendor_id = 0xffffff;
    a->vendor_part_id = 0;
    a->hw_ver = 0;
    a->max_qp = 65536;
    a->max_qp_wr = SV_MAX_QP_WR;
    a->device_cap_flags = IBV_DEVICE_RC_RNR_NAK_GEN | IBV_DEVICE_SYS_IMAGE_GUID | IBV_DEVICE_PORT_ACTIVE_EVENT;
    a->max_sge = SV_MAX_SGE;
    a->max_sge_rd = SV_MAX_SGE;
    a->max_cq = 65536;
    a->max_cqe = SV_MAX_CQE - 1;
    a->max_mr = 1 << 20;
    a->max_pd = 65536;
    a->max_qp_rd_atom = 16;
    a->max_res_rd_atom = 16 * 65536;
    a->max_qp_init_rd_atom = 16;
    a->atomic_cap = IBV_ATOMIC_NONE;
    a->max_pkeys = 1;
    a->local_ca_ack_delay = 15;
    a->phys_port_cnt = 1;
}

SV_EXPORT int ibv_query_device(struct ibv_context *ctx, struct ibv_device_attr *attr)
{
    (void)ctx;
    sv_fill_device_attr(attr);
    return 0;
}

static int sv_query_device_ex(struct ibv_context *ctx, const struct ibv_query_device_ex_input *input,
                              struct ibv_device_attr_ex *attr, size_t attr_size)
{
    (void)ctx;
    if (input && input->comp_mask)
        return EINVAL;
    if (attr_size < sizeof(struct ibv_device_attr))
        return EINVAL;
    memset(attr, 0, attr_size);
    sv_fill_device_attr(&attr->orig_attr);
    if (attr_size >= offsetof(struct ibv_device_attr_ex, phys_port_cnt_ex) + sizeof(uint32_t))
        attr->phys_port_cnt_ex = 1;
    return 0;
}

static void sv_fill_port_attr(struct ibv_port_attr *a)
{
    memset(a, 0, sizeof(*a));
    a->state = sv_port_is_down() ? IBV_PORT_DOWN : IBV_PORT_ACTIVE;
    a->max_mtu = IBV_MTU_4096;
    a->active_mtu = sv_active_mtu();
    a->gid_tbl_len = SV_GID_TBL_LEN;
    a->port_cap_flags = IBV_PORT_CM_SUP;
    a->max_msg_sz = SV_MAX_MSG_SZ;
    a->pkey_tbl_len = 1;
    a->max_vl_num = 1;
    a->active_width = 2;  // 4X
    a->active_speed = 32; // EDR: 100 Gb/s advertised, nothing depends on it
    a->phys_state = sv_port_is_down() ? 3 : 5; // Disabled or LinkUp
    a->link_layer = IBV_LINK_LAYER_ETHERNET;
}

static int sv_query_port_ex(struct ibv_context *ctx, uint8_t port, struct ibv_port_attr *attr, size_t len)
{
    (void)ctx;
    if (port != 1)
        return EINVAL;
    struct ibv_port_attr a;
    sv_fill_port_attr(&a);
    memset(attr, 0, len);
    memcpy(attr, &a, len < sizeof(a) ? len : sizeof(a));
    return 0;
}

// Old binaries pass a 48-byte struct (everything before port_cap_flags2): never write more.
SV_EXPORT int(ibv_query_port)(struct ibv_context *ctx, uint8_t port, struct _compat_ibv_port_attr *attr)
{
    (void)ctx;
    if (port != 1)
        return EINVAL;
    struct ibv_port_attr a;
    sv_fill_port_attr(&a);
    memcpy(attr, &a, offsetof(struct ibv_port_attr, port_cap_flags2));
    return 0;
}

static void sv_gids_snapshot(struct sv_gid *out)
{
    sv_refresh_gids_if_renumbering();
    pthread_mutex_lock(&sv.lock);
    memcpy(out, sv.gids, sizeof(sv.gids));
    pthread_mutex_unlock(&sv.lock);
}

SV_EXPORT int ibv_query_gid(struct ibv_context *ctx, uint8_t port, int index, union ibv_gid *gid)
{
    (void)ctx;
    if (port != 1 || index < 0 || index >= SV_GID_TBL_LEN)
        return -1;
    struct sv_gid g[SV_GID_TBL_LEN];
    sv_gids_snapshot(g);
    if (g[index].valid)
        *gid = g[index].gid;
    else
        memset(gid, 0, sizeof(*gid));
    return 0;
}

SV_EXPORT int ibv_query_gid_type(struct ibv_context *ctx, uint8_t port, unsigned int index,
                                 enum ibv_gid_type_sysfs *type)
{
    (void)ctx;
    if (port != 1 || index >= SV_GID_TBL_LEN) {
        errno = EINVAL;
        return -1;
    }
    struct sv_gid g[SV_GID_TBL_LEN];
    sv_gids_snapshot(g);
    *type = g[index].valid ? IBV_GID_TYPE_SYSFS_ROCE_V2 : IBV_GID_TYPE_SYSFS_IB_ROCE_V1;
    return 0;
}

static void sv_fill_gid_entry(struct ibv_gid_entry *e, const struct sv_gid *g, uint32_t index)
{
    memset(e, 0, sizeof(*e));
    e->gid = g->gid;
    e->gid_index = index;
    e->port_num = 1;
    e->gid_type = IBV_GID_TYPE_ROCE_V2;
    e->ndev_ifindex = g->ifindex;
}

SV_EXPORT int _ibv_query_gid_ex(struct ibv_context *ctx, uint32_t port, uint32_t index,
                                struct ibv_gid_entry *entry, uint32_t flags, size_t entry_size)
{
    (void)ctx;
    // Unknown flags: the kernel's query-GID ioctl refuses them (EOPNOTSUPP is only the answer of
    // the library's sysfs fallback for kernels without that ioctl).
    if (flags)
        return EINVAL;
    if (port != 1 || index >= SV_GID_TBL_LEN || entry_size < sizeof(*entry))
        return EINVAL;
    struct sv_gid g[SV_GID_TBL_LEN];
    sv_gids_snapshot(g);
    if (!g[index].valid)
        return ENODATA;
    sv_fill_gid_entry(entry, &g[index], index);
    return 0;
}

SV_EXPORT ssize_t _ibv_query_gid_table(struct ibv_context *ctx, struct ibv_gid_entry *entries,
                                       size_t max_entries, uint32_t flags, size_t entry_size)
{
    (void)ctx;
    if (flags)
        return -EINVAL; // as the kernel's ioctl, like _ibv_query_gid_ex

    if (entry_size < sizeof(struct ibv_gid_entry))
        return -EINVAL;
    struct sv_gid g[SV_GID_TBL_LEN];
    sv_gids_snapshot(g);
    size_t n = 0;
    for (int i = 0; i < SV_GID_TBL_LEN; i++)
        n += g[i].valid;
    if (n > max_entries)
        return -EINVAL;
    size_t k = 0;
    for (int i = 0; i < SV_GID_TBL_LEN; i++) {
        if (!g[i].valid)
            continue;
        sv_fill_gid_entry((struct ibv_gid_entry *)((char *)entries + k * entry_size), &g[i], (uint32_t)i);
        k++;
    }
    return (ssize_t)k;
}

SV_EXPORT int ibv_query_pkey(struct ibv_context *ctx, uint8_t port, int index, __be16 *pkey)
{
    (void)ctx;
    if (port != 1 || index != 0)
        return -1;
    *pkey = htobe16(0xffff);
    return 0;
}

SV_EXPORT int ibv_get_pkey_index(struct ibv_context *ctx, uint8_t port, __be16 pkey)
{
    (void)ctx;
    if (port != 1 || be16toh(pkey) != 0xffff)
        return -1;
    return 0;
}

// Synthesizes board_id for our device; any other path is read from the file system like the
// real helper does.
SV_EXPORT int ibv_read_sysfs_file(const char *dir, const char *file, char *buf, size_t size)
{
    if (size == 0)
        return -1;
    if (dir && strcmp(dir, sv_device.ibdev_path) == 0) {
        if (strcmp(file, "board_id") != 0)
            return -1;
        int n = snprintf(buf, size, "OFL_SOFTVERBS");
        return n < (int)size ? n : (int)size - 1;
    }
    char *path;
    if (asprintf(&path, "%s/%s", dir, file) < 0)
        return -1;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    free(path);
    if (fd < 0)
        return -1;
    ssize_t len = read(fd, buf, size);
    close(fd);
    if (len > 0) {
        if ((size_t)len == size)
            len--;
        if (buf[len - 1] == '\n')
            buf[--len] = '\0';
        else
            buf[len] = '\0';
    }
    return (int)len;
}

SV_EXPORT int ibv_get_sysfs_path(char *buf, size_t size)
{
    int n = snprintf(buf, size, "/sys");
    return n < (int)size ? 0 : -1;
}

SV_EXPORT int ibv_get_async_event(struct ibv_context *ctx, struct ibv_async_event *event)
{
    // Blocks on the pipe like a device's event file, or EAGAIN if the caller made it non-blocking.
    struct sv_async_record r;
    ssize_t n = read(ctx->async_fd, &r, sizeof(r));
    if (n != (ssize_t)sizeof(r)) {
        if (n >= 0)
            errno = EIO;
        return -1;
    }
    memset(event, 0, sizeof(*event));
    event->event_type = (enum ibv_event_type)r.type;
    if (r.type == IBV_EVENT_DEVICE_FATAL || r.type == IBV_EVENT_PORT_ACTIVE || r.type == IBV_EVENT_PORT_ERR ||
        r.type == IBV_EVENT_GID_CHANGE)
        event->element.port_num = (int)r.port;
    else
        event->element.qp = (struct ibv_qp *)(uintptr_t)r.element;
    return 0;
}

SV_EXPORT void ibv_ack_async_event(struct ibv_async_event *event) { (void)event; }

SV_EXPORT int ibv_fork_init(void) { return 0; }
SV_EXPORT enum ibv_fork_status ibv_is_fork_initialized(void) { return IBV_FORK_UNNEEDED; }
SV_EXPORT int ibv_dontfork_range(void *base, size_t size) { (void)base; (void)size; return 0; }
SV_EXPORT int ibv_dofork_range(void *base, size_t size) { (void)base; (void)size; return 0; }

SV_EXPORT const char *ibv_wc_status_str(enum ibv_wc_status status)
{
    static const char *const str[] = {
        [IBV_WC_SUCCESS] = "success",
        [IBV_WC_LOC_LEN_ERR] = "local length error",
        [IBV_WC_LOC_QP_OP_ERR] = "local QP operation error",
        [IBV_WC_LOC_EEC_OP_ERR] = "local EE context operation error",
        [IBV_WC_LOC_PROT_ERR] = "local protection error",
        [IBV_WC_WR_FLUSH_ERR] = "Work Request Flushed Error",
        [IBV_WC_MW_BIND_ERR] = "memory management operation error",
        [IBV_WC_BAD_RESP_ERR] = "bad response error",
        [IBV_WC_LOC_ACCESS_ERR] = "local access error",
        [IBV_WC_REM_INV_REQ_ERR] = "remote invalid request error",
        [IBV_WC_REM_ACCESS_ERR] = "remote access error",
        [IBV_WC_REM_OP_ERR] = "remote operation error",
        [IBV_WC_RETRY_EXC_ERR] = "transport retry counter exceeded",
        [IBV_WC_RNR_RETRY_EXC_ERR] = "RNR retry counter exceeded",
        [IBV_WC_LOC_RDD_VIOL_ERR] = "local RDD violation error",
        [IBV_WC_REM_INV_RD_REQ_ERR] = "remote invalid RD request",
        [IBV_WC_REM_ABORT_ERR] = "aborted error",
        [IBV_WC_INV_EECN_ERR] = "invalid EE context number",
        [IBV_WC_INV_EEC_STATE_ERR] = "invalid EE context state",
        [IBV_WC_FATAL_ERR] = "fatal error",
        [IBV_WC_RESP_TIMEOUT_ERR] = "response timeout error",
        [IBV_WC_GENERAL_ERR] = "general error",
        [IBV_WC_TM_ERR] = "TM error",
        [IBV_WC_TM_RNDV_INCOMPLETE] = "TM software rendezvous",
    };
    if ((unsigned)status >= sizeof(str) / sizeof(str[0]) || !str[status])
        return "unknown";
    return str[status];
}

SV_EXPORT const char *ibv_node_type_str(enum ibv_node_type t)
{
    switch (t) {
    case IBV_NODE_CA: return "InfiniBand channel adapter";
    case IBV_NODE_SWITCH: return "InfiniBand switch";
    case IBV_NODE_ROUTER: return "InfiniBand router";
    case IBV_NODE_RNIC: return "iWARP NIC";
    case IBV_NODE_USNIC: return "usNIC";
    case IBV_NODE_USNIC_UDP: return "usNIC UDP";
    case IBV_NODE_UNSPECIFIED: return "unspecified";
    default: return "unknown";
    }
}

SV_EXPORT const char *ibv_port_state_str(enum ibv_port_state s)
{
    switch (s) {
    case IBV_PORT_NOP: return "no state change (NOP)";
    case IBV_PORT_DOWN: return "down";
    case IBV_PORT_INIT: return "init";
    case IBV_PORT_ARMED: return "armed";
    case IBV_PORT_ACTIVE: return "active";
    case IBV_PORT_ACTIVE_DEFER: return "active defer";
    default: return "unknown";
    }
}

SV_EXPORT const char *ibv_event_type_str(enum ibv_event_type e)
{
    static const char *const str[] = {
        [IBV_EVENT_CQ_ERR] = "CQ error",
        [IBV_EVENT_QP_FATAL] = "local work queue catastrophic error",
        [IBV_EVENT_QP_REQ_ERR] = "invalid request local work queue error",
        [IBV_EVENT_QP_ACCESS_ERR] = "local access violation work queue error",
        [IBV_EVENT_COMM_EST] = "communication established",
        [IBV_EVENT_SQ_DRAINED] = "send queue drained",
        [IBV_EVENT_PATH_MIG] = "path migrated",
        [IBV_EVENT_PATH_MIG_ERR] = "path migration request error",
        [IBV_EVENT_DEVICE_FATAL] = "local catastrophic error",
        [IBV_EVENT_PORT_ACTIVE] = "port active",
        [IBV_EVENT_PORT_ERR] = "port error",
        [IBV_EVENT_LID_CHANGE] = "LID change",
        [IBV_EVENT_PKEY_CHANGE] = "P_Key change",
        [IBV_EVENT_SM_CHANGE] = "SM change",
        [IBV_EVENT_SRQ_ERR] = "SRQ catastrophic error",
        [IBV_EVENT_SRQ_LIMIT_REACHED] = "SRQ limit reached",
        [IBV_EVENT_QP_LAST_WQE_REACHED] = "last WQE reached",
        [IBV_EVENT_CLIENT_REREGISTER] = "client reregistration",
        [IBV_EVENT_GID_CHANGE] = "GID table change",
        [IBV_EVENT_WQ_FATAL] = "WQ fatal",
    };
    if ((unsigned)e >= sizeof(str) / sizeof(str[0]) || !str[e])
        return "unknown";
    return str[e];
}

static const int sv_rate_mult[][2] = {
    {IBV_RATE_2_5_GBPS, 1}, {IBV_RATE_5_GBPS, 2}, {IBV_RATE_10_GBPS, 4}, {IBV_RATE_20_GBPS, 8},
    {IBV_RATE_30_GBPS, 12}, {IBV_RATE_40_GBPS, 16}, {IBV_RATE_60_GBPS, 24}, {IBV_RATE_80_GBPS, 32},
    {IBV_RATE_120_GBPS, 48},
};
static const int sv_rate_mbps[][2] = {
    {IBV_RATE_2_5_GBPS, 2500}, {IBV_RATE_5_GBPS, 5000}, {IBV_RATE_10_GBPS, 10000},
    {IBV_RATE_20_GBPS, 20000}, {IBV_RATE_30_GBPS, 30000}, {IBV_RATE_40_GBPS, 40000},
    {IBV_RATE_60_GBPS, 60000}, {IBV_RATE_80_GBPS, 80000}, {IBV_RATE_120_GBPS, 120000},
    {IBV_RATE_14_GBPS, 14062}, {IBV_RATE_56_GBPS, 56250}, {IBV_RATE_112_GBPS, 112500},
    {IBV_RATE_168_GBPS, 168750}, {IBV_RATE_25_GBPS, 25781}, {IBV_RATE_100_GBPS, 103125},
    {IBV_RATE_200_GBPS, 206250}, {IBV_RATE_300_GBPS, 309375}, {IBV_RATE_28_GBPS, 28125},
    {IBV_RATE_50_GBPS, 53125}, {IBV_RATE_400_GBPS, 425000}, {IBV_RATE_600_GBPS, 637500},
};

#define SV_LOOKUP(table, col_in, col_out, value, fallback)                                    \
    do {                                                                                       \
        for (size_t i_ = 0; i_ < sizeof(table) / sizeof(table[0]); i_++)                       \
            if (table[i_][col_in] == (int)(value))                                             \
                return table[i_][col_out];                                                     \
        return fallback;                                                                       \
    } while (0)

SV_EXPORT int ibv_rate_to_mult(enum ibv_rate rate) { SV_LOOKUP(sv_rate_mult, 0, 1, rate, 0); }
SV_EXPORT enum ibv_rate mult_to_ibv_rate(int mult) { SV_LOOKUP(sv_rate_mult, 1, 0, mult, IBV_RATE_MAX); }
SV_EXPORT int ibv_rate_to_mbps(enum ibv_rate rate) { SV_LOOKUP(sv_rate_mbps, 0, 1, rate, 0); }
SV_EXPORT enum ibv_rate mbps_to_ibv_rate(int mbps) { SV_LOOKUP(sv_rate_mbps, 1, 0, mbps, IBV_RATE_MAX); }

// ---- verbs this device does not support: "not supported" the provider way, never a crash ----

#define SV_UNSUPPORTED_PTR() do { errno = EOPNOTSUPP; return NULL; } while (0)

SV_EXPORT struct ibv_srq *ibv_create_srq(struct ibv_pd *pd, struct ibv_srq_init_attr *a)
{ (void)pd; (void)a; SV_UNSUPPORTED_PTR(); }
SV_EXPORT int ibv_modify_srq(struct ibv_srq *srq, struct ibv_srq_attr *a, int mask)
{ (void)srq; (void)a; (void)mask; return EOPNOTSUPP; }
SV_EXPORT int ibv_query_srq(struct ibv_srq *srq, struct ibv_srq_attr *a)
{ (void)srq; (void)a; return EOPNOTSUPP; }
SV_EXPORT int ibv_destroy_srq(struct ibv_srq *srq) { (void)srq; return EOPNOTSUPP; }
SV_EXPORT struct ibv_ah *ibv_create_ah(struct ibv_pd *pd, struct ibv_ah_attr *a)
{ (void)pd; (void)a; SV_UNSUPPORTED_PTR(); }
SV_EXPORT int ibv_destroy_ah(struct ibv_ah *ah) { (void)ah; return EOPNOTSUPP; }
SV_EXPORT int ibv_init_ah_from_wc(struct ibv_context *ctx, uint8_t port, struct ibv_wc *wc,
                                  struct ibv_grh *grh, struct ibv_ah_attr *a)
{ (void)ctx; (void)port; (void)wc; (void)grh; (void)a; errno = EOPNOTSUPP; return -1; }
SV_EXPORT struct ibv_ah *ibv_create_ah_from_wc(struct ibv_pd *pd, struct ibv_wc *wc, struct ibv_grh *grh,
                                               uint8_t port)
{ (void)pd; (void)wc; (void)grh; (void)port; SV_UNSUPPORTED_PTR(); }
SV_EXPORT int ibv_attach_mcast(struct ibv_qp *qp, const union ibv_gid *gid, uint16_t lid)
{ (void)qp; (void)gid; (void)lid; return EOPNOTSUPP; }
SV_EXPORT int ibv_detach_mcast(struct ibv_qp *qp, const union ibv_gid *gid, uint16_t lid)
{ (void)qp; (void)gid; (void)lid; return EOPNOTSUPP; }
SV_EXPORT int ibv_resolve_eth_l2_from_gid(struct ibv_context *ctx, struct ibv_ah_attr *a,
                                          uint8_t eth_mac[6], uint16_t *vid)
{ (void)ctx; (void)a; (void)eth_mac; (void)vid; return EOPNOTSUPP; }
SV_EXPORT int ibv_resize_cq(struct ibv_cq *cq, int cqe) { (void)cq; (void)cqe; return EOPNOTSUPP; }
SV_EXPORT int ibv_rereg_mr(struct ibv_mr *mr, int flags, struct ibv_pd *pd, void *addr, size_t len, int access)
{ (void)mr; (void)flags; (void)pd; (void)addr; (void)len; (void)access; errno = EOPNOTSUPP; return IBV_REREG_MR_ERR_INPUT; }
SV_EXPORT struct ibv_mr *ibv_reg_dmabuf_mr(struct ibv_pd *pd, uint64_t off, size_t len, uint64_t iova, int fd, int access)
{ (void)pd; (void)off; (void)len; (void)iova; (void)fd; (void)access; SV_UNSUPPORTED_PTR(); }
SV_EXPORT struct ibv_context *ibv_import_device(int cmd_fd) { (void)cmd_fd; SV_UNSUPPORTED_PTR(); }
SV_EXPORT struct ibv_pd *ibv_import_pd(struct ibv_context *ctx, uint32_t h) { (void)ctx; (void)h; SV_UNSUPPORTED_PTR(); }
SV_EXPORT void ibv_unimport_pd(struct ibv_pd *pd) { (void)pd; }
SV_EXPORT struct ibv_mr *ibv_import_mr(struct ibv_pd *pd, uint32_t h) { (void)pd; (void)h; SV_UNSUPPORTED_PTR(); }
SV_EXPORT void ibv_unimport_mr(struct ibv_mr *mr) { (void)mr; }
SV_EXPORT struct ibv_dm *ibv_import_dm(struct ibv_context *ctx, uint32_t h) { (void)ctx; (void)h; SV_UNSUPPORTED_PTR(); }
SV_EXPORT void ibv_unimport_dm(struct ibv_dm *dm) { (void)dm; }
SV_EXPORT int ibv_query_ece(struct ibv_qp *qp, struct ibv_ece *ece) { (void)qp; (void)ece; return EOPNOTSUPP; }
SV_EXPORT int ibv_set_ece(struct ibv_qp *qp, struct ibv_ece *ece) { (void)qp; (void)ece; return EOPNOTSUPP; }
// QPs are never created with the extended-QP flag, as the real library answers for those.
SV_EXPORT struct ibv_qp_ex *ibv_qp_to_qp_ex(struct ibv_qp *qp) { (void)qp; return NULL; }

SV_EXPORT int ibv_query_qp_data_in_order(struct ibv_qp *qp, enum ibv_wr_opcode op, uint32_t flags)
{
    (void)qp;
    (void)op;
    // Placement is strictly in order: whole messages land before the next one starts.
    return flags == 0 ? 1 : 0;
}
