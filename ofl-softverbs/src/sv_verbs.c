// softverbs control-path verbs: protection domains, memory regions, completion channels,
// completion queues and RC queue pairs (create, the kernel's RC state/attribute-mask table for
// modify, query, destroy). The data path lives in sv_engine.c.
#define _GNU_SOURCE
#include "sv_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

int64_t sv_live[SV_LIVE_KINDS];

// softverbs' own diagnostic export (not a libibverbs function): copies up to n live-object counts
// in the order of enum sv_live_kind (PD, MR, CQ, channel, QP, internal connection) and returns
// how many kinds there are.
SV_EXPORT int softverbs_live_objects(int64_t *out, int n)
{
    for (int i = 0; i < n && i < SV_LIVE_KINDS; i++)
        out[i] = __atomic_load_n(&sv_live[i], __ATOMIC_RELAXED);
    return SV_LIVE_KINDS;
}

// Queue arrays (send and receive queues, CQ rings) in pages of their own, as a hardware provider's
// queue buffers are: destroyed, they go back to the system at once. From malloc they would not:
// glibc raises its mmap threshold as large blocks are freed, so arrays of 100+ KiB per QP come to
// be taken from, and kept in, the heaps of whichever threads created the QPs.
static void *sv_queue_alloc(size_t n, size_t size)
{
    if (n == 0 || size > SIZE_MAX / n)
        return NULL;
    void *p = mmap(NULL, n * size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    return p == MAP_FAILED ? NULL : p; // zero-filled, like calloc
}

static void sv_queue_free(void *p, size_t n, size_t size)
{
    if (p)
        munmap(p, n * size);
}

SV_EXPORT struct ibv_pd *ibv_alloc_pd(struct ibv_context *ctx)
{
    struct sv_pd *pd = calloc(1, sizeof(*pd));
    if (!pd) {
        errno = ENOMEM;
        return NULL;
    }
    static uint32_t next_handle;
    pd->pd.context = ctx;
    pd->pd.handle = __atomic_add_fetch(&next_handle, 1, __ATOMIC_RELAXED);
    sv_live_add(SV_LIVE_PD, 1);
    return &pd->pd;
}

SV_EXPORT int ibv_dealloc_pd(struct ibv_pd *ibpd)
{
    struct sv_pd *pd = sv_pd_of(ibpd);
    pthread_mutex_lock(&sv.lock);
    int refs = pd->refs;
    pthread_mutex_unlock(&sv.lock);
    if (refs)
        return EBUSY;
    free(pd);
    sv_live_add(SV_LIVE_PD, -1);
    return 0;
}

// ---- memory regions: key = slot << 8 | generation, the same value serves as lkey and rkey ----

struct sv_mr *sv_mr_lookup(uint32_t key)
{
    uint32_t slot = key >> 8;
    if (slot == 0 || slot >= sv.mr_cap)
        return NULL;
    struct sv_mr *mr = sv.mrs[slot];
    return mr && mr->mr.lkey == key ? mr : NULL;
}

#define SV_MR_ACCESS_KNOWN                                                                     \
    (IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ |               \
     IBV_ACCESS_REMOTE_ATOMIC | IBV_ACCESS_MW_BIND | IBV_ACCESS_HUGETLB)

SV_EXPORT struct ibv_mr *ibv_reg_mr_iova2(struct ibv_pd *ibpd, void *addr, size_t length, uint64_t iova,
                                          unsigned int access)
{
    // Optional-range flags are hints a device may ignore; the real library masks them too.
    access &= ~(unsigned)IBV_ACCESS_OPTIONAL_RANGE;
    if ((access & ~(unsigned)SV_MR_ACCESS_KNOWN) || length == 0 || (!addr && length)) {
        errno = EINVAL;
        return NULL;
    }
    // The kernel refuses remote write/atomic without local write.
    if ((access & (IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_ATOMIC)) && !(access & IBV_ACCESS_LOCAL_WRITE)) {
        errno = EINVAL;
        return NULL;
    }
    if (iova + length < iova) {
        errno = EINVAL;
        return NULL;
    }
    // The kernel maps an MR by pages: it refuses an iova whose offset within a page is not the
    // address's (ib_uverbs_reg_mr), and so does every device behind it.
    uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE);
    if (((uintptr_t)addr ^ iova) & (page - 1)) {
        errno = EINVAL;
        return NULL;
    }
    struct sv_mr *mr = calloc(1, sizeof(*mr));
    if (!mr) {
        errno = ENOMEM;
        return NULL;
    }
    pthread_mutex_lock(&sv.lock);
    uint32_t slot = 0;
    for (uint32_t i = 1; i < sv.mr_cap; i++)
        if (!sv.mrs[i]) {
            slot = i;
            break;
        }
    if (!slot) {
        uint32_t cap = sv.mr_cap ? sv.mr_cap * 2 : 256;
        if (cap > (1u << 24)) {
            pthread_mutex_unlock(&sv.lock);
            free(mr);
            errno = ENOMEM;
            return NULL;
        }
        struct sv_mr **n = realloc(sv.mrs, cap * sizeof(*n));
        if (!n) {
            pthread_mutex_unlock(&sv.lock);
            free(mr);
            errno = ENOMEM;
            return NULL;
        }
        memset(n + sv.mr_cap, 0, (cap - sv.mr_cap) * sizeof(*n));
        slot = sv.mr_cap ? sv.mr_cap : 1;
        sv.mrs = n;
        sv.mr_cap = cap;
    }
    uint32_t key = slot << 8 | (++sv.mr_gen & 0xff);
    mr->mr.context = ibpd->context;
    mr->mr.pd = ibpd;
    mr->mr.addr = addr;
    mr->mr.length = length;
    mr->mr.handle = key;
    mr->mr.lkey = key;
    mr->mr.rkey = key;
    mr->pd = sv_pd_of(ibpd);
    mr->iova = iova;
    mr->access = (int)access;
    sv.mrs[slot] = mr;
    mr->pd->refs++;
    pthread_mutex_unlock(&sv.lock);
    sv_live_add(SV_LIVE_MR, 1);
    return &mr->mr;
}

