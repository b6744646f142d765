// softverbs engine: the per-process progress thread and the RC transport between QPs.
//
// Every QP listens on a filesystem Unix socket "<dir>/qp-<qpn>"; the QPN counter lives in a
// flock'ed file in the same directory, so QPNs are unique host-wide and a peer is found from
// its QPN alone. A requester connects to its destination QP's socket and sends its requests
// (SEND, WRITE, READ request, ...) on that stream; the responder's progress thread validates
// each one against its QP state and MR table, places the payload straight from the socket into
// registered memory, and answers on the same stream (ACK, NAK, DROP, READ response). Each
// message carries one PSN; the responder executes only the PSN it expects, so retransmission
// after an RNR NAK or a timeout is go-back-N, as on the wire. All engine state is guarded by
// one mutex (sv.lock); CQs have their own lock so that polling never waits for the engine.
#define _GNU_SOURCE
#include "sv_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

struct sv_engine sv = {.lock = PTHREAD_MUTEX_INITIALIZER, .epfd = -1, .kickfd = -1};

static struct {
    int kind;
} sv_kick_handle = {SV_POLL_KICK};

// Only the progress thread receives, so one scratch buffer for discarded payload suffices.
static uint8_t sv_discard_buf[1 << 16];

#define SV_MIN_TIMEOUT_NS 1000000ULL     // below this the emulated ACK timer would be noise
#define SV_SILENT_MIN_NS 1000000000ULL   // no answer at all: allow for a descheduled peer
#define SV_SOCKBUF (4 << 20)
#define SV_NS_INF UINT64_MAX
#define SV_HELPER_ACTIVE_NS 1000000ULL // a poller this recent is still polling

static void sv_conn_flush(struct sv_conn *c);
static void sv_qp_transmit(struct sv_qp *qp);
static void sv_help_progress(bool stays_polling);

uint64_t sv_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

// Signed distance between two 24-bit PSNs.
static int32_t sv_psn_diff(uint32_t a, uint32_t b)
{
    return (int32_t)(((a - b) & SV_PSN_MASK) << 8) >> 8;
}

// IB local ACK timeout: 4.096 us * 2^timeout; 0 means infinite.
static uint64_t sv_ack_timeout_ns(const struct sv_qp *qp)
{
    if (qp->timeout == 0)
        return SV_NS_INF;
    uint64_t t = 4096ULL << qp->timeout;
    return t < SV_MIN_TIMEOUT_NS ? SV_MIN_TIMEOUT_NS : t;
}

// IB RNR NAK timer encoding, in units of 10 us (index 0 is the longest: 655.36 ms).
static uint64_t sv_rnr_timer_ns(uint8_t code)
{
    static const uint32_t t10us[32] = {65536, 1,    2,    3,    4,    6,    8,     12,    16,    24,   32,
                                       48,    64,   96,   128,  192,  256,  384,   512,   768,   1024, 1536,
                                       2048,  3072, 4096, 6144, 8192, 12288, 16384, 24576, 32768, 49152};
    return (uint64_t)t10us[code & 31] * 10000ULL;
}

void sv_kick(uint64_t deadline_ns)
{
    if (sv.kickfd >= 0 && sv.sleep_until_ns != 0 && deadline_ns < sv.sleep_until_ns) {
        uint64_t one = 1;
        ssize_t n = write(sv.kickfd, &one, sizeof(one));
        (void)n;
        sv.sleep_until_ns = 0;
    }
}

// ---- completion queues ----

void sv_cq_push(struct sv_cq *cq, const struct ibv_wc *wc)
{
    pthread_mutex_lock(&cq->lock);
    if (cq->count == cq->cap) {
        // Hardware would raise a CQ error; report once and drop so the engine keeps running.
        if (!cq->overflow_reported)
            fprintf(stderr, "softverbs: CQ %p overflow (cqe %d): completion dropped\n", (void *)cq, cq->cq.cqe);
        cq->overflow_reported = true;
    } else {
        cq->ring[(cq->head + cq->count) % cq->cap] = *wc;
        cq->count++;
        if (cq->armed && cq->cq.channel) {
            cq->armed = false;
            struct sv_channel *ch = sv_container_of(cq->cq.channel, struct sv_channel, ch);
            struct ibv_cq *p = &cq->cq;
            ssize_t n = write(ch->write_fd, &p, sizeof(p));
            (void)n;
        }
    }
    pthread_mutex_unlock(&cq->lock);
}

int sv_poll_cq(struct ibv_cq *ibcq, int num_entries, struct ibv_wc *wc)
{
    struct sv_cq *cq = sv_cq_of(ibcq);
    if (num_entries < 0)
        return -1;
    pthread_mutex_lock(&cq->lock);
    int n = 0;
    while (n < num_entries && cq->count) {
        wc[n++] = cq->ring[cq->head];
        cq->head = (cq->head + 1) % cq->cap;
        cq->count--;
    }
    pthread_mutex_unlock(&cq->lock);
    if (n == 0 && num_entries > 0) {
        // The poller of a CQ with a completion channel sleeps on that channel when it finds
        // nothing: it must not pass for a busy poller, or the progress thread would leave arriving
        // packets unread for its 1 ms watch (the 1 ms mode of blocking peers in two processes).
        sv_help_progress(ibcq->channel == NULL);
        pthread_mutex_lock(&cq->lock);
        while (n < num_entries && cq->count) {
            wc[n++] = cq->ring[cq->head];
            cq->head = (cq->head + 1) % cq->cap;
            cq->count--;
        }
        pthread_mutex_unlock(&cq->lock);
    }
    return n;
}

int sv_req_notify_cq(struct ibv_cq *ibcq, int solicited_only)
{
    (void)solicited_only;
    struct sv_cq *cq = sv_cq_of(ibcq);
    pthread_mutex_lock(&cq->lock);
    cq->armed = true;
    pthread_mutex_unlock(&cq->lock);
    return 0;
}

static void sv_push_wc(struct sv_cq *cq, struct sv_qp *qp, uint64_t wr_id, enum ibv_wc_status st,
                       enum ibv_wc_opcode op, uint32_t byte_len)
{
    struct ibv_wc wc;
    memset(&wc, 0, sizeof(wc));
    wc.wr_id = wr_id;
    wc.status = st;
    wc.opcode = op;
    wc.byte_len = byte_len;
    wc.qp_num = qp->qp.qp_num;
    wc.src_qp = qp->dest_qpn;
    wc.vendor_err = st == IBV_WC_SUCCESS ? 0 : 0x100 + st;
    sv_cq_push(cq, &wc);
}

// ---- memory translation ----

// Host address of [addr, addr+len) in the iova space of the MR named by key, or NULL when the
// key, protection domain, access rights or bounds do not allow it.
static void *sv_translate(uint32_t key, uint64_t addr, uint64_t len, int access, const struct sv_pd *pd)
{
    struct sv_mr *mr = sv_mr_lookup(key);
    if (!mr || mr->pd != pd || (mr->access & access) != access)
        return NULL;
    if (addr < mr->iova || len > mr->mr.length || addr - mr->iova > mr->mr.length - len)
        return NULL;
    return (char *)mr->mr.addr + (addr - mr->iova);
}

// ---- connections ----

static void sv_set_epollout(struct sv_conn *c, bool on)
{
    if (c->epollout == on)
        return;
    struct epoll_event ev = {.events = EPOLLIN | (on ? EPOLLOUT : 0), .data.ptr = c};
    epoll_ctl(sv.epfd, EPOLL_CTL_MOD, c->fd, &ev);
    c->epollout = on;
}

