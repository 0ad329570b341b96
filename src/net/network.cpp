#include "net/network.h"

#include <stdexcept>
#include <string>

#include "net/plane_choice.h"
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
  s.pfc_on = cfg.pfc.enabled;
  s.ecn_on = cfg.ecn.enabled;
  s.lossless_mask = cfg.pfc.enabled ? cfg.pfc.lossless_mask : 0;
  s.pfc_dynamic = cfg.pfc.enabled && cfg.pfc.threshold == PfcThreshold::kDynamic;
  s.pfc_alpha = static_cast<float>(cfg.pfc.alpha);
  s.port_queue_bytes = cfg.port_queue_bytes;
  s.trim_mask = cfg.trim.enabled ? cfg.trim.mask : 0;
  s.trim_priority = cfg.trim.priority;
  s.trim_header_bytes = cfg.trim.header_bytes;
  s.trim_newest = cfg.trim.victim == TrimVictim::kArrivalOrNewest;
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
  loss_rate_ = link.loss_rate;  // every link shares the scenario's one LinkConfig
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
  port_node_.assign(next, 0);
  auto take = [&](uint32_t node) {
    PortRange& r = node_ports_[node];
    const uint32_t id = r.first + r.count++;
    Port& p = ports_[id];
    port_node_[id] = node;
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
  // A NIC's send pipeline is charged on its own cable, its receive pipeline on the cable that
  // reaches it (net/config.h NicConfig: per-packet parts only; per-message costs are the
  // transport's).
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
    p.far_is_nic = far.is_nic;
    p.far_index = far.is_nic ? far.nic : static_cast<uint32_t>(far.switch_index);
    if (far.is_nic) {
      far_latency_ps = nic_cfg_[far.nic].rx_latency_ps;
      p.far_cut_through = false;
    } else {
      far_latency_ps = switch_cfg_[far.switch_index].latency_ps;
      p.far_cut_through = cut_through[far.switch_index];
    }
    if (p.is_nic) far_latency_ps += nic_cfg_[p.nic].tx_latency_ps;
    p.delay_ps = queues_[id].prop_ps + far_latency_ps;
  }
  port_tx_bytes_.assign(ports_.size(), 0);
  nic_stalled_.assign(nic_port_.size(), 0);
  switch_xoff_pgs_.assign(switches_.size(), 0);
  switch_rng_.clear();
  for (uint32_t sw = 0; sw < switches_.size(); ++sw) {
    switch_rng_.emplace_back(seed_, 0x53570000ull + sw);  // "SW" streams
  }
  set_pfc_thresholds();
  set_credit_buffers();
  loss_rng_.clear();
  if (loss_rate_ > 0) {
    loss_rng_.reserve(ports_.size());
    for (uint32_t port = 0; port < ports_.size(); ++port) {
      loss_rng_.emplace_back(seed_, (0x4C4F5353ull << 32) | port);
    }
  }
}

void Network::nic_send(uint32_t nic, const Packet& pkt) {
  if (ports_[nic_port_[nic]].frozen) [[unlikely]] freeze_.touch(freeze_.ctx, nic_port_[nic]);
  if (pkt.type == PacketType::kPause) {  // a PFC frame from the NIC's MAC (tests inject these)
    push_control(nic_port_[nic], pkt);
    wake(nic_port_[nic]);
    return;
  }
  ++flight_at(nic_port_[nic]);
  push_queue(nic_port_[nic], pkt);
  wake(nic_port_[nic]);
}

void Network::push_queue(uint32_t port, const Packet& pkt) {
  ClassQueue& c = queues_[port].cls[pkt.priority];
  const bool head = c.ring.empty();
  c.ring.push_back(pkt);
  c.bytes += pkt.frame_bytes;
  if (c.bytes > c.peak_bytes) c.peak_bytes = c.bytes;
  ports_[port].backlog_mask |= static_cast<uint8_t>(1u << pkt.priority);
  if (ib_on_ && head && !credits_fit(port, pkt)) credit_block(port, pkt.priority);
}

