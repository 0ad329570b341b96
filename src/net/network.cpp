#include "net/network.h"

#include <stdexcept>
#include <string>

#include "net/wire.h"

namespace fabricsim::net {

uint32_t Network::new_node(NodeKind kind, uint32_t index) {
  nodes_.push_back(Node{kind, index});
  node_ports_.emplace_back();
  return static_cast<uint32_t>(nodes_.size() - 1);
}

uint32_t Network::add_nic(const NicConfig& cfg) {
  const uint32_t nic = static_cast<uint32_t>(nic_nodes_.size());
  nic_nodes_.push_back(new_node(NodeKind::kNic, nic));
  nic_port_.push_back(0);
  nic_cfg_.push_back(cfg);
  return nic;
}

uint32_t Network::add_switch(const SwitchConfig& cfg, int tier) {
  const uint32_t sw = static_cast<uint32_t>(switches_.size());
  Switch s;
  s.node = new_node(NodeKind::kSwitch, sw);
  s.buffer_bytes = cfg.buffer_bytes;
  s.dt_alpha = cfg.dt_alpha;
  s.tier = tier;
  switches_.push_back(std::move(s));
  switch_cfg_.push_back(cfg);
  return sw;
}

void Network::connect(uint32_t node_a, uint32_t node_b, const LinkConfig& link) {
  if (node_a >= nodes_.size() || node_b >= nodes_.size() || node_a == node_b) {
    throw std::logic_error("Network::connect: bad node ids " + std::to_string(node_a) + ", " +
                           std::to_string(node_b));
  }
  cables_.push_back(Cable{node_a, node_b, link});
}

void Network::finalize() {
  std::vector<uint32_t> count(nodes_.size(), 0);
  for (const Cable& c : cables_) {
    ++count[c.a];
    ++count[c.b];
  }
  uint32_t next = 0;
  for (size_t n = 0; n < nodes_.size(); ++n) {
    node_ports_[n] = PortRange{next, 0};
    next += count[n];
    if (nodes_[n].kind == NodeKind::kNic && count[n] != 1) {
      throw std::logic_error("NIC " + std::to_string(nodes_[n].index) + " has " +
                             std::to_string(count[n]) + " cables; a NIC has exactly one port");
    }
  }
  ports_ = std::vector<Port>(next);  // Port is move-only (it owns rings)
  queues_ = std::vector<PortQueues>(next);
  auto take = [&](uint32_t node) {
    PortRange& r = node_ports_[node];
    const uint32_t id = r.first + r.count++;
    Port& p = ports_[id];
    queues_[id].node = node;
    p.is_nic = nodes_[node].kind == NodeKind::kNic;
    p.switch_index = p.is_nic ? -1 : static_cast<int32_t>(nodes_[node].index);
    p.nic = p.is_nic ? nodes_[node].index : 0;
    if (p.is_nic) nic_port_[p.nic] = id;
    return id;
  };
  for (const Cable& c : cables_) {
    const uint32_t pa = take(c.a);
    const uint32_t pb = take(c.b);
    for (auto [from, to] : {std::pair{pa, pb}, std::pair{pb, pa}}) {
      ports_[from].peer = to;
      ports_[from].rate_bps = c.link.rate_bps;
      queues_[from].prop_ps = c.link.propagation_ps();
    }
  }
  for (Switch& s : switches_) {
    s.first_port = node_ports_[s.node].first;
    s.num_ports = node_ports_[s.node].count;
  }
  nic_leaf_slot_.assign(nic_port_.size(), 0);
  nic_switch_port_.assign(nic_port_.size(), 0);
  leaf_switches_.clear();
  for (uint32_t sw = 0; sw < switches_.size(); ++sw) {
    Switch& s = switches_[sw];
    s.leaf_slot = -1;
    for (uint32_t k = 0; k < s.num_ports; ++k) {
      const Port& far = ports_[ports_[s.first_port + k].peer];
      if (!far.is_nic) continue;
      if (s.leaf_slot < 0) {
        s.leaf_slot = static_cast<int32_t>(leaf_switches_.size());
        leaf_switches_.push_back(sw);
      }
      nic_leaf_slot_[far.nic] = static_cast<uint32_t>(s.leaf_slot);
      nic_switch_port_[far.nic] = s.first_port + k;
    }
  }
  // Far-end timing: a switch adds its port-to-port latency and, when cut-through applies (all
  // its ports at one rate), forwards from the header's arrival; a NIC receives the whole frame.
  // NIC latency is charged once on the sending NIC's cable and once on the receiving one's.
  std::vector<bool> cut_through(switches_.size(), false);
  for (size_t i = 0; i < switches_.size(); ++i) {
    const Switch& s = switches_[i];
    bool uniform = true;
    for (uint32_t k = 1; k < s.num_ports; ++k) {
      uniform = uniform && ports_[s.first_port + k].rate_bps == ports_[s.first_port].rate_bps;
    }
    cut_through[i] = uniform && switch_cfg_[i].forwarding == Forwarding::kCutThrough;
  }
  for (uint32_t id = 0; id < ports_.size(); ++id) {
    Port& p = ports_[id];
    const Port& far = ports_[p.peer];
    int64_t far_latency_ps;
    if (far.is_nic) {
      far_latency_ps = nic_cfg_[far.nic].latency_ps;
      p.far_cut_through = false;
    } else {
      far_latency_ps = switch_cfg_[far.switch_index].latency_ps;
      p.far_cut_through = cut_through[far.switch_index];
    }
    if (p.is_nic) far_latency_ps += nic_cfg_[p.nic].latency_ps;
    p.delay_ps = queues_[id].prop_ps + far_latency_ps;
  }
}

void Network::nic_send(uint32_t nic, const Packet& pkt) {
  ++in_flight_;
  push_queue(nic_port_[nic], pkt);
  wake(nic_port_[nic]);
}

void Network::push_queue(uint32_t port, const Packet& pkt) {
  ClassQueue& c = queues_[port].cls[pkt.priority];
  c.ring.push_back(pkt);
  c.bytes += pkt.frame_bytes;
  ports_[port].backlog_mask |= static_cast<uint8_t>(1u << pkt.priority);
}

void Network::nic_kick(uint32_t nic) { wake(nic_port_[nic]); }

void Network::wake(uint32_t port) {
  Port& p = ports_[port];
  if (p.tx_event_pending) return;
  if (p.busy_until_ps <= sched_.now_ps) {
    try_transmit(port);
  } else {
    sched_.at(p.busy_until_ps, kPortTxDone, port);
    p.tx_event_pending = true;
  }
}

void Network::on_tx_done(uint32_t port) {
  ports_[port].tx_event_pending = false;
  try_transmit(port);
}

bool Network::next_queued(uint32_t port, Packet& out) {
  Port& p = ports_[port];
  const uint32_t ready = p.backlog_mask & ~p.paused_mask & 0xFFu;
  if (ready == 0) return false;
  const int prio = 31 - __builtin_clz(ready);  // strict priority: highest class first
  ClassQueue& c = queues_[port].cls[prio];
  out = c.ring.pop_front();
  if (c.ring.empty()) p.backlog_mask &= static_cast<uint8_t>(~(1u << prio));
  c.bytes -= out.frame_bytes;
  // The shared buffer is released when the frame starts to leave; for a cut-through switch
  // that is also when most of it was never fully stored.
  if (p.switch_index >= 0) switches_[p.switch_index].buffer_used_bytes -= out.frame_bytes;
  return true;
}

void Network::try_transmit(uint32_t port) {
  Packet next;
  if (next_queued(port, next)) {
    transmit(port, next);
    return;
  }
  const Port& p = ports_[port];
  if (p.is_nic && endpoint_.pull && endpoint_.pull(endpoint_.ctx, p.nic, next)) {
    ++in_flight_;
    transmit(port, next);
  }
}

void Network::transmit(uint32_t port, const Packet& pkt) {
  Port& p = ports_[port];
  const int64_t now = sched_.now_ps;
  const int64_t ser_ps = serialization_ps(pkt.wire_bytes, p.rate_bps);
  p.busy_until_ps = now + ser_ps;
  if (tap_.on_transmit) tap_.on_transmit(tap_.ctx, now, port, pkt);
  if (p.up) {
    const int64_t arrive_ps = (p.far_cut_through ? now : now + ser_ps) + p.delay_ps;
    p.line.push_back(InFlight{arrive_ps, pkt});
    if (!p.arrive_event_pending) {
      sched_.at(arrive_ps, kLinkArrive, port);
      p.arrive_event_pending = true;
    }
  } else {
    drop(port, pkt);  // a failed link: the frame is clocked out and lost
  }
  // Only a port with more to send needs to wake up when this frame is out; an idle port is
  // restarted by enqueue() or nic_kick().
  if (p.is_nic || p.backlog_mask != 0) {
    sched_.at(p.busy_until_ps, kPortTxDone, port);
    p.tx_event_pending = true;
  }
}

void Network::on_link_arrive(uint32_t port) {
  Port& p = ports_[port];
  const Packet pkt = p.line.pop_front().pkt;
  if (!p.line.empty()) {
    sched_.at(p.line.front().arrive_ps, kLinkArrive, port);
  } else {
    p.arrive_event_pending = false;
  }
  if (pkt.type == PacketType::kData) ++counters_.data_packet_hops;
  const Port& far = ports_[p.peer];
  if (far.is_nic) {
    --in_flight_;
    endpoint_.deliver(endpoint_.ctx, far.nic, pkt);
  } else {
    switch_receive(p.peer, pkt);
  }
}

uint32_t Network::select_egress(const Switch& sw, const Packet& k) const {
  const uint32_t slot = nic_leaf_slot_[k.dst_nic];
  if (static_cast<int32_t>(slot) == sw.leaf_slot) return nic_switch_port_[k.dst_nic];
  const uint16_t g = sw.group_of_leaf[slot];
  if (g == kNoRoute) return kNoPort;
  const uint32_t begin = sw.group_offsets[g];
  const uint32_t n = sw.group_offsets[g + 1] - begin;
  if (n == 1) return sw.group_ports[begin];
  const FiveTuple t{nic_ip(k.src_nic), nic_ip(k.dst_nic), k.entropy,
                    static_cast<uint16_t>(kRoceUdpPort), 17};
  return sw.group_ports[begin + ecmp_hash(sw.hash, t, sw.hash_seed) % n];
}

void Network::switch_receive(uint32_t in_port, const Packet& pkt) {
  Switch& sw = switches_[ports_[in_port].switch_index];
  const uint32_t out = select_egress(sw, pkt);
  if (out == kNoPort) {
    ++counters_.unroutable_packets;
    drop(in_port, pkt);
    return;
  }
  enqueue(out, pkt);
}

void Network::enqueue(uint32_t port, const Packet& pkt) {
  Port& p = ports_[port];
  Switch& sw = switches_[p.switch_index];
  // Dynamic threshold admission (Choudhury & Hahne 1998): a queue may hold at most
  // alpha x (unused shared buffer); tail drop beyond that or when the buffer is full.
  const int64_t free_bytes = sw.buffer_bytes - sw.buffer_used_bytes;
  if (pkt.frame_bytes > free_bytes ||
      static_cast<double>(queues_[port].cls[pkt.priority].bytes) >= sw.dt_alpha * free_bytes) {
    drop(port, pkt);
    return;
  }
  sw.buffer_used_bytes += pkt.frame_bytes;
  if (sw.buffer_used_bytes > sw.peak_buffer_bytes) sw.peak_buffer_bytes = sw.buffer_used_bytes;
  push_queue(port, pkt);
  wake(port);
}

void Network::drop(uint32_t port, const Packet& pkt) {
  ++queues_[port].drops;
  ++counters_.dropped_packets;
  --in_flight_;
  if (pkt.type == PacketType::kData) counters_.dropped_payload_bytes += pkt.payload_bytes;
  if (endpoint_.dropped) endpoint_.dropped(endpoint_.ctx, pkt);
}

}  // namespace fabricsim::net
