// Control-path tests: device list (and the "no RDMA in the kernel" path), device/port/GID
// queries with the real library's return conventions, PD/MR/CQ/channel rules, the RC QP state
// machine with the kernel's required attribute masks, and unsupported verbs failing cleanly.
#include "sv_test.h"

#include <infiniband/sa.h>
#include <poll.h>
#include <rdma/ib_user_sa.h>
#include <rdma/ib_user_verbs.h>
#include <dlfcn.h>
#include <fcntl.h>

enum ibv_gid_type_sysfs { IBV_GID_TYPE_SYSFS_IB_ROCE_V1 = 0, IBV_GID_TYPE_SYSFS_ROCE_V2 = 1 };
int ibv_query_gid_type(struct ibv_context *context, uint8_t port_num, unsigned int index,
                       enum ibv_gid_type_sysfs *type);

static struct ibv_context *ctx;

static void device_list_names_softverbs0(void)
{
    int n = -1;
    struct ibv_device **list = ibv_get_device_list(&n);
    REQUIRE(list != NULL);
    CHECK(n == 1);
    CHECK(strcmp(ibv_get_device_name(list[0]), "softverbs0") == 0);
    CHECK(list[1] == NULL);
    CHECK(list[0]->transport_type == IBV_TRANSPORT_IB);
    CHECK(ibv_get_device_guid(list[0]) != 0);
    ibv_free_device_list(list);
}

static void disabled_behaves_like_kernel_without_rdma(void)
{
    setenv("SOFTVERBS_DISABLE", "1", 1);
    int n = 7;
    errno = 0;
    struct ibv_device **list = ibv_get_device_list(&n);
    int err = errno;
    unsetenv("SOFTVERBS_DISABLE");
    CHECK(list == NULL);
    CHECK(n == 0);
    CHECK(err == ENOSYS);
}

// sizeof(struct verbs_context) as rdma-core 44 lays it out: the embedded struct ibv_context holds a
// pthread_mutex_t of 40 bytes on x86-64 and 48 on aarch64.
#if defined(__x86_64__)
#define VERBS_CONTEXT_SIZE 648
#elif defined(__aarch64__)
#define VERBS_CONTEXT_SIZE 656
#else
#error "softverbs' tests know the verbs_context size of x86-64 and aarch64 only"
#endif

static void query_device_and_extended_context(void)
{
    struct ibv_device_attr a;
    REQUIRE(ibv_query_device(ctx, &a) == 0);
    CHECK(a.phys_port_cnt >= t_port());
    CHECK(a.max_sge >= 4);
    struct ibv_device_attr_ex ax;
    REQUIRE(ibv_query_device_ex(ctx, NULL, &ax) == 0);
    CHECK(ax.orig_attr.max_qp_wr == a.max_qp_wr);
    CHECK(ctx->abi_compat == __VERBS_ABI_IS_EXTENDED);
    struct verbs_context *v = verbs_get_ctx(ctx);
    REQUIRE(v != NULL);
    CHECK(v->sz == VERBS_CONTEXT_SIZE);
    CHECK(v->query_port != NULL && v->query_device_ex != NULL);
}

// What softverbs leaves out, as it reports it: one port, no atomics, no extended verbs, an active
// MTU of 4096.
static void softverbs_capabilities(void)
{
    struct ibv_device_attr a;
    REQUIRE(ibv_query_device(ctx, &a) == 0);
    CHECK(a.phys_port_cnt == 1);
    CHECK(a.atomic_cap == IBV_ATOMIC_NONE);
    struct verbs_context *v = verbs_get_ctx(ctx);
    REQUIRE(v != NULL);
    CHECK(v->create_qp_ex == NULL && v->create_cq_ex == NULL);
    struct ibv_port_attr p;
    REQUIRE(ibv_query_port(ctx, 1, &p) == 0);
    CHECK(p.active_mtu == IBV_MTU_4096);
}