static struct sv_conn *sv_conn_new(int fd, struct sv_qp *qp, bool requester)
{
    struct sv_conn *c = calloc(1, sizeof(*c));
    if (!c)
        return NULL;
    c->kind = SV_POLL_CONN;
    c->fd = fd;
    c->qp = qp;
    c->requester = requester;
    int sz = SV_SOCKBUF;
    if (setsockopt(fd, SOL_SOCKET, SO_SNDBUFFORCE, &sz, sizeof(sz)) != 0)
        setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &sz, sizeof(sz));
    struct epoll_event ev = {.events = EPOLLIN, .data.ptr = c};
    if (epoll_ctl(sv.epfd, EPOLL_CTL_ADD, fd, &ev) != 0) {
        free(c);
        return NULL;
    }
    sv_live_add(SV_LIVE_CONN, 1);
    return c;
}

static void sv_free_frames(struct sv_frame *f)
{
    while (f) {
        struct sv_frame *n = f->next;
        free(f->payload);
        free(f);
        f = n;
    }
}

// Closes now; the memory lives until the progress thread has finished the current event batch.
static void sv_conn_kill(struct sv_conn *c)
{
    if (c->dead)
        return;
    c->dead = true;
    epoll_ctl(sv.epfd, EPOLL_CTL_DEL, c->fd, NULL);
    close(c->fd);
    c->fd = -1;
    struct sv_qp *qp = c->qp;
    if (c->requester) {
        if (qp->out == c)
            qp->out = NULL;
    } else {
        for (struct sv_conn **p = &qp->in_list; *p; p = &(*p)->next_in)
            if (*p == c) {
                *p = c->next_in;
                break;
            }
    }
    c->next_dead = sv.dead_conns;
    sv.dead_conns = c;
}

static void sv_reap(void)
{
    while (sv.dead_conns) {
        struct sv_conn *c = sv.dead_conns;
        sv.dead_conns = c->next_dead;
        if (c->tx_frame)
            sv_free_frames(c->tx_frame);
        sv_free_frames(c->txq_head);
        free(c);
        sv_live_add(SV_LIVE_CONN, -1);
    }
    while (sv.dead_listeners) {
        struct sv_listener *l = sv.dead_listeners;
        sv.dead_listeners = l->next_dead;
        free(l);
    }
}

static void sv_arm_retry(struct sv_qp *qp, bool rnr, uint64_t delay_ns)
{
    if (delay_ns == SV_NS_INF)
        return; // timeout 0: the IB "infinite" local ACK timeout
    qp->retry_pending = true;
    qp->retry_is_rnr = rnr;
    qp->retry_at_ns = sv_now_ns() + delay_ns;
    sv_kick(qp->retry_at_ns);
}

static void sv_conn_lost(struct sv_conn *c)
{
    struct sv_qp *qp = c->qp;
    bool requester = c->requester;
    sv_conn_kill(c);
    // A vanished responder never answers: what is outstanding times out and is retried.
    if (requester && qp->state == IBV_QPS_RTS && qp->sq_head != qp->sq_tail && !qp->retry_pending)
        sv_arm_retry(qp, false, sv_ack_timeout_ns(qp));
}

// Writes the frame in progress and then queued frames until done or the socket is full.
static void sv_conn_flush(struct sv_conn *c)
{
    while (!c->dead) {
        if (c->tx_iovidx == c->tx_iovcnt) {
            c->tx_iovidx = c->tx_iovcnt = 0;
            if (c->tx_frame) {
                sv_free_frames(c->tx_frame);
                c->tx_frame = NULL;
            }
            struct sv_frame *f = c->txq_head;
            if (!f)
                break;
            c->txq_head = f->next;
            if (!c->txq_head)
                c->txq_tail = NULL;
            f->next = NULL;
            c->tx_frame = f;
            c->tx_hdr[0] = f->hdr;
            c->tx_iov[0] = (struct iovec){&c->tx_hdr[0], sizeof(c->tx_hdr[0])};
            c->tx_iovcnt = 1;
            if (f->payload_len)
                c->tx_iov[c->tx_iovcnt++] = (struct iovec){f->payload, f->payload_len};
        }
        struct msghdr msg = {.msg_iov = &c->tx_iov[c->tx_iovidx], .msg_iovlen = (size_t)(c->tx_iovcnt - c->tx_iovidx)};
        ssize_t n = sendmsg(c->fd, &msg, MSG_NOSIGNAL | MSG_DONTWAIT);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            if (errno == EAGAIN || errno == EWOULDBLOCK) {
                sv_set_epollout(c, true);
                return;
            }
            sv_conn_lost(c);
            return;
        }
        size_t left = (size_t)n;
        while (left && c->tx_iovidx < c->tx_iovcnt) {
            struct iovec *v = &c->tx_iov[c->tx_iovidx];
            if (left >= v->iov_len) {
                left -= v->iov_len;
                c->tx_iovidx++;
            } else {
                v->iov_base = (char *)v->iov_base + left;
                v->iov_len -= left;
                left = 0;
            }
        }
        while (c->tx_iovidx < c->tx_iovcnt && c->tx_iov[c->tx_iovidx].iov_len == 0)
            c->tx_iovidx++;
    }
    if (!c->dead)
        sv_set_epollout(c, false);
}

// Queues a response on a responder connection; consecutive ACKs collapse into the newest. An
// ACK waits while the connection's arrived messages are read (sv_conn_readable sends it then), so
// that messages that came together are acknowledged once, as RC responders coalesce ACKs; any
// other response goes at once, with the ACKs queued before it.
static void sv_respond(struct sv_conn *c, uint8_t type, uint32_t psn, uint8_t code, uint8_t rnr_timer,
                       uint8_t *payload, size_t payload_len)
{
    if (c->dead) {
        free(payload);
        return;
    }
    if (type == SV_MSG_ACK && c->txq_tail && c->txq_tail->hdr.type == SV_MSG_ACK) {
        c->txq_tail->hdr.psn = psn;
        return;
    }
    struct sv_frame *f = calloc(1, sizeof(*f));
    if (!f) {
        free(payload);
        return; // the requester's timer recovers a lost answer
    }
    f->hdr.type = type;
    f->hdr.code = code;
    f->hdr.rnr_timer = rnr_timer;
    f->hdr.psn = psn;
    f->hdr.src_qpn = c->qp->qp.qp_num;
    f->hdr.dst_qpn = c->peer_qpn;
    f->hdr.payload_len = payload_len;
    f->payload = payload;
    f->payload_len = payload_len;
    if (c->txq_tail)
        c->txq_tail->next = f;
    else
        c->txq_head = f;
    c->txq_tail = f;
    if (type != SV_MSG_ACK || !c->rx_reading)
        sv_conn_flush(c);
}

// ---- queue pair endpoints ----

static int sv_sock_path(char *out, size_t size, uint32_t qpn)
{
    int n = snprintf(out, size, "%s/qp-%06x", sv.dir, qpn);
    return n > 0 && (size_t)n < size ? 0 : ENAMETOOLONG;
}

