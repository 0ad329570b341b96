// RoceTransport's queue pairs and posts (transport/rc.h): InfiniBand LIDs and planes, a QP per
// (NIC pair, service level, NCCL channel) made at its first message (qps_per_pair of them, with
// an identity hashed from who it is, never from creation order), and a message's post onto its
// QP. The requester's sending and the responder live in rc.cpp.
#include <algorithm>

#include "core/error.h"
#include "core/rng.h"
#include "net/plane_choice.h"
#include "transport/rc.h"

namespace fabricsim::transport {

void RoceTransport::set_infiniband(std::vector<uint16_t> nic_lid, const uint8_t (&sl_to_vl)[16],
                                   uint32_t planes) {
  nic_lid_ = std::move(nic_lid);
  planes_ = planes;
  if (planes_ > 1) plane_next_.assign(net_.num_nics(), 0);
  std::copy(std::begin(sl_to_vl), std::end(sl_to_vl), sl_to_vl_);
}

uint8_t RoceTransport::bind_plane(uint32_t qp_id, uint32_t src_nic) {
  // The application opens the QP on one of the HCA's ports in turn, skipping ports that are
  // down (an HCA knows its own link state); with every port down, the next in turn.
  uint32_t plane = plane_next_[src_nic] % planes_;
  for (uint32_t tries = 0; tries < planes_; ++tries) {
    const uint32_t p = (plane_next_[src_nic] + tries) % planes_;
    if (net_.port(net::plane_port_of(net_, src_nic, p)).up) {
      plane = p;
      break;
    }
  }
  plane_next_[src_nic] = plane + 1;
  net_.bind_qp_plane(qp_id, static_cast<uint8_t>(plane));
  return static_cast<uint8_t>(plane);
}

uint64_t RoceTransport::qp_identity(uint64_t pair_key, uint32_t k, uint32_t channel) {
  // Channel 0's identity is the pair's as before channels had their own QPs.
  uint64_t ident = pair_key ^ (0xD6E8FEB86659FD93ull * (k + 1));
  ident ^= ConnectionIndex::channel_salt(channel);
  return splitmix64(ident);
}

uint16_t RoceTransport::rxe_sport(uint64_t path_key) const {
  // Linux rxe: UDP source port = 0xC000 | 14-bit hash of the QP number (here of the QP's
  // identity: QP numbers would follow global post order).
  uint64_t h = seed_ ^ (0x9E3779B97F4A7C15ull * (path_key + 1));
  return static_cast<uint16_t>(0xC000 | (splitmix64(h) & 0x3FFF));
}

int32_t RoceTransport::channel_entropy(uint32_t src_nic, uint32_t dst_nic, int sl,
                                       uint32_t channel) const {
  if (ib() || planes_ > 1) return -1;
  sl = sl < 0 ? cfg_.sl : sl;
  const uint64_t key = (static_cast<uint64_t>(src_nic) << 34) |
                       (static_cast<uint64_t>(dst_nic) << 4) | static_cast<uint64_t>(sl);
  return rxe_sport(qp_identity(key, 0, channel));
}

uint32_t RoceTransport::qp_for(uint32_t src_nic, uint32_t dst_nic, int sl, uint32_t channel) {
  // qps_per_pair QPs per (source, destination, service level, NCCL channel): a QP's packets all
  // use one SL. They are created together with the pair's first message, and messages take them
  // in turn.
  const uint64_t key = (static_cast<uint64_t>(src_nic) << 34) |
                       (static_cast<uint64_t>(dst_nic) << 4) | static_cast<uint64_t>(sl);
  const auto [first_qp, inserted] =
      qp_index_.find_or_add(key, channel, static_cast<uint32_t>(qps_.size()));
  const auto per_pair = static_cast<uint32_t>(cfg_.qps_per_pair);
  for (uint32_t k = 0; inserted && k < per_pair; ++k) {
    const auto qp_id = static_cast<uint32_t>(qps_.size());
    Qp q;
    q.src_nic = src_nic;
    q.dst_nic = dst_nic;
    q.sl = static_cast<uint8_t>(sl);
    q.path_key = qp_identity(key, k, channel);
    if (ib()) {
      if (planes_ > 1) q.plane = bind_plane(qp_id, src_nic);
      q.entropy = nic_lid_.at(q.plane * net_.num_nics() + dst_nic);  // forwarded by DLID
      q.priority = sl_to_vl_[sl];
    } else {
      q.entropy = rxe_sport(q.path_key);
      q.priority = static_cast<uint8_t>(cfg_.data_priority);
    }
    if (cc_enabled()) rps_.push_back(make_cc(qp_id, src_nic, dst_nic));
    qps_.push_back(std::move(q));
    if (ctx_.enabled()) {  // set-up writes the QP's context at both ends
      ctx_.add_connection(src_nic, qp_id);
      ctx_.add_connection(dst_nic, qp_id);
    }
  }
  if (per_pair == 1) return first_qp;
  const uint32_t pair = first_qp / per_pair;  // every pair has per_pair consecutive QPs
  if (pair >= pair_next_.size()) pair_next_.resize(pair + 1, 0);
  const uint32_t qp_id = first_qp + pair_next_[pair];
  pair_next_[pair] = (pair_next_[pair] + 1) % per_pair;
  return qp_id;
}

uint32_t RoceTransport::post(uint32_t src_nic, uint32_t dst_nic, int64_t size_bytes,
                             uint64_t tag, int sl) {
  return post_on(qp_for(src_nic, dst_nic, sl < 0 ? cfg_.sl : sl), src_nic, dst_nic, size_bytes,
                 tag);
}

uint32_t RoceTransport::post_channel(uint32_t src_nic, uint32_t dst_nic, int64_t size_bytes,
                                     uint64_t tag, uint32_t channel) {
  return post_on(qp_for(src_nic, dst_nic, cfg_.sl, channel), src_nic, dst_nic, size_bytes, tag);
}

uint32_t RoceTransport::post_on(uint32_t qp_id, uint32_t src_nic, uint32_t dst_nic,
                                int64_t size_bytes, uint64_t tag) {
  if (cfg_.service == Service::kUd && size_bytes > cfg_.mtu_bytes) {
    throw InputError("fabric.transport.service",
                     "a UD message is one packet: " + std::to_string(size_bytes) +
                         " bytes exceed the MTU of " + std::to_string(cfg_.mtu_bytes));
  }
  if (post_hook_) [[unlikely]] post_hook_(post_hook_ctx_, qp_id);  // mode: hybrid
  Qp& q = qps_[qp_id];
  Message m;
  m.qp = qp_id;
  m.connection = qp_id;
  m.traffic_class = ib() ? q.sl : q.priority;
  m.first_psn = q.psn_end;
  m.npkts = packets_for(size_bytes, cfg_.mtu_bytes);
  m.size_bytes = size_bytes;
  m.post_ps = sched_.now();
  // The NIC takes WQEs in order: a message is ready after its own post overhead and not before
  // the one posted ahead of it on the QP.
  m.ready_ps = std::max(sched_.now() + net_.nic_config(src_nic).send_overhead_ps(
                                            posted_bytes(cfg_, size_bytes)),
                        q.last_ready_ps);
  q.last_ready_ps = m.ready_ps;
  m.tag = tag;
  m.src_nic = src_nic;
  m.dst_nic = dst_nic;
  q.psn_end += m.npkts;
  ring_changed(src_nic);  // an active QP answers as before; told all the same (a post is rare)
  const uint32_t id = msgs_.push_back(m);
  q.msgs.push_back(id);
  if (!q.failed) ++owed_of_nic(src_nic).unacked;  // a failed QP completes nothing more
  activate(qp_id);
  return id;
}

}  // namespace fabricsim::transport