static void query_port_inline_and_exported(void)
{
    struct ibv_port_attr p;
    REQUIRE(ibv_query_port(ctx, t_port(), &p) == 0); // the verbs.h macro: verbs_context->query_port
    CHECK(p.state == IBV_PORT_ACTIVE);
    CHECK(p.phys_state == 5);
    CHECK(p.link_layer == IBV_LINK_LAYER_ETHERNET);
    CHECK(p.active_mtu >= IBV_MTU_1024 && p.active_mtu <= IBV_MTU_4096);
    CHECK(p.gid_tbl_len >= 2);
    // The exported symbol writes at most 48 bytes (struct _compat_ibv_port_attr).
    unsigned char raw[64];
    memset(raw, 0xAB, sizeof(raw));
    REQUIRE((ibv_query_port)(ctx, t_port(), (struct _compat_ibv_port_attr *)raw) == 0);
    CHECK(raw[48] == 0xAB && raw[51] == 0xAB);
    struct ibv_port_attr *q = (struct ibv_port_attr *)raw;
    CHECK(q->state == IBV_PORT_ACTIVE && q->link_layer == IBV_LINK_LAYER_ETHERNET);
    struct ibv_device_attr a;
    REQUIRE(ibv_query_device(ctx, &a) == 0);
    CHECK(ibv_query_port(ctx, (uint8_t)(a.phys_port_cnt + 1), &p) != 0);
}

// The table's index 0 is link-local; the GID the tests use (softverbs: ::ffff:127.0.0.1) is an
// IPv4-mapped RoCE v2 GID with a netdev; empty and out-of-range slots answer as the real library
// does.
static void gid_table_has_link_local_and_loopback(void)
{
    uint8_t port = t_port();
    struct ibv_port_attr p;
    REQUIRE(ibv_query_port(ctx, port, &p) == 0);
    union ibv_gid g;
    REQUIRE(ibv_query_gid(ctx, port, 0, &g) == 0);
    CHECK(g.raw[0] == 0xfe && g.raw[1] == 0x80);
    int lo = t_gid_index(ctx);
    REQUIRE(lo > 0);
    REQUIRE(ibv_query_gid(ctx, port, lo, &g) == 0);
    static const uint8_t mapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
    CHECK(memcmp(g.raw, mapped, sizeof(mapped)) == 0);
    if (t_is_softverbs()) {
        char s[64];
        inet_ntop(AF_INET6, g.raw, s, sizeof(s));
        CHECK(strcmp(s, "::ffff:127.0.0.1") == 0);
    }
    struct ibv_gid_entry e;
    REQUIRE(ibv_query_gid_ex(ctx, port, (uint32_t)lo, &e, 0) == 0);
    CHECK(e.gid_type == IBV_GID_TYPE_ROCE_V2);
    CHECK(e.ndev_ifindex != 0);
    CHECK(e.port_num == port && e.gid_index == (uint32_t)lo);
    CHECK(memcmp(e.gid.raw, g.raw, sizeof(g.raw)) == 0);
    enum ibv_gid_type_sysfs t = 9;
    CHECK(ibv_query_gid_type(ctx, port, (unsigned)lo, &t) == 0 && t == IBV_GID_TYPE_SYSFS_ROCE_V2);
    // Return conventions of the real library.
    int last = (int)p.gid_tbl_len - 1;
    CHECK(ibv_query_gid(ctx, port, last, &g) == 0); // empty slot: 0 and zeros
    CHECK(g.global.interface_id == 0 && g.global.subnet_prefix == 0);
    CHECK(ibv_query_gid(ctx, port, (int)p.gid_tbl_len, &g) == -1);
    CHECK(ibv_query_gid_ex(ctx, port, (uint32_t)last, &e, 0) == ENODATA);
    CHECK(ibv_query_gid_ex(ctx, port, p.gid_tbl_len, &e, 0) == EINVAL);
    CHECK_EQ(ibv_query_gid_ex(ctx, port, 0, &e, 1), EINVAL); // the kernel's ioctl refuses unknown flags
    CHECK(ibv_query_gid_type(ctx, port, (unsigned)last, &t) == 0 && t == IBV_GID_TYPE_SYSFS_IB_ROCE_V1);
    CHECK(ibv_query_gid_type(ctx, port, p.gid_tbl_len, &t) == -1);
    struct ibv_gid_entry tab[32];
    ssize_t n = ibv_query_gid_table(ctx, tab, 32, 0);
    CHECK(n >= 2);
    CHECK_EQ(ibv_query_gid_table(ctx, tab, 1, 0), -EINVAL);
    CHECK_EQ(ibv_query_gid_table(ctx, tab, 32, 1), -EINVAL);
}