SV_EXPORT struct ibv_mr *(ibv_reg_mr)(struct ibv_pd *pd, void *addr, size_t length, int access)
{
    return ibv_reg_mr_iova2(pd, addr, length, (uintptr_t)addr, (unsigned)access);
}

SV_EXPORT struct ibv_mr *(ibv_reg_mr_iova)(struct ibv_pd *pd, void *addr, size_t length, uint64_t iova, int access)
{
    return ibv_reg_mr_iova2(pd, addr, length, iova, (unsigned)access);
}

SV_EXPORT int ibv_dereg_mr(struct ibv_mr *ibmr)
{
    struct sv_mr *mr = sv_mr_of(ibmr);
    pthread_mutex_lock(&sv.lock);
    if (sv_mr_lookup(ibmr->lkey) != mr) {
        pthread_mutex_unlock(&sv.lock);
        return EINVAL;
    }
    sv.mrs[ibmr->lkey >> 8] = NULL;
    mr->pd->refs--;
    pthread_mutex_unlock(&sv.lock);
    free(mr);
    sv_live_add(SV_LIVE_MR, -1);
    return 0;
}

// ---- completion channels: a pipe whose bytes are the CQ pointers of pending events ----

SV_EXPORT struct ibv_comp_channel *ibv_create_comp_channel(struct ibv_context *ctx)
{
    struct sv_channel *ch = calloc(1, sizeof(*ch));
    if (!ch) {
        errno = ENOMEM;
        return NULL;
    }
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) != 0) {
        free(ch);
        return NULL;
    }
    // The progress thread must never block on a reader that does not read.
    fcntl(fds[1], F_SETFL, O_NONBLOCK);
    ch->ch.context = ctx;
    ch->ch.fd = fds[0];
    ch->write_fd = fds[1];
    sv_live_add(SV_LIVE_CHANNEL, 1);
    return &ch->ch;
}

