// Throughput probe (not a test, asserts nothing about time): RDMA WRITEs of SIZE bytes (default
// 12 MiB) from this process into a region of a forked peer process, one outstanding at a time,
// and a 64-byte SEND/RECV ping-pong between the same two processes. Prints GB/s and round-trip µs.
// Usage: bench_write [size_bytes] [iterations]
#include "sv_test.h"

#include <signal.h>
#include <sys/wait.h>

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

struct xinfo {
    uint32_t qpn, rkey;
    uint64_t addr;
};

int main(int argc, char **argv)
{
    size_t size = argc > 1 ? strtoull(argv[1], NULL, 0) : 12u << 20;
    int iters = argc > 2 ? atoi(argv[2]) : 40;
    int a[2], b[2];
    if (pipe(a) || pipe(b))
        return 1;
    const struct t_conn_opts co = {.timeout = 14, .retry_cnt = 7, .rnr_retry = 7, .min_rnr_timer = 1};
    struct t_ep_opts o = {.size = size, .max_send_wr = 16, .max_recv_wr = 16};
    pid_t pid = fork();
    int rfd = pid == 0 ? a[0] : b[0], wfd = pid == 0 ? b[1] : a[1];
    struct ibv_context *ctx = t_open();
    struct t_ep ep;
    if (!ctx || t_ep_open(&ep, ctx, &o))
        return 2;
    struct xinfo me = {ep.qp->qp_num, ep.mr->rkey, (uintptr_t)ep.buf}, peer;
    if (write(wfd, &me, sizeof(me)) != sizeof(me) || read(rfd, &peer, sizeof(peer)) != sizeof(peer))
        return 3;
    if (t_ep_connect(&ep, peer.qpn, &co))
        return 4;
    struct ibv_wc wc;
    int pp = 20000;
    if (pid == 0) {
        // Peer: echo ping-pong messages; the writes land without any verb being called here.
        for (int i = 0; i < pp + 100; i++) {
            if (t_post_recv(&ep, 1, 0, 64))
                _exit(5);
            if (i == 0) {
                char go = 1;
                if (write(wfd, &go, 1) != 1)
                    _exit(6);
            }
            if (!t_wait_wc(ep.rcq, &wc, 60000) || wc.status != IBV_WC_SUCCESS)
                _exit(7);
            t_post(&ep, IBV_WR_SEND, 2, 64, 64, 0, 0, IBV_SEND_SIGNALED | IBV_SEND_INLINE, 0);
            if (!t_wait_wc(ep.scq, &wc, 60000))
                _exit(8);
        }
        _exit(0);
    }
    char go;
    if (read(rfd, &go, 1) != 1)
        return 9;
    memset(ep.buf, 0xab, size);
    for (int warm = 0; warm < 3; warm++) {
        t_post(&ep, IBV_WR_RDMA_WRITE, 1, 0, (uint32_t)size, peer.addr, peer.rkey, IBV_SEND_SIGNALED, 0);
        if (!t_wait_wc(ep.scq, &wc, 60000) || wc.status != IBV_WC_SUCCESS)
            return 10;
    }
    double t0 = now_s();
    for (int i = 0; i < iters; i++) {
        t_post(&ep, IBV_WR_RDMA_WRITE, 1, 0, (uint32_t)size, peer.addr, peer.rkey, IBV_SEND_SIGNALED, 0);
        if (!t_wait_wc(ep.scq, &wc, 60000) || wc.status != IBV_WC_SUCCESS)
            return 11;
    }
    double t1 = now_s();
    printf("rdma_write size=%zu iterations=%d: %.2f GB/s (%.2f ms per write)\n", size, iters,
           (double)size * iters / (t1 - t0) / 1e9, (t1 - t0) * 1e3 / iters);
    double *rtt = calloc((size_t)pp, sizeof(double));
    for (int i = 0; i < pp + 100; i++) {
        double s = now_s();
        t_post_recv(&ep, 3, 128, 64);
        t_post(&ep, IBV_WR_SEND, 4, 0, 64, 0, 0, IBV_SEND_SIGNALED | IBV_SEND_INLINE, 0);
        if (!t_wait_wc(ep.rcq, &wc, 60000) || !t_wait_wc(ep.scq, &wc, 60000))
            return 12;
        if (i >= 100)
            rtt[i - 100] = (now_s() - s) * 1e6;
    }
    for (int i = 1; i < pp; i++) // insertion sort is fine for a one-off report
        for (int j = i; j > 0 && rtt[j] < rtt[j - 1]; j--) {
            double x = rtt[j];
            rtt[j] = rtt[j - 1];
            rtt[j - 1] = x;
        }
    printf("send_pingpong 64B n=%d: p50 %.1f us, p99 %.1f us, p99.9 %.1f us, max %.1f us (busy-poll)\n", pp,
           rtt[pp / 2], rtt[pp * 99 / 100], rtt[pp * 999 / 1000], rtt[pp - 1]);
    int st;
    waitpid(pid, &st, 0);
    t_ep_close(&ep);
    ibv_close_device(ctx);
    return 0;
}
