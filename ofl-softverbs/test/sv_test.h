// Shared helpers for the softverbs C tests: a tiny TAP-like reporter ("ok - name" /
// "not ok - name"), endpoint setup (PD, CQs, MR, RC QP) and bounded completion waits.
// Tests only use public libibverbs API, so the same programs also run against any libibverbs
// device (the kernel's rxe in ./ofl test-rxe). The environment picks the device:
//   SV_TEST_DEVICE     device name (default: the first device, softverbs0 under softverbs)
//   SV_TEST_PORT       port number (default 1)
//   SV_TEST_GID_INDEX  GID index the QPs use (default: the RoCE v2 GID ::ffff:127.0.0.1)
// Tests of softverbs itself (its knobs, its own limits) run only on a softverbs device; elsewhere
// they print "excluded - name (reason)" and count neither way.
#ifndef SV_TEST_H
#define SV_TEST_H

#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <infiniband/verbs.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static int t_failed_now __attribute__((unused));
static int t_passed __attribute__((unused)), t_failed __attribute__((unused));

#define CHECK(cond)                                                                            \
    do {                                                                                       \
        if (!(cond)) {                                                                         \
            fprintf(stderr, "  %s:%d: check failed: %s (errno %d)\n", __FILE__, __LINE__, #cond, errno); \
            t_failed_now = 1;                                                                  \
        }                                                                                      \
    } while (0)

// CHECK(a == b) that prints both values when they differ.
#define CHECK_EQ(a, b)                                                                         \
    do {                                                                                       \
        long long t_a_ = (long long)(a), t_b_ = (long long)(b);                                \
        if (t_a_ != t_b_) {                                                                    \
            fprintf(stderr, "  %s:%d: check failed: %s == %s (%lld, expected %lld)\n", __FILE__, \
                    __LINE__, #a, #b, t_a_, t_b_);                                             \
            t_failed_now = 1;                                                                  \
        }                                                                                      \
    } while (0)

// A check of softverbs' reading where another device is known to read the verbs differently
// (each is a row of ofl-softverbs/README.md's table of differences): checked on softverbs only;
// elsewhere the result is printed as a "# " line.
#define CHECK_SOFTVERBS(cond, difference)                                                      \
    do {                                                                                       \
        int t_ok_ = (cond);                                                                    \
        if (t_is_softverbs())                                                                  \
            CHECK(t_ok_);                                                                      \
        else                                                                                   \
            printf("# %s:%d: %s: %s on this device (%s)\n", __FILE__, __LINE__, #cond,         \
                   t_ok_ ? "holds" : "does not hold", difference);                             \
    } while (0)

#define REQUIRE(cond)                                                                          \
    do {                                                                                       \
        if (!(cond)) {                                                                         \
            fprintf(stderr, "  %s:%d: requirement failed: %s (errno %d)\n", __FILE__, __LINE__, #cond, errno); \
            t_failed_now = 1;                                                                  \
            return;                                                                            \
        }                                                                                      \
    } while (0)

// A test that holds only on softverbs: on another device it is named as excluded, with why.
#define RUN_SOFTVERBS_ONLY(fn, why)                                                            \
    do {                                                                                       \
        if (t_is_softverbs()) {                                                                \
            RUN(fn);                                                                           \
        } else {                                                                               \
            printf("excluded - %s (%s)\n", #fn, why);                                          \
            fflush(stdout);                                                                    \
        }                                                                                      \
    } while (0)

#define RUN(fn)                                                                                \
    do {                                                                                       \
        t_failed_now = 0;                                                                      \
        fn();                                                                                  \
        if (t_failed_now) {                                                                    \
            printf("not ok - %s\n", #fn);                                                      \
            t_failed++;                                                                        \
        } else {                                                                               \
            printf("ok - %s\n", #fn);                                                          \
            t_passed++;                                                                        \
        }                                                                                      \
        fflush(stdout);                                                                        \
    } while (0)

static inline int t_summary(void)
{
    printf("# %d passed, %d failed\n", t_passed, t_failed);
    return t_failed ? 1 : 0;
}

static inline uint64_t t_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

// Polls until one completion arrives or timeout_ms passes; returns 1 or 0.
static inline int t_wait_wc(struct ibv_cq *cq, struct ibv_wc *wc, int timeout_ms)
{
    uint64_t deadline = t_now_ms() + (uint64_t)timeout_ms;
    for (;;) {
        int n = ibv_poll_cq(cq, 1, wc);
        if (n == 1)
            return 1;
        if (n < 0 || t_now_ms() > deadline)
            return 0;
        sched_yield();
    }
}

// Returns 1 if no completion shows up within ms.
static inline int t_no_wc(struct ibv_cq *cq, int ms)
{
    struct ibv_wc wc;
    return !t_wait_wc(cq, &wc, ms);
}

// The port the tests use (SV_TEST_PORT, default 1).
static inline uint8_t t_port(void)
{
    const char *v = getenv("SV_TEST_PORT");
    return v && *v ? (uint8_t)atoi(v) : 1;
}

// The device the tests open: SV_TEST_DEVICE, or the first one.
static inline const char *t_device_wanted(void)
{
    const char *v = getenv("SV_TEST_DEVICE");
    return v && *v ? v : NULL;
}

// True when the tests run on softverbs: the device named (or the first) is softverbs'.
static inline int t_is_softverbs(void)
{
    const char *want = t_device_wanted();
    if (want)
        return strncmp(want, "softverbs", 9) == 0;
    int n = 0;
    struct ibv_device **list = ibv_get_device_list(&n);
    int yes = list && n > 0 && strncmp(ibv_get_device_name(list[0]), "softverbs", 9) == 0;
    if (list)
        ibv_free_device_list(list);
    return yes;
}

// The index of the RoCE v2 GID ::ffff:127.0.0.1 (softverbs has one), or -1.
static inline int t_loopback_gid_index(struct ibv_context *ctx)
{
    struct ibv_gid_entry e[64];
    ssize_t n = ibv_query_gid_table(ctx, e, 64, 0);
    for (ssize_t i = 0; i < n; i++) {
        const uint8_t *r = e[i].gid.raw;
        if (e[i].gid_type == IBV_GID_TYPE_ROCE_V2 && r[10] == 0xff && r[11] == 0xff && r[12] == 127 &&
            r[13] == 0 && r[14] == 0 && r[15] == 1)
            return (int)e[i].gid_index;
    }
    return -1;
}

// The GID index the tests use: SV_TEST_GID_INDEX, else the loopback GID's.
static inline int t_gid_index(struct ibv_context *ctx)
{
    const char *v = getenv("SV_TEST_GID_INDEX");
    if (v && *v)
        return atoi(v);
    return t_loopback_gid_index(ctx);
}

// The path MTU for a connection: 4096, or less if the port's active MTU is less (rxe on a
// 1500-byte Ethernet runs at 1024).
static inline enum ibv_mtu t_path_mtu(struct ibv_context *ctx)
{
    struct ibv_port_attr p;
    if (ibv_query_port(ctx, t_port(), &p) || p.active_mtu > IBV_MTU_4096 || p.active_mtu < IBV_MTU_256)
        return IBV_MTU_4096;
    return p.active_mtu;
}

struct t_ep {
    struct ibv_context *ctx;
    struct ibv_pd *pd;
    struct ibv_cq *scq, *rcq;
    struct ibv_qp *qp;
    struct ibv_mr *mr;
    uint8_t *buf;
    size_t size;
    int gid_index;
};

struct t_ep_opts {
    size_t size;
    int mr_access;
    int qp_access;
    int sq_sig_all;
    uint32_t max_send_wr, max_recv_wr;
    uint32_t max_send_sge; // 0: 4
    struct ibv_comp_channel *channel;
};

static inline struct ibv_context *t_open(void)
{
    int n = 0;
    struct ibv_device **list = ibv_get_device_list(&n);
    if (!list || n < 1)
        return NULL;
    struct ibv_device *dev = list[0];
    const char *want = t_device_wanted();
    for (int i = 0; want && i < n; i++)
        if (strcmp(ibv_get_device_name(list[i]), want) == 0)
            dev = list[i];
    struct ibv_context *ctx = NULL;
    if (!want || strcmp(ibv_get_device_name(dev), want) == 0)
        ctx = ibv_open_device(dev);
    ibv_free_device_list(list);
    return ctx;
}

static inline int t_ep_open(struct t_ep *ep, struct ibv_context *ctx, const struct t_ep_opts *o)
{
    memset(ep, 0, sizeof(*ep));
    ep->ctx = ctx;
    ep->size = o->size ? o->size : 4096;
    ep->gid_index = t_gid_index(ctx);
    ep->pd = ibv_alloc_pd(ctx);
    if (!ep->pd)
        return -1;
    uint32_t sw = o->max_send_wr ? o->max_send_wr : 64, rw = o->max_recv_wr ? o->max_recv_wr : 64;
    ep->scq = ibv_create_cq(ctx, (int)(sw + rw) * 2, NULL, o->channel, 0);
    ep->rcq = ibv_create_cq(ctx, (int)(sw + rw) * 2, NULL, o->channel, 0);
    if (!ep->scq || !ep->rcq)
        return -1;
    if (posix_memalign((void **)&ep->buf, 4096, ep->size))
        return -1;
    memset(ep->buf, 0, ep->size);
    ep->mr = ibv_reg_mr(ep->pd, ep->buf, ep->size,
                        o->mr_access ? o->mr_access
                                     : IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ);
    if (!ep->mr)
        return -1;
    struct ibv_qp_init_attr ia = {
        .send_cq = ep->scq,
        .recv_cq = ep->rcq,
        .cap = {.max_send_wr = sw, .max_recv_wr = rw, .max_send_sge = o->max_send_sge ? o->max_send_sge : 4, .max_recv_sge = 4, .max_inline_data = 64},
        .qp_type = IBV_QPT_RC,
        .sq_sig_all = o->sq_sig_all,
    };
    ep->qp = ibv_create_qp(ep->pd, &ia);
    if (!ep->qp)
        return -1;
    struct ibv_qp_attr a = {.qp_state = IBV_QPS_INIT, .pkey_index = 0, .port_num = t_port(),
                            .qp_access_flags = o->qp_access >= 0 ? (unsigned)o->qp_access : 0};
    if (o->qp_access == 0)
        a.qp_access_flags = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ;
    if (o->qp_access < 0)
        a.qp_access_flags = 0;
    return ibv_modify_qp(ep->qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS);
}

struct t_conn_opts {
    uint8_t timeout, retry_cnt, rnr_retry, min_rnr_timer;
};

static inline int t_ep_connect(struct t_ep *ep, uint32_t dest_qpn, const struct t_conn_opts *o)
{
    union ibv_gid dgid;
    if (ibv_query_gid(ep->ctx, t_port(), ep->gid_index, &dgid))
        return -1;
    struct ibv_qp_attr a = {
        .qp_state = IBV_QPS_RTR,
        .path_mtu = t_path_mtu(ep->ctx),
        .dest_qp_num = dest_qpn,
        .rq_psn = 1000,
        .max_dest_rd_atomic = 1,
        .min_rnr_timer = o->min_rnr_timer ? o->min_rnr_timer : 1,
        .ah_attr = {.is_global = 1, .port_num = t_port(),
                    .grh = {.dgid = dgid, .sgid_index = (uint8_t)ep->gid_index, .hop_limit = 1}},
    };
    int rc = ibv_modify_qp(ep->qp, &a,
                           IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
                               IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER);
    if (rc)
        return rc;
    struct ibv_qp_attr r = {
        .qp_state = IBV_QPS_RTS,
        .sq_psn = 1000,
        .timeout = o->timeout ? o->timeout : 14,
        .retry_cnt = o->retry_cnt,
        .rnr_retry = o->rnr_retry,
        .max_rd_atomic = 1,
    };
    return ibv_modify_qp(ep->qp, &r,
                         IBV_QP_STATE | IBV_QP_SQ_PSN | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
                             IBV_QP_MAX_QP_RD_ATOMIC);
}

static inline void t_ep_close(struct t_ep *ep)
{
    if (ep->qp)
        ibv_destroy_qp(ep->qp);
    if (ep->mr)
        ibv_dereg_mr(ep->mr);
    if (ep->scq)
        ibv_destroy_cq(ep->scq);
    if (ep->rcq)
        ibv_destroy_cq(ep->rcq);
    if (ep->pd)
        ibv_dealloc_pd(ep->pd);
    free(ep->buf);
    memset(ep, 0, sizeof(*ep));
}

static inline int t_post_recv(struct t_ep *ep, uint64_t wr_id, size_t off, uint32_t len)
{
    struct ibv_sge sge = {.addr = (uintptr_t)ep->buf + off, .length = len, .lkey = ep->mr->lkey};
    struct ibv_recv_wr wr = {.wr_id = wr_id, .sg_list = &sge, .num_sge = 1}, *bad;
    return ibv_post_recv(ep->qp, &wr, &bad);
}

static inline int t_post(struct t_ep *ep, enum ibv_wr_opcode op, uint64_t wr_id, size_t off, uint32_t len,
                         uint64_t raddr, uint32_t rkey, unsigned flags, uint32_t imm_host)
{
    struct ibv_sge sge = {.addr = (uintptr_t)ep->buf + off, .length = len, .lkey = ep->mr->lkey};
    struct ibv_send_wr wr = {.wr_id = wr_id, .sg_list = &sge, .num_sge = len ? 1 : 0, .opcode = op,
                             .send_flags = flags, .imm_data = htonl(imm_host)}, *bad;
    wr.wr.rdma.remote_addr = raddr;
    wr.wr.rdma.rkey = rkey;
    return ibv_post_send(ep->qp, &wr, &bad);
}

static inline enum ibv_qp_state t_state(struct ibv_qp *qp)
{
    struct ibv_qp_attr a;
    struct ibv_qp_init_attr ia;
    ibv_query_qp(qp, &a, IBV_QP_STATE, &ia);
    return a.qp_state;
}

// Waits until the QP reaches state s (the responder side changes state asynchronously).
static inline int t_wait_state(struct ibv_qp *qp, enum ibv_qp_state s, int timeout_ms)
{
    uint64_t deadline = t_now_ms() + (uint64_t)timeout_ms;
    while (t_state(qp) != s) {
        if (t_now_ms() > deadline)
            return 0;
        usleep(200);
    }
    return 1;
}

#endif
