// mode: hybrid: the rates a group of QPs is skipped at when they need no measuring
// (analytic_rates), and the line-rate cap on measured ones (cap_rates).
// engine/hybrid/steady_skip.h.
#include <algorithm>

#include "core/time.h"
#include "engine/hybrid/steady_skip.h"

namespace fabricsim::scenario {

bool SteadySkip::analytic_rates(const std::vector<uint32_t>& qps, std::vector<double>& rate,
                                std::vector<uint32_t>& room) {
  const int64_t now = sched_.now();
  const double data = static_cast<double>(rc_.data_wire_bytes());
  const double ack = static_cast<double>(rc_.ack_wire_bytes()) / rc_.config().ack_every;
  room.assign(qps.size(), 0);
  for (size_t j = 0; j < qps.size(); ++j) {
    const uint32_t qp = qps[j];
    const transport::Qp& q = rc_.qp(qp);
    const std::vector<uint32_t>& fwd = fwd_ports_[qp];
    if (fwd.empty()) return false;
    const net::Port& nic = net_.port(fwd.front());
    // Sending now, unpaced: its congestion control at the line rate, its pacing not ahead by
    // more than a packet, its class not paused.
    if (rc_.cc_enabled() && rc_.cc(qp).rate_bps() < nic.rate_bps) return false;
    if (q.next_send_ps > now + serialization_ps(static_cast<int64_t>(data), nic.rate_bps)) {
      return false;
    }
    if (nic.paused_mask != 0) return false;
    room[j] = rc_.skippable_packets(qp, 2);
    if (room[j] == 0) return false;
  }
  // Wire bytes per ps each port may carry; a NIC port's data QPs share what its ACKs leave
  // (ACKs go first: they wait in the port's queue, data is pulled when it is free). Dense
  // per-port scratch, cleared over the ports touched: linear in the group's path lengths.
  auto cap = [&](uint32_t port) { return static_cast<double>(net_.port(port).rate_bps) / 8e12; };
  std::vector<uint32_t> touched;
  for (const uint32_t qp : qps) {
    const uint32_t nic_port = fwd_ports_[qp].front();
    if (senders_at_[nic_port]++ == 0) touched.push_back(nic_port);
    for (const uint32_t port : rev_ports_[qp]) touched.push_back(port);
    for (const uint32_t port : fwd_ports_[qp]) touched.push_back(port);
  }
  rate.assign(qps.size(), 0.0);
  for (size_t j = 0; j < qps.size(); ++j) {
    const uint32_t nic_port = fwd_ports_[qps[j]].front();
    rate[j] = cap(nic_port) / data / senders_at_[nic_port];
  }
  for (int iter = 0; iter < 8; ++iter) {  // a contraction (ACKs are a few % of a port): settles
    for (const uint32_t port : touched) load_at_[port] = 0.0;
    for (size_t j = 0; j < qps.size(); ++j) {
      for (const uint32_t port : rev_ports_[qps[j]]) load_at_[port] += rate[j] * ack;
    }
    for (size_t j = 0; j < qps.size(); ++j) {
      const uint32_t nic_port = fwd_ports_[qps[j]].front();
      rate[j] = std::max(0.0, cap(nic_port) - load_at_[nic_port]) / data / senders_at_[nic_port];
    }
  }
  // No port may be over its line rate with the data added (that is contention: measured, not
  // known).
  for (size_t j = 0; j < qps.size(); ++j) {
    for (const uint32_t port : fwd_ports_[qps[j]]) load_at_[port] += rate[j] * data;
  }
  bool fits = true;
  for (const uint32_t port : touched) fits = fits && load_at_[port] <= cap(port) * (1 + 1e-9);
  for (const uint32_t port : touched) {
    load_at_[port] = 0.0;
    senders_at_[port] = 0;
  }
  return fits;
}

void SteadySkip::cap_rates(Group& g) {
  // Each QP's rate was measured between its own ACKs; summed over the QPs of a shared port
  // they may exceed what the port can send by a packet per window each. No port carries more
  // than its line rate: the QPs over one that would are scaled down to it.
  const double wire_bits = 8.0 * static_cast<double>(rc_.data_wire_bytes());
  for (const uint32_t port : g.ports) {
    double load = 0;
    for (size_t i = 0; i < g.qps.size(); ++i) {
      const std::vector<uint32_t>& f = fwd_ports_[g.qps[i]];
      if (std::find(f.begin(), f.end(), port) != f.end()) load += g.rate_ppps[i];
    }
    const double cap = static_cast<double>(net_.port(port).rate_bps) / wire_bits * 1e-12;
    if (load <= cap) continue;
    for (size_t i = 0; i < g.qps.size(); ++i) {
      const std::vector<uint32_t>& f = fwd_ports_[g.qps[i]];
      if (std::find(f.begin(), f.end(), port) != f.end()) g.rate_ppps[i] *= cap / load;
    }
  }
}

}  // namespace fabricsim::scenario