static void pd_mr_cq_rules(void)
{
    struct ibv_pd *pd = ibv_alloc_pd(ctx);
    REQUIRE(pd);
    static uint8_t buf[8192];
    errno = 0;
    CHECK(ibv_reg_mr(pd, buf, sizeof(buf), IBV_ACCESS_REMOTE_WRITE) == NULL && errno == EINVAL);
    struct ibv_mr *mr = ibv_reg_mr(pd, buf, sizeof(buf), IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ);
    REQUIRE(mr);
    CHECK(mr->addr == buf && mr->length == sizeof(buf) && mr->lkey && mr->rkey);
    // An iova keeps the address's offset within its page (the kernel maps MRs by pages).
    uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE), offset = (uintptr_t)buf & (page - 1);
    errno = 0;
    CHECK(ibv_reg_mr_iova2(pd, buf, 4096, 0x10000 + ((offset + 8) & (page - 1)), IBV_ACCESS_LOCAL_WRITE) == NULL &&
          errno == EINVAL);
    struct ibv_mr *mr2 = ibv_reg_mr_iova2(pd, buf, 4096, 0x10000 + offset, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_RELAXED_ORDERING);
    CHECK(mr2 != NULL); // optional-range flags are accepted and ignored
    CHECK(ibv_dealloc_pd(pd) == EBUSY);
    CHECK(ibv_dereg_mr(mr) == 0);
    if (mr2)
        CHECK(ibv_dereg_mr(mr2) == 0);
    struct ibv_cq *cq = ibv_create_cq(ctx, 16, NULL, NULL, 0);
    REQUIRE(cq);
    struct ibv_qp_init_attr ia = {.send_cq = cq, .recv_cq = cq, .cap = {4, 4, 1, 1, 0}, .qp_type = IBV_QPT_RC};
    struct ibv_qp *qp = ibv_create_qp(pd, &ia);
    REQUIRE(qp);
    if (t_is_softverbs())
        CHECK(ia.cap.max_inline_data == 256); // softverbs' limit, whatever was asked (rxe: 16 here)
    CHECK(qp->qp_num > 1 && qp->state == IBV_QPS_RESET);
    CHECK(ibv_destroy_cq(cq) == EBUSY);
    CHECK(ibv_dealloc_pd(pd) == EBUSY);
    CHECK(ibv_destroy_qp(qp) == 0);
    CHECK(ibv_destroy_cq(cq) == 0);
    CHECK(ibv_dealloc_pd(pd) == 0);
}

static void unsupported_verbs_fail_cleanly(void)
{
    struct ibv_pd *pd = ibv_alloc_pd(ctx);
    struct ibv_cq *cq = ibv_create_cq(ctx, 16, NULL, NULL, 0);
    REQUIRE(pd && cq);
    struct ibv_qp_init_attr ia = {.send_cq = cq, .recv_cq = cq, .cap = {4, 4, 1, 1, 0}, .qp_type = IBV_QPT_UD};
    errno = 0;
    CHECK(ibv_create_qp(pd, &ia) == NULL && errno == EOPNOTSUPP);
    ia.qp_type = IBV_QPT_UC;
    errno = 0;
    CHECK(ibv_create_qp(pd, &ia) == NULL && errno == EOPNOTSUPP);
    struct ibv_srq_init_attr sa = {.attr = {.max_wr = 4, .max_sge = 1}};
    errno = 0;
    CHECK(ibv_create_srq(pd, &sa) == NULL && errno == EOPNOTSUPP);
    struct ibv_qp_init_attr_ex ix = {.send_cq = cq, .recv_cq = cq, .cap = {4, 4, 1, 1, 0}, .qp_type = IBV_QPT_RC,
                                     .comp_mask = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_SEND_OPS_FLAGS, .pd = pd};
    errno = 0;
    CHECK(ibv_create_qp_ex(ctx, &ix) == NULL && errno == EOPNOTSUPP);
    struct ibv_cq_init_attr_ex cx = {.cqe = 4};
    errno = 0;
    CHECK(ibv_create_cq_ex(ctx, &cx) == NULL && errno == EOPNOTSUPP);
    errno = 0;
    CHECK(ibv_alloc_mw(pd, IBV_MW_TYPE_1) == NULL && errno == EOPNOTSUPP);
    struct ibv_ah_attr aa = {.port_num = 1};
    CHECK(ibv_create_ah(pd, &aa) == NULL);
    CHECK(ibv_destroy_cq(cq) == 0);
    CHECK(ibv_dealloc_pd(pd) == 0);
}