void Network::nic_kick(uint32_t nic) {
  if (ports_[nic_port_[nic]].frozen) [[unlikely]] freeze_.touch(freeze_.ctx, nic_port_[nic]);
  wake(nic_port_[nic]);
}

void Network::wake(uint32_t port) {
  Port& p = ports_[port];
  if (p.tx_event_pending) return;
  if (p.busy_until_ps <= sched_.now()) {
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
  // Ethernet: paused_mask = classes PFC stopped; InfiniBand: VLs whose head waits for credits.
  const uint32_t ready = p.backlog_mask & ~p.paused_mask & 0xFFu;
  if (ready == 0) return false;
  // Strict priority (highest class first), or InfiniBand's VL arbitration.
  const int prio = ib_on_ ? vl_arbitrate(port, ready) : 31 - __builtin_clz(ready);
  ClassQueue& c = queues_[port].cls[prio];
  out = c.ring.pop_front();
  if (c.ring.empty()) p.backlog_mask &= static_cast<uint8_t>(~(1u << prio));
  c.bytes -= out.frame_bytes;
  if (ib_on_) {
    queues_[port].fc_sent_blocks[prio] += credit_blocks(out);
    if (!c.ring.empty() && !credits_fit(port, c.ring.front())) credit_block(port, prio);
  }
  if (p.switch_index >= 0) {
    // The shared buffer is released when the frame starts to leave; for a cut-through switch
    // that is also when most of it was never fully stored.
    Switch& sw = switches_[p.switch_index];
    // The ingress side is charged in the class the packet arrived in (in_class): a Dragonfly
    // switch may have moved it to a higher egress class. The copy is made only then.
    const bool moved = out.in_class != out.priority;
    Packet moved_in;
    if (moved) {
      moved_in = out;
      moved_in.priority = out.in_class;
    }
    const Packet& in = moved ? moved_in : out;
    if (sw.lossless_mask & (1u << in.priority)) {
      pfc_release_switch(sw, sw.first_port + out.in_port, in);  // shared pool and/or headroom
    } else {
      sw.buffer_used_bytes -= out.frame_bytes;
    }
    // A SHARP packet left its ingress credits at the aggregation unit (net/sharp.cpp).
    if (ib_on_ && out.type != PacketType::kSharp) credit_release(sw.first_port + out.in_port, in);
    if (out.ecn == 2 && sw.ecn_on) ecn_mark(port, out);
  }
  return true;
}

void Network::try_transmit(uint32_t port) {
  Packet next;
  const Port& p = ports_[port];
  if (p.mac_ctrl_pending) {  // PFC and IB flow-control packets go first, never paused
    transmit_control(port);
    return;
  }
  const bool stage = ib_on_ && p.is_nic && ib_.data_vls > 1 && endpoint_.pull;
  if (stage) stage_vl_heads(port);
  if (next_queued(port, next)) {
    transmit(port, next);
    return;
  }
  if (stage) return;  // every VL with data has its head staged: none may go now
  // A NIC port whose data class is paused must not pull data (ACKs in that class wait too).
  if (p.is_nic && endpoint_.pull && pull_data(p.nic, p.paused_mask, next)) {
    ++flight_at(port);
    if (ib_on_) {
      if (!credits_fit(port, next)) {
        push_queue(port, next);  // it waits at the head of its VL for credits
        return;
      }
      queues_[port].fc_sent_blocks[next.priority] += credit_blocks(next);
    }
    transmit(port, next);
  }
}

void Network::push_control(uint32_t port, const Packet& f) {
  if (ports_[port].frozen) [[unlikely]] freeze_.touch(freeze_.ctx, port);
  queues_[port].mac_ctrl.push_back(f);
  ports_[port].mac_ctrl_pending = true;
}

// Per packet-hop: inlined into both transmits (out of line they cost ~3% of the k=16 bench).
[[gnu::always_inline]] inline int64_t Network::start_frame(uint32_t port, const Packet& pkt,
                                                          int64_t now) {
  Port& p = ports_[port];
  const uint32_t wire = wire_bytes(pkt);
  const int64_t ser_ps = frame_serialization_ps(wire, p.rate_bps);
  p.busy_until_ps = now + ser_ps;
  port_tx_bytes_[port] += wire;
  if (tap_.on_transmit) tap_.on_transmit(tap_.ctx, now, port, pkt);
  return ser_ps;
}

[[gnu::always_inline]] inline void Network::arm_tx_done(uint32_t port) {
  // Only a port with more to send needs to wake up when this frame is out; an idle port is
  // restarted by enqueue() or nic_kick().
  Port& p = ports_[port];
  if (p.is_nic || p.backlog_mask != 0 || p.mac_ctrl_pending) {
    sched_.at(p.busy_until_ps, kPortTxDone, port);
    p.tx_event_pending = true;
  }
}

void Network::transmit(uint32_t port, const Packet& pkt) {
  Port& p = ports_[port];
  const int64_t now = sched_.now();
  const int64_t ser_ps = start_frame(port, pkt, now);
  if (int_ && pkt.type == PacketType::kData) [[unlikely]] int_hop(port, pkt);
  if (p.up) {
    const int64_t arrive_ps = (p.far_cut_through ? now : now + ser_ps) + p.delay_ps;
    if (is_cut(port)) [[unlikely]] {
      send_across(port, false, InFlight{arrive_ps, pkt});
      arm_tx_done(port);
      return;
    }
    p.line.push_back(InFlight{arrive_ps, pkt});
    if (!p.arrive_event_pending) {
      sched_.at(arrive_ps, kLinkArrive, port);
      p.arrive_event_pending = true;
    }
  } else {
    drop(port, pkt, DropReason::kLinkDown);  // a failed link: the frame is clocked out and lost
  }
  arm_tx_done(port);
}

void Network::int_hop(uint32_t port, const Packet& pkt) {
  const Port& p = ports_[port];
  if (p.is_nic) {  // the sender's NIC: the packet starts with an empty INT stack
    int_->begin(pkt.qp, pkt.psn);
    return;
  }
  // A switch egress (HPCC §3.2): the queue it leaves behind, the port's transmitted bytes with
  // this frame, the time it starts out, the line rate.
  int64_t queued = 0;
  for (const ClassQueue& c : queues_[port].cls) queued += c.bytes;
  int_->stamp(pkt.qp, pkt.psn, IntHop{sched_.now(), port_tx_bytes_[port], queued, p.rate_bps});
}

void Network::transmit_control(uint32_t port) {
  Port& p = ports_[port];
  PortQueues& q = queues_[port];
  Packet f = q.mac_ctrl.pop_front();
  p.mac_ctrl_pending = !q.mac_ctrl.empty();
  if (f.type == PacketType::kCredit) fill_credit_packet(port, f);  // the FCCL of now
  const int64_t now = sched_.now();
  const int64_t ser_ps = start_frame(port, f, now);
  if (p.up) {
    // The far MAC acts on the whole frame (it checks the FCS) once it has crossed the cable:
    // serialization + propagation, no forwarding latency (802.1Qbb PFC frames and IBA flow-
    // control packets are consumed by the MAC / link layer and never enter the switch pipeline).
    // Every entry leaves a frame time after the previous one, so the line stays in order.
    const int64_t arrive_ps = now + ser_ps + q.prop_ps;
    if (is_cut(port)) [[unlikely]] {
      send_across(port, true, InFlight{arrive_ps, f});
      arm_tx_done(port);
      return;
    }
    q.ctrl_line.push_back(InFlight{arrive_ps, f});
    if (!q.ctrl_arrive_pending) {
      sched_.at(arrive_ps, kCtrlArrive, port);
      q.ctrl_arrive_pending = true;
    }
  }  // a failed link: the frame is clocked out and lost (control frames are not counted drops)
  arm_tx_done(port);
}

void Network::on_ctrl_arrive(uint32_t target) {
  const uint32_t port = target & ~kCutArrival;
  PortQueues& q = queues_[port];
  const Packet f = q.ctrl_line.pop_front().pkt;
  if (!q.ctrl_line.empty()) {
    sched_.at(q.ctrl_line.front().arrive_ps, kCtrlArrive, target, port);
  } else {
    q.ctrl_arrive_pending = false;
  }
  // The link failed while the frame was on the cable: lost. (A cut cable's far end may not
  // read the Port's bits; partitioned runs have no failures.)
  if ((target & kCutArrival) == 0 && !ports_[port].up) return;
  if (f.type == PacketType::kPause) {
    on_pause_frame(ports_[port].peer, f);  // consumed by the far end's MAC
  } else {
    on_credit_packet(ports_[port].peer, f);  // consumed by the far end's link layer
  }
}

void Network::on_link_arrive(uint32_t port) {
  if (port & kCutArrival) [[unlikely]] {
    on_cut_arrive(port & ~kCutArrival);
    return;
  }
  Port& p = ports_[port];
  if (p.line.empty()) {  // the link failed with this arrival pending: it was lost
    p.arrive_event_pending = false;
    return;
  }
  const Packet pkt = p.line.pop_front().pkt;
  if (!p.line.empty()) {
    sched_.at(p.line.front().arrive_ps, kLinkArrive, port);
  } else {
    p.arrive_event_pending = false;
  }
  arrive(port, p.peer, p.far_is_nic, p.far_index, pkt);
}

[[gnu::always_inline]] inline void Network::arrive(uint32_t port, uint32_t peer, bool far_is_nic,
                                                   uint32_t far_index, const Packet& pkt) {
  if (pkt.type == PacketType::kData) {
    ++ctr().data_packet_hops;
    if (loss_rate_ > 0 && loss_rng_[port].uniform() < loss_rate_) {
      drop(peer, pkt, DropReason::kCorrupted);  // the receiver's MAC discards it
      return;
    }
  } else if (pkt.type == PacketType::kSharp) [[unlikely]] {
    ++ctr().data_packet_hops;  // SHARP streams carry data too (loss is refused with SHARP)
  }
  if (ib_on_ && !credit_receive(peer, pkt)) {
    drop(peer, pkt, DropReason::kCreditOverrun);  // beyond the VL buffer
    return;
  }
  if (far_is_nic) {
    if (nic_stalled_[far_index]) {
      hold_at_stalled_nic(peer, pkt);
      return;
    }
    if (ib_on_) credit_release(peer, pkt);  // the CA consumes it at once
    --flight();
    if (pkt.type == PacketType::kSharp) [[unlikely]] {
      sharp_nic_receive(far_index, pkt);
      return;
    }
    endpoint_.deliver(endpoint_.ctx, far_index, pkt);
  } else {
    switch_receive(far_index, peer, pkt);
  }
}

void Network::on_cut_arrive(uint32_t port) {
  CutLine& c = cut_lines_[port];
  const Packet pkt = c.line.pop_front().pkt;
  if (!c.line.empty()) {
    sched_.at(c.line.front().arrive_ps, kLinkArrive, port | kCutArrival, port);
  } else {
    c.arrive_pending = false;
  }
  arrive(port, c.peer, c.far_is_nic, c.far_index, pkt);
}

uint32_t Network::select_egress(const Switch& sw, const Packet& k) const {
  uint32_t key;
  if (sw.route_by_lid) {
    key = k.entropy;  // the DLID: the LFT covers the switch's own CA ports too
    if (key >= sw.group_of_key.size()) return kNoPort;
  } else {
    key = nic_leaf_slot_[k.dst_nic];
    if (static_cast<int32_t>(key) == sw.leaf_slot) return nic_switch_port_[k.dst_nic];
  }
  const uint16_t g = sw.group_of_key[key];
  if (g == kNoRoute) return kNoPort;
  const uint32_t begin = sw.group_offsets[g];
  const uint32_t n = sw.group_offsets[g + 1] - begin;
  if (n == 1) return sw.group_ports[begin];
  if (sw.lb != kLbHash) [[unlikely]] return select_balanced(sw, k, begin, n);
  const FiveTuple t{nic_ip(k.src_nic), nic_ip(k.dst_nic), k.entropy,
                    static_cast<uint16_t>(kRoceUdpPort), 17};
  return sw.group_ports[begin + ecmp_hash(sw.hash, t, sw.hash_seed) % n];
}

uint32_t Network::forward_port(uint32_t sw_index, uint32_t in_local, Packet& pkt) const {
  const Switch& sw = switches_[sw_index];
  pkt.in_port = static_cast<uint16_t>(in_local);
  pkt.in_class = pkt.priority;
  return sw.lb < kLbDragonfly    ? select_egress(sw, pkt)
         : sw.lb == kLbDragonfly ? dragonfly_egress(sw_index, in_local, pkt)
                                 : hca_port_egress(sw, in_local, qp_plane_[pkt.qp]);
}

uint32_t Network::egress_members(uint32_t sw_index, const Packet& k, const uint32_t** ports) const {
  const Switch& sw = switches_[sw_index];
  uint32_t key;
  if (sw.route_by_lid) {
    key = k.entropy;
    if (key >= sw.group_of_key.size()) return 0;
  } else {
    key = nic_leaf_slot_[k.dst_nic];
    if (static_cast<int32_t>(key) == sw.leaf_slot) {
      *ports = &nic_switch_port_[k.dst_nic];
      return 1;
    }
  }
  const uint16_t g = sw.group_of_key[key];
  if (g == kNoRoute) return 0;
  *ports = sw.group_ports.data() + sw.group_offsets[g];
  return sw.group_offsets[g + 1] - sw.group_offsets[g];
}

void Network::switch_receive(uint32_t sw_index, uint32_t in_port, const Packet& pkt) {
  // SHARP packets are consumed by the switch's aggregation unit; the one flag test is all an
  // ordinary packet pays for it.
  if (pkt.type == PacketType::kSharp) [[unlikely]] {
    sharp_switch_receive(sw_index, in_port, pkt);
    return;
  }
  Switch& sw = switches_[sw_index];
  Packet k = pkt;
  k.in_port = static_cast<uint16_t>(in_port - sw.first_port);
  k.in_class = pkt.priority;  // the ingress accounting's class, whatever the egress class
  // Dragonfly routing may rewrite the class and the Valiant bit (net/dragonfly_route.cpp).
  // Dragonfly routing and a multi-plane HCA's ports sit above the table modes in SwitchLb:
  // one comparison keeps every other switch on select_egress.
  const uint32_t out = sw.lb < kLbDragonfly    ? select_egress(sw, pkt)
                       : sw.lb == kLbDragonfly ? dragonfly_egress(sw_index, k.in_port, k)
                                               : hca_port_egress(sw, k.in_port, qp_plane_[k.qp]);
  if (out == kNoPort) {
    if (ib_on_) credit_release(in_port, pkt);
    drop(in_port, pkt, DropReason::kUnroutable);
    return;
  }
  enqueue(out, k);
}

void Network::enqueue(uint32_t port, const Packet& pkt) {
  Port& p = ports_[port];
  if (p.frozen) [[unlikely]] freeze_.touch(freeze_.ctx, port);  // mode: hybrid (hooks.h)
  Switch& sw = switches_[p.switch_index];
  const uint8_t cls = static_cast<uint8_t>(1u << pkt.priority);
  // The ingress view: the class it arrived in (a Dragonfly switch may move it up). Copied only
  // when it differs, so a hop of any other fabric pays nothing for it.
  const uint8_t in_cls = static_cast<uint8_t>(1u << pkt.in_class);
  auto ingress = [&pkt]() {
    Packet in = pkt;
    in.priority = pkt.in_class;
    return in;
  };
  // Only a PFC or IB fabric has a watchdog to set the storm mask (on the Port's line).
  if (!p.up || ((sw.pfc_on || ib_on_) && (p.storm_mask & cls))) {
    // A failed link, or a queue the PFC watchdog declared stormed / a stalled IB VL: the
    // arrival is discarded.
    if (ib_on_) credit_release(sw.first_port + pkt.in_port, ingress());
    drop(port, pkt,
         !p.up ? DropReason::kLinkDown : ib_on_ ? DropReason::kHeadOfQueue : DropReason::kWatchdog);
    return;
  }
  if (ib_on_) {
    // Credits reserved a VL buffer for the packet at the ingress port, and the VL buffers
    // together fit the shared buffer (set_credit_buffers), so there is no admission to do.
    sw.buffer_used_bytes += pkt.frame_bytes;
  } else if (sw.lossless_mask & in_cls) {
    // A lossless class is admitted by ingress accounting (PFC), not by the egress threshold;
    // it charges the shared pool or, past XOFF, its PG's headroom.
    const bool admitted = pkt.in_class == pkt.priority
                              ? pfc_admit_switch(sw, sw.first_port + pkt.in_port, pkt)
                              : pfc_admit_switch(sw, sw.first_port + pkt.in_port, ingress());
    if (!admitted) {
      drop(port, pkt, DropReason::kLossless);
      return;
    }
  } else if (!lossy_fits(sw, port, pkt)) {
    // Dynamic threshold admission (Choudhury & Hahne 1998): a queue may hold at most
    // alpha x (unused shared buffer), and at most port_queue_bytes when that is set; tail drop
    // beyond that or when the buffer is full, unless the class trims (UEC packet trimming).
    if ((sw.trim_mask & cls) && pkt.type == PacketType::kData && !(pkt.flags & kFlagTrimmed)) {
      trim(port, pkt);
      return;
    }
    drop(port, pkt, DropReason::kBuffer);
    return;
  } else {
    sw.buffer_used_bytes += pkt.frame_bytes;
  }
  if (sw.buffer_used_bytes > sw.peak_buffer_bytes) sw.peak_buffer_bytes = sw.buffer_used_bytes;
  push_queue(port, pkt);
  wake(port);
}

void Network::discard_class(uint32_t port, int cls, DropReason reason) {
  Port& p = ports_[port];
  ClassQueue& queue = queues_[port].cls[cls];
  while (!queue.ring.empty()) {
    const Packet pkt = queue.ring.pop_front();
    queue.bytes -= pkt.frame_bytes;
    if (p.switch_index >= 0) {
      Switch& sw = switches_[p.switch_index];
      Packet in = pkt;  // the ingress view (in_class), as in next_queued
      in.priority = pkt.in_class;
      if (sw.lossless_mask & (1u << in.priority)) {
        pfc_release_switch(sw, sw.first_port + pkt.in_port, in);
      } else {
        sw.buffer_used_bytes -= pkt.frame_bytes;
      }
      if (ib_on_ && pkt.type != PacketType::kSharp) credit_release(sw.first_port + pkt.in_port, in);
    }
    drop(port, pkt, reason);
  }
  p.backlog_mask &= static_cast<uint8_t>(~(1u << cls));
}

void Network::drop(uint32_t port, const Packet& pkt, DropReason reason) {
  switch (reason) {
    case DropReason::kBuffer:
      break;  // counted by dropped_packets alone
    case DropReason::kLossless:
      ++ctr().lossless_drops;
      break;
    case DropReason::kWatchdog:
      ++ctr().watchdog_drops;
      break;
    case DropReason::kHeadOfQueue:
      ++ctr().hoq_discards;
      break;
    case DropReason::kLinkDown:
      ++ctr().link_down_drops;
      break;
    case DropReason::kCorrupted:
      ++ctr().link_losses;
      break;
    case DropReason::kUnroutable:
      ++ctr().unroutable_packets;
      break;
    case DropReason::kCreditOverrun:
      break;  // credit_receive() counted the violation
  }
  ++queues_[port].drops;
  ++ctr().dropped_packets;
  --flight();
  if (pkt.type == PacketType::kSharp) {  // not the transport's: it must not see it
    ++ctr().sharp_drops;
    return;
  }
  if (pkt.type == PacketType::kData) ctr().dropped_payload_bytes += pkt.payload_bytes;
  if (endpoint_.dropped) endpoint_.dropped(endpoint_.ctx, pkt, reason);
}

}  // namespace fabricsim::net