static uint32_t sv_next_qpn(void)
{
    char path[128];
    snprintf(path, sizeof(path), "%s/qpn.counter", sv.dir);
    int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0666);
    uint32_t v = 0;
    if (fd >= 0) {
        flock(fd, LOCK_EX);
        if (pread(fd, &v, sizeof(v), 0) != (ssize_t)sizeof(v))
            v = 0;
        v++;
        if (v < 0x20 || v > SV_PSN_MASK)
            v = 0x20; // low QPNs are special (QP0/QP1) on real devices
        ssize_t n = pwrite(fd, &v, sizeof(v), 0);
        (void)n;
        flock(fd, LOCK_UN);
        close(fd);
    } else {
        v = 0x20 + (uint32_t)(sv_now_ns() % (SV_PSN_MASK - 0x20));
    }
    return v;
}

int sv_qp_open_endpoint(struct sv_qp *qp)
{
    struct sv_listener *l = calloc(1, sizeof(*l));
    if (!l)
        return ENOMEM;
    for (int attempt = 0; attempt < 256; attempt++) {
        uint32_t qpn = sv_next_qpn();
        struct sockaddr_un sa = {.sun_family = AF_UNIX};
        if (sv_sock_path(sa.sun_path, sizeof(sa.sun_path), qpn) != 0) {
            free(l);
            return ENAMETOOLONG;
        }
        int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
        if (fd < 0) {
            free(l);
            return errno;
        }
        if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) != 0) {
            int err = errno;
            if (err == EADDRINUSE) {
                // A leftover from a dead process is reclaimed; a live QP keeps its number.
                int probe = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
                bool stale = probe >= 0 && connect(probe, (struct sockaddr *)&sa, sizeof(sa)) != 0 &&
                             errno == ECONNREFUSED;
                if (probe >= 0)
                    close(probe);
                if (stale)
                    unlink(sa.sun_path);
                close(fd);
                continue;
            }
            close(fd);
            free(l);
            return err;
        }
        if (listen(fd, 128) != 0) {
            int err = errno;
            unlink(sa.sun_path);
            close(fd);
            free(l);
            return err;
        }
        l->kind = SV_POLL_LISTEN;
        l->fd = fd;
        l->qp = qp;
        struct epoll_event ev = {.events = EPOLLIN, .data.ptr = l};
        if (epoll_ctl(sv.epfd, EPOLL_CTL_ADD, fd, &ev) != 0) {
            int err = errno;
            unlink(sa.sun_path);
            close(fd);
            free(l);
            return err;
        }
        qp->listener = l;
        qp->qp.qp_num = qpn;
        qp->qp.handle = qpn;
        memcpy(qp->sock_path, sa.sun_path, sizeof(qp->sock_path));
        return 0;
    }
    free(l);
    return EAGAIN;
}

void sv_qp_close_endpoint(struct sv_qp *qp)
{
    if (qp->out)
        sv_conn_kill(qp->out);
    while (qp->in_list)
        sv_conn_kill(qp->in_list);
    struct sv_listener *l = qp->listener;
    if (l) {
        l->dead = true;
        epoll_ctl(sv.epfd, EPOLL_CTL_DEL, l->fd, NULL);
        close(l->fd);
        unlink(qp->sock_path);
        l->next_dead = sv.dead_listeners;
        sv.dead_listeners = l;
        qp->listener = NULL;
    }
    // Only the progress thread frees what was killed, at the top of its loop: wake it. Killing
    // took the sockets out of epoll, so when both ends of a connection belong to this process and
    // go together, no socket event is left to wake it, and it slept on with the memory held (and
    // the connections counted live: RdmaTeardownCountsTest failed about one run in five).
    sv_kick(0);
}

static int sv_qp_connect(struct sv_qp *qp)
{
    struct sockaddr_un sa = {.sun_family = AF_UNIX};
    if (sv_sock_path(sa.sun_path, sizeof(sa.sun_path), qp->dest_qpn) != 0)
        return -1;
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return -1;
    if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) != 0) {
        close(fd);
        return -1;
    }
    struct sv_conn *c = sv_conn_new(fd, qp, true);
    if (!c) {
        close(fd);
        return -1;
    }
    qp->out = c;
    // HELLO tells the responder who we are and which GID we addressed.
    struct sv_wire *h = &c->tx_hdr[0];
    memset(h, 0, sizeof(*h));
    h->type = SV_MSG_HELLO;
    h->src_qpn = qp->qp.qp_num;
    h->dst_qpn = qp->dest_qpn;
    if (qp->ah.is_global)
        memcpy(h->gid, qp->ah.grh.dgid.raw, 16);
    c->tx_iov[0] = (struct iovec){h, sizeof(*h)};
    c->tx_iovcnt = 1;
    c->tx_iovidx = 0;
    sv_conn_flush(c);
    return qp->out ? 0 : -1;
}

// ---- requester ----

static enum ibv_wc_opcode sv_wc_opcode(enum ibv_wr_opcode op)
{
    switch (op) {
    case IBV_WR_RDMA_WRITE:
    case IBV_WR_RDMA_WRITE_WITH_IMM:
        return IBV_WC_RDMA_WRITE;
    case IBV_WR_RDMA_READ:
        return IBV_WC_RDMA_READ;
    default:
        return IBV_WC_SEND;
    }
}

static struct sv_send_slot *sv_sq_slot(struct sv_qp *qp, uint32_t idx) { return &qp->sq[idx % qp->cap.max_send_wr]; }
static struct sv_recv_slot *sv_rq_slot(struct sv_qp *qp, uint32_t idx) { return &qp->rq[idx % qp->cap.max_recv_wr]; }

static void sv_sq_complete_head(struct sv_qp *qp, enum ibv_wc_status st, uint32_t byte_len)
{
    struct sv_send_slot *s = sv_sq_slot(qp, qp->sq_head);
    // Errors are always reported, whatever the signalling mode.
    if (s->signaled || st != IBV_WC_SUCCESS)
        sv_push_wc(qp->scq, qp, s->wr_id, st, sv_wc_opcode(s->opcode), byte_len);
    qp->sq_head++;
    if (qp->sq_tx < qp->sq_head)
        qp->sq_tx = qp->sq_head;
}

void sv_qp_flush(struct sv_qp *qp)
{
    while (qp->sq_head != qp->sq_tail)
        sv_sq_complete_head(qp, IBV_WC_WR_FLUSH_ERR, 0);
    while (qp->rq_head != qp->rq_tail) {
        struct sv_recv_slot *r = sv_rq_slot(qp, qp->rq_head++);
        sv_push_wc(qp->rcq, qp, r->wr_id, IBV_WC_WR_FLUSH_ERR, IBV_WC_RECV, 0);
    }
}

void sv_qp_enter_error(struct sv_qp *qp)
{
    qp->state = IBV_QPS_ERR;
    qp->retry_pending = false;
    // Closing the requester stream drops any frame still pointing into caller memory.
    if (qp->out)
        sv_conn_kill(qp->out);
    sv_qp_flush(qp);
}

void sv_qp_enter_reset(struct sv_qp *qp)
{
    qp->state = IBV_QPS_RESET;
    qp->retry_pending = false;
    if (qp->out)
        sv_conn_kill(qp->out);
    qp->sq_head = qp->sq_tx = qp->sq_tail = 0;
    qp->rq_head = qp->rq_tail = 0;
}

static void sv_fail_head(struct sv_qp *qp, enum ibv_wc_status st)
{
    if (qp->sq_head != qp->sq_tail)
        sv_sq_complete_head(qp, st, 0);
    sv_qp_enter_error(qp);
}

// A WR that could not even be transmitted completes in error once everything before it has.
static void sv_qp_check_local_error(struct sv_qp *qp)
{
    if (qp->state == IBV_QPS_RTS && qp->sq_head == qp->sq_tx && qp->sq_tx != qp->sq_tail) {
        struct sv_send_slot *s = sv_sq_slot(qp, qp->sq_head);
        if (s->local_error != IBV_WC_SUCCESS)
            sv_fail_head(qp, s->local_error);
    }
}

