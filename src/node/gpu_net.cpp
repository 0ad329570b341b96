#include "node/gpu_net.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>
#include <utility>

#include "core/time.h"

namespace fabricsim::node {

GpuNet::GpuNet(const NodeSpec& spec, const topo::BuiltTopology& topology,
               const topo::FabricParams& fabric, const routing::EcmpRoutes& routes,
               transport::Transport& transport, Scheduler& sched)
    : spec_(spec), fabric_(fabric), routes_(routes), transport_(transport), sched_(sched) {
  if (spec.gpus_per_node <= 0 || topology.hosts <= 0) {
    throw std::logic_error("GpuNet needs gpus_per_node > 0 and a built topology");
  }
  gpn_ = static_cast<uint32_t>(spec.gpus_per_node);
  gpus_ = gpn_ * static_cast<uint32_t>(topology.hosts);
  nics_per_node_ = static_cast<uint32_t>(topology.nics / topology.hosts);
  switches_per_node_ = gpn_ / static_cast<uint32_t>(spec.gpus_per_pcie_switch);
  // NIC index = node x nics_per_node + k is how topo::build numbers them; a builder that did
  // otherwise would silently pair GPUs with another node's NIC.
  for (uint32_t nic = 0; nic < static_cast<uint32_t>(topology.nics); ++nic) {
    if (topology.host_of_nic[nic] != static_cast<int>(nic / nics_per_node_)) {
      throw std::logic_error("GpuNet: NIC " + std::to_string(nic) + " is not on node " +
                             std::to_string(nic / nics_per_node_));
    }
  }
  const uint32_t count[kResourceKinds] = {gpn_,
                                          gpn_,
                                          gpn_,
                                          gpn_,
                                          nics_per_node_,
                                          nics_per_node_,
                                          switches_per_node_,
                                          switches_per_node_,
                                          static_cast<uint32_t>(spec.sockets),
                                          gpn_,
                                          gpn_,
                                          spec.ideal_fabric ? nics_per_node_ : 0,
                                          spec.ideal_fabric ? nics_per_node_ : 0};
  for (int k = 1; k < kResourceKinds; ++k) kind_base_[k] = kind_base_[k - 1] + count[k - 1];
  const int64_t nvlink =
      std::llround(static_cast<double>(spec.nvlink_rate_bps) * spec.nvlink_efficiency);
  const int64_t pcie = std::llround(pcie_rate_bps(spec, spec.pcie_lanes));
  const int64_t uplink = std::llround(pcie_rate_bps(spec, spec.pcie_uplink_lanes));
  const int64_t nvls = std::max<int64_t>(
      1, std::llround(static_cast<double>(nvlink) * spec.nvls_efficiency));
  const int64_t rate[kResourceKinds] = {
      nvlink, nvlink, pcie, pcie, pcie, pcie, uplink, uplink, spec.host_memory_rate_bps,
      nvls,   nvls,   fabric.link.rate_bps, fabric.link.rate_bps};
  std::vector<FluidServer> node;
  for (int k = 0; k < kResourceKinds; ++k) {
    for (uint32_t i = 0; i < count[k]; ++i) node.push_back(FluidServer{rate[k], 0, 0, 0});
  }
  per_node_resources_ = static_cast<uint32_t>(node.size());
  servers_.reserve(static_cast<size_t>(per_node_resources_) * topology.hosts);
  for (int h = 0; h < topology.hosts; ++h)
    servers_.insert(servers_.end(), node.begin(), node.end());
  std::vector<int64_t> capacity_bps(servers_.size());
  for (size_t r = 0; r < servers_.size(); ++r) capacity_bps[r] = servers_[r].rate_bps;
  ps_ = PsNetwork(static_cast<uint32_t>(topology.hosts), per_node_resources_,
                  std::move(capacity_bps));
  fluid_res_.reserve(2 * (gpn_ + 1));
  pair_.resize(static_cast<size_t>(gpus_) * gpn_);
  // A PCIe stage slower than the NIC posts its message late (post_time), and its receive side
  // then starts only as the bytes arrive, not as the sender's first byte left: right for a
  // chunk, not for a whole stream. Every node is alike: node 0's GPUs to node 1's.
  if (topology.hosts >= 2) {
    const double payload_bytes_per_s = transport.payload_rate_bps(fabric.link.rate_bps) / 8.0;
    stages_keep_up_ = true;
    for (uint32_t a = 0; a < gpn_; ++a) {
      for (uint32_t b = gpn_; b < 2 * gpn_; ++b) {
        stages_keep_up_ = stages_keep_up_ &&
                          path_rate_bytes_per_s(a, b) >= payload_bytes_per_s * (1 - 1e-12);
      }
    }
  }
}

const char* resource_name(ResourceKind kind) {
  switch (kind) {
    case ResourceKind::kNvlinkOut: return "nvlink_out";
    case ResourceKind::kNvlinkIn: return "nvlink_in";
    case ResourceKind::kGpuPcieUp: return "pcie_gpu_up";
    case ResourceKind::kGpuPcieDown: return "pcie_gpu_down";
    case ResourceKind::kNicPcieIn: return "pcie_nic_in";
    case ResourceKind::kNicPcieOut: return "pcie_nic_out";
    case ResourceKind::kUplinkUp: return "pcie_uplink_up";
    case ResourceKind::kUplinkDown: return "pcie_uplink_down";
    case ResourceKind::kHostMemory: return "host_memory";
    case ResourceKind::kNvlsOut: return "nvls_out";
    case ResourceKind::kNvlsIn: return "nvls_in";
    case ResourceKind::kNicLineOut: return "nic_line_out";
    case ResourceKind::kNicLineIn: return "nic_line_in";
  }
  return "?";
}

uint32_t GpuNet::resource(ResourceKind kind, uint32_t node, uint32_t index) const {
  return node * per_node_resources_ + kind_base_[static_cast<int>(kind)] + index;
}

uint32_t GpuNet::nic_of(uint32_t gpu) const {
  const uint32_t l = gpu % gpn_;
  return (gpu / gpn_) * nics_per_node_ + l * nics_per_node_ / gpn_;
}

// ---- the running machine: each stage of a message is one fluid flow (node/fluid_ps.h)

uint32_t GpuNet::alloc_slot() {
  ++active_slots_;
  if (!free_slots_.empty()) {
    const uint32_t s = free_slots_.back();
    free_slots_.pop_back();
    return s;
  }
  if (slots_.size() >= kFluidEventBit) throw std::logic_error("GpuNet: too many slots");
  slots_.emplace_back();
  return static_cast<uint32_t>(slots_.size() - 1);
}

void GpuNet::free_slot(uint32_t slot) {
  --active_slots_;
  free_slots_.push_back(slot);
}

int64_t GpuNet::post_time(int64_t latency_ps, double rate_bps, int64_t bytes,
                          int64_t sharing, int32_t weight) const {
  const auto pcie_ps = static_cast<int64_t>(
      std::llround(static_cast<double>(bytes) * 8e12 / std::max(rate_bps, 1.0)));
  const int64_t line_ps = wire_ps(bytes) * sharing / weight;
  return sched_.now() + latency_ps + std::max<int64_t>(0, pcie_ps - line_ps);
}

void GpuNet::send(uint32_t src_gpu, uint32_t dst_gpu, int64_t bytes, uint64_t cookie,
                  int64_t delay_ps, uint64_t connection, int32_t weight, uint32_t channel,
                  FoldedStream stream) {
  if (src_gpu == dst_gpu || src_gpu >= gpus_ || dst_gpu >= gpus_ || bytes < 0 || delay_ps < 0) {
    throw std::logic_error("GpuNet::send: bad GPU pair, size or delay");
  }
  // The packet fabric moves each channel's messages on its own queue pair: folding crosses
  // nodes only where the fabric is a fluid with one connection per NIC pair.
  if (weight < 1 || (weight > 1 && src_gpu / gpn_ != dst_gpu / gpn_ && !weighted_net_sends())) {
    throw std::logic_error("GpuNet::send: a weight other than 1 across nodes");
  }
  const bool folded = stream.rate_cap_bps != 0 || stream.chunks_in_flight != 0;
  if (stream.rate_cap_bps < 0 || stream.chunks_in_flight < 0 ||
      (folded && (!weighted_net_sends() || src_gpu / gpn_ == dst_gpu / gpn_))) {
    throw std::logic_error("GpuNet::send: a folded stream outside flow mode across nodes");
  }
  const uint32_t slot = alloc_slot();
  Slot& s = slots_[slot];
  s = Slot{};
  s.src = src_gpu;
  s.dst = dst_gpu;
  s.relay = src_gpu;
  s.bytes = bytes;
  s.cookie = cookie;
  s.connection = connection;
  s.weight = weight;
  s.channel = channel;
  s.stream = stream;
  if (delay_ps > 0) {
    schedule(slot, sched_.now() + delay_ps);
  } else {
    start(slot);
  }
}

void GpuNet::timer(int64_t delay_ps, uint64_t cookie) {
  const uint32_t slot = alloc_slot();
  slots_[slot] = Slot{};
  slots_[slot].cookie = cookie;
  slots_[slot].step = Step::kTimer;
  schedule(slot, sched_.now() + std::max<int64_t>(delay_ps, 0));
}

void GpuNet::schedule(uint32_t slot, int64_t time_ps) {
  sched_.at(time_ps, kNodeEvent, slot, slots_[slot].src / gpn_);
}

void GpuNet::flow(uint32_t slot, const Hop* hops, int n, Step after, int64_t extra_ps,
                  bool to_nic, int64_t head_start_ps, bool settle_now, int32_t weight) {
  uint32_t res[kMaxHops];
  int64_t latency_ps = 0;
  for (int i = 0; i < n; ++i) {
    res[i] = hops[i].resource;
    latency_ps += hops[i].latency_ps;  // cut-through: the first byte's delay, paid once
  }
  Slot& s = slots_[slot];
  s.after = after;
  s.after_ps = latency_ps + extra_ps;
  s.to_nic = to_nic;
  // A folded transfer across nodes (weighted_net_sends) carries `weight` channels' messages,
  // whose PCIe stages would each have been a flow of their own: it takes their combined share.
  // A folded stream (send) enters the NIC at most at its cap, counting as its chunks in flight:
  // the stage that feeds the post.
  const bool stream = to_nic && s.stream.chunks_in_flight > 0;
  ps_.start(res, n, s.bytes, to_nic ? s.stream.rate_cap_bps : 0.0, slot, sched_.now(),
            head_start_ps, to_nic, stream ? s.stream.chunks_in_flight : weight);
  if (settle_now) settle(ps_.group_of(res[0]));
}

void GpuNet::settle(uint32_t node) {
  // Flows finished by the fluid network go to their slots in flow-id order. flow_done schedules
  // slot events and may start a pair's queued NVLink transfer; PsNetwork::start only records an
  // arrival (finished() and rated() are untouched), so the lists do not change while walked.
  // A flow into the NIC that got its rate posts its message when its first byte is there, but
  // not so early that the NIC's line rate would outrun the flow's share (after_ps = the path's
  // latency). The k messages being fed to one NIC share its line too, so the wire time to
  // compare with is k x the message's. Rates come first: such a flow may also have ended at
  // once (0 bytes).
  for (const auto& [tag, rate_bps] : ps_.rated()) {
    const auto slot = static_cast<uint32_t>(tag);
    Slot& s = slots_[slot];
    if (spec_.ideal_fabric) {
      // The flow crosses the NIC's line too (ideal_send_hops): its first byte is on the line
      // after_ps from now, and its end is the last byte's (flow_done). Nothing to post.
      s.post_ps = sched_.now() + s.after_ps;
      continue;
    }
    const Place p = place(s.relay);
    // Weighted: a folded message (weight w) gets w / W of the line among flows of weight W.
    const int64_t k = std::max<int64_t>(
        s.weight, ps_.weight_on(resource(ResourceKind::kNicPcieIn, p.node, p.nic)));
    s.step = Step::kPost;
    schedule(slot, post_time(s.after_ps, rate_bps, s.bytes, k, s.weight));
  }
  ps_.rated().clear();
  std::vector<uint64_t>& done = ps_.finished();
  for (size_t i = 0; i < done.size(); ++i) flow_done(static_cast<uint32_t>(done[i]));
  done.clear();
  int64_t t = 0;
  if (ps_.take_schedule(node, &t)) sched_.at(t, kNodeEvent, kFluidEventBit | node, node);
}

void GpuNet::flow_done(uint32_t slot) {
  Slot& s = slots_[slot];
  const int64_t now = sched_.now();
  if (s.holds_pair) release_pair(slot);
  if (s.holds_nic_pair) release_nic_pair(slot);
  if (!s.to_nic) {
    s.step = s.after;
    schedule(slot, now + s.after_ps);
    return;
  }
  // The sending NIC has every byte after_ps from now. The receiver may not complete before
  // that, however early the transport delivered (a shared PCIe slows the message down).
  s.sent_ps = now + s.after_ps;
  if (spec_.ideal_fabric) {  // the flow ended with the last byte leaving on the NIC's line
    s.step = Step::kIdealDelivered;
    schedule(slot, s.sent_ps + ideal_latency_ps());
    return;
  }
  if (s.delivered_ps >= 0) {
    s.step = Step::kReceive;
    schedule(slot, std::max(s.sent_ps, s.delivered_ps));
  }
}

void GpuNet::start(uint32_t slot) {
  Slot& s = slots_[slot];
  if (s.src / gpn_ == s.dst / gpn_) {
    if (wait_in(order_queue(s), slot)) return;  // behind the connection's earlier transfers
    start_nvlink(slot);
    return;
  }
  const Plan p = plan(s.src, s.dst);
  s.relay = p.relay;
  s.src_nic = p.src_nic;
  s.dst_nic = p.dst_nic;
  if (spec_.gpudirect && spec_.ideal_fabric) {
    ideal_send(slot);
  } else if (spec_.gpudirect) {
    flow(slot, p.send1, p.n_send1, Step::kPost, 0, true, 0, true, s.weight);
  } else {  // NCCL's proxy posts once the copy into the host bounce buffer is complete
    flow(slot, p.send1, p.n_send1, Step::kStagedOut, spec_.staged_cpu_ps, false, 0, true,
         s.weight);
  }
}

bool GpuNet::wait_in(PairQueue& q, uint32_t slot) {
  if (!q.busy) {
    q.busy = true;
    return false;
  }
  slots_[slot].next_in_pair = kNone;
  if (q.tail == kNone) {
    q.head = slot;
  } else {
    slots_[q.tail].next_in_pair = slot;
  }
  q.tail = slot;
  return true;
}

void GpuNet::start_nvlink(uint32_t slot, bool settle_now) {
  Slot& s = slots_[slot];
  // NVSwitch is non-blocking: only the two GPU ports are shared.
  const Hop hops[2] = {
      {resource(ResourceKind::kNvlinkOut, s.src / gpn_, s.src % gpn_), 0},
      {resource(ResourceKind::kNvlinkIn, s.dst / gpn_, s.dst % gpn_), spec_.nvlink_latency_ps}};
  s.holds_pair = true;
  flow(slot, hops, 2, Step::kArrive, 0, false, 0, settle_now, s.weight);
}

GpuNet::ConnKey GpuNet::conn_key(const Slot& s) const {
  return ConnKey{s.connection, static_cast<uint64_t>(s.src) * gpn_ + s.dst % gpn_};
}

GpuNet::PairQueue& GpuNet::order_queue(const Slot& s) {
  const ConnKey key = conn_key(s);
  return s.connection == 0 ? pair_[key.pair] : conn_queues_[key];
}

void GpuNet::release_pair(uint32_t slot) {
  Slot& s = slots_[slot];
  s.holds_pair = false;
  PairQueue& q = order_queue(s);
  if (q.head == kNone) {
    q.busy = false;
    if (s.connection != 0) conn_queues_.erase(conn_key(s));
    return;
  }
  // The next transfer starts now. This runs inside settle(), which then schedules the node's
  // event for the arrival.
  const uint32_t next = q.head;
  q.head = slots_[next].next_in_pair;
  if (q.head == kNone) q.tail = kNone;
  start_nvlink(next, false);
}

void GpuNet::on_event(uint32_t target) {
  if (target & kFluidEventBit) {
    const uint32_t node = target & ~kFluidEventBit;
    ps_.on_event(node, sched_.now());
    settle(node);
    return;
  }
  const uint32_t slot = target;
  Slot& s = slots_[slot];
  switch (s.step) {
    case Step::kStart:
      start(slot);
      return;
    case Step::kStagedOut: {
      const Plan p = plan(s.src, s.dst);
      if (spec_.ideal_fabric) {
        ideal_send(slot);
        return;
      }
      flow(slot, p.send2, p.n_send2, Step::kPost, 0, true, 0, true, s.weight);
      return;
    }
    case Step::kPost:
      // The slot now waits for the transport (on_delivered picks it up) or, for SHARP, for
      // the switches' result back at the NIC (on_sharp_done, node/gpu_net_sharp.cpp).
      s.post_ps = sched_.now();
      if (s.sharp_tree >= 0) {
        if (!sharp_net_->sharp_post(s.sharp_tree, s.src_nic, s.bytes, slot)) {
          throw std::logic_error("GpuNet: the fabric refused a SHARP post on tree " +
                                 std::to_string(s.sharp_tree));
        }
        return;
      }
      // At weight 1 post_channel; more only when folded across nodes (weighted_net_sends).
      transport_.post_folded(s.src_nic, s.dst_nic, s.bytes, kTagBit | slot, s.channel, s.weight);
      return;
    case Step::kIdealDelivered:
      delivered(slot);
      return;
    case Step::kReceive:
      receive(slot);
      return;
    case Step::kStagedIn: {
      const Plan p = plan(s.src, s.dst);
      flow(slot, p.recv2, p.n_recv2, Step::kArrive, 0, false, 0, true, s.weight);
      return;
    }
    case Step::kArrive: {
      const uint64_t cookie = s.cookie;
      free_slot(slot);
      if (on_arrived) on_arrived(cookie);
      return;
    }
    case Step::kTimer: {
      const uint64_t cookie = s.cookie;
      free_slot(slot);
      if (on_timer) on_timer(cookie);
      return;
    }
  }
}

void GpuNet::on_delivered(uint32_t msg) {
  const transport::MessageRecord& m = transport_.message(msg);
  delivered(static_cast<uint32_t>(m.tag & ~kTagBit));
}

void GpuNet::delivered(uint32_t slot) {
  Slot& s = slots_[slot];
  s.delivered_ps = sched_.now();
  if (s.sent_ps < 0) return;  // the send-side flow is still running: flow_done continues
  if (s.sent_ps <= s.delivered_ps) {
    receive(slot);
  } else {
    s.step = Step::kReceive;
    schedule(slot, s.sent_ps);
  }
}

void GpuNet::receive(uint32_t slot) {
  Slot& s = slots_[slot];
  const int64_t now = sched_.now();
  // The NIC wrote the bytes into PCIe as they arrived, over about one line-rate message time
  // before delivery (never before the post): the receive flow starts now but is credited with
  // what its share drained since then (cut-through at message grain; on an idle path the same
  // as the tandem formula's first-byte entry).
  const int64_t first = std::max(s.post_ps, s.delivered_ps - wire_ps(s.bytes));
  const Plan p = plan(s.src, s.dst);
  // On the ideal network the NIC's line in is shared too: the messages arriving together at
  // one NIC split its line rate (the big switch's output port, ideal_recv_hops).
  Hop ideal[kMaxHops];
  const Hop* hops = p.recv1;
  int n = p.n_recv1;
  if (spec_.ideal_fabric) {
    n = ideal_recv_hops(p.recv1, p.n_recv1, s.dst, ideal);
    hops = ideal;
  }
  // weighted_net_sends; a folded stream's chunks would each have had a receive stage, as many
  // at once as were in flight.
  const int32_t weight = spec_.ideal_fabric            ? 1
                         : s.stream.chunks_in_flight > 0 ? s.stream.chunks_in_flight
                                                         : s.weight;
  if (spec_.gpudirect) {
    flow(slot, hops, n, Step::kArrive, 0, false, now - first, true, weight);
  } else {  // the proxy sees the completion, then the copy out of the bounce buffer runs
    flow(slot, hops, n, Step::kStagedIn, spec_.staged_cpu_ps, false, now - first, true,
         weight);
  }
}

}  // namespace fabricsim::node
