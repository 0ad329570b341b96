#include "engine/flow/fluid_dcqcn.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace fabricsim::scenario {

namespace {
// (8e12: bits per byte x picoseconds per second.)
// A queue below this many bytes is empty (the rounding of rate x time).
constexpr double kEmptyBytes = 1e-3;
}  // namespace

FluidDcqcn::FluidDcqcn(const transport::DcqcnParams& p, const net::EcnConfig& ecn,
                       FluidFabric& fabric, Scheduler& sched, std::vector<uint8_t> marks,
                       double payload_per_wire, int64_t queue_max_bytes, int64_t mtu_bytes)
    : p_(p),
      ecn_(ecn),
      fabric_(fabric),
      sched_(sched),
      marks_(std::move(marks)),
      payload_per_wire_(payload_per_wire),
      queue_max_bytes_(static_cast<double>(queue_max_bytes)),
      mtu_bytes_(static_cast<double>(std::max<int64_t>(mtu_bytes, 1))) {
  // ECN marking off (fabric.ecn.marking: off): no port marks, and DCQCN never hears of
  // congestion, as in packet mode.
  if (!ecn_.enabled) std::fill(marks_.begin(), marks_.end(), 0);
  queues_.resize(marks_.size());
  for (uint32_t l = 0; l < marks_.size(); ++l) {
    if (marks_[l]) fabric_.watch_link(l);
  }
}

double FluidDcqcn::queue_bytes(uint32_t link) const {
  const Queue& q = queues_[link];
  const double b = q.bytes + q.slope_bps * static_cast<double>(sched_.now() - q.t_ps) / 8e12;
  return std::clamp(b, 0.0, queue_max_bytes_);
}

int64_t FluidDcqcn::cnp_interval_ps(const State& s) const {
  return p_.cnp_interval_ps > 0 ? p_.cnp_interval_ps : std::max<int64_t>(s.rtt_ps, 1);
}

double FluidDcqcn::send_rate_bps(uint32_t flow, uint32_t link) const {
  const double rate = fabric_.rate_bps(flow);
  const FluidFabric::Crossing cap = fabric_.last_crossing(flow);
  if (fabric_.bottleneck(flow) != link || cap.link < marks_.size()) return rate;
  // Held back here: its sender sends at Rc, or at what its NIC's port gives each channel
  // (the port's capacity over the channels sending on it) if that is less.
  const uint32_t conn = conn_of_flow_[flow];
  const State& s = states_[static_cast<size_t>(slot_[conn])];
  const uint32_t nic = fabric_.first_crossing(flow).link;
  const double nic_share = fabric_.capacity_bps(nic) / std::max(fabric_.weight_on(nic), 1.0);
  const double rc = static_cast<double>(s.rp.rate_bps()) * payload_per_wire_;
  return std::min(rc, nic_share);
}

void FluidDcqcn::on_link_changed(uint32_t link) {
  Queue& q = queues_[link];
  const int64_t now = sched_.now();
  q.bytes = queue_bytes(link);
  q.t_ps = now;
  const bool was_empty = q.bytes <= kEmptyBytes;
  double offered = 0;
  fabric_.for_each_flow(link, [&](uint32_t flow, double weight) {
    offered += weight * send_rate_bps(flow, link);
  });
  const double capacity = fabric_.capacity_bps(link);
  if (capacity <= 0) {
    // A failed cable: the switch drops what it would send there (packet mode counts them as
    // link-down drops); nothing queues, so nothing is marked.
    q.bytes = 0;
    q.slope_bps = 0;
    if (!was_empty) lift(link);
    return;
  }
  const double slope = offered - capacity;
  q.slope_bps = was_empty && slope <= 0 ? 0.0 : slope;
  if (was_empty && q.slope_bps > 0) lift(link);  // the queue now keeps the port busy
  const double kmin = static_cast<double>(ecn_.kmin_bytes);
  if (!was_empty && q.bytes >= kmin) arm(link);
  int64_t at = -1;
  if (q.slope_bps > 0 && q.bytes < kmin) {
    at = now + static_cast<int64_t>(std::min(std::ceil((kmin - q.bytes) * 8e12 / q.slope_bps), 1e15));
  } else if (q.slope_bps < 0) {
    at = now + static_cast<int64_t>(std::min(std::ceil(q.bytes * 8e12 / -q.slope_bps), 1e15));
  }
  if (at >= 0 && (q.event_ps < now || at != q.event_ps)) {
    q.event_ps = at;
    sched_.at(at, kFluidCc, kLinkEvent | link);
  }
}

void FluidDcqcn::lift(uint32_t link) {
  fabric_.for_each_flow(link, [&](uint32_t flow, double) {
    if (flow >= conn_of_flow_.size() || conn_of_flow_[flow] == kNoFlow) return;
    const uint32_t conn = conn_of_flow_[flow];
    if (conn >= slot_.size() || slot_[conn] < 0) return;
    State& s = states_[static_cast<size_t>(slot_[conn])];
    if (s.flow == flow) apply(s);
  });
}