static uint8_t sv_msg_type(enum ibv_wr_opcode op)
{
    switch (op) {
    case IBV_WR_SEND: return SV_MSG_SEND;
    case IBV_WR_SEND_WITH_IMM: return SV_MSG_SEND_IMM;
    case IBV_WR_RDMA_WRITE: return SV_MSG_WRITE;
    case IBV_WR_RDMA_WRITE_WITH_IMM: return SV_MSG_WRITE_IMM;
    default: return SV_MSG_READ_REQ;
    }
}

// Appends the frame of one work request to the connection's frames in progress, as its
// frame-th; false (nothing appended) if its memory cannot be translated.
static bool sv_build_frame(struct sv_qp *qp, struct sv_conn *c, struct sv_send_slot *s, int frame)
{
    struct sv_wire *h = &c->tx_hdr[frame];
    memset(h, 0, sizeof(*h));
    h->type = sv_msg_type(s->opcode);
    h->psn = s->psn;
    h->src_qpn = qp->qp.qp_num;
    h->dst_qpn = qp->dest_qpn;
    h->remote_addr = s->remote_addr;
    h->rkey = s->rkey;
    h->imm_be = s->imm_be;
    int n = c->tx_iovcnt;
    c->tx_iov[n++] = (struct iovec){h, sizeof(*h)};
    if (s->opcode == IBV_WR_RDMA_READ) {
        h->read_len = s->length;
    } else {
        h->payload_len = s->length;
        if (s->is_inline) {
            if (s->length)
                c->tx_iov[n++] = (struct iovec){s->inline_data, s->length};
        } else {
            for (int i = 0; i < s->num_sge; i++) {
                if (!s->sge[i].length)
                    continue;
                void *p = sv_translate(s->sge[i].lkey, s->sge[i].addr, s->sge[i].length, 0, qp->pd);
                if (!p)
                    return false;
                c->tx_iov[n++] = (struct iovec){p, s->sge[i].length};
            }
        }
    }
    c->tx_iovcnt = n;
    return true;
}

// Sends the frames of posted work requests in order. The frames of consecutive requests go in
// one sendmsg (up to SV_TX_FRAMES), as a NIC takes a posted chain with one doorbell and sends its
// packets back to back: the responder then reads them together and acknowledges them at once.
static void sv_qp_transmit(struct sv_qp *qp)
{
    while (qp->state == IBV_QPS_RTS && !qp->retry_pending && qp->sq_tx != qp->sq_tail) {
        struct sv_send_slot *s = sv_sq_slot(qp, qp->sq_tx);
        if (s->local_error != IBV_WC_SUCCESS) {
            sv_qp_check_local_error(qp);
            return;
        }
        if (!qp->out && sv_qp_connect(qp) != 0) {
            // Nobody listens at that QPN: the packets go nowhere and the ACK timer runs.
            if (qp->sq_tx == qp->sq_head)
                qp->progress_ns = sv_now_ns();
            sv_arm_retry(qp, false, sv_ack_timeout_ns(qp));
            return;
        }
        struct sv_conn *c = qp->out;
        if (c->tx_iovidx != c->tx_iovcnt)
            return; // the socket is full; EPOLLOUT resumes
        c->tx_iovcnt = c->tx_iovidx = 0;
        for (int frame = 0; frame < SV_TX_FRAMES && qp->sq_tx != qp->sq_tail; frame++) {
            s = sv_sq_slot(qp, qp->sq_tx);
            if (s->local_error != IBV_WC_SUCCESS)
                break; // sent what comes before it; the loop's next turn reports it
            if (s->length > SV_MAX_MSG_SZ) {
                s->local_error = IBV_WC_LOC_LEN_ERR;
                break;
            }
            if (!sv_build_frame(qp, c, s, frame)) {
                s->local_error = IBV_WC_LOC_PROT_ERR;
                break;
            }
            if (qp->sq_tx == qp->sq_head)
                qp->progress_ns = sv_now_ns();
            qp->sq_tx++;
        }
        if (c->tx_iovcnt == 0)
            continue; // the first slot failed: the loop's next turn reports it
        sv_conn_flush(c);
    }
}

// Completes every transmitted non-READ WR up to and including psn.
static void sv_qp_ack_through(struct sv_qp *qp, uint32_t psn)
{
    bool moved = false;
    while (qp->sq_head != qp->sq_tx) {
        struct sv_send_slot *s = sv_sq_slot(qp, qp->sq_head);
        if (sv_psn_diff(s->psn, psn) > 0 || s->opcode == IBV_WR_RDMA_READ)
            break;
        sv_sq_complete_head(qp, IBV_WC_SUCCESS, (uint32_t)s->length);
        moved = true;
    }
    if (moved) {
        qp->retry_left = qp->retry_cnt;
        qp->rnr_left = qp->rnr_retry;
        qp->progress_ns = sv_now_ns();
        if (qp->retry_pending && qp->sq_head == qp->sq_tail)
            qp->retry_pending = false;
    }
}

static void sv_fire_retry(struct sv_qp *qp, uint64_t now)
{
    bool rnr = qp->retry_is_rnr;
    qp->retry_pending = false;
    if (qp->sq_head == qp->sq_tail)
        return;
    // An RNR wait was counted when its NAK arrived; a transport timeout is counted when it fires.
    if (!rnr && !qp->retry_forever) {
        if (qp->retry_left == 0) {
            sv_fail_head(qp, IBV_WC_RETRY_EXC_ERR);
            return;
        }
        qp->retry_left--;
    }
    qp->sq_tx = qp->sq_head; // go back N
    qp->progress_ns = now;
    sv_qp_transmit(qp);
}

static uint64_t sv_run_timers(uint64_t now)
{
    uint64_t next = SV_NS_INF;
    for (struct sv_qp *qp = sv.qps; qp; qp = qp->next_all) {
        if (qp->state != IBV_QPS_RTS)
            continue;
        if (qp->retry_pending) {
            if (now >= qp->retry_at_ns)
                sv_fire_retry(qp, now);
        } else if (qp->sq_head != qp->sq_tx) {
            uint64_t t = sv_ack_timeout_ns(qp);
            if (t != SV_NS_INF) {
                uint64_t silent = t > SV_SILENT_MIN_NS ? t : SV_SILENT_MIN_NS;
                if (now >= qp->progress_ns + silent) {
                    qp->retry_is_rnr = false;
                    sv_fire_retry(qp, now);
                }
            }
        }
        if (qp->state != IBV_QPS_RTS)
            continue;
        if (qp->retry_pending && qp->retry_at_ns < next)
            next = qp->retry_at_ns;
        else if (!qp->retry_pending && qp->sq_head != qp->sq_tx) {
            uint64_t t = sv_ack_timeout_ns(qp);
            if (t != SV_NS_INF) {
                uint64_t dl = qp->progress_ns + (t > SV_SILENT_MIN_NS ? t : SV_SILENT_MIN_NS);
                if (dl < next)
                    next = dl;
            }
        }
    }
    return next;
}

static void sv_qp_kick_timers(struct sv_qp *qp)
{
    if (qp->retry_pending)
        sv_kick(qp->retry_at_ns);
    else if (qp->sq_head != qp->sq_tx) {
        uint64_t t = sv_ack_timeout_ns(qp);
        if (t != SV_NS_INF)
            sv_kick(qp->progress_ns + (t > SV_SILENT_MIN_NS ? t : SV_SILENT_MIN_NS));
    }
}

