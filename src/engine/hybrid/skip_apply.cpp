// mode: hybrid: a skip applied (its QPs' packets carried, its events and clocks moved, its ports
// frozen and credited), undone in part when something from outside reaches the group, and
// ended. engine/hybrid/steady_skip.h.
#include <algorithm>
#include <cmath>

#include "engine/hybrid/steady_skip.h"

namespace fabricsim::scenario {

namespace {

net::Network::PortTally minus(const net::Network::PortTally& a, const net::Network::PortTally& b) {
  return {a.tx_bytes - b.tx_bytes, a.ecn_marks - b.ecn_marks,
          a.pause_frames_sent - b.pause_frames_sent,
          a.pause_frames_received - b.pause_frames_received, a.paused_ps - b.paused_ps};
}

// num x (dt / span), rounded down: what a counter that moved num over span moves over dt.
int64_t scale(int64_t num, int64_t dt_ps, int64_t span_ps) {
  return static_cast<int64_t>(std::floor(static_cast<double>(num) * static_cast<double>(dt_ps) /
                                         static_cast<double>(span_ps)));
}

net::Network::PortTally scaled(const net::Network::PortTally& n, int64_t dt_ps, int64_t span_ps) {
  return {scale(n.tx_bytes, dt_ps, span_ps), scale(n.ecn_marks, dt_ps, span_ps),
          scale(n.pause_frames_sent, dt_ps, span_ps),
          scale(n.pause_frames_received, dt_ps, span_ps), scale(n.paused_ps, dt_ps, span_ps)};
}

}  // namespace

void SteadySkip::carry_bytes(uint32_t qp, int64_t packets) {
  if (packets == 0) return;
  // Each data port sends the packets; each port back sends their ACKs (one per ack_every).
  const int64_t data = rc_.data_wire_bytes();
  for (const uint32_t port : fwd_ports_[qp])
    net_.add_port_tally(port, {packets * data, 0, 0, 0, 0});
  const int64_t every = rc_.config().ack_every;
  const int64_t acks = packets >= 0 ? packets / every : -((-packets) / every);
  const int64_t ack = rc_.ack_wire_bytes();
  for (const uint32_t port : rev_ports_[qp]) net_.add_port_tally(port, {acks * ack, 0, 0, 0, 0});
  net_.add_data_packet_hops(packets * static_cast<int64_t>(fwd_ports_[qp].size()));
}

void SteadySkip::apply(uint32_t slot, int64_t dt_ps) {
  Group& g = groups_[slot];
  const int64_t now = sched_.now();
  g.active = true;
  g.t0_ps = now;
  g.until_ps = now + dt_ps;
  const int64_t mtu = rc_.config().mtu_bytes;
  g.carried.assign(g.qps.size(), 0);
  for (size_t i = 0; i < g.qps.size(); ++i) {
    const uint32_t qp = g.qps[i];
    const auto k = static_cast<uint32_t>(std::llround(g.rate_ppps[i] * static_cast<double>(dt_ps)));
    g.carried[i] = std::min(k, rc_.skippable_packets(qp, 0));
    if (g.carried[i] > 0) rc_.skip_packets(qp, g.carried[i]);
    rc_.shift_qp_time(qp, dt_ps);
    group_of_qp_[qp] = static_cast<int32_t>(slot);
    carry_bytes(qp, static_cast<int64_t>(g.carried[i]));
    stats_.skipped_packets += g.carried[i];
    stats_.skipped_bytes += g.carried[i] * mtu;
  }
  g.port_rate_num.resize(g.ports.size());
  g.credited.resize(g.ports.size());
  for (size_t i = 0; i < g.ports.size(); ++i) {
    const uint32_t port = g.ports[i];
    g.port_rate_num[i] = minus(snap(0, port), snap(w_, port));
    g.port_rate_num[i].tx_bytes = 0;  // the carried packets' own bytes are counted exactly
    g.credited[i] = scaled(g.port_rate_num[i], dt_ps, span_ps_);
    net_.add_port_tally(port, g.credited[i]);
    net_.shift_port_time(port, dt_ps);
    net_.set_frozen(port, true);
    group_of_port_[port] = static_cast<int32_t>(slot);
  }
  for (const uint32_t nic : g.nics) {
    rc_.shift_nic_time(nic, dt_ps);
    group_of_nic_[nic] = static_cast<int32_t>(slot);
  }
  ++stats_.skips;
  stats_.skipped_group_ps += dt_ps;
}

void SteadySkip::undo_rest(uint32_t slot) {
  Group& g = groups_[slot];
  const int64_t now = sched_.now();
  const int64_t back = g.until_ps - now;  // the part not reached
  const int64_t done = now - g.t0_ps;
  const int64_t mtu = rc_.config().mtu_bytes;
  drained_.clear();
  sched_.queue.drain(drained_);
  std::sort(drained_.begin(), drained_.end(),
            [](const Event& a, const Event& b) { return a.seq < b.seq; });
  for (const Event& e : drained_) {
    const int64_t d = group_of_event(e) == static_cast<int32_t>(slot) ? -back : 0;
    sched_.queue.push(e.time_ps + d, e.kind(), e.target, e.owner());
  }
  for (size_t i = 0; i < g.qps.size(); ++i) {
    const uint32_t qp = g.qps[i];
    const auto keep =
        std::min(g.carried[i],
                 static_cast<uint32_t>(std::floor(g.rate_ppps[i] * static_cast<double>(done))));
    const uint32_t give_back = g.carried[i] - keep;
    if (give_back > 0) rc_.unskip_packets(qp, give_back);
    rc_.shift_qp_time(qp, -back);
    carry_bytes(qp, -static_cast<int64_t>(give_back));
    stats_.skipped_packets -= give_back;
    stats_.skipped_bytes -= give_back * mtu;
    g.carried[i] = keep;
  }
  for (size_t i = 0; i < g.ports.size(); ++i) {
    const net::Network::PortTally now_credit = scaled(g.port_rate_num[i], done, span_ps_);
    net_.add_port_tally(g.ports[i], minus(now_credit, g.credited[i]));
    g.credited[i] = now_credit;
    net_.shift_port_time(g.ports[i], -back);
  }
  for (const uint32_t nic : g.nics) rc_.shift_nic_time(nic, -back);
  ++stats_.cut_short;
  stats_.skipped_group_ps -= back;
  g.until_ps = now;
  thaw(slot);
}

void SteadySkip::thaw(uint32_t slot) {
  Group& g = groups_[slot];
  g.active = false;
  for (const uint32_t port : g.ports) {
    net_.set_frozen(port, false);
    group_of_port_[port] = -1;
  }
  for (size_t i = 0; i < g.qps.size(); ++i) {
    const uint32_t qp = g.qps[i];
    group_of_qp_[qp] = -1;
    reset_history(qp);
    // Congestion control hears of the skipped bytes at the skip's end (DCQCN's byte counter).
    rc_.count_skipped_for_cc(qp, g.carried[i]);
  }
  for (const uint32_t nic : g.nics) group_of_nic_[nic] = -1;
}

}  // namespace fabricsim::scenario
