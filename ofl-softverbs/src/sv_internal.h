// softverbs internal definitions: the objects behind the public verbs structs, the process-wide
// engine state and the host-local wire format spoken between QPs over Unix stream sockets.
#ifndef SV_INTERNAL_H
#define SV_INTERNAL_H

#include <infiniband/verbs.h>
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

#define SV_EXPORT __attribute__((visibility("default")))

#define SV_DEVICE_NAME "softverbs0"
#define SV_NODE_GUID 0x0200fffffe000001ULL // EUI-64 shaped, locally administered
#define SV_GID_TBL_LEN 16
#define SV_MAX_SGE 16
#define SV_TX_FRAMES 4 // frames of one requester sendmsg at most
#define SV_MAX_INLINE 256
#define SV_MAX_QP_WR 16384
#define SV_MAX_CQE 65536
#define SV_MAX_MSG_SZ 0x80000000U
#define SV_PSN_MASK 0xFFFFFFU

// Declared only in rdma-core's uninstalled driver.h; ibv_devinfo imports it.
enum ibv_gid_type_sysfs {
    IBV_GID_TYPE_SYSFS_IB_ROCE_V1 = 0,
    IBV_GID_TYPE_SYSFS_ROCE_V2 = 1,
};
int ibv_query_gid_type(struct ibv_context *context, uint8_t port_num, unsigned int index,
                       enum ibv_gid_type_sysfs *type);

struct sv_gid {
    union ibv_gid gid;
    uint32_t ifindex;
    bool valid;
};

struct sv_context {
    struct verbs_context vctx; // vctx.context is what callers see
    int async_pipe[2];         // one sv_async_record per event; the write end is non-blocking
    struct sv_context *next;   // every open context, for events raised to all of them
};

struct sv_pd {
    struct ibv_pd pd;
    int refs;
};

struct sv_mr {
    struct ibv_mr mr;
    struct sv_pd *pd;
    uint64_t iova;
    int access;
};

struct sv_channel {
    struct ibv_comp_channel ch;
    int write_fd;
    int refs;
};

struct sv_cq {
    struct ibv_cq cq;
    pthread_mutex_t lock;
    struct ibv_wc *ring;
    uint32_t cap, head, count;
    bool armed;
    bool overflow_reported;
    int refs;
    // Events ibv_get_cq_event handed out for this CQ (under cq.mutex): ibv_destroy_cq waits until
    // as many were acknowledged, as libibverbs does with the kernel's count.
    uint32_t events_reported;
};

// Wire message types. Requests flow requester -> responder on the requester's connection,
// responses flow back on the same connection.
enum sv_msg_type {
    SV_MSG_HELLO = 1,
    SV_MSG_SEND,
    SV_MSG_SEND_IMM,
    SV_MSG_WRITE,
    SV_MSG_WRITE_IMM,
    SV_MSG_READ_REQ,
    SV_MSG_READ_RESP,
    SV_MSG_ACK,
    SV_MSG_NAK,
    SV_MSG_DROP, // "this packet was silently dropped": lets the requester start its timer now
};

enum sv_nak_code {
    SV_NAK_RNR = 1,
    SV_NAK_REM_ACCESS,
    SV_NAK_INV_REQ,
    SV_NAK_REM_OP,
};

// 64 bytes, native byte order: both ends are on the same host by construction.
struct sv_wire {
    uint8_t type;
    uint8_t code;      // NAK code
    uint8_t rnr_timer; // NAK RNR: responder's min_rnr_timer
    uint8_t pad0;
    uint32_t psn;
    uint32_t src_qpn;
    uint32_t dst_qpn;
    uint64_t remote_addr;
    uint32_t rkey;
    uint32_t imm_be; // network order, copied through untouched
    uint64_t payload_len;
    uint64_t read_len;
    uint8_t gid[16]; // HELLO: the destination GID the requester addressed
};
_Static_assert(sizeof(struct sv_wire) == 64, "wire header is 64 bytes");

struct sv_sge {
    uint64_t addr;
    uint32_t length;
    uint32_t lkey;
};