// ---- receive side: placement plans ----

static void sv_plan_reset(struct sv_conn *c)
{
    memset(&c->plan, 0, sizeof(c->plan));
    c->plan.discard = true;
}

static bool sv_conn_accepting(struct sv_conn *c)
{
    struct sv_qp *qp = c->qp;
    // A port that is down receives nothing: the requester's retries run out as they would on a
    // pulled cable, unless the port comes back first.
    return (qp->state == IBV_QPS_RTR || qp->state == IBV_QPS_RTS) && c->hello_seen && c->dgid_local &&
           c->peer_qpn == qp->dest_qpn && !sv_port_is_down();
}

static int sv_plan_iov(struct sv_conn *c, struct iovec *iov)
{
    struct sv_plan *p = &c->plan;
    if (!p->discard && !c->requester && !sv_conn_accepting(c)) {
        p->discard = true; // the QP left RTR/RTS (or the port went down) mid-message: nothing more may land
        c->rx_cut = true;
    }
    if (!p->discard) {
        int cnt = 0;
        uint64_t left = c->rx_left;
        for (int i = p->seg; i < p->nseg && left && cnt < SV_MAX_SGE; i++) {
            uint64_t off = i == p->seg ? p->seg_off : 0;
            uint64_t len = p->segs[i].length - off;
            if (!len)
                continue;
            if (len > left)
                len = left;
            void *host = sv_translate(p->segs[i].lkey, p->segs[i].addr + off, len, p->access, p->pd);
            if (!host) {
                c->rx_status = p->use_rkey ? IBV_WC_REM_ACCESS_ERR : IBV_WC_LOC_PROT_ERR;
                p->discard = true;
                break;
            }
            iov[cnt++] = (struct iovec){host, len};
            left -= len;
        }
        if (!p->discard && cnt)
            return cnt;
        if (!p->discard) {
            c->rx_status = IBV_WC_LOC_LEN_ERR;
            p->discard = true;
        }
    }
    uint64_t n = c->rx_left < sizeof(sv_discard_buf) ? c->rx_left : sizeof(sv_discard_buf);
    iov[0] = (struct iovec){sv_discard_buf, n};
    return 1;
}

static void sv_plan_advance(struct sv_conn *c, uint64_t n)
{
    struct sv_plan *p = &c->plan;
    if (p->discard)
        return;
    while (n && p->seg < p->nseg) {
        uint64_t room = p->segs[p->seg].length - p->seg_off;
        if (n < room) {
            p->seg_off += n;
            return;
        }
        n -= room;
        p->seg++;
        p->seg_off = 0;
    }
}

// ---- responder ----

static void sv_responder_error(struct sv_conn *c, uint32_t psn, uint8_t code)
{
    sv_respond(c, SV_MSG_NAK, psn, code, 0, NULL, 0);
    sv_qp_enter_error(c->qp);
}

static void sv_execute_read(struct sv_conn *c, const struct sv_wire *h, bool duplicate)
{
    struct sv_qp *qp = c->qp;
    uint8_t *data = NULL;
    if (h->read_len) {
        void *src = (qp->access_flags & IBV_ACCESS_REMOTE_READ)
                        ? sv_translate(h->rkey, h->remote_addr, h->read_len, IBV_ACCESS_REMOTE_READ, qp->pd)
                        : NULL;
        if (!src || h->read_len > SV_MAX_MSG_SZ) {
            sv_responder_error(c, h->psn, SV_NAK_REM_ACCESS);
            return;
        }
        data = malloc(h->read_len);
        if (!data)
            return; // unanswered: the requester retries
        memcpy(data, src, h->read_len);
    }
    if (!duplicate)
        qp->expected_psn = (qp->expected_psn + 1) & SV_PSN_MASK;
    sv_respond(c, SV_MSG_READ_RESP, h->psn, 0, 0, data, h->read_len);
}

static void sv_request_header(struct sv_conn *c)
{
    const struct sv_wire *h = &c->rx_hdr;
    struct sv_qp *qp = c->qp;
    if (h->type == SV_MSG_HELLO) {
        c->hello_seen = true;
        c->peer_qpn = h->src_qpn;
        static const uint8_t zero[16];
        c->dgid_local = sv_gid_is_local(h->gid) || memcmp(h->gid, zero, 16) == 0;
        c->rx_ignore = true;
        return;
    }
    if (!sv_conn_accepting(c)) {
        // Silently dropped on the wire; DROP only lets the requester start its timer now.
        c->rx_ignore = true;
        sv_respond(c, SV_MSG_DROP, h->psn, 0, 0, NULL, 0);
        return;
    }
    int32_t d = sv_psn_diff(h->psn, qp->expected_psn);
    if (d > 0) {
        c->rx_ignore = true; // behind a dropped message: go-back-N will resend it
        return;
    }
    if (d < 0) {
        c->rx_ignore = true;
        if (h->type == SV_MSG_READ_REQ)
            sv_execute_read(c, h, true);
        else
            sv_respond(c, SV_MSG_ACK, (qp->expected_psn - 1) & SV_PSN_MASK, 0, 0, NULL, 0);
        return;
    }
    switch (h->type) {
    case SV_MSG_SEND:
    case SV_MSG_SEND_IMM: {
        if (qp->rq_head == qp->rq_tail) {
            c->rx_ignore = true;
            sv_respond(c, SV_MSG_NAK, h->psn, SV_NAK_RNR, qp->min_rnr_timer, NULL, 0);
            return;
        }
        struct sv_recv_slot *r = sv_rq_slot(qp, qp->rq_head);
        uint64_t room = 0;
        for (int i = 0; i < r->num_sge; i++)
            room += r->sge[i].length;
        c->rx_take_recv = true;
        if (room < h->payload_len) {
            c->rx_status = IBV_WC_LOC_LEN_ERR;
            return;
        }
        c->plan.discard = false;
        c->plan.nseg = r->num_sge;
        memcpy(c->plan.segs, r->sge, sizeof(r->sge[0]) * (size_t)r->num_sge);
        c->plan.access = IBV_ACCESS_LOCAL_WRITE;
        c->plan.pd = qp->pd;
        return;
    }
    case SV_MSG_WRITE:
    case SV_MSG_WRITE_IMM:
        if (h->type == SV_MSG_WRITE_IMM) {
            if (qp->rq_head == qp->rq_tail) {
                c->rx_ignore = true;
                sv_respond(c, SV_MSG_NAK, h->psn, SV_NAK_RNR, qp->min_rnr_timer, NULL, 0);
                return;
            }
            c->rx_take_recv = true;
        }
        if (h->payload_len == 0)
            return; // a zero-length write checks no key, as on hardware
        if (!(qp->access_flags & IBV_ACCESS_REMOTE_WRITE) || h->payload_len > SV_MAX_MSG_SZ ||
            !sv_translate(h->rkey, h->remote_addr, h->payload_len, IBV_ACCESS_REMOTE_WRITE, qp->pd)) {
            c->rx_status = IBV_WC_REM_ACCESS_ERR;
            return;
        }
        c->plan.discard = false;
        c->plan.nseg = 1;
        c->plan.use_rkey = true;
        c->plan.segs[0] = (struct sv_sge){h->remote_addr, (uint32_t)h->payload_len, h->rkey};
        c->plan.access = IBV_ACCESS_REMOTE_WRITE;
        c->plan.pd = qp->pd;
        return;
    case SV_MSG_READ_REQ:
        c->rx_ignore = true;
        sv_execute_read(c, h, false);
        return;
    default:
        c->rx_ignore = true;
        sv_responder_error(c, h->psn, SV_NAK_INV_REQ);
        return;
    }
}

