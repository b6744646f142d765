/*
 * tcp_peer: a plain C TCP request/response client and server, the baseline the ofl TCP backend is
 * measured against. Same shape as ofl's cases: the client sends a 64-byte request naming the
 * response length; the server writes that many bytes of a pattern derived from the iteration and
 * sends them; the client reads them all and checks every byte.
 *
 *   tcp_peer server ADDR PORT busy|blocking [CPU]
 *   tcp_peer client ADDR PORT busy|blocking RESPONSE_BYTES ITERATIONS WARMUP [CPU]
 *
 * With CPU, the process runs on that CPU only (as ofl-bench's --cpu pins its client and server).
 * Prints p50/p99/p99.9/max in microseconds and MB/s (response bytes / mean RTT).
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <endian.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static int busy;

static void die(const char *what) {
    perror(what);
    exit(2);
}

static uint64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static int read_fully(int fd, void *buf, size_t len) {
    size_t at = 0;
    while (at < len) {
        ssize_t n = recv(fd, (char *)buf + at, len - at, busy ? MSG_DONTWAIT : 0);
        if (n > 0) {
            at += (size_t)n;
        } else if (n == 0) {
            return -1;
        } else if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
            return -1;
        }
    }
    return 0;
}

static int write_fully(int fd, const void *buf, size_t len) {
    size_t at = 0;
    while (at < len) {
        ssize_t n = send(fd, (const char *)buf + at, len - at, MSG_NOSIGNAL);
        if (n > 0) {
            at += (size_t)n;
        } else if (n < 0 && errno != EAGAIN && errno != EINTR) {
            return -1;
        }
    }
    return 0;
}

static void tune(int fd) {
    int one = 1, size = 4 << 20;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &size, sizeof size);
    setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, sizeof size);
}

/* The response pattern of ofl-bench's StreamPattern (stream 2): little-endian words, the first a
 * SplitMix64 finaliser of the iteration, each next one a fixed step on. The server writes every
 * byte of every response, as an ofl handler that writes its response in place does, so the two
 * servers do the same work per request; the client checks every byte. StreamPatternTest holds the
 * first words of iterations 0 and 1, which this code must give too. */
static const uint64_t WORD_STEP = 0x9E3779B97F4A7C15ull;