static void strings_and_misc(void)
{
    CHECK(strcmp(ibv_wc_status_str(IBV_WC_SUCCESS), "success") == 0);
    CHECK(strcmp(ibv_wc_status_str(IBV_WC_RETRY_EXC_ERR), "transport retry counter exceeded") == 0);
    CHECK(strcmp(ibv_wc_status_str((enum ibv_wc_status)999), "unknown") == 0);
    CHECK(strcmp(ibv_port_state_str(IBV_PORT_ACTIVE), "active") == 0);
    CHECK(strcmp(ibv_node_type_str(IBV_NODE_CA), "InfiniBand channel adapter") == 0);
    CHECK(ibv_event_type_str(IBV_EVENT_QP_FATAL) != NULL);
    // A device is open already, so "too late": EINVAL, unless the kernel copies pinned pages on
    // fork and rdma-core is 52 or later, which then answer 0 (softverbs answers as they do; the
    // rxe guest's rdma-core 44 says EINVAL though its kernel reports copy-on-fork).
    int fork_rc = ibv_fork_init();
    CHECK(fork_rc == 0 || fork_rc == EINVAL);
    CHECK_SOFTVERBS(fork_rc == 0, "ibv_fork_init after a device is open: rdma-core before 52");
    CHECK(!t_is_softverbs() || ibv_is_fork_initialized() == IBV_FORK_UNNEEDED);
    CHECK(ibv_rate_to_mult(IBV_RATE_10_GBPS) == 4);
    __be16 pkey;
    CHECK(ibv_query_pkey(ctx, t_port(), 0, &pkey) == 0 && pkey == htons(0xffff));
    // No async events, ever: a non-blocking read reports "nothing".
    int fl = fcntl(ctx->async_fd, F_GETFL);
    fcntl(ctx->async_fd, F_SETFL, fl | O_NONBLOCK);
    struct ibv_async_event ev;
    errno = 0;
    CHECK(ibv_get_async_event(ctx, &ev) == -1 && errno == EAGAIN);
    fcntl(ctx->async_fd, F_SETFL, fl);
}

static int rtr(struct ibv_qp *qp, uint32_t dest, int gidx, int mask_drop, int global)
{
    union ibv_gid g;
    ibv_query_gid(ctx, t_port(), gidx, &g);
    struct ibv_qp_attr a = {.qp_state = IBV_QPS_RTR, .path_mtu = IBV_MTU_1024, .dest_qp_num = dest,
                            .rq_psn = 1, .max_dest_rd_atomic = 1, .min_rnr_timer = 12,
                            .ah_attr = {.is_global = (uint8_t)global, .port_num = t_port(),
                                        .grh = {.dgid = g, .sgid_index = (uint8_t)gidx, .hop_limit = 1}}};
    int mask = IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
               IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER;
    return ibv_modify_qp(qp, &a, mask & ~mask_drop);
}

static int rts(struct ibv_qp *qp, int mask_drop, int mask_add)
{
    struct ibv_qp_attr a = {.qp_state = IBV_QPS_RTS, .sq_psn = 1, .timeout = 14, .retry_cnt = 7,
                            .rnr_retry = 7, .max_rd_atomic = 1};
    int mask = IBV_QP_STATE | IBV_QP_SQ_PSN | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
               IBV_QP_MAX_QP_RD_ATOMIC;
    return ibv_modify_qp(qp, &a, (mask & ~mask_drop) | mask_add);
}