void FluidDcqcn::arm(uint32_t link) {
  const int64_t now = sched_.now();
  fabric_.for_each_flow(link, [&](uint32_t flow, double) {
    if (flow >= conn_of_flow_.size()) return;
    const uint32_t conn = conn_of_flow_[flow];
    if (conn >= slot_.size() || slot_[conn] < 0) return;
    State& s = states_[static_cast<size_t>(slot_[conn])];
    if (s.flow != flow || s.cnp_ps >= 0) return;
    s.cnp_ps = now + s.rtt_ps;
    plan(s, conn);
  });
}

FluidDcqcn::State& FluidDcqcn::state(uint32_t conn, int64_t line_rate_bps) {
  if (conn >= slot_.size()) slot_.resize(conn + 1, -1);
  if (slot_[conn] < 0) {
    slot_[conn] = static_cast<int32_t>(states_.size());
    const double cap = static_cast<double>(line_rate_bps) * payload_per_wire_;
    states_.push_back(State{transport::DcqcnRp(p_, line_rate_bps), fabric_.add_link(cap)});
  }
  return states_[static_cast<size_t>(slot_[conn])];
}

void FluidDcqcn::sync(State& s) {
  const int64_t now = sched_.now();
  if (s.flow == kNoFlow) {
    s.rp.on_timer(now);
    return;
  }
  const double left = fabric_.remaining_bytes(s.flow, now);
  const auto sent = static_cast<int64_t>(std::llround(s.left_bytes - left));
  s.left_bytes = left;
  s.rp.on_bytes_sent(sent > 0 ? sent : 0, now);
}

bool FluidDcqcn::behind_queue(const State& s) const {
  if (s.flow == kNoFlow || !fabric_.active(s.flow)) return false;
  bool any = false;
  fabric_.for_each_link(s.flow, [&](uint32_t link, double) {
    any = any || (link < marks_.size() && marks_[link] && queue_bytes(link) > kEmptyBytes);
  });
  return any;
}

void FluidDcqcn::apply(State& s) {
  // Behind a queue the port sends at its line rate whatever the senders do: the flow's
  // delivery is its max-min share, not its sender's rate.
  const double rate = behind_queue(s) ? static_cast<double>(s.rp.line_rate_bps())
                                      : static_cast<double>(s.rp.rate_bps());
  const double cap = rate * payload_per_wire_ * s.weight;
  if (cap != s.cap_bps) {
    s.cap_bps = cap;
    fabric_.set_capacity(s.cap_link, cap);
  }
  // What its sender offers the queues on its path moved (with the cap lifted, no re-fill
  // shows it): their slopes are set again (flush).
  if (s.rp.rate_bps() != s.rc_seen_bps) {
    s.rc_seen_bps = s.rp.rate_bps();
    if (s.flow != kNoFlow && fabric_.active(s.flow)) {
      fabric_.for_each_link(s.flow, [&](uint32_t link, double) {
        if (link < marks_.size() && marks_[link]) stale_links_.push_back(link);
      });
    }
  }
}

void FluidDcqcn::flush() {
  while (!stale_links_.empty()) {
    flushing_.swap(stale_links_);
    for (const uint32_t link : flushing_) on_link_changed(link);
    flushing_.clear();
  }
}

double FluidDcqcn::mark_probability(double queue_bytes) const {
  const double kmin = static_cast<double>(ecn_.kmin_bytes);
  const double kmax = static_cast<double>(ecn_.kmax_bytes);
  if (queue_bytes <= 0 || queue_bytes < kmin) return 0;
  if (queue_bytes >= kmax) return 1;
  return ecn_.pmax * (queue_bytes - kmin) / (kmax - kmin);
}

double FluidDcqcn::cnp_probability(const State& s, bool& congested) const {
  congested = false;
  if (s.flow == kNoFlow || !fabric_.active(s.flow)) return 0;
  // A packet passes every queue on its path unmarked with the product of their (1 - p).
  double unmarked = 1;
  fabric_.for_each_link(s.flow, [&](uint32_t link, double) {
    if (link >= marks_.size() || !marks_[link]) return;
    const double bytes = queue_bytes(link);
    // Below Kmin nothing is marked; a queue rising to it arms its flows then (on_event).
    congested = congested || past_kmin(bytes);
    unmarked *= 1 - mark_probability(bytes);
  });
  // The packets one channel sends per CNP interval, at its sender's rate (behind a queue its
  // delivery can be faster).
  const double send_bps = std::min(fabric_.rate_bps(s.flow),
                                   static_cast<double>(s.rp.rate_bps()) * payload_per_wire_);
  const double packets =
      std::max(1.0, send_bps * static_cast<double>(cnp_interval_ps(s)) / (8e12 * mtu_bytes_));
  return 1 - std::pow(unmarked, packets);
}

