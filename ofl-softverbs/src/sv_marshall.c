// The three kernel-ABI conversion helpers libibverbs exports for librdmacm. softverbs has no
// kernel side, but librdmacm (and so perftest's ib_*_lat/bw, which link it) binds these symbols
// at load time; without them those tools cannot even start. They are plain field conversions
// from the kernel's uapi structs to the verbs structs.
#define _GNU_SOURCE
#include "sv_internal.h"

#include <endian.h>
#include <infiniband/sa.h>
#include <rdma/ib_user_sa.h>
#include <rdma/ib_user_verbs.h>
#include <string.h>

SV_EXPORT void ibv_copy_ah_attr_from_kern(struct ibv_ah_attr *dst, struct ib_uverbs_ah_attr *src)
{
    memcpy(dst->grh.dgid.raw, src->grh.dgid, sizeof(dst->grh.dgid.raw));
    dst->grh.flow_label = src->grh.flow_label;
    dst->grh.sgid_index = src->grh.sgid_index;
    dst->grh.hop_limit = src->grh.hop_limit;
    dst->grh.traffic_class = src->grh.traffic_class;
    dst->dlid = src->dlid;
    dst->sl = src->sl;
    dst->src_path_bits = src->src_path_bits;
    dst->static_rate = src->static_rate;
    dst->is_global = src->is_global;
    dst->port_num = src->port_num;
}

SV_EXPORT void ibv_copy_qp_attr_from_kern(struct ibv_qp_attr *dst, struct ib_uverbs_qp_attr *src)
{
    dst->qp_state = src->qp_state;
    dst->cur_qp_state = src->cur_qp_state;
    dst->path_mtu = src->path_mtu;
    dst->path_mig_state = src->path_mig_state;
    dst->qkey = src->qkey;
    dst->rq_psn = src->rq_psn;
    dst->sq_psn = src->sq_psn;
    dst->dest_qp_num = src->dest_qp_num;
    dst->qp_access_flags = src->qp_access_flags;
    dst->cap.max_send_wr = src->max_send_wr;
    dst->cap.max_recv_wr = src->max_recv_wr;
    dst->cap.max_send_sge = src->max_send_sge;
    dst->cap.max_recv_sge = src->max_recv_sge;
    dst->cap.max_inline_data = src->max_inline_data;
    ibv_copy_ah_attr_from_kern(&dst->ah_attr, &src->ah_attr);
    ibv_copy_ah_attr_from_kern(&dst->alt_ah_attr, &src->alt_ah_attr);
    dst->pkey_index = src->pkey_index;
    dst->alt_pkey_index = src->alt_pkey_index;
    dst->en_sqd_async_notify = src->en_sqd_async_notify;
    dst->sq_draining = src->sq_draining;
    dst->max_rd_atomic = src->max_rd_atomic;
    dst->max_dest_rd_atomic = src->max_dest_rd_atomic;
    dst->min_rnr_timer = src->min_rnr_timer;
    dst->port_num = src->port_num;
    dst->timeout = src->timeout;
    dst->retry_cnt = src->retry_cnt;
    dst->rnr_retry = src->rnr_retry;
    dst->alt_port_num = src->alt_port_num;
    dst->alt_timeout = src->alt_timeout;
}

// The SA path record packs selectors and fields into shared bytes (IBA 15.2.5.16).
SV_EXPORT void ibv_copy_path_rec_from_kern(struct ibv_path_record *dst, struct ib_user_path_rec *src)
{
    memset(dst, 0, sizeof(*dst));
    memcpy(dst->dgid.raw, src->dgid, sizeof(dst->dgid.raw));
    memcpy(dst->sgid.raw, src->sgid, sizeof(dst->sgid.raw));
    dst->dlid = src->dlid;
    dst->slid = src->slid;
    dst->flowlabel_hoplimit = htobe32((be32toh(src->flow_label) << 8) | src->hop_limit);
    dst->tclass = src->traffic_class;
    dst->reversible_numpath = (uint8_t)((src->reversible ? 0x80 : 0) | (src->numb_path & 0x7f));
    dst->pkey = src->pkey;
    dst->qosclass_sl = htobe16(src->sl & 0xf);
    dst->mtu = (uint8_t)(((src->mtu_selector & 3) << 6) | (src->mtu & 0x3f));
    dst->rate = (uint8_t)(((src->rate_selector & 3) << 6) | (src->rate & 0x3f));
    dst->packetlifetime = (uint8_t)(((src->packet_life_time_selector & 3) << 6) | (src->packet_life_time & 0x3f));
    dst->preference = src->preference;
}