struct sv_send_slot {
    uint64_t wr_id;
    uint64_t remote_addr;
    uint64_t length;
    uint32_t rkey;
    uint32_t imm_be;
    uint32_t psn;
    enum ibv_wr_opcode opcode;
    bool signaled;
    bool is_inline;
    enum ibv_wc_status local_error; // set when the slot could not be transmitted
    int num_sge;
    struct sv_sge sge[SV_MAX_SGE];
    uint8_t inline_data[SV_MAX_INLINE];
};

struct sv_recv_slot {
    uint64_t wr_id;
    int num_sge;
    struct sv_sge sge[SV_MAX_SGE];
};

struct sv_frame {
    struct sv_frame *next;
    struct sv_wire hdr;
    uint8_t *payload; // owned
    size_t payload_len;
};

enum sv_poll_kind { SV_POLL_KICK = 1, SV_POLL_LISTEN, SV_POLL_CONN };

struct sv_qp;

// A placement plan: where the payload of the message being received goes. Keys are
// re-validated before every chunk so a deregistration or a state change mid-message stops it.
struct sv_plan {
    int nseg;
    int seg;
    uint64_t seg_off;
    bool discard;
    int access;         // access the MRs must grant
    struct sv_pd *pd;
    bool use_rkey;      // one segment addressed by rkey (WRITE)
    struct sv_sge segs[SV_MAX_SGE];
};

struct sv_conn {
    int kind; // SV_POLL_CONN
    int fd;
    bool dead;
    bool requester; // outgoing connection owned by qp->out
    bool epollout;
    struct sv_qp *qp;
    struct sv_conn *next_in; // responder connections of one QP
    struct sv_conn *next_dead;
    // responder side: who is talking to us
    bool hello_seen;
    bool dgid_local;
    uint32_t peer_qpn;
    // transmit: the frames in progress (a requester's, up to SV_TX_FRAMES in one sendmsg), then
    // queued response frames (responder side, one at a time)
    struct iovec tx_iov[SV_TX_FRAMES * (SV_MAX_SGE + 1)];
    int tx_iovcnt;
    int tx_iovidx;
    struct sv_wire tx_hdr[SV_TX_FRAMES];
    struct sv_frame *tx_frame;          // owns the payload of the frame in progress
    struct sv_frame *txq_head, *txq_tail;
    // receive
    struct sv_wire rx_hdr;
    size_t rx_hdr_got;
    bool rx_in_payload;
    uint64_t rx_left;
    uint64_t rx_total;
    struct sv_plan plan;
    enum ibv_wc_status rx_status; // responder: local error found while placing
    bool rx_take_recv;            // responder: message consumes a posted receive
    bool rx_ignore;               // payload belongs to a dropped or duplicate message
    bool rx_cut;                  // responder: placing stopped mid-message (QP left RTR/RTS, port down)
    bool rx_reading;              // in sv_conn_readable: ACKs wait until it has read what came
};

struct sv_listener {
    int kind; // SV_POLL_LISTEN
    int fd;
    bool dead;
    struct sv_qp *qp;
    struct sv_listener *next_dead;
};

struct sv_qp {
    struct ibv_qp qp;
    struct sv_qp *next_all;
    struct sv_pd *pd;
    struct sv_cq *scq, *rcq;
    enum ibv_qp_state state;
    bool sq_sig_all;
    struct ibv_qp_cap cap;
    // attributes
    int access_flags;
    uint16_t pkey_index;
    uint8_t port_num;
    enum ibv_mtu path_mtu;
    uint32_t dest_qpn;
    uint32_t rq_psn, sq_psn;
    struct ibv_ah_attr ah;
    uint8_t min_rnr_timer, timeout, retry_cnt, rnr_retry;
    bool retry_forever; // retry_cnt 7 under SOFTVERBS_RETRY7=infinite: never RETRY_EXC_ERR
    uint8_t max_rd_atomic, max_dest_rd_atomic;
    // send queue: head <= tx <= tail (monotonic counters)
    struct sv_send_slot *sq;
    uint32_t sq_head, sq_tx, sq_tail;
    uint32_t next_psn;
    // receive queue
    struct sv_recv_slot *rq;
    uint32_t rq_head, rq_tail;
    // responder state
    uint32_t expected_psn;
    // requester reliability
    struct sv_conn *out;
    struct sv_conn *in_list;
    struct sv_listener *listener;
    bool retry_pending;
    bool retry_is_rnr;
    uint64_t retry_at_ns;
    uint64_t progress_ns; // last time the oldest outstanding request moved
    int retry_left;
    int rnr_left;
    char sock_path[108];
};

