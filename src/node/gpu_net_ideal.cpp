// GpuNet's ideal machine (node.ideal_fabric, training.ideal_network; docs/training.md "Ideal
// network"): a "big switch" whose only shared resources on the network side are each NIC's line
// out and line in (kNicLineOut / kNicLineIn), messages between one NIC pair in post order as on
// the real transport's queue pair (node/gpu_net.h).
#include <algorithm>

#include "node/gpu_net.h"

namespace fabricsim::node {

int GpuNet::ideal_send_hops(const Hop* hops, int n, uint32_t relay, Hop* out) const {
  const Place p = place(relay);
  std::copy(hops, hops + n, out);
  out[n] = {resource(ResourceKind::kNicLineOut, p.node, p.nic), 0};  // cut-through
  return n + 1;
}

int GpuNet::ideal_recv_hops(const Hop* hops, int n, uint32_t dst, Hop* out) const {
  const Place p = place(dst);
  out[0] = {resource(ResourceKind::kNicLineIn, p.node, p.nic), 0};
  std::copy(hops, hops + n, out + 1);
  return n + 1;
}

void GpuNet::ideal_send(uint32_t slot) {
  Slot& s = slots_[slot];
  PairQueue& q = ideal_pairs_[uint64_t{s.src_nic} * (gpus_ / gpn_ * nics_per_node_) + s.dst_nic];
  if (wait_in(q, slot)) return;  // behind the pair's earlier messages
  start_ideal_send(slot, true);
}

void GpuNet::start_ideal_send(uint32_t slot, bool settle_now) {
  Slot& s = slots_[slot];
  s.holds_nic_pair = true;
  // The stage that feeds the NIC: GPU memory (GPUDirect) or the host bounce buffer (staged).
  const Plan p = plan(s.src, s.dst);
  Hop hops[kMaxHops];
  const int n = spec_.gpudirect ? ideal_send_hops(p.send1, p.n_send1, p.relay, hops)
                                : ideal_send_hops(p.send2, p.n_send2, p.relay, hops);
  flow(slot, hops, n, Step::kPost, 0, true, 0, settle_now);
}

void GpuNet::release_nic_pair(uint32_t slot) {
  Slot& s = slots_[slot];
  s.holds_nic_pair = false;
  const uint64_t key = uint64_t{s.src_nic} * (gpus_ / gpn_ * nics_per_node_) + s.dst_nic;
  PairQueue& q = ideal_pairs_[key];
  if (q.head == kNone) {
    ideal_pairs_.erase(key);
    return;
  }
  // Inside settle() (flow_done), which then schedules the node's event for the arrival.
  const uint32_t next = q.head;
  q.head = slots_[next].next_in_pair;
  if (q.head == kNone) q.tail = kNone;
  start_ideal_send(next, false);
}

}  // namespace fabricsim::node