static void qp_state_machine_and_masks(void)
{
    struct ibv_pd *pd = ibv_alloc_pd(ctx);
    struct ibv_cq *cq = ibv_create_cq(ctx, 64, NULL, NULL, 0);
    REQUIRE(pd && cq);
    struct ibv_qp_init_attr ia = {.send_cq = cq, .recv_cq = cq, .cap = {4, 4, 1, 1, 0}, .qp_type = IBV_QPT_RC};
    struct ibv_qp *qp = ibv_create_qp(pd, &ia);
    REQUIRE(qp);
    int gidx = t_gid_index(ctx);
    struct ibv_qp_attr a = {.qp_state = IBV_QPS_INIT, .port_num = t_port()};
    int init_mask = IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS;
    // RESET -> RTR skips INIT.
    CHECK(rtr(qp, qp->qp_num, gidx, 0, 1) == EINVAL);
    // RESET -> INIT without ACCESS_FLAGS, or with an attribute INIT does not take.
    CHECK(ibv_modify_qp(qp, &a, init_mask & ~IBV_QP_ACCESS_FLAGS) == EINVAL);
    CHECK(ibv_modify_qp(qp, &a, init_mask | IBV_QP_SQ_PSN) == EINVAL);
    struct ibv_device_attr da;
    REQUIRE(ibv_query_device(ctx, &da) == 0);
    a.port_num = (uint8_t)(da.phys_port_cnt + 1);
    CHECK(ibv_modify_qp(qp, &a, init_mask) == EINVAL);
    a.port_num = t_port();
    CHECK(t_state(qp) == IBV_QPS_RESET);
    struct ibv_recv_wr rwr = {.wr_id = 1}, *rbad;
    CHECK(ibv_post_recv(qp, &rwr, &rbad) == EINVAL); // no receives in RESET
    REQUIRE(ibv_modify_qp(qp, &a, init_mask) == 0);
    CHECK(qp->state == IBV_QPS_INIT && t_state(qp) == IBV_QPS_INIT);
    struct ibv_send_wr swr = {.wr_id = 1, .opcode = IBV_WR_SEND}, *sbad;
    // No sends before RTS (IBA 10.3.1); rxe's provider queues them (README: posting before RTS).
    CHECK_SOFTVERBS(ibv_post_send(qp, &swr, &sbad) == EINVAL && sbad == &swr, "posting before RTS");
    // INIT -> RTR: each required attribute is required.
    CHECK(rtr(qp, qp->qp_num, gidx, IBV_QP_MIN_RNR_TIMER, 1) == EINVAL);
    CHECK(rtr(qp, qp->qp_num, gidx, IBV_QP_AV, 1) == EINVAL);
    CHECK(rtr(qp, qp->qp_num, gidx, IBV_QP_DEST_QPN, 1) == EINVAL);
    CHECK(rtr(qp, qp->qp_num, gidx, IBV_QP_MAX_DEST_RD_ATOMIC, 1) == EINVAL);
    // RoCE needs a GRH naming a GID of the table.
    CHECK(rtr(qp, qp->qp_num, gidx, 0, 0) == EINVAL);
    // An empty slot is ENODATA, as the kernel answers; an index beyond the table EINVAL (only
    // testable on a table shorter than 256: sgid_index is 8 bits; rxe's has 1024 entries).
    struct ibv_port_attr pa;
    REQUIRE(ibv_query_port(ctx, t_port(), &pa) == 0);
    int empty = -1;
    for (int i = 1; i < 256 && i < (int)pa.gid_tbl_len && empty < 0; i++) {
        struct ibv_gid_entry ge;
        if (ibv_query_gid_ex(ctx, t_port(), (uint32_t)i, &ge, 0) == ENODATA)
            empty = i;
    }
    REQUIRE(empty > 0);
    CHECK_EQ(rtr(qp, qp->qp_num, empty, 0, 1), ENODATA);
    if (pa.gid_tbl_len < 256)
        CHECK_EQ(rtr(qp, qp->qp_num, (int)pa.gid_tbl_len, 0, 1), EINVAL);
    CHECK(t_state(qp) == IBV_QPS_INIT);
    REQUIRE(rtr(qp, qp->qp_num, gidx, 0, 1) == 0);
    CHECK(t_state(qp) == IBV_QPS_RTR);
    CHECK(rtr(qp, qp->qp_num, gidx, 0, 1) == EINVAL); // RTR -> RTR is not in the table
    // RTR -> RTS: each required attribute is required; RQ_PSN is not allowed.
    CHECK(rts(qp, IBV_QP_SQ_PSN, 0) == EINVAL);
    CHECK(rts(qp, IBV_QP_RNR_RETRY, 0) == EINVAL);
    CHECK(rts(qp, IBV_QP_TIMEOUT, 0) == EINVAL);
    CHECK(rts(qp, 0, IBV_QP_RQ_PSN) == EINVAL);
    REQUIRE(rts(qp, 0, 0) == 0);
    CHECK(t_state(qp) == IBV_QPS_RTS);
    struct ibv_qp_attr qa;
    struct ibv_qp_init_attr qia;
    REQUIRE(ibv_query_qp(qp, &qa, IBV_QP_STATE | IBV_QP_CAP, &qia) == 0);
    CHECK(qa.dest_qp_num == qp->qp_num && qa.path_mtu == IBV_MTU_1024 && qa.timeout == 14);
    CHECK(qia.qp_type == IBV_QPT_RC);
    // RTS -> RTS may change MIN_RNR_TIMER only among the allowed attributes.
    struct ibv_qp_attr m = {.min_rnr_timer = 3};
    CHECK(ibv_modify_qp(qp, &m, IBV_QP_MIN_RNR_TIMER) == 0);
    CHECK(ibv_modify_qp(qp, &m, IBV_QP_TIMEOUT) == EINVAL);
    // any -> ERR -> RESET -> INIT again.
    struct ibv_qp_attr e = {.qp_state = IBV_QPS_ERR};
    CHECK(ibv_modify_qp(qp, &e, IBV_QP_STATE) == 0 && qp->state == IBV_QPS_ERR);
    CHECK(ibv_modify_qp(qp, &a, init_mask) == EINVAL); // ERR -> INIT is not allowed
    struct ibv_qp_attr r = {.qp_state = IBV_QPS_RESET};
    CHECK(ibv_modify_qp(qp, &r, IBV_QP_STATE) == 0 && qp->state == IBV_QPS_RESET);
    CHECK(ibv_modify_qp(qp, &a, init_mask) == 0);
    CHECK(ibv_modify_qp(qp, &e, IBV_QP_STATE) == 0);
    CHECK(ibv_destroy_qp(qp) == 0);
    CHECK(ibv_destroy_cq(cq) == 0);
    CHECK(ibv_dealloc_pd(pd) == 0);
}