struct sv_engine {
    pthread_mutex_t lock;
    bool started;
    pid_t pid;
    int epfd;
    int kickfd;
    uint64_t sleep_until_ns;
    uint64_t helper_ns; // last time an application thread lent itself to the engine
    struct sv_qp *qps;
    struct sv_conn *dead_conns;
    struct sv_listener *dead_listeners;
    struct sv_mr **mrs;
    uint32_t mr_cap;
    uint32_t mr_gen;
    struct sv_gid gids[SV_GID_TBL_LEN];
    char dir[80];
};

extern struct sv_engine sv;

// Objects alive now, by kind: what softverbs_live_objects() reports, so that a test can check that
// connections torn down gave back every verbs object (a leak shows as a count that keeps growing).
enum sv_live_kind { SV_LIVE_PD, SV_LIVE_MR, SV_LIVE_CQ, SV_LIVE_CHANNEL, SV_LIVE_QP, SV_LIVE_CONN, SV_LIVE_KINDS };
extern int64_t sv_live[SV_LIVE_KINDS];
static inline void sv_live_add(enum sv_live_kind kind, int64_t delta)
{
    __atomic_add_fetch(&sv_live[kind], delta, __ATOMIC_RELAXED);
}
extern struct ibv_device sv_device;

// sv_device.c
void sv_refresh_gids(void);
// The port's state as the test hooks set it: while down, nothing is received (see sv_conn_accepting).
bool sv_port_is_down(void);
void sv_refresh_gids_if_renumbering(void);
bool sv_gid_is_local(const uint8_t gid[16]);
enum ibv_mtu sv_active_mtu(void);

// sv_engine.c
int sv_engine_start(void);
void sv_kick(uint64_t deadline_ns);
uint64_t sv_now_ns(void);
int sv_qp_open_endpoint(struct sv_qp *qp);
void sv_qp_close_endpoint(struct sv_qp *qp);
void sv_qp_enter_error(struct sv_qp *qp);
void sv_qp_enter_reset(struct sv_qp *qp);
void sv_qp_flush(struct sv_qp *qp);
void sv_cq_push(struct sv_cq *cq, const struct ibv_wc *wc);
struct sv_mr *sv_mr_lookup(uint32_t key);
int sv_post_send(struct ibv_qp *qp, struct ibv_send_wr *wr, struct ibv_send_wr **bad_wr);
int sv_post_recv(struct ibv_qp *qp, struct ibv_recv_wr *wr, struct ibv_recv_wr **bad_wr);
int sv_poll_cq(struct ibv_cq *cq, int num_entries, struct ibv_wc *wc);
int sv_req_notify_cq(struct ibv_cq *cq, int solicited_only);

#define sv_container_of(ptr, type, member) ((type *)((char *)(ptr) - offsetof(type, member)))

static inline struct sv_qp *sv_qp_of(struct ibv_qp *qp) { return sv_container_of(qp, struct sv_qp, qp); }
static inline struct sv_cq *sv_cq_of(struct ibv_cq *cq) { return sv_container_of(cq, struct sv_cq, cq); }
static inline struct sv_pd *sv_pd_of(struct ibv_pd *pd) { return sv_container_of(pd, struct sv_pd, pd); }
static inline struct sv_mr *sv_mr_of(struct ibv_mr *mr) { return sv_container_of(mr, struct sv_mr, mr); }

#endif
