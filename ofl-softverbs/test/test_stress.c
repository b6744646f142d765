// Stress: 16 RC QP pairs between two processes, driven by 4 threads on each side. Every round
// the client WRITEs a round-specific pattern into the server's region and SENDs the round number;
// the server checks the pattern is fully placed when the SEND arrives (in-order placement) and
// echoes the round with WRITE WITH IMMEDIATE. Checks data, ordering and thread safety.
#include "sv_test.h"

#include <pthread.h>
#include <sys/wait.h>

#define NQP 16
#define NTHREADS 4
#define ROUNDS 500 // SV_TEST_ROUNDS overrides (the rxe guest runs fewer: it is emulated)
#define CHUNK 8192

struct xinfo {
    uint32_t qpn[NQP];
    uint32_t rkey[NQP];
    uint64_t addr[NQP];
};

static struct ibv_context *ctx;
static struct t_ep eps[NQP];
static struct xinfo peer;
static int role; // 0 client, 1 server
static int errors;
static int rounds = ROUNDS;

static const struct t_conn_opts conn = {.timeout = 14, .retry_cnt = 7, .rnr_retry = 7, .min_rnr_timer = 1};

static uint8_t pattern(int q, int round, int i) { return (uint8_t)(q * 31 + round * 7 + i); }

static void *client_thread(void *arg)
{
    int t = (int)(intptr_t)arg;
    for (int round = 0; round < rounds; round++) {
        for (int q = t; q < NQP; q += NTHREADS) {
            struct t_ep *ep = &eps[q];
            for (int i = 0; i < CHUNK; i++)
                ep->buf[i] = pattern(q, round, i);
            *(uint32_t *)(ep->buf + CHUNK) = (uint32_t)round;
            if (t_post_recv(ep, 1, 2 * CHUNK, 64) ||
                t_post(ep, IBV_WR_RDMA_WRITE, 1, 0, CHUNK, peer.addr[q], peer.rkey[q], 0, 0) ||
                t_post(ep, IBV_WR_SEND, 2, CHUNK, 4, 0, 0, IBV_SEND_SIGNALED, 0)) {
                __atomic_add_fetch(&errors, 1, __ATOMIC_RELAXED);
                return NULL;
            }
        }
        for (int q = t; q < NQP; q += NTHREADS) {
            struct ibv_wc wc;
            struct t_ep *ep = &eps[q];
            if (!t_wait_wc(ep->scq, &wc, 10000) || wc.status != IBV_WC_SUCCESS ||
                !t_wait_wc(ep->rcq, &wc, 10000) || wc.status != IBV_WC_SUCCESS ||
                wc.opcode != IBV_WC_RECV_RDMA_WITH_IMM || ntohl(wc.imm_data) != (uint32_t)round) {
                fprintf(stderr, "client qp %d round %d: status %d\n", q, round, wc.status);
                __atomic_add_fetch(&errors, 1, __ATOMIC_RELAXED);
                return NULL;
            }
        }
    }
    return NULL;
}

static void *server_thread(void *arg)
{
    int t = (int)(intptr_t)arg;
    for (int round = 0; round < rounds; round++) {
        for (int q = t; q < NQP; q += NTHREADS) {
            struct t_ep *ep = &eps[q];
            struct ibv_wc wc;
            if (!t_wait_wc(ep->rcq, &wc, 10000) || wc.status != IBV_WC_SUCCESS) {
                __atomic_add_fetch(&errors, 1, __ATOMIC_RELAXED);
                return NULL;
            }
            uint32_t got = *(uint32_t *)(ep->buf + 2 * CHUNK);
            int ok = got == (uint32_t)round;
            for (int i = 0; i < CHUNK && ok; i++)
                ok = ep->buf[i] == pattern(q, round, i);
            if (!ok) {
                fprintf(stderr, "server qp %d round %d: data not in place\n", q, round);
                __atomic_add_fetch(&errors, 1, __ATOMIC_RELAXED);
                return NULL;
            }
            if (t_post_recv(ep, 1, 2 * CHUNK, 64) ||
                t_post(ep, IBV_WR_RDMA_WRITE_WITH_IMM, 3, 0, 16, peer.addr[q] + 3 * CHUNK, peer.rkey[q],
                       IBV_SEND_SIGNALED, (uint32_t)round)) {
                __atomic_add_fetch(&errors, 1, __ATOMIC_RELAXED);
                return NULL;
            }
            if (!t_wait_wc(ep->scq, &wc, 10000) || wc.status != IBV_WC_SUCCESS) {
                __atomic_add_fetch(&errors, 1, __ATOMIC_RELAXED);
                return NULL;
            }
        }
    }
    return NULL;
}

static int run_side(int rfd, int wfd, int server)
{
    role = server;
    ctx = t_open();
    if (!ctx)
        return 1;
    struct t_ep_opts o = {.size = 4 * CHUNK, .max_send_wr = 8, .max_recv_wr = 8};
    struct xinfo me;
    for (int q = 0; q < NQP; q++) {
        if (t_ep_open(&eps[q], ctx, &o))
            return 2;
        me.qpn[q] = eps[q].qp->qp_num;
        me.rkey[q] = eps[q].mr->rkey;
        me.addr[q] = (uintptr_t)eps[q].buf;
        if (server && t_post_recv(&eps[q], 1, 2 * CHUNK, 64))
            return 3;
    }
    if (write(wfd, &me, sizeof(me)) != sizeof(me) || read(rfd, &peer, sizeof(peer)) != sizeof(peer))
        return 4;
    for (int q = 0; q < NQP; q++)
        if (t_ep_connect(&eps[q], peer.qpn[q], &conn))
            return 5;
    char go = 1;
    if (write(wfd, &go, 1) != 1 || read(rfd, &go, 1) != 1)
        return 6;
    pthread_t th[NTHREADS];
    for (int t = 0; t < NTHREADS; t++)
        pthread_create(&th[t], NULL, server ? server_thread : client_thread, (void *)(intptr_t)t);
    for (int t = 0; t < NTHREADS; t++)
        pthread_join(th[t], NULL);
    for (int q = 0; q < NQP; q++)
        t_ep_close(&eps[q]);
    ibv_close_device(ctx);
    return errors ? 7 : 0;
}

static int child_status = -1, parent_status = -1;

static void stress_two_processes_many_qps(void)
{
    int a[2], b[2];
    REQUIRE(pipe(a) == 0 && pipe(b) == 0);
    pid_t pid = fork();
    REQUIRE(pid >= 0);
    if (pid == 0)
        _exit(run_side(a[0], b[1], 1));
    parent_status = run_side(b[0], a[1], 0);
    // Never wait unboundedly for the child.
    for (int i = 0; i < 3000; i++) {
        if (waitpid(pid, &child_status, WNOHANG) == pid)
            break;
        usleep(10000);
    }
    if (child_status == -1)
        kill(pid, SIGKILL);
    CHECK(parent_status == 0);
    CHECK(WIFEXITED(child_status) && WEXITSTATUS(child_status) == 0);
}

int main(void)
{
    const char *r = getenv("SV_TEST_ROUNDS");
    if (r && atoi(r) > 0)
        rounds = atoi(r);
    RUN(stress_two_processes_many_qps);
    return t_summary();
}