static void qp_numbers_are_unique(void)
{
    struct ibv_pd *pd = ibv_alloc_pd(ctx);
    struct ibv_cq *cq = ibv_create_cq(ctx, 16, NULL, NULL, 0);
    REQUIRE(pd && cq);
    struct ibv_qp *qps[32];
    struct ibv_qp_init_attr ia = {.send_cq = cq, .recv_cq = cq, .cap = {1, 1, 1, 1, 0}, .qp_type = IBV_QPT_RC};
    for (int i = 0; i < 32; i++) {
        qps[i] = ibv_create_qp(pd, &ia);
        REQUIRE(qps[i]);
        for (int j = 0; j < i; j++)
            CHECK(qps[i]->qp_num != qps[j]->qp_num);
    }
    for (int i = 0; i < 32; i++)
        CHECK(ibv_destroy_qp(qps[i]) == 0);
    CHECK(ibv_destroy_cq(cq) == 0);
    CHECK(ibv_dealloc_pd(pd) == 0);
}

static void completion_channel_is_a_real_fd(void)
{
    struct ibv_comp_channel *ch = ibv_create_comp_channel(ctx);
    REQUIRE(ch && ch->fd >= 0);
    struct ibv_cq *cq = ibv_create_cq(ctx, 8, (void *)0x1234, ch, 0);
    REQUIRE(cq);
    CHECK(ibv_destroy_comp_channel(ch) == EBUSY);
    struct pollfd p = {.fd = ch->fd, .events = POLLIN};
    CHECK(poll(&p, 1, 0) == 0);
    CHECK(ibv_req_notify_cq(cq, 0) == 0);
    CHECK(ibv_destroy_cq(cq) == 0);
    CHECK(ibv_destroy_comp_channel(ch) == 0);
}