static void sv_request_complete(struct sv_conn *c)
{
    const struct sv_wire *h = &c->rx_hdr;
    struct sv_qp *qp = c->qp;
    if (c->rx_ignore)
        return;
    // A message cut short is dropped as a whole, even if the port came back before its end.
    if (c->rx_cut || !sv_conn_accepting(c)) {
        sv_respond(c, SV_MSG_DROP, h->psn, 0, 0, NULL, 0);
        return;
    }
    bool imm = h->type == SV_MSG_SEND_IMM || h->type == SV_MSG_WRITE_IMM;
    if (c->rx_take_recv) {
        struct sv_recv_slot *r = sv_rq_slot(qp, qp->rq_head++);
        struct ibv_wc wc;
        memset(&wc, 0, sizeof(wc));
        wc.wr_id = r->wr_id;
        wc.status = c->rx_status;
        wc.opcode = h->type == SV_MSG_WRITE_IMM ? IBV_WC_RECV_RDMA_WITH_IMM : IBV_WC_RECV;
        wc.qp_num = qp->qp.qp_num;
        wc.src_qp = c->peer_qpn;
        if (c->rx_status == IBV_WC_SUCCESS) {
            wc.byte_len = (uint32_t)h->payload_len;
            if (imm) {
                wc.wc_flags = IBV_WC_WITH_IMM;
                wc.imm_data = h->imm_be;
            }
        } else {
            wc.vendor_err = 0x100 + c->rx_status;
        }
        // A remote access error is the requester's fault: no receive is consumed for it.
        if (c->rx_status != IBV_WC_REM_ACCESS_ERR)
            sv_cq_push(qp->rcq, &wc);
        else
            qp->rq_head--;
    }
    switch (c->rx_status) {
    case IBV_WC_SUCCESS:
        qp->expected_psn = (qp->expected_psn + 1) & SV_PSN_MASK;
        sv_respond(c, SV_MSG_ACK, h->psn, 0, 0, NULL, 0);
        return;
    case IBV_WC_LOC_LEN_ERR:
        sv_responder_error(c, h->psn, SV_NAK_INV_REQ);
        return;
    case IBV_WC_REM_ACCESS_ERR:
        sv_responder_error(c, h->psn, SV_NAK_REM_ACCESS);
        return;
    default:
        sv_responder_error(c, h->psn, SV_NAK_REM_OP);
        return;
    }
}

// ---- requester: responses ----

static void sv_response_header(struct sv_conn *c)
{
    const struct sv_wire *h = &c->rx_hdr;
    struct sv_qp *qp = c->qp;
    c->rx_ignore = true;
    if (qp->state != IBV_QPS_RTS)
        return;
    switch (h->type) {
    case SV_MSG_ACK:
        sv_qp_ack_through(qp, h->psn);
        sv_qp_check_local_error(qp);
        return;
    case SV_MSG_NAK:
        sv_qp_ack_through(qp, (h->psn - 1) & SV_PSN_MASK);
        if (qp->sq_head == qp->sq_tx || sv_sq_slot(qp, qp->sq_head)->psn != h->psn)
            return;
        if (h->code == SV_NAK_RNR) {
            if (qp->retry_pending)
                return;
            // The counter is checked when the NAK arrives, as the spec's requester and rxe_comp.c do:
            // with none left the WR fails now, without waiting out one more RNR timer.
            if (qp->rnr_retry != 7) { // 7 means retry forever
                if (qp->rnr_left == 0) {
                    sv_fail_head(qp, IBV_WC_RNR_RETRY_EXC_ERR);
                    return;
                }
                qp->rnr_left--;
            }
            sv_arm_retry(qp, true, sv_rnr_timer_ns(h->rnr_timer));
            return;
        }
        sv_fail_head(qp, h->code == SV_NAK_REM_ACCESS ? IBV_WC_REM_ACCESS_ERR
                         : h->code == SV_NAK_INV_REQ  ? IBV_WC_REM_INV_REQ_ERR
                                                      : IBV_WC_REM_OP_ERR);
        return;
    case SV_MSG_DROP:
        if (!qp->retry_pending && qp->sq_head != qp->sq_tx && sv_sq_slot(qp, qp->sq_head)->psn == h->psn)
            sv_arm_retry(qp, false, sv_ack_timeout_ns(qp));
        return;
    case SV_MSG_READ_RESP: {
        sv_qp_ack_through(qp, (h->psn - 1) & SV_PSN_MASK);
        if (qp->sq_head == qp->sq_tx)
            return;
        struct sv_send_slot *s = sv_sq_slot(qp, qp->sq_head);
        if (s->opcode != IBV_WR_RDMA_READ || s->psn != h->psn || h->payload_len != s->length)
            return; // a response to a retransmitted duplicate
        c->rx_ignore = false;
        c->plan.discard = false;
        c->plan.nseg = s->num_sge;
        memcpy(c->plan.segs, s->sge, sizeof(s->sge[0]) * (size_t)s->num_sge);
        c->plan.access = IBV_ACCESS_LOCAL_WRITE;
        c->plan.pd = qp->pd;
        return;
    }
    default:
        return;
    }
}

static void sv_response_complete(struct sv_conn *c)
{
    struct sv_qp *qp = c->qp;
    if (c->rx_ignore || qp->state != IBV_QPS_RTS || qp->sq_head == qp->sq_tx)
        return;
    if (c->rx_status != IBV_WC_SUCCESS) {
        sv_fail_head(qp, c->rx_status == IBV_WC_LOC_LEN_ERR ? IBV_WC_LOC_LEN_ERR : IBV_WC_LOC_PROT_ERR);
        return;
    }
    sv_sq_complete_head(qp, IBV_WC_SUCCESS, (uint32_t)c->rx_total);
    qp->retry_left = qp->retry_cnt;
    qp->rnr_left = qp->rnr_retry;
    qp->progress_ns = sv_now_ns();
    sv_qp_check_local_error(qp);
}

// ---- receive loop ----

static void sv_rx_header(struct sv_conn *c)
{
    c->rx_total = c->rx_left = c->rx_hdr.payload_len;
    c->rx_status = IBV_WC_SUCCESS;
    c->rx_take_recv = false;
    c->rx_ignore = false;
    c->rx_cut = false;
    sv_plan_reset(c);
    if (c->requester)
        sv_response_header(c);
    else
        sv_request_header(c);
}

static void sv_rx_complete(struct sv_conn *c)
{
    if (c->requester)
        sv_response_complete(c);
    else
        sv_request_complete(c);
}

static void sv_conn_read(struct sv_conn *c);

static void sv_conn_readable(struct sv_conn *c)
{
    c->rx_reading = true;
    sv_conn_read(c);
    c->rx_reading = false;
    if (!c->dead && c->txq_head)
        sv_conn_flush(c);
}