SV_EXPORT int ibv_destroy_comp_channel(struct ibv_comp_channel *ibch)
{
    struct sv_channel *ch = sv_container_of(ibch, struct sv_channel, ch);
    pthread_mutex_lock(&sv.lock);
    int refs = ch->refs;
    pthread_mutex_unlock(&sv.lock);
    if (refs)
        return EBUSY;
    close(ch->ch.fd);
    close(ch->write_fd);
    free(ch);
    sv_live_add(SV_LIVE_CHANNEL, -1);
    return 0;
}

SV_EXPORT struct ibv_cq *ibv_create_cq(struct ibv_context *ctx, int cqe, void *cq_context,
                                       struct ibv_comp_channel *channel, int comp_vector)
{
    if (cqe < 1 || cqe >= SV_MAX_CQE || comp_vector < 0 || comp_vector >= ctx->num_comp_vectors) {
        errno = EINVAL;
        return NULL;
    }
    struct sv_cq *cq = calloc(1, sizeof(*cq));
    if (!cq) {
        errno = ENOMEM;
        return NULL;
    }
    cq->cap = (uint32_t)cqe + 1;
    cq->ring = sv_queue_alloc(cq->cap, sizeof(*cq->ring));
    if (!cq->ring) {
        free(cq);
        errno = ENOMEM;
        return NULL;
    }
    pthread_mutex_init(&cq->lock, NULL);
    cq->cq.context = ctx;
    cq->cq.channel = channel;
    cq->cq.cq_context = cq_context;
    cq->cq.cqe = cqe;
    pthread_mutex_init(&cq->cq.mutex, NULL);
    pthread_cond_init(&cq->cq.cond, NULL);
    if (channel) {
        pthread_mutex_lock(&sv.lock);
        sv_container_of(channel, struct sv_channel, ch)->refs++;
        pthread_mutex_unlock(&sv.lock);
    }
    sv_live_add(SV_LIVE_CQ, 1);
    return &cq->cq;
}

SV_EXPORT int ibv_destroy_cq(struct ibv_cq *ibcq)
{
    struct sv_cq *cq = sv_cq_of(ibcq);
    pthread_mutex_lock(&sv.lock);
    if (cq->refs) {
        pthread_mutex_unlock(&sv.lock);
        return EBUSY;
    }
    if (ibcq->channel)
        sv_container_of(ibcq->channel, struct sv_channel, ch)->refs--;
    pthread_mutex_unlock(&sv.lock);
    // libibverbs waits, after the kernel destroyed the CQ, until every event it handed out was
    // acknowledged: a program that forgets one hangs here on every device. So does softverbs, after
    // saying why on stderr, so that such a hang is not a mystery.
    pthread_mutex_lock(&ibcq->mutex);
    if (ibcq->comp_events_completed != cq->events_reported)
        fprintf(stderr, "softverbs: ibv_destroy_cq waits for %u unacknowledged completion event(s), as libibverbs "
                        "does: call ibv_ack_cq_events for every event from ibv_get_cq_event first\n",
                cq->events_reported - ibcq->comp_events_completed);
    while (ibcq->comp_events_completed != cq->events_reported)
        pthread_cond_wait(&ibcq->cond, &ibcq->mutex);
    pthread_mutex_unlock(&ibcq->mutex);
    pthread_mutex_destroy(&cq->lock);
    pthread_mutex_destroy(&ibcq->mutex);
    pthread_cond_destroy(&ibcq->cond);
    sv_queue_free(cq->ring, cq->cap, sizeof(*cq->ring));
    free(cq);
    sv_live_add(SV_LIVE_CQ, -1);
    return 0;
}

SV_EXPORT int ibv_get_cq_event(struct ibv_comp_channel *channel, struct ibv_cq **cq, void **cq_context)
{
    struct ibv_cq *ev;
    ssize_t n = read(channel->fd, &ev, sizeof(ev));
    if (n != (ssize_t)sizeof(ev))
        return -1;
    pthread_mutex_lock(&ev->mutex);
    sv_cq_of(ev)->events_reported++;
    pthread_mutex_unlock(&ev->mutex);
    *cq = ev;
    *cq_context = ev->cq_context;
    return 0;
}

