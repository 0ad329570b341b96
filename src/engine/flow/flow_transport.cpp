#include "engine/flow/flow_transport.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "core/error.h"

namespace fabricsim::scenario {

namespace {

constexpr uint32_t kNone = 0xFFFFFFFFu;

// A port's fluid capacity: its payload rate, or nothing while its cable is down.
double payload_capacity(const net::Network& net, const transport::Transport& t, uint32_t p) {
  return net.port(p).up ? t.payload_rate_bps(net.port(p).rate_bps) : 0.0;
}

std::vector<double> payload_capacities(const net::Network& net, const transport::Transport& t) {
  std::vector<double> cap(net.num_ports());
  for (uint32_t p = 0; p < net.num_ports(); ++p) cap[p] = payload_capacity(net, t, p);
  return cap;
}

}  // namespace

FlowTransport::FlowTransport(net::Network& net, Scheduler& sched,
                             const routing::EcmpRoutes& routes, const net::LinkConfig& link,
                             const net::SwitchConfig& sw, const transport::Transport& proto,
                             HeaderFn header)
    : net_(net),
      sched_(sched),
      routes_(routes),
      link_(link),
      sw_(sw),
      proto_(proto),
      header_(std::move(header)),
      fabric_(payload_capacities(net, proto)),
      walker_(net) {
  // Wire bytes per payload byte at full-MTU packets: line rate / payload rate (per-packet
  // headers, preamble and gap), the same at every rate.
  constexpr int64_t kRefRateBps = 100'000'000'000;
  wire_per_payload_ = static_cast<double>(kRefRateBps) / proto.payload_rate_bps(kRefRateBps);
}

void FlowTransport::enable_dcqcn(const transport::DcqcnParams& p, int64_t mtu_bytes) {
  std::vector<uint8_t> marks(net_.num_ports(), 0);
  for (uint32_t port = 0; port < net_.num_ports(); ++port) {
    marks[port] = net_.node(net_.port_node(port)).kind == net::NodeKind::kSwitch ? 1 : 0;
  }
  dcqcn_ = std::make_unique<FluidDcqcn>(p, sw_.ecn, fabric_, sched_, std::move(marks),
                                        1.0 / wire_per_payload_, sw_.buffer_bytes, mtu_bytes);
}

void FlowTransport::cap_path(const Msg& m) {
  if (!dcqcn_) return;
  dcqcn_->cap_path(m.hdr.connection, net_.port(net_.nic_port(m.rec.src_nic)).rate_bps, m.weight,
                   path_);
}

uint32_t FlowTransport::post(uint32_t src_nic, uint32_t dst_nic, int64_t size_bytes,
                             uint64_t tag, int sl) {
  Msg m;
  m.hdr = header_(src_nic, dst_nic, sl);
  m.rec.size_bytes = size_bytes;
  m.rec.post_ps = sched_.now();
  m.rec.tag = tag;
  m.rec.src_nic = src_nic;
  m.rec.dst_nic = dst_nic;
  m.rec.connection = m.hdr.connection;
  m.rec.traffic_class = m.hdr.traffic_class;
  const net::NicConfig& nic = net_.nic_config(src_nic);
  const int hops = routes_.switch_hops(src_nic, dst_nic);
  const net::LinkConfig link = routes_.path_link(src_nic, dst_nic, link_);
  const int64_t overhead_ps = nic.send_overhead_ps(size_bytes);
  // The idle-path completion less what the fluid accounts for itself (header comment).
  const int64_t drain_alone_ps = static_cast<int64_t>(std::llround(
      static_cast<double>(size_bytes) * 8e12 / proto_.payload_rate_bps(link.rate_bps)));
  m.fixed_ps = std::max<int64_t>(
      0, proto_.ideal_fct_ps(size_bytes, hops, link, sw_, nic) - overhead_ps - drain_alone_ps);
  m.ack_ps = static_cast<int64_t>(hops + 1) * link.propagation_ps() +
             static_cast<int64_t>(hops) * sw_.latency_ps + nic.tx_latency_ps + nic.rx_latency_ps;
  if (m.hdr.connection >= conns_.size()) conns_.resize(m.hdr.connection + 1);
  Conn& c = conns_[m.hdr.connection];
  m.rec.ready_ps = std::max(sched_.now() + overhead_ps, c.last_ready_ps);
  c.last_ready_ps = m.rec.ready_ps;
  const uint32_t id = msgs_.push_back(m);
  ++owed().unacked;
  if (c.head == kNone) {
    c.head = c.tail = id;
    // kCcTimer: the connection's head may start (target = message).
    sched_.at(m.rec.ready_ps, kCcTimer, id, src_nic);
  } else {
    msgs_[c.tail].next = id;
    c.tail = id;
  }
  return id;
}

uint32_t FlowTransport::post_folded(uint32_t src_nic, uint32_t dst_nic, int64_t size_bytes,
                                   uint64_t tag, uint32_t channel, int32_t weight) {
  // One connection per NIC pair (post_channel, above): the channels only pick the paths.
  const uint32_t id = post(src_nic, dst_nic, size_bytes, tag);
  msgs_[id].weight = std::max(1, weight);
  msgs_[id].channel = channel;
  return id;
}

void FlowTransport::weigh_path(const Msg& m) {
  if (m.weight == 1) return;
  for (FluidFabric::Crossing& c : path_) c.weight *= m.weight;
}

bool FlowTransport::walk(const Msg& m) {
  net::Packet pkt;
  pkt.src_nic = m.rec.src_nic;
  pkt.dst_nic = m.rec.dst_nic;
  pkt.qp = m.hdr.qp;
  pkt.entropy = m.hdr.entropy;
  pkt.priority = m.hdr.priority;
  pkt.type = net::PacketType::kData;
  pkt.flags = net::kFlagFirst;
  const auto load = [this](uint32_t port) { return fabric_.crossings(port); };
  if (m.weight == 1 || !channel_entropy_ || m.hdr.choice != PathChoice::kForward ||
      channel_entropy_(m.rec.src_nic, m.rec.dst_nic, m.channel) < 0) {
    return walker_.walk(pkt, m.hdr.choice, load, path_);
  }
  // A folded message: each channel's path at 1/weight of the bytes, merged by link (in the
  // order first reached, so the list is the same whenever the paths are).
  path_.clear();
  const double share = 1.0 / m.weight;
  for (int32_t k = 0; k < m.weight; ++k) {
    pkt.entropy = static_cast<uint16_t>(
        channel_entropy_(m.rec.src_nic, m.rec.dst_nic, m.channel + static_cast<uint32_t>(k)));
    if (!walker_.walk(pkt, m.hdr.choice, load, one_path_)) return false;
    for (const FluidFabric::Crossing& c : one_path_) {
      auto it = std::find_if(path_.begin(), path_.end(),
                             [&](const FluidFabric::Crossing& x) { return x.link == c.link; });
      if (it == path_.end()) {
        path_.push_back({c.link, c.weight * share});
      } else {
        it->weight += c.weight * share;
      }
    }
  }
  return true;
}

void FlowTransport::report_path(uint32_t id) {
  if (!on_path) return;
  path_ports_.clear();
  for (const FluidFabric::Crossing& c : path_) path_ports_.push_back(c.link);
  on_path(id, path_ports_);
}

void FlowTransport::start(uint32_t id) {
  Msg& m = msgs_[id];
  if (m.rec.size_bytes <= 0) {
    drained(id);
    return;
  }
  if (!walk(m)) {
    throw InputError("mode", "flow mode: message " + std::to_string(id) + " from NIC " +
                                 std::to_string(m.rec.src_nic) + " to NIC " +
                                 std::to_string(m.rec.dst_nic) + " finds no route");
  }
  begin(id);
  weigh_path(m);
  cap_path(m);
  const uint32_t flow = fabric_.add(path_.data(), static_cast<int>(path_.size()),
                                    m.rec.size_bytes, id, sched_.now(), m.weight);
  if (dcqcn_) {
    dcqcn_->attach(m.hdr.connection, flow, m.rec.size_bytes, m.weight, m.fixed_ps + m.ack_ps);
  }
  after_change();
}

void FlowTransport::begin(uint32_t id) {
  Msg& m = msgs_[id];
  report_path(id);
  // Before weigh_path: the crossings' weights are the message's own split over its paths.
  const double wire = static_cast<double>(m.rec.size_bytes) * wire_per_payload_;
  for (const FluidFabric::Crossing& c : path_) {
    net_.add_fluid_tx_bytes(c.link, static_cast<int64_t>(std::llround(wire * c.weight)));
  }
  m.rec.sent_bytes = m.rec.size_bytes;
  counters_.data_bytes_sent += m.rec.size_bytes;
}

bool FlowTransport::continue_connection(uint32_t flow) {
  if (!fabric_.ends_at(flow, sched_.now())) return false;
  const auto id = static_cast<uint32_t>(fabric_.tag(flow));
  // It ends now, continued or not: its rate machine counts all of it as sent.
  if (dcqcn_) dcqcn_->detach(msgs_[id].hdr.connection, flow);
  const uint32_t next_id = msgs_[id].next;
  if (next_id == kNone) return false;
  const Msg& n = msgs_[next_id];
  // A least-loaded choice must see the links without the message that ends (as start() would
  // after the re-share): it goes the usual way.
  if (n.rec.ready_ps > sched_.now() || n.rec.size_bytes <= 0 ||
      n.hdr.choice == PathChoice::kLeastLoaded || !walk(n)) {
    return false;
  }
  // The fabric's crossings differ from the ports begin() credits: weighted, or with a cap.
  const bool adjusted = n.weight > 1 || dcqcn_ != nullptr;
  if (adjusted) {
    unweighted_.assign(path_.begin(), path_.end());  // what begin() credits the ports
    weigh_path(n);
    cap_path(n);
  }
  if (!fabric_.renew(flow, path_.data(), static_cast<int>(path_.size()), n.rec.size_bytes,
                     next_id, sched_.now(), n.weight)) {
    return false;
  }
  complete(id);  // the connection's head is now next_id, draining
  if (adjusted) path_.swap(unweighted_);
  begin(next_id);
  if (dcqcn_) {
    dcqcn_->attach(n.hdr.connection, flow, n.rec.size_bytes, n.weight, n.fixed_ps + n.ack_ps);
  }
  return true;
}

void FlowTransport::on_links_changed(bool reroute_all) {
  for (uint32_t p = 0; p < net_.num_ports(); ++p) {
    fabric_.set_capacity(p, payload_capacity(net_, proto_, p));
  }
  for (uint32_t f = 0; f < fabric_.flows_allocated(); ++f) {
    if (!fabric_.active(f)) continue;
    bool down = false;
    fabric_.for_each_link(f, [&](uint32_t port, double) {
      down |= fabric_link(port) && !net_.port(port).up;  // not a DCQCN cap: a cable
    });
    if (!down && !reroute_all) continue;
    const auto id = static_cast<uint32_t>(fabric_.tag(f));
    // No route yet (every path through the failed cable): the flow stays where it is, stalled.
    if (!walk(msgs_[id])) continue;
    report_path(id);
    // The fluid keeps size / weight over weight x the crossings (FluidFabric::add): what it has
    // left times a crossing's weight is the wire bytes either way.
    weigh_path(msgs_[id]);
    cap_path(msgs_[id]);
    // The old path was credited the whole message at its start: the bytes left move over.
    old_path_.clear();
    fabric_.for_each_link(f, [&](uint32_t port, double w) { old_path_.push_back({port, w}); });
    const double left_wire =
        fabric_.reroute(f, path_.data(), static_cast<int>(path_.size()), sched_.now()) *
        wire_per_payload_;
    for (const FluidFabric::Crossing& c : old_path_) {
      if (!fabric_link(c.link)) continue;  // a DCQCN cap
      net_.add_fluid_tx_bytes(c.link, -static_cast<int64_t>(std::llround(left_wire * c.weight)));
    }
    for (const FluidFabric::Crossing& c : path_) {
      if (!fabric_link(c.link)) continue;
      net_.add_fluid_tx_bytes(c.link, static_cast<int64_t>(std::llround(left_wire * c.weight)));
    }
  }
  after_change();
}

void FlowTransport::complete(uint32_t id) {
  Msg& m = msgs_[id];
  sched_.at(sched_.now() + m.fixed_ps, kMsgComplete, id, m.rec.dst_nic);
  ++owed().completions;
  Conn& c = conns_[m.hdr.connection];
  c.head = m.next;
  if (c.head == kNone) c.tail = kNone;
}

void FlowTransport::drained(uint32_t id) {
  complete(id);
  // The connection's next message drains after this one.
  const Conn& c = conns_[msgs_[id].hdr.connection];
  if (c.head != kNone) {
    const Msg& n = msgs_[c.head];
    sched_.at(std::max(sched_.now(), n.rec.ready_ps), kCcTimer, c.head, n.rec.src_nic);
  }
}

void FlowTransport::deliver(uint32_t id) {
  Msg& m = msgs_[id];
  --owed().completions;
  --owed().unacked;
  m.delivered = true;
  m.rec.rx_done_ps = sched_.now();
  m.rec.tx_done_ps = sched_.now() + m.ack_ps;
  m.rec.delivered_bytes = m.rec.placed_bytes = m.rec.size_bytes;
  counters_.data_bytes_delivered += m.rec.size_bytes;
  if (on_delivered) on_delivered(id);
  retire_front();
}

void FlowTransport::retire_front() {
  if (!retire_) return;
  while (!msgs_.empty() && msgs_[msgs_.front_id()].delivered) {
    retire_(msgs_.front_id(), msgs_[msgs_.front_id()].rec);
    msgs_.pop_front();
  }
}

bool FlowTransport::retire_messages(RetireFn retire) {
  retire_ = std::move(retire);
  retire_front();
  return true;
}

void FlowTransport::after_change() {
  // The DCQCN rate machines see their flows' new rates first: a cut they make re-fills again.
  if (dcqcn_) {
    for (const uint32_t flow : fabric_.take_changed()) {
      if (!fabric_.active(flow)) continue;
      dcqcn_->on_changed(msgs_[static_cast<uint32_t>(fabric_.tag(flow))].hdr.connection, flow);
    }
    fabric_.take_changed().clear();
    for (const uint32_t link : fabric_.take_changed_links()) dcqcn_->on_link_changed(link);
    fabric_.take_changed_links().clear();
    dcqcn_->flush();
  }
  if (fabric_.dirty() && reshare_at_ps_ != sched_.now()) {
    reshare_at_ps_ = sched_.now();
    sched_.at(sched_.now(), kNicWake, 0);  // kNicWake: the fabric's re-share (target unused)
  }
  for (const FluidFabric::EndEvent& e : fabric_.take_ends()) {
    sched_.at(e.time_ps, kQpTimer, e.flow);  // kQpTimer: a flow's end (target = flow)
  }
  fabric_.take_ends().clear();
}

void FlowTransport::on_event(uint32_t kind, uint32_t target) {
  switch (kind) {
    case kCcTimer:
      start(target);
      break;
    case kQpTimer:
      // A continued connection changes no link's share: nothing to re-fill.
      if (!continue_connection(target) && fabric_.on_end(target, sched_.now())) {
        const auto id = static_cast<uint32_t>(fabric_.tag(target));
        if (dcqcn_) dcqcn_->detach(msgs_[id].hdr.connection, target);
        drained(id);
      }
      after_change();
      break;
    case kNicWake:
      reshare_at_ps_ = -1;
      fabric_.reshare(sched_.now());
      after_change();
      break;
    case kMsgComplete:
      deliver(target);
      break;
    case kFluidCc:
      if (dcqcn_) {
        dcqcn_->on_event(target);
        counters_.cnps_sent = dcqcn_->cnps();
      }
      after_change();
      break;
    default:
      break;
  }
}

}  // namespace fabricsim::scenario