// Reads and executes the messages that have arrived, in at most 256 reads.
static void sv_conn_read(struct sv_conn *c)
{
    for (int budget = 0; budget < 256 && !c->dead; budget++) {
        ssize_t n;
        if (!c->rx_in_payload) {
            n = recv(c->fd, (char *)&c->rx_hdr + c->rx_hdr_got, sizeof(c->rx_hdr) - c->rx_hdr_got, MSG_DONTWAIT);
            if (n > 0) {
                c->rx_hdr_got += (size_t)n;
                if (c->rx_hdr_got == sizeof(c->rx_hdr)) {
                    c->rx_hdr_got = 0;
                    sv_rx_header(c);
                    if (c->dead)
                        return;
                    if (c->rx_left == 0)
                        sv_rx_complete(c);
                    else
                        c->rx_in_payload = true;
                }
                continue;
            }
        } else {
            struct iovec iov[SV_MAX_SGE];
            int cnt = (c->rx_ignore && c->plan.discard) ? 0 : sv_plan_iov(c, iov);
            if (cnt == 0) {
                uint64_t len = c->rx_left < sizeof(sv_discard_buf) ? c->rx_left : sizeof(sv_discard_buf);
                iov[0] = (struct iovec){sv_discard_buf, len};
                cnt = 1;
            }
            n = readv(c->fd, iov, cnt);
            if (n > 0) {
                sv_plan_advance(c, (uint64_t)n);
                c->rx_left -= (uint64_t)n;
                if (c->rx_left == 0) {
                    c->rx_in_payload = false;
                    sv_rx_complete(c);
                }
                continue;
            }
        }
        if (n == 0) {
            sv_conn_lost(c);
            return;
        }
        if (errno == EINTR)
            continue;
        if (errno != EAGAIN && errno != EWOULDBLOCK)
            sv_conn_lost(c);
        return;
    }
}