static uint64_t pattern_seed(uint64_t iteration) {
    uint64_t z = iteration * 0xBF58476D1CE4E5B9ull + 2 * 0x94D049BB133111EBull + 0x632BE59BD9B4E019ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static void fill(unsigned char *buf, uint64_t len, uint64_t iteration) {
    uint64_t word = pattern_seed(iteration), at = 0;
    for (; at + 8 <= len; at += 8, word += WORD_STEP) {
        uint64_t le = htole64(word);
        memcpy(buf + at, &le, 8);
    }
    for (int b = 0; at < len; at++, b++) buf[at] = (unsigned char)(word >> (8 * b));
}

static uint64_t check(const unsigned char *buf, uint64_t len, uint64_t iteration) {
    uint64_t word = pattern_seed(iteration), bad = 0, at = 0;
    for (; at + 8 <= len; at += 8, word += WORD_STEP) {
        uint64_t got;
        memcpy(&got, buf + at, 8);
        if (got != htole64(word)) {
            for (int b = 0; b < 8; b++) bad += buf[at + b] != (unsigned char)(word >> (8 * b));
        }
    }
    for (int b = 0; at < len; at++, b++) bad += buf[at] != (unsigned char)(word >> (8 * b));
    return bad;
}

static void usage(const char *self) {
    fprintf(stderr, "usage: %s server ADDR PORT busy|blocking [CPU] | client ADDR PORT busy|blocking BYTES ITER"
            " WARMUP [CPU]\n", self);
    exit(2);
}

/* A whole decimal number, or the usage and exit 2. */
static uint64_t number(const char *self, const char *text) {
    char *end;
    errno = 0;
    unsigned long long n = strtoull(text, &end, 10);
    if (end == text || *end || errno || text[0] == '-') usage(self);
    return n;
}

static void pin(const char *cpu) {
    char *end;
    long n = strtol(cpu, &end, 10);
    if (end == cpu || *end || n < 0 || n >= CPU_SETSIZE) {
        fprintf(stderr, "CPU '%s' is not a CPU number\n", cpu);
        exit(2);
    }
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET((int)n, &set);
    if (sched_setaffinity(0, sizeof set, &set)) die("sched_setaffinity");
}

static int cmp_u64(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv) {
    int server = argc >= 5 && strcmp(argv[1], "server") == 0;
    if (argc < 5 || argc > (server ? 6 : 9) || (!server && (strcmp(argv[1], "client") != 0 || argc < 8))) {
        usage(argv[0]);
    }
    if (strcmp(argv[4], "busy") != 0 && strcmp(argv[4], "blocking") != 0) usage(argv[0]);
    busy = strcmp(argv[4], "busy") == 0;
    uint64_t port = number(argv[0], argv[3]);
    if (port > 65535) usage(argv[0]);
    struct sockaddr_in addr = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    if (inet_pton(AF_INET, argv[2], &addr.sin_addr) != 1) die("inet_pton");
    if (server) {
        if (argc > 5) pin(argv[5]);
        int ls = socket(AF_INET, SOCK_STREAM, 0), one = 1;
        setsockopt(ls, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
        if (bind(ls, (struct sockaddr *)&addr, sizeof addr) || listen(ls, 4)) die("bind/listen");
        int fd = accept(ls, NULL, NULL);
        if (fd < 0) die("accept");
        tune(fd);
        unsigned char req[64];
        size_t cap = 0;
        unsigned char *resp = NULL;
        while (read_fully(fd, req, sizeof req) == 0) {
            uint64_t len, iteration;
            memcpy(&len, req, 8);
            memcpy(&iteration, req + 8, 8);
            if (len > (64u << 20)) break;
            if (len > cap) {
                unsigned char *grown = realloc(resp, len);
                if (!grown) die("realloc");
                resp = grown;
                cap = len;
            }
            fill(resp, len, iteration);
            if (write_fully(fd, resp, len)) break;
        }
        return 0;
    }
    uint64_t len = number(argv[0], argv[5]), iterations = number(argv[0], argv[6]), warmup = number(argv[0], argv[7]);
    if (len > (64u << 20) || iterations == 0) {
        fprintf(stderr, "BYTES must be at most 64 MiB and ITER at least 1\n");
        return 2;
    }
    if (argc > 8) pin(argv[8]);
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    tune(fd);
    for (int tries = 0; connect(fd, (struct sockaddr *)&addr, sizeof addr); tries++) {
        if (tries > 200) die("connect");
        usleep(10000);
    }
    unsigned char *resp = malloc(len ? len : 1);
    uint64_t *rtt = malloc(iterations * sizeof *rtt), mismatches = 0, total_ns = 0;
    if (!resp || !rtt) die("malloc");
    for (uint64_t it = 0; it < warmup + iterations; it++) {
        unsigned char req[64] = {0};
        memcpy(req, &len, 8);
        memcpy(req + 8, &it, 8);
        uint64_t t0 = now_ns();
        if (write_fully(fd, req, sizeof req) || read_fully(fd, resp, len)) die("exchange");
        uint64_t t1 = now_ns();
        mismatches += check(resp, len, it);
        if (it >= warmup) {
            rtt[it - warmup] = t1 - t0;
            total_ns += t1 - t0;
        }
    }
    qsort(rtt, iterations, sizeof *rtt, cmp_u64);
    double mean_ns = (double)total_ns / (double)iterations;
    printf("c-tcp %-8s bytes=%-9llu n=%llu p50=%.1fus p99=%.1fus p99.9=%.1fus max=%.1fus MB/s=%.2f mismatches=%llu\n",
           busy ? "busy" : "blocking", (unsigned long long)len, (unsigned long long)iterations,
           rtt[iterations / 2] / 1e3, rtt[iterations * 99 / 100] / 1e3, rtt[iterations * 999 / 1000] / 1e3,
           rtt[iterations - 1] / 1e3, len / (mean_ns / 1e9) / 1e6, (unsigned long long)mismatches);
    close(fd);
    return mismatches != 0;
}