SV_EXPORT void ibv_ack_cq_events(struct ibv_cq *cq, unsigned int nevents)
{
    pthread_mutex_lock(&cq->mutex);
    cq->comp_events_completed += nevents;
    pthread_cond_signal(&cq->cond);
    pthread_mutex_unlock(&cq->mutex);
}

// ---- queue pairs ----

SV_EXPORT struct ibv_qp *ibv_create_qp(struct ibv_pd *ibpd, struct ibv_qp_init_attr *ia)
{
    if (ia->qp_type != IBV_QPT_RC || ia->srq) {
        errno = EOPNOTSUPP;
        return NULL;
    }
    struct ibv_qp_cap *cap = &ia->cap;
    if (!ia->send_cq || !ia->recv_cq || cap->max_send_wr > SV_MAX_QP_WR || cap->max_recv_wr > SV_MAX_QP_WR ||
        cap->max_send_sge > SV_MAX_SGE || cap->max_recv_sge > SV_MAX_SGE || cap->max_inline_data > SV_MAX_INLINE) {
        errno = EINVAL;
        return NULL;
    }
    struct sv_qp *qp = calloc(1, sizeof(*qp));
    if (!qp) {
        errno = ENOMEM;
        return NULL;
    }
    qp->cap.max_send_wr = cap->max_send_wr ? cap->max_send_wr : 1;
    qp->cap.max_recv_wr = cap->max_recv_wr ? cap->max_recv_wr : 1;
    qp->cap.max_send_sge = cap->max_send_sge ? cap->max_send_sge : 1;
    qp->cap.max_recv_sge = cap->max_recv_sge ? cap->max_recv_sge : 1;
    qp->cap.max_inline_data = SV_MAX_INLINE;
    qp->sq = sv_queue_alloc(qp->cap.max_send_wr, sizeof(*qp->sq));
    qp->rq = sv_queue_alloc(qp->cap.max_recv_wr, sizeof(*qp->rq));
    if (!qp->sq || !qp->rq) {
        sv_queue_free(qp->sq, qp->cap.max_send_wr, sizeof(*qp->sq));
        sv_queue_free(qp->rq, qp->cap.max_recv_wr, sizeof(*qp->rq));
        free(qp);
        errno = ENOMEM;
        return NULL;
    }
    qp->qp.context = ibpd->context;
    qp->qp.qp_context = ia->qp_context;
    qp->qp.pd = ibpd;
    qp->qp.send_cq = ia->send_cq;
    qp->qp.recv_cq = ia->recv_cq;
    qp->qp.qp_type = IBV_QPT_RC;
    qp->qp.state = IBV_QPS_RESET;
    pthread_mutex_init(&qp->qp.mutex, NULL);
    pthread_cond_init(&qp->qp.cond, NULL);
    qp->pd = sv_pd_of(ibpd);
    qp->scq = sv_cq_of(ia->send_cq);
    qp->rcq = sv_cq_of(ia->recv_cq);
    qp->state = IBV_QPS_RESET;
    qp->sq_sig_all = ia->sq_sig_all != 0;
    qp->port_num = 1;
    pthread_mutex_lock(&sv.lock);
    int rc = sv_qp_open_endpoint(qp);
    if (rc) {
        pthread_mutex_unlock(&sv.lock);
        sv_queue_free(qp->sq, qp->cap.max_send_wr, sizeof(*qp->sq));
        sv_queue_free(qp->rq, qp->cap.max_recv_wr, sizeof(*qp->rq));
        free(qp);
        errno = rc;
        return NULL;
    }
    qp->next_all = sv.qps;
    sv.qps = qp;
    qp->pd->refs++;
    qp->scq->refs++;
    qp->rcq->refs++;
    pthread_mutex_unlock(&sv.lock);
    *cap = qp->cap;
    sv_live_add(SV_LIVE_QP, 1);
    return &qp->qp;
}