void FluidDcqcn::plan(State& s, uint32_t conn) {
  const int64_t now = sched_.now();
  int64_t wake = std::numeric_limits<int64_t>::max();
  if (s.cnp_ps >= 0) wake = s.cnp_ps;
  // An idle connection's timers need no event: the next message's cap_path catches them up
  // (DcqcnRp runs every due step in order).
  if (s.flow != kNoFlow && s.rp.next_timer_ps() != transport::kNoTimer) {
    wake = std::min(wake, s.rp.next_timer_ps());
  }
  const int64_t bytes = s.rp.bytes_to_increase();
  if (s.flow != kNoFlow && bytes > 0) {
    const double rate = fabric_.rate_bps(s.flow);
    if (rate > 0) {
      const double ps = std::ceil(static_cast<double>(bytes) * 8e12 / rate);
      if (ps < 1e18) wake = std::min(wake, now + static_cast<int64_t>(ps));
    }
  }
  if (wake == std::numeric_limits<int64_t>::max()) return;
  wake = std::max(wake, now);
  if (s.wake_ps >= now && s.wake_ps <= wake) return;  // an event already comes first
  s.wake_ps = wake;
  sched_.at(wake, kFluidCc, conn);
}

void FluidDcqcn::cap_path(uint32_t conn, int64_t line_rate_bps, int32_t weight,
                          std::vector<FluidFabric::Crossing>& path) {
  State& s = state(conn, line_rate_bps);
  sync(s);
  s.weight = weight;
  apply(s);
  path.push_back({s.cap_link, static_cast<double>(weight)});
}

void FluidDcqcn::attach(uint32_t conn, uint32_t flow, int64_t size_bytes, int32_t weight,
                        int64_t rtt_ps) {
  State& s = states_[static_cast<size_t>(slot_[conn])];
  s.flow = flow;
  s.weight = weight;
  s.left_bytes = static_cast<double>(size_bytes) / weight;
  s.rtt_ps = rtt_ps;
  fabric_.watch(flow);
  if (flow >= conn_of_flow_.size()) conn_of_flow_.resize(flow + 1, 0xFFFFFFFFu);
  conn_of_flow_[flow] = conn;
  const int64_t now = sched_.now();
  if (s.detached_ps == now && s.detached_cnp_ps >= 0) {
    // The connection's next message, back to back: the CNP checks go on as they were.
    s.cnp_ps = s.detached_cnp_ps;
  } else {
    // Queues already at Kmin on its path mark its packets from its first round trip on, as
    // arm() would have had they reached Kmin now; they will not cross it again to arm it.
    s.cnp_ps = -1;
    s.cnp_credit = 0;
    bool congested = false;
    fabric_.for_each_link(flow, [&](uint32_t link, double) {
      if (link >= marks_.size() || !marks_[link]) return;
      congested = congested || past_kmin(queue_bytes(link));
    });
    if (congested) s.cnp_ps = now + rtt_ps;
  }
  s.detached_ps = -1;
  plan(s, conn);  // a renewed flow is not re-filled, so nothing else would
}

void FluidDcqcn::detach(uint32_t conn, uint32_t flow) {
  if (conn >= slot_.size() || slot_[conn] < 0) return;
  State& s = states_[static_cast<size_t>(slot_[conn])];
  if (s.flow != flow) return;
  // It ends now: whatever it had left has been sent.
  s.rp.on_bytes_sent(static_cast<int64_t>(std::llround(s.left_bytes)), sched_.now());
  s.left_bytes = 0;
  s.flow = kNoFlow;
  s.detached_ps = sched_.now();
  s.detached_cnp_ps = s.cnp_ps;
  s.cnp_ps = -1;  // no more packets to mark
}

void FluidDcqcn::on_changed(uint32_t conn, uint32_t flow) {
  if (conn >= slot_.size() || slot_[conn] < 0) return;
  State& s = states_[static_cast<size_t>(slot_[conn])];
  if (s.flow != flow) return;
  sync(s);
  apply(s);
  plan(s, conn);
}

void FluidDcqcn::on_event(uint32_t target) {
  const int64_t now = sched_.now();
  if (target & kLinkEvent) {
    const uint32_t link = target & ~kLinkEvent;
    Queue& q = queues_[link];
    if (q.event_ps != now) return;  // superseded
    q.event_ps = -1;
    if (q.slope_bps > 0) {
      arm(link);  // reached Kmin (rounding can leave it a hair short: the slope put it there)
    } else if (q.slope_bps < 0) {  // drained: its flows run at their senders' rates again
      q.bytes = 0;
      q.t_ps = now;
      q.slope_bps = 0;
      lift(link);
    }
    return;
  }
  const uint32_t conn = target;
  State& s = states_[static_cast<size_t>(slot_[conn])];
  if (s.wake_ps <= now) s.wake_ps = -1;
  sync(s);
  if (s.cnp_ps >= 0 && s.cnp_ps <= now) {
    // One interval's packets carry a mark with probability P: its expected CNPs accumulate,
    // and a CNP arrives when a whole one has (deterministic, at the expected rate).
    bool congested = false;
    s.cnp_credit += cnp_probability(s, congested);
    if (s.cnp_credit >= 1) {
      s.cnp_credit -= 1;
      s.rp.on_cnp(now);
      ++cnps_;
    }
    if (congested) {
      s.cnp_ps = now + cnp_interval_ps(s);
    } else {
      s.cnp_ps = -1;
      s.cnp_credit = 0;
    }
  }
  apply(s);
  plan(s, conn);
}

}  // namespace fabricsim::scenario