// softverbs' diagnostic export (not libibverbs API): live PDs, MRs, CQs, channels, QPs, connections.
static void live_object_counts_follow_create_and_destroy(void)
{
    int (*live)(int64_t *, int) = (int (*)(int64_t *, int))dlsym(RTLD_DEFAULT, "softverbs_live_objects");
    REQUIRE(live);
    int64_t before[6], during[6], after[6];
    CHECK(live(before, 6) == 6);
    struct ibv_comp_channel *ch = ibv_create_comp_channel(ctx);
    struct ibv_pd *pd = ibv_alloc_pd(ctx);
    struct ibv_cq *cq = ibv_create_cq(ctx, 16, NULL, ch, 0);
    REQUIRE(ch && pd && cq);
    static char buf[4096];
    struct ibv_mr *mr = ibv_reg_mr(pd, buf, sizeof(buf), IBV_ACCESS_LOCAL_WRITE);
    struct ibv_qp_init_attr ia = {.send_cq = cq, .recv_cq = cq, .cap = {1, 1, 1, 1, 0}, .qp_type = IBV_QPT_RC};
    struct ibv_qp *qp = ibv_create_qp(pd, &ia);
    REQUIRE(mr && qp);
    live(during, 6);
    for (int i = 0; i < 5; i++)
        CHECK(during[i] == before[i] + 1);
    CHECK(ibv_destroy_qp(qp) == 0);
    CHECK(ibv_dereg_mr(mr) == 0);
    CHECK(ibv_destroy_cq(cq) == 0);
    CHECK(ibv_dealloc_pd(pd) == 0);
    CHECK(ibv_destroy_comp_channel(ch) == 0);
    live(after, 6);
    for (int i = 0; i < 5; i++)
        CHECK(after[i] == before[i]);
}

// librdmacm's helpers, declared here as rdma-core's marshall.h does (Debian does not ship it).
void ibv_copy_ah_attr_from_kern(struct ibv_ah_attr *dst, struct ib_uverbs_ah_attr *src);
void ibv_copy_qp_attr_from_kern(struct ibv_qp_attr *dst, struct ib_uverbs_qp_attr *src);
void ibv_copy_path_rec_from_kern(struct ibv_sa_path_rec *dst, struct ib_user_path_rec *src);