SV_EXPORT int ibv_destroy_qp(struct ibv_qp *ibqp)
{
    struct sv_qp *qp = sv_qp_of(ibqp);
    pthread_mutex_lock(&sv.lock);
    for (struct sv_qp **p = &sv.qps; *p; p = &(*p)->next_all)
        if (*p == qp) {
            *p = qp->next_all;
            break;
        }
    sv_qp_close_endpoint(qp);
    qp->pd->refs--;
    qp->scq->refs--;
    qp->rcq->refs--;
    pthread_mutex_unlock(&sv.lock);
    pthread_mutex_destroy(&ibqp->mutex);
    pthread_cond_destroy(&ibqp->cond);
    sv_queue_free(qp->sq, qp->cap.max_send_wr, sizeof(*qp->sq));
    sv_queue_free(qp->rq, qp->cap.max_recv_wr, sizeof(*qp->rq));
    free(qp);
    sv_live_add(SV_LIVE_QP, -1);
    return 0;
}

// The kernel's ib_modify_qp_is_ok() table, restricted to RC: required and optional attribute
// masks per transition. Returns false for transitions that table does not allow.
static bool sv_rc_transition(enum ibv_qp_state cur, enum ibv_qp_state next, int *req, int *opt)
{
    *req = 0;
    *opt = 0;
    if (next == IBV_QPS_RESET || next == IBV_QPS_ERR)
        return cur <= IBV_QPS_ERR;
    switch (cur) {
    case IBV_QPS_RESET:
        if (next != IBV_QPS_INIT)
            return false;
        *req = IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS;
        return true;
    case IBV_QPS_INIT:
        if (next == IBV_QPS_INIT) {
            *opt = IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS;
            return true;
        }
        if (next != IBV_QPS_RTR)
            return false;
        *req = IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC |
               IBV_QP_MIN_RNR_TIMER;
        *opt = IBV_QP_ALT_PATH | IBV_QP_ACCESS_FLAGS | IBV_QP_PKEY_INDEX;
        return true;
    case IBV_QPS_RTR:
        if (next != IBV_QPS_RTS)
            return false;
        *req = IBV_QP_SQ_PSN | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC;
        *opt = IBV_QP_CUR_STATE | IBV_QP_ALT_PATH | IBV_QP_ACCESS_FLAGS | IBV_QP_MIN_RNR_TIMER |
               IBV_QP_PATH_MIG_STATE;
        return true;
    case IBV_QPS_RTS:
        if (next != IBV_QPS_RTS)
            return false; // SQD is not emulated
        *opt = IBV_QP_CUR_STATE | IBV_QP_ACCESS_FLAGS | IBV_QP_ALT_PATH | IBV_QP_PATH_MIG_STATE |
               IBV_QP_MIN_RNR_TIMER;
        return true;
    default:
        return false;
    }
}

static bool sv_no_grh_allowed(void)
{
    const char *v = getenv("SOFTVERBS_ALLOW_NO_GRH");
    return v && *v && strcmp(v, "0") != 0;
}

// SOFTVERBS_RETRY7: what retry_cnt 7 means. "spec" (or unset): seven retries, as the IB spec
// says. "infinite": retry for ever, as the kernel's rxe does (rxe_comp.c decrements its retry
// counter only when it is not 7), so software can be tried against that reading too.
static int sv_retry7_infinite(bool *infinite)
{
    const char *v = getenv("SOFTVERBS_RETRY7");
    if (!v || !*v || strcmp(v, "spec") == 0) {
        *infinite = false;
        return 0;
    }
    if (strcmp(v, "infinite") == 0) {
        *infinite = true;
        return 0;
    }
    fprintf(stderr, "softverbs: ibv_modify_qp: SOFTVERBS_RETRY7='%s' is neither 'spec' nor 'infinite'; "
                    "unset it or pick one (EINVAL)\n", v);
    return EINVAL;
}

