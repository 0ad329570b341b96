// SHARP's data path (net/sharp.h): the switches' aggregation units and the member NICs'
// streams. Per hop a SHARP packet costs what any packet does (link, credits, egress queue) plus
// one slot update of the tree's reduction state; nothing here allocates after a tree is built.
//
// Modelling choices (docs/infiniband.md "SHARP"):
// - A tree switch's aggregation unit consumes an arriving SHARP packet at once, returning its
//   ingress credits (as a channel adapter does), and reduces at line rate: no cost beyond the
//   switch's cut-through latency (UNVERIFIED: NVIDIA gives no figure). Its output is queued on
//   the egress port like any packet and takes shared buffer there until it leaves. What the
//   unit holds is bounded by the members' window (outstanding_chunks), not by credits.
// - A member NIC sends its contributions as MTU packets (LRH + BTH + payload + ICRC + VCRC: an
//   RC SEND's framing; the SHARP header's size is not public and is not counted, UNVERIFIED),
//   taking turns packet by packet with the transport's QPs, and keeps at most the window of
//   packets without their result.
#include <algorithm>

#include "net/network.h"
#include "net/wire.h"

namespace fabricsim::net {

using sharp_detail::Member;
using sharp_detail::State;
using sharp_detail::Tree;
using sharp_detail::TreeSwitch;

void Network::enable_sharp(const SharpConfig& cfg) {
  sharp_ = std::make_unique<State>();
  State& st = *sharp_;
  st.cfg = cfg;
  const int64_t mtu = std::max(cfg.mtu_bytes, 1);
  const int64_t per_chunk = std::max<int64_t>(1, (cfg.chunk_bytes + mtu - 1) / mtu);
  st.window_packets = static_cast<uint32_t>(std::max<int64_t>(1, per_chunk * cfg.outstanding_chunks));
  st.port_trees.assign(ports_.size(), 0);
  st.nic_members.assign(nic_port_.size(), {});
  st.nic_turn.assign(nic_port_.size(), 0);
  st.nic_rr.assign(nic_port_.size(), 0);
}

void Network::set_sharp_hook(const SharpHook& hook) {
  if (sharp_) sharp_->hook = hook;
}

void Network::sharp_record_failure(std::string reason) {
  if (sharp_) sharp_->failures.push_back(SharpFailure{sched_.now(), std::move(reason)});
}

const std::vector<SharpTreeInfo>& Network::sharp_trees() const {
  static const std::vector<SharpTreeInfo> kNone;
  return sharp_ ? sharp_->info : kNone;
}

const std::vector<SharpFailure>& Network::sharp_failures() const {
  static const std::vector<SharpFailure> kNone;
  return sharp_ ? sharp_->failures : kNone;
}

namespace {

Member* member_of(State& st, uint32_t nic, uint32_t tree) {
  for (const uint32_t code : st.nic_members[nic]) {
    if ((code >> 16) == tree) return &st.trees[tree].members[code & 0xFFFF];
  }
  return nullptr;
}

}  // namespace

bool Network::sharp_post(int tree, uint32_t nic, int64_t bytes, uint64_t cookie) {
  if (!sharp_ || tree < 0 || static_cast<size_t>(tree) >= sharp_->trees.size() ||
      nic >= nic_port_.size() || bytes < 0) {
    return false;
  }
  State& st = *sharp_;
  if (!st.trees[tree].active) return false;
  Member* m = member_of(st, nic, static_cast<uint32_t>(tree));
  if (m == nullptr) return false;
  const int64_t mtu = st.cfg.mtu_bytes;
  const int64_t packets = std::max<int64_t>(1, (bytes + mtu - 1) / mtu);  // 0 B: one empty packet
  m->assigned += static_cast<uint32_t>(packets);
  m->ops.push_back(Member::Op{m->assigned, bytes, cookie});
  nic_kick(nic);
  return true;
}

bool Network::sharp_pull(uint32_t nic, uint8_t paused, Packet& out) {
  State& st = *sharp_;
  if (st.nic_members[nic].empty()) return endpoint_.pull(endpoint_.ctx, nic, paused, out);
  // Packet-by-packet round robin between the aggregation streams and the transport's QPs.
  if (st.nic_turn[nic]) {
    if (endpoint_.pull(endpoint_.ctx, nic, paused, out)) {
      st.nic_turn[nic] = 0;
      return true;
    }
    return sharp_take(nic, paused, out);
  }
  if (sharp_take(nic, paused, out)) {
    st.nic_turn[nic] = 1;
    return true;
  }
  return endpoint_.pull(endpoint_.ctx, nic, paused, out);
}

bool Network::sharp_take(uint32_t nic, uint8_t paused, Packet& out) {
  State& st = *sharp_;
  if (paused & (1u << st.cfg.vl)) return false;
  const std::vector<uint32_t>& mine = st.nic_members[nic];
  const size_t n = mine.size();
  for (size_t i = 0; i < n; ++i) {
    const size_t at = (st.nic_rr[nic] + i) % n;
    const uint32_t tree = mine[at] >> 16;
    Member& m = st.trees[tree].members[mine[at] & 0xFFFF];
    if (m.next_seq == m.assigned || m.next_seq - m.results >= st.window_packets) continue;
    const Member::Op& op = m.ops[m.inject_op];
    const int64_t payload = std::min<int64_t>(st.cfg.mtu_bytes, op.bytes - m.op_sent_bytes);
    out = Packet{};
    out.type = PacketType::kSharp;
    out.src_nic = nic;
    out.dst_nic = nic;
    out.qp = tree;
    out.psn = m.next_seq;
    out.payload_bytes = static_cast<uint16_t>(payload);
    out.frame_bytes = static_cast<uint16_t>(ib_packet_bytes(static_cast<uint32_t>(payload)));
    out.priority = st.cfg.vl;
    out.in_class = st.cfg.vl;
    ++m.next_seq;
    m.op_sent_bytes += payload;
    if (m.next_seq == op.end_seq) {
      ++m.inject_op;
      m.op_sent_bytes = 0;
    }
    st.nic_rr[nic] = static_cast<uint32_t>((at + 1) % n);
    return true;
  }
  return false;
}

void Network::sharp_emit(uint32_t port, const Packet& pkt) {
  ++flight();
  Port& p = ports_[port];
  if (!p.up || (p.storm_mask & (1u << pkt.priority))) {
    drop(port, pkt, DropReason::kLinkDown);
    return;
  }
  Switch& sw = switches_[p.switch_index];
  sw.buffer_used_bytes += pkt.frame_bytes;
  if (sw.buffer_used_bytes > sw.peak_buffer_bytes) sw.peak_buffer_bytes = sw.buffer_used_bytes;
  push_queue(port, pkt);
  wake(port);
}

void Network::sharp_switch_receive(uint32_t sw_index, uint32_t in_port, const Packet& pkt) {
  State& st = *sharp_;
  if (ib_on_) credit_release(in_port, pkt);  // consumed by the aggregation unit
  Tree* t = pkt.qp < st.trees.size() ? &st.trees[pkt.qp] : nullptr;
  const int32_t at = t != nullptr && t->active ? t->node_of_switch[sw_index] : -1;
  if (at < 0) {  // not a switch of its tree (cannot happen while the tree lives)
    drop(in_port, pkt, DropReason::kUnroutable);
    return;
  }
  --flight();
  const TreeSwitch& node = t->nodes[static_cast<size_t>(at)];
  Packet out = pkt;
  out.in_class = pkt.priority;
  if (!(pkt.flags & kFlagSharpDown)) {
    uint16_t& got = t->counts[node.first_count + (pkt.psn & t->slot_mask)];
    if (++got < node.num_children) return;  // the reduction waits for the other children
    got = 0;
    if (node.parent_port != kNoPort) {
      sharp_emit(node.parent_port, out);
      return;
    }
    out.flags |= kFlagSharpDown;  // the root: the result turns down the tree
  }
  for (uint32_t c = 0; c < node.num_children; ++c) {
    sharp_emit(t->child_ports[node.first_child + c], out);
  }
}

void Network::sharp_nic_receive(uint32_t nic, const Packet& pkt) {
  State& st = *sharp_;
  Member* m = pkt.qp < st.trees.size() ? member_of(st, nic, pkt.qp) : nullptr;
  if (m == nullptr || !(pkt.flags & kFlagSharpDown)) return;
  ++m->results;
  st.info[pkt.qp].result_bytes += pkt.payload_bytes;
  while (!m->ops.empty() && m->ops.front().end_seq <= m->results) {
    const uint64_t cookie = m->ops.front().cookie;
    m->ops.pop_front();
    --m->inject_op;
    ++st.info[pkt.qp].ops_completed;  // by index: the hook may build trees (info grows)
    if (st.hook.done) st.hook.done(st.hook.ctx, nic, static_cast<int>(pkt.qp), cookie);
  }
  nic_kick(nic);  // the window has room again
}

}  // namespace fabricsim::net