static void kernel_struct_helpers_convert_every_field(void)
{
    struct ib_uverbs_qp_attr k;
    memset(&k, 0, sizeof(k));
    k.qp_state = IBV_QPS_RTS;
    k.cur_qp_state = IBV_QPS_RTR;
    k.path_mtu = IBV_MTU_1024;
    k.rq_psn = 0x123456;
    k.sq_psn = 0x654321;
    k.dest_qp_num = 0x2a;
    k.qp_access_flags = IBV_ACCESS_REMOTE_WRITE;
    k.max_send_wr = 17;
    k.max_inline_data = 64;
    k.ah_attr.grh.dgid[15] = 9;
    k.ah_attr.grh.sgid_index = 3;
    k.ah_attr.grh.hop_limit = 64;
    k.ah_attr.is_global = 1;
    k.ah_attr.port_num = 1;
    k.alt_ah_attr.dlid = 77;
    k.min_rnr_timer = 12;
    k.timeout = 14;
    k.retry_cnt = 7;
    k.rnr_retry = 6;
    struct ibv_qp_attr a;
    memset(&a, 0xff, sizeof(a));
    ibv_copy_qp_attr_from_kern(&a, &k);
    // As rdma-core's helper: cur_qp_state is copied, qp_state is left as it was.
    CHECK_EQ(a.cur_qp_state, IBV_QPS_RTR);
    CHECK_EQ(a.qp_state, (enum ibv_qp_state)0xffffffff);
    CHECK_EQ(a.path_mtu, IBV_MTU_1024);
    CHECK(a.rq_psn == 0x123456 && a.sq_psn == 0x654321 && a.dest_qp_num == 0x2a);
    CHECK(a.qp_access_flags == IBV_ACCESS_REMOTE_WRITE);
    CHECK(a.cap.max_send_wr == 17 && a.cap.max_recv_wr == 0 && a.cap.max_inline_data == 64);
    CHECK(a.ah_attr.grh.dgid.raw[15] == 9 && a.ah_attr.grh.dgid.raw[0] == 0);
    CHECK(a.ah_attr.grh.sgid_index == 3 && a.ah_attr.grh.hop_limit == 64);
    CHECK(a.ah_attr.is_global == 1 && a.ah_attr.port_num == 1 && a.alt_ah_attr.dlid == 77);
    CHECK(a.min_rnr_timer == 12 && a.timeout == 14 && a.retry_cnt == 7 && a.rnr_retry == 6);

    struct ib_user_path_rec pk;
    memset(&pk, 0, sizeof(pk));
    pk.dgid[0] = 0xfe;
    pk.sgid[15] = 7;
    pk.dlid = htons(3);
    pk.flow_label = htonl(0x12345);
    pk.hop_limit = 0x40;
    pk.traffic_class = 9;
    pk.reversible = 1;
    pk.numb_path = 3;
    pk.pkey = htons(0xffff);
    pk.sl = 5;
    pk.mtu_selector = 2;
    pk.mtu = IBV_MTU_4096;
    pk.rate = 6;
    pk.packet_life_time = 18;
    pk.preference = 1;
    struct ibv_sa_path_rec p;
    memset(&p, 0xff, sizeof(p));
    ibv_copy_path_rec_from_kern(&p, &pk);
    CHECK(p.dgid.raw[0] == 0xfe && p.dgid.raw[1] == 0 && p.sgid.raw[15] == 7 && p.sgid.raw[0] == 0);
    CHECK(p.dlid == htons(3) && p.slid == 0 && p.raw_traffic == 0);
    CHECK(p.flow_label == htonl(0x12345) && p.hop_limit == 0x40 && p.traffic_class == 9);
    CHECK(p.reversible == 1 && p.numb_path == 3 && p.pkey == htons(0xffff) && p.sl == 5);
    CHECK(p.mtu_selector == 2 && p.mtu == IBV_MTU_4096 && p.rate_selector == 0 && p.rate == 6);
    CHECK(p.packet_life_time == 18 && p.preference == 1 && p.packet_life_time_selector == 0);
}

int main(void)
{
    RUN_SOFTVERBS_ONLY(disabled_behaves_like_kernel_without_rdma, "softverbs' SOFTVERBS_DISABLE knob");
    RUN_SOFTVERBS_ONLY(device_list_names_softverbs0, "softverbs' own device list");
    ctx = t_open();
    if (!ctx) {
        printf("not ok - open_device\n");
        return 1;
    }
    RUN(query_device_and_extended_context);
    RUN_SOFTVERBS_ONLY(softverbs_capabilities, "what softverbs leaves out; other devices have atomics, extended verbs, other MTUs");
    RUN(query_port_inline_and_exported);
    RUN(gid_table_has_link_local_and_loopback);
    RUN(pd_mr_cq_rules);
    RUN_SOFTVERBS_ONLY(unsupported_verbs_fail_cleanly, "softverbs refusing UD, UC, SRQ, extended verbs and memory windows; rxe implements all but UC and XRC");
    RUN(strings_and_misc);
    RUN(qp_state_machine_and_masks);
    RUN(qp_numbers_are_unique);
    RUN(completion_channel_is_a_real_fd);
    RUN_SOFTVERBS_ONLY(live_object_counts_follow_create_and_destroy, "softverbs' own diagnostic export softverbs_live_objects");
    RUN(kernel_struct_helpers_convert_every_field);
    ibv_close_device(ctx);
    return t_summary();
}