static int sv_check_attr_values(struct ibv_qp_attr *a, int mask)
{
    if ((mask & IBV_QP_PORT) && a->port_num != 1)
        return EINVAL;
    if ((mask & IBV_QP_PKEY_INDEX) && a->pkey_index != 0)
        return EINVAL;
    if ((mask & IBV_QP_ACCESS_FLAGS) &&
        (a->qp_access_flags & ~(IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ |
                                IBV_ACCESS_REMOTE_ATOMIC)))
        return EINVAL;
    if ((mask & IBV_QP_PATH_MTU) && (a->path_mtu < IBV_MTU_256 || a->path_mtu > IBV_MTU_4096))
        return EINVAL;
    if ((mask & IBV_QP_DEST_QPN) && (a->dest_qp_num & ~SV_PSN_MASK))
        return EINVAL;
    if ((mask & IBV_QP_MIN_RNR_TIMER) && a->min_rnr_timer > 31)
        return EINVAL;
    if ((mask & IBV_QP_TIMEOUT) && a->timeout > 31)
        return EINVAL;
    if ((mask & IBV_QP_RETRY_CNT) && a->retry_cnt > 7)
        return EINVAL;
    if ((mask & IBV_QP_RNR_RETRY) && a->rnr_retry > 7)
        return EINVAL;
    if ((mask & IBV_QP_MAX_QP_RD_ATOMIC) && a->max_rd_atomic > 16)
        return EINVAL;
    if ((mask & IBV_QP_MAX_DEST_RD_ATOMIC) && a->max_dest_rd_atomic > 16)
        return EINVAL;
    if (mask & IBV_QP_AV) {
        // RoCE addresses by GID: the kernel rejects an AV without a GRH on an Ethernet port.
        if (!a->ah_attr.is_global) {
            if (!sv_no_grh_allowed())
                return EINVAL;
        } else if (a->ah_attr.grh.sgid_index >= SV_GID_TBL_LEN) {
            return EINVAL;
        } else if (!sv.gids[a->ah_attr.grh.sgid_index].valid) {
            return ENODATA; // the kernel's answer for an empty slot (rdma_get_gid_attr)
        }
        if (a->ah_attr.port_num > 1)
            return EINVAL;
    }
    return 0;
}