static void sv_listener_ready(struct sv_listener *l)
{
    for (;;) {
        int fd = accept4(l->fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (fd < 0)
            return;
        struct sv_conn *c = sv_conn_new(fd, l->qp, false);
        if (!c) {
            close(fd);
            continue;
        }
        c->next_in = l->qp->in_list;
        l->qp->in_list = c;
    }
}

// ---- verbs data path ----

int sv_post_send(struct ibv_qp *ibqp, struct ibv_send_wr *wr, struct ibv_send_wr **bad_wr)
{
    struct sv_qp *qp = sv_qp_of(ibqp);
    int rc = 0;
    pthread_mutex_lock(&sv.lock);
    if (qp->state != IBV_QPS_RTS && qp->state != IBV_QPS_ERR)
        rc = EINVAL;
    for (; wr && !rc; wr = wr->next) {
        switch (wr->opcode) {
        case IBV_WR_SEND:
        case IBV_WR_SEND_WITH_IMM:
        case IBV_WR_RDMA_WRITE:
        case IBV_WR_RDMA_WRITE_WITH_IMM:
        case IBV_WR_RDMA_READ:
            break;
        default:
            rc = EOPNOTSUPP; // atomics, MW binds, TSO, local invalidate
            break;
        }
        if (rc)
            break;
        if (wr->num_sge < 0 || (uint32_t)wr->num_sge > qp->cap.max_send_sge) {
            rc = EINVAL;
            break;
        }
        bool is_inline = (wr->send_flags & IBV_SEND_INLINE) && wr->opcode != IBV_WR_RDMA_READ;
        uint64_t len = 0;
        for (int i = 0; i < wr->num_sge; i++)
            len += wr->sg_list[i].length;
        if (is_inline && len > qp->cap.max_inline_data) {
            rc = EINVAL;
            break;
        }
        if (qp->sq_tail - qp->sq_head >= qp->cap.max_send_wr) {
            rc = ENOMEM;
            break;
        }
        if (qp->state == IBV_QPS_ERR) {
            sv_push_wc(qp->scq, qp, wr->wr_id, IBV_WC_WR_FLUSH_ERR, sv_wc_opcode(wr->opcode), 0);
            continue;
        }
        struct sv_send_slot *s = sv_sq_slot(qp, qp->sq_tail);
        s->wr_id = wr->wr_id;
        s->opcode = wr->opcode;
        s->signaled = qp->sq_sig_all || (wr->send_flags & IBV_SEND_SIGNALED);
        s->is_inline = is_inline;
        s->local_error = IBV_WC_SUCCESS;
        s->length = len;
        s->imm_be = (wr->opcode == IBV_WR_SEND_WITH_IMM || wr->opcode == IBV_WR_RDMA_WRITE_WITH_IMM) ? wr->imm_data : 0;
        s->remote_addr = wr->wr.rdma.remote_addr;
        s->rkey = wr->wr.rdma.rkey;
        s->psn = qp->next_psn;
        qp->next_psn = (qp->next_psn + 1) & SV_PSN_MASK;
        s->num_sge = wr->num_sge;
        if (is_inline) {
            size_t off = 0;
            for (int i = 0; i < wr->num_sge; i++) {
                memcpy(s->inline_data + off, (void *)(uintptr_t)wr->sg_list[i].addr, wr->sg_list[i].length);
                off += wr->sg_list[i].length;
            }
        } else {
            for (int i = 0; i < wr->num_sge; i++)
                s->sge[i] = (struct sv_sge){wr->sg_list[i].addr, wr->sg_list[i].length, wr->sg_list[i].lkey};
        }
        qp->sq_tail++;
    }
    // The failing WR itself, as rdma-core's providers report it: those before it stay posted.
    if (rc && bad_wr)
        *bad_wr = wr;
    if (qp->state == IBV_QPS_RTS) {
        sv_qp_transmit(qp);
        sv_qp_kick_timers(qp);
    }
    pthread_mutex_unlock(&sv.lock);
    return rc;
}

int sv_post_recv(struct ibv_qp *ibqp, struct ibv_recv_wr *wr, struct ibv_recv_wr **bad_wr)
{
    struct sv_qp *qp = sv_qp_of(ibqp);
    int rc = 0;
    pthread_mutex_lock(&sv.lock);
    if (qp->state == IBV_QPS_RESET)
        rc = EINVAL;
    for (; wr && !rc; wr = wr->next) {
        if (wr->num_sge < 0 || (uint32_t)wr->num_sge > qp->cap.max_recv_sge) {
            rc = EINVAL;
            break;
        }
        if (qp->rq_tail - qp->rq_head >= qp->cap.max_recv_wr) {
            rc = ENOMEM;
            break;
        }
        if (qp->state == IBV_QPS_ERR) {
            sv_push_wc(qp->rcq, qp, wr->wr_id, IBV_WC_WR_FLUSH_ERR, IBV_WC_RECV, 0);
            continue;
        }
        struct sv_recv_slot *r = sv_rq_slot(qp, qp->rq_tail);
        r->wr_id = wr->wr_id;
        r->num_sge = wr->num_sge;
        for (int i = 0; i < wr->num_sge; i++)
            r->sge[i] = (struct sv_sge){wr->sg_list[i].addr, wr->sg_list[i].length, wr->sg_list[i].lkey};
        qp->rq_tail++;
    }
    // The failing WR itself, as rdma-core's providers report it: those before it stay posted.
    if (rc && bad_wr)
        *bad_wr = wr;
    pthread_mutex_unlock(&sv.lock);
    return rc;
}

// Handles one epoll batch; sv.lock held. Only the progress thread reaps, so a connection killed
// while another batch is pending stays readable memory until that batch is done.
static void sv_dispatch(const struct epoll_event *evs, int n, bool progress_thread)
{
    for (int i = 0; i < n; i++) {
        int kind = *(int *)evs[i].data.ptr;
        if (kind == SV_POLL_KICK) {
            // A kick is for the progress thread's timers; a helper must not swallow it.
            if (!progress_thread)
                continue;
            uint64_t v;
            ssize_t r = read(sv.kickfd, &v, sizeof(v));
            (void)r;
        } else if (kind == SV_POLL_LISTEN) {
            struct sv_listener *l = evs[i].data.ptr;
            if (!l->dead)
                sv_listener_ready(l);
        } else {
            struct sv_conn *c = evs[i].data.ptr;
            if (!c->dead && (evs[i].events & (EPOLLIN | EPOLLHUP | EPOLLERR)))
                sv_conn_readable(c);
            if (!c->dead && (evs[i].events & EPOLLOUT)) {
                sv_conn_flush(c);
                if (c->requester && !c->dead)
                    sv_qp_transmit(c->qp);
            }
        }
    }
}

// A thread that polls an empty CQ lends itself to the engine, so busy-polling peers do not
// depend on the progress thread being scheduled (two busy pollers can fill both cores).
static void sv_help_progress(bool stays_polling)
{
    int n = 0;
    if (pthread_mutex_trylock(&sv.lock) != 0)
        return;
    if (sv.started) {
        if (stays_polling)
            __atomic_store_n(&sv.helper_ns, sv_now_ns(), __ATOMIC_RELAXED);
        struct epoll_event evs[16];
        n = epoll_wait(sv.epfd, evs, 16, 0);
        if (n > 0)
            sv_dispatch(evs, n, false);
    }
    pthread_mutex_unlock(&sv.lock);
    // Nothing to do: let the peer (often on the same core of a small CI machine) run instead.
    if (n <= 0)
        sched_yield();
}

// How long the progress thread trusts a busy poller's last help; tests stretch it (below).
static uint64_t sv_helper_window_ns = SV_HELPER_ACTIVE_NS;

// softverbs' own test hook (not a libibverbs function): sets how long the progress thread leaves
// arriving packets to a thread that last polled that long ago, forgets the last such poll, and
// returns the previous window. A test stretches the window so that a poller wrongly taken for a
// helper shows as a lost wake-up rather than as a delay of up to 1 ms that only a clock could see.
SV_EXPORT uint64_t softverbs_set_helper_window_ns(uint64_t ns)
{
    __atomic_store_n(&sv.helper_ns, 0, __ATOMIC_RELAXED);
    return __atomic_exchange_n(&sv_helper_window_ns, ns, __ATOMIC_RELAXED);
}

// ---- progress thread ----

static void *sv_progress_main(void *arg)
{
    (void)arg;
    struct epoll_event evs[64];
    pthread_mutex_lock(&sv.lock);
    for (;;) {
        uint64_t now = sv_now_ns();
        uint64_t next = sv_run_timers(now);
        sv_reap();
        int timeout_ms = -1;
        if (next != SV_NS_INF) {
            now = sv_now_ns();
            uint64_t wait = next > now ? next - now : 0;
            timeout_ms = (int)((wait + 999999) / 1000000);
            if (timeout_ms > 1000)
                timeout_ms = 1000;
        }
        sv.sleep_until_ns = next == SV_NS_INF ? SV_NS_INF - 1 : next;
        int epfd = sv.epfd;
        int kickfd = sv.kickfd;
        // 0: no thread has helped yet (a monotonic clock can be younger than a stretched window,
        // in a guest that has just booted).
        uint64_t helper_ns = __atomic_load_n(&sv.helper_ns, __ATOMIC_RELAXED);
        bool helped = helper_ns != 0
                      && sv_now_ns() - helper_ns < __atomic_load_n(&sv_helper_window_ns, __ATOMIC_RELAXED);
        pthread_mutex_unlock(&sv.lock);
        if (helped) {
            // An application thread is busy-polling and moves the data itself: waking up for
            // every packet would only steal its CPU and its lock. Keep the timers and watch.
            struct pollfd pfd = {.fd = kickfd, .events = POLLIN};
            if (poll(&pfd, 1, timeout_ms >= 0 && timeout_ms < 1 ? timeout_ms : 1) > 0) {
                uint64_t v;
                ssize_t r = read(kickfd, &v, sizeof(v));
                (void)r;
            }
            pthread_mutex_lock(&sv.lock);
            sv.sleep_until_ns = 0;
            continue;
        }
        int n = epoll_wait(epfd, evs, 64, timeout_ms);
        pthread_mutex_lock(&sv.lock);
        sv.sleep_until_ns = 0;
        sv_dispatch(evs, n, true);
    }
    return NULL;
}

static void sv_atfork_prepare(void) { pthread_mutex_lock(&sv.lock); }
static void sv_atfork_parent(void) { pthread_mutex_unlock(&sv.lock); }

// The child has no progress thread and shares the parent's sockets: it forgets every QP (without
// unlinking the parent's socket files) so that a parent's death is still seen by its peers.
static void sv_atfork_child(void)
{
    pthread_mutex_init(&sv.lock, NULL);
    for (struct sv_qp *qp = sv.qps; qp; qp = qp->next_all) {
        if (qp->out)
            close(qp->out->fd);
        for (struct sv_conn *c = qp->in_list; c; c = c->next_in)
            close(c->fd);
        if (qp->listener)
            close(qp->listener->fd);
        qp->state = IBV_QPS_ERR;
    }
    sv.qps = NULL;
    sv.dead_conns = NULL;
    sv.dead_listeners = NULL;
    if (sv.epfd >= 0)
        close(sv.epfd);
    if (sv.kickfd >= 0)
        close(sv.kickfd);
    sv.epfd = sv.kickfd = -1;
    sv.started = false;
}

__attribute__((constructor)) static void sv_init(void)
{
    pthread_atfork(sv_atfork_prepare, sv_atfork_parent, sv_atfork_child);
}

int sv_engine_start(void)
{
    pthread_mutex_lock(&sv.lock);
    if (sv.started) {
        pthread_mutex_unlock(&sv.lock);
        return 0;
    }
    const char *dir = getenv("SOFTVERBS_DIR");
    if (dir && *dir) {
        snprintf(sv.dir, sizeof(sv.dir), "%s", dir);
        mkdir(sv.dir, 0777);
    } else {
        snprintf(sv.dir, sizeof(sv.dir), "/tmp/softverbs-%u", (unsigned)getuid());
        mkdir(sv.dir, 0700);
    }
    struct stat st;
    if (stat(sv.dir, &st) != 0 || !S_ISDIR(st.st_mode) || strlen(sv.dir) + 12 > sizeof(((struct sockaddr_un *)0)->sun_path)) {
        fprintf(stderr, "softverbs: cannot use directory '%s' (set SOFTVERBS_DIR to a short writable path)\n", sv.dir);
        pthread_mutex_unlock(&sv.lock);
        errno = ENODEV;
        return -1;
    }
    sv.epfd = epoll_create1(EPOLL_CLOEXEC);
    sv.kickfd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    struct epoll_event ev = {.events = EPOLLIN, .data.ptr = &sv_kick_handle};
    if (sv.epfd < 0 || sv.kickfd < 0 || epoll_ctl(sv.epfd, EPOLL_CTL_ADD, sv.kickfd, &ev) != 0) {
        int err = errno;
        pthread_mutex_unlock(&sv.lock);
        errno = err;
        return -1;
    }
    // The progress thread must never take a process signal meant for the application.
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    pthread_t t;
    int rc = pthread_create(&t, &attr, sv_progress_main, NULL);
    pthread_attr_destroy(&attr);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (rc) {
        pthread_mutex_unlock(&sv.lock);
        errno = rc;
        return -1;
    }
    sv.started = true;
    sv.pid = getpid();
    pthread_mutex_unlock(&sv.lock);
    return 0;
}