SV_EXPORT int ibv_modify_qp(struct ibv_qp *ibqp, struct ibv_qp_attr *a, int mask)
{
    struct sv_qp *qp = sv_qp_of(ibqp);
    if (mask & IBV_QP_AV)
        sv_refresh_gids_if_renumbering(); // takes sv.lock itself
    pthread_mutex_lock(&sv.lock);
    enum ibv_qp_state cur = qp->state;
    enum ibv_qp_state next = (mask & IBV_QP_STATE) ? a->qp_state : cur;
    int req, opt;
    int rc = 0;
    if ((mask & IBV_QP_CUR_STATE) && a->cur_qp_state != cur)
        rc = EINVAL;
    else if (!sv_rc_transition(cur, next, &req, &opt))
        rc = EINVAL;
    else if ((mask & req) != req || (mask & ~(req | opt | IBV_QP_STATE)))
        rc = EINVAL;
    else
        rc = sv_check_attr_values(a, mask);
    bool retry7_infinite = false;
    if (!rc && (mask & IBV_QP_RETRY_CNT))
        rc = sv_retry7_infinite(&retry7_infinite); // a bad value fails every QP, whatever its count
    if (rc) {
        pthread_mutex_unlock(&sv.lock);
        return rc;
    }
    if (mask & IBV_QP_ACCESS_FLAGS)
        qp->access_flags = (int)a->qp_access_flags;
    if (mask & IBV_QP_PKEY_INDEX)
        qp->pkey_index = a->pkey_index;
    if (mask & IBV_QP_PORT)
        qp->port_num = a->port_num;
    if (mask & IBV_QP_AV)
        qp->ah = a->ah_attr;
    if (mask & IBV_QP_PATH_MTU)
        qp->path_mtu = a->path_mtu;
    if (mask & IBV_QP_DEST_QPN)
        qp->dest_qpn = a->dest_qp_num;
    if (mask & IBV_QP_RQ_PSN)
        qp->rq_psn = a->rq_psn & SV_PSN_MASK;
    if (mask & IBV_QP_SQ_PSN)
        qp->sq_psn = a->sq_psn & SV_PSN_MASK;
    if (mask & IBV_QP_MIN_RNR_TIMER)
        qp->min_rnr_timer = a->min_rnr_timer;
    if (mask & IBV_QP_TIMEOUT)
        qp->timeout = a->timeout;
    if (mask & IBV_QP_RETRY_CNT) {
        qp->retry_cnt = a->retry_cnt;
        qp->retry_forever = retry7_infinite && a->retry_cnt == 7;
    }
    if (mask & IBV_QP_RNR_RETRY)
        qp->rnr_retry = a->rnr_retry;
    if (mask & IBV_QP_MAX_QP_RD_ATOMIC)
        qp->max_rd_atomic = a->max_rd_atomic;
    if (mask & IBV_QP_MAX_DEST_RD_ATOMIC)
        qp->max_dest_rd_atomic = a->max_dest_rd_atomic;
    if (next != cur || (mask & IBV_QP_STATE)) {
        switch (next) {
        case IBV_QPS_RESET:
            sv_qp_enter_reset(qp);
            break;
        case IBV_QPS_ERR:
            if (cur != IBV_QPS_ERR)
                sv_qp_enter_error(qp);
            break;
        case IBV_QPS_RTR:
            if (cur == IBV_QPS_INIT)
                qp->expected_psn = qp->rq_psn;
            qp->state = next;
            break;
        case IBV_QPS_RTS:
            if (cur == IBV_QPS_RTR) {
                qp->next_psn = qp->sq_psn;
                qp->retry_left = qp->retry_cnt;
                qp->rnr_left = qp->rnr_retry;
            }
            qp->state = next;
            break;
        default:
            qp->state = next;
            break;
        }
    }
    ibqp->state = qp->state;
    pthread_mutex_unlock(&sv.lock);
    return 0;
}

SV_EXPORT int ibv_query_qp(struct ibv_qp *ibqp, struct ibv_qp_attr *a, int mask, struct ibv_qp_init_attr *ia)
{
    struct sv_qp *qp = sv_qp_of(ibqp);
    memset(a, 0, sizeof(*a));
    memset(ia, 0, sizeof(*ia));
    pthread_mutex_lock(&sv.lock);
    a->qp_state = qp->state;
    a->cur_qp_state = qp->state;
    a->path_mtu = qp->path_mtu;
    a->path_mig_state = IBV_MIG_MIGRATED;
    a->rq_psn = qp->rq_psn;
    a->sq_psn = qp->sq_psn;
    a->dest_qp_num = qp->dest_qpn;
    a->qp_access_flags = (unsigned)qp->access_flags;
    a->cap = qp->cap;
    a->ah_attr = qp->ah;
    a->pkey_index = qp->pkey_index;
    a->max_rd_atomic = qp->max_rd_atomic;
    a->max_dest_rd_atomic = qp->max_dest_rd_atomic;
    a->min_rnr_timer = qp->min_rnr_timer;
    a->port_num = qp->port_num;
    a->timeout = qp->timeout;
    a->retry_cnt = qp->retry_cnt;
    a->rnr_retry = qp->rnr_retry;
    if (mask & IBV_QP_STATE)
        ibqp->state = qp->state;
    pthread_mutex_unlock(&sv.lock);
    ia->qp_context = ibqp->qp_context;
    ia->send_cq = ibqp->send_cq;
    ia->recv_cq = ibqp->recv_cq;
    ia->cap = qp->cap;
    ia->qp_type = IBV_QPT_RC;
    ia->sq_sig_all = qp->sq_sig_all;
    return 0;
}
