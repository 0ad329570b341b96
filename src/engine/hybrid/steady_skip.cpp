#include "engine/hybrid/steady_skip.h"

#include <algorithm>
#include <cmath>

#include "core/time.h"
#include "engine/flow/path_walk.h"

namespace fabricsim::scenario {

namespace {

// Events of kinds that change the fabric as a whole or report what it did (a failure, a route
// update, TE, a NIC stall, drop notices, context reads): a skip ends before the earliest.
bool is_hard_kind(uint32_t kind) {
  switch (kind) {
    case kNicStall:
    case kNicResume:
    case kLinkFail:
    case kLinkUp:
    case kRouteUpdate:
    case kTeInstall:
    case kTeTick:
    case kLocalRepair:
    case kDropNotice:
    case kCtxRx:
      return true;
    default:
      return false;
  }
}

}  // namespace

SteadySkip::SteadySkip(Scheduler& sched, net::Network& net, transport::RoceTransport& rc,
                       const HybridParams& p)
    : sched_(sched),
      net_(net),
      rc_(rc),
      p_(p),
      w_(p.window_rtts),
      span_ps_(p.window_rtts * p.window_ps) {
  const uint32_t ports = net_.num_ports();
  snap_.resize(static_cast<size_t>(w_ + 1) * ports);
  group_of_port_.assign(ports, -1);
  group_of_nic_.assign(net_.num_nics(), -1);
  uf_.resize(ports);
  comp_at_root_.assign(ports, -1);
  port_changed_ps_.assign(ports, 0);
  load_at_.assign(ports, 0.0);
  senders_at_.assign(ports, 0);
  for (uint32_t i = 0; i < ports; ++i) uf_[i] = i;
  net_.set_freeze_hook(net::FreezeHook{
      this, [](void* self, uint32_t port) { static_cast<SteadySkip*>(self)->on_touch(port); }});
  rc_.set_post_hook([](void* self, uint32_t qp) { static_cast<SteadySkip*>(self)->on_post(qp); },
                    this);
}

int64_t SteadySkip::base_rtt_ps(const net::Network& net, int diameter_switch_hops, int mtu_bytes) {
  if (net.num_nics() == 0) return 1'000'000;
  // Every hop as NIC 0's: its cable's propagation and the far switch's latency, an MTU frame's
  // serialization (plus ~100 bytes of headers) out and an ACK's (84 bytes on the wire) back.
  const net::Port& p = net.port(net.nic_port(0));
  const int64_t hops = diameter_switch_hops + 1;
  const int64_t rtt =
      hops *
      (2 * p.delay_ps + frame_serialization_ps(static_cast<uint32_t>(mtu_bytes + 100), p.rate_bps) +
       frame_serialization_ps(84, p.rate_bps));
  return std::max<int64_t>(rtt, 100'000);  // at least 100 ns
}

void SteadySkip::grow_qps(uint32_t n) {
  if (in_list_.size() >= n) return;
  in_list_.resize(n, 0);
  hist_.resize(static_cast<size_t>(n) * (w_ + 1), 0);
  hist_n_.resize(n, 0);
  path_.resize(n);
  fwd_ports_.resize(n);
  rev_ports_.resize(n);
  prog_.resize(static_cast<size_t>(n) * (w_ + 1), 0);
  sent_.resize(static_cast<size_t>(n) * (w_ + 1), 0);
  group_of_qp_.resize(n, -1);
}

const std::vector<uint32_t>& SteadySkip::path_of(uint32_t qp) {
  std::vector<uint32_t>& ports = path_[qp];
  if (!ports.empty()) return ports;
  PathWalker walker(net_);
  std::vector<FluidFabric::Crossing> path;
  auto none = [](uint32_t) { return 0; };
  std::vector<uint32_t>& fwd = fwd_ports_[qp];
  std::vector<uint32_t>& rev = rev_ports_[qp];
  if (walker.walk(rc_.data_header(qp), PathChoice::kForward, none, path)) {
    for (const FluidFabric::Crossing& c : path) {
      fwd.push_back(c.link);
      ports.push_back(c.link);
      ports.push_back(net_.port(c.link).peer);
    }
  }
  if (walker.walk(rc_.ack_header(qp), PathChoice::kForward, none, path)) {
    for (const FluidFabric::Crossing& c : path) {
      rev.push_back(c.link);
      ports.push_back(c.link);
      ports.push_back(net_.port(c.link).peer);
    }
  }
  std::sort(ports.begin(), ports.end());
  ports.erase(std::unique(ports.begin(), ports.end()), ports.end());
  return ports;
}

void SteadySkip::on_post(uint32_t qp) {
  grow_qps(qp + 1);
  // A message posted on a QP of a skipped group queues behind the one being skipped through
  // (skips end before a message's last window): nothing of the group changes until its end.
  // If the post has to wake the NIC, the NIC's frozen port ends the skip (on_touch).
  if (!in_list_[qp]) {  // it joins its ports: their sharers' rates change from here
    in_list_[qp] = 1;
    listed_.push_back(qp);
    reset_history(qp);
    for (const uint32_t port : path_of(qp)) port_changed_ps_[port] = sched_.now();
  }
  if (!tick_pending_) {
    tick_pending_ = true;
    sched_.at(sched_.now() + p_.window_ps, kHybridTick, 0);
  }
}

void SteadySkip::on_touch(uint32_t port) {
  const int32_t g = group_of_port_[port];
  if (g < 0) {
    net_.set_frozen(port, false);
    return;
  }
  if (sched_.now() >= groups_[g].until_ps) {
    thaw(static_cast<uint32_t>(g));
  } else {
    undo_rest(static_cast<uint32_t>(g));
  }
}

void SteadySkip::on_thaw(uint32_t slot) {
  if (slot < groups_.size() && groups_[slot].active && groups_[slot].until_ps == sched_.now()) {
    thaw(slot);
  }
}

void SteadySkip::settle() {
  for (uint32_t g = 0; g < groups_.size(); ++g) {
    if (!groups_[g].active) continue;
    if (sched_.now() >= groups_[g].until_ps) {
      thaw(g);
    } else {
      undo_rest(g);
    }
  }
}

const net::Network::PortTally& SteadySkip::snap(int age, uint32_t port) const {
  const int slot = (snap_head_ - age + (w_ + 1)) % (w_ + 1);
  return snap_[static_cast<size_t>(slot) * net_.num_ports() + port];
}

void SteadySkip::sample() {
  snap_head_ = (snap_head_ + 1) % (w_ + 1);
  const uint32_t ports = net_.num_ports();
  net::Network::PortTally* row = &snap_[static_cast<size_t>(snap_head_) * ports];
  for (uint32_t p = 0; p < ports; ++p) row[p] = net_.port_tally(p);
  snap_n_ = std::min(snap_n_ + 1, w_ + 1);
  size_t keep = 0;
  for (size_t i = 0; i < listed_.size(); ++i) {
    const uint32_t qp = listed_[i];
    if (group_of_qp_[qp] >= 0) {  // frozen: sampled again from its thaw
      listed_[keep++] = qp;
      continue;
    }
    if (rc_.qp_idle(qp)) {  // it left its ports: their sharers' rates change from here
      in_list_[qp] = 0;
      for (const uint32_t port : path_of(qp)) port_changed_ps_[port] = sched_.now();
      continue;
    }
    listed_[keep++] = qp;
    uint32_t* h = &hist_[static_cast<size_t>(qp) * (w_ + 1)];
    int64_t* t = &prog_[static_cast<size_t>(qp) * (w_ + 1)];
    uint32_t* x = &sent_[static_cast<size_t>(qp) * (w_ + 1)];
    const transport::Qp& q = rc_.qp(qp);
    if (hist_n_[qp] == w_ + 1) {
      std::copy(h + 1, h + w_ + 1, h);
      std::copy(t + 1, t + w_ + 1, t);
      std::copy(x + 1, x + w_ + 1, x);
      h[w_] = q.snd_una;
      t[w_] = q.last_progress_ps;
      x[w_] = q.high_sent;
    } else {
      t[hist_n_[qp]] = q.last_progress_ps;
      x[hist_n_[qp]] = q.high_sent;
      h[hist_n_[qp]++] = q.snd_una;
    }
  }
  listed_.resize(keep);
}

void SteadySkip::on_tick() {
  tick_pending_ = false;
  ++stats_.ticks;
  sample();
  if (snap_n_ == w_ + 1) evaluate();
  if (!listed_.empty()) {
    tick_pending_ = true;
    sched_.at(sched_.now() + p_.window_ps, kHybridTick, 0);
  }
}

uint32_t SteadySkip::find(uint32_t port) {
  while (uf_[port] != port) {
    uf_[port] = uf_[uf_[port]];
    port = uf_[port];
  }
  return port;
}

int32_t SteadySkip::group_of_event(const Event& e) const {
  const uint32_t kind = e.kind();
  if (kind <= kPfcWatchdog || kind == kCreditWatchdog) {
    return e.target < group_of_port_.size() ? group_of_port_[e.target] : -1;
  }
  if (kind == kQpTimer) {  // congestion-control timers keep real time (kCcTimer: not moved)
    return e.target < group_of_qp_.size() ? group_of_qp_[e.target] : -1;
  }
  if (kind == kNicWake) return e.target < group_of_nic_.size() ? group_of_nic_[e.target] : -1;
  return -1;
}

void SteadySkip::evaluate() {
  const int64_t now = sched_.now();
  // Per listed QP: steady, its rate and what it may skip.
  struct Cand {
    uint32_t qp;
    bool ok;
    double rate_ppps;
    uint32_t skippable;
  };
  std::vector<Cand> cands;
  cands.reserve(listed_.size());
  std::vector<uint32_t> touched;
  for (const uint32_t qp : listed_) {
    if (group_of_qp_[qp] >= 0) continue;
    Cand c{qp, false, 0, 0};
    // Measured rates only without congestion control: DCQCN and IB CC move a QP's rate at
    // every CNP and timer, and the windows before a skip do not show the rate it would hold
    // between them (a 4:1 DCQCN incast's FCTs moved by up to 4.6 % when they were used).
    // Rate-controlled QPs are skipped only at rates known without measuring (line rate).
    if (hist_n_[qp] == w_ + 1 && !rc_.cc_enabled()) {
      const uint32_t* h = &hist_[static_cast<size_t>(qp) * (w_ + 1)];
      const uint32_t total = h[w_] - h[0];
      const double mean = static_cast<double>(total) / w_;
      bool steady = total >= static_cast<uint32_t>(w_);
      for (int i = 0; steady && i < w_; ++i) {
        const double d = std::abs(static_cast<double>(h[i + 1] - h[i]) - mean);
        steady = d <= std::max(p_.epsilon * mean, 1.0);
      }
      // Sent as fast as acknowledged: what it has in flight (so the queues it feeds) held
      // still, within epsilon or four packets (PFC's pause cycles move it by a few). The
      // acknowledged rates alone are even while an incast's queues are still filling
      // (hol-blocking-ib.yaml: 8 packets acknowledged per span while 41 more went in flight).
      const uint32_t* x = &sent_[static_cast<size_t>(qp) * (w_ + 1)];
      const double grew = std::abs(static_cast<double>(x[w_] - x[0]) - static_cast<double>(total));
      steady = steady && grew <= std::max(p_.epsilon * total, 4.0);
      if (steady) {
        // The rate between the ACKs that moved the first and the last sample: exact for a
        // periodic stream, where the span's own ends would cut a window mid-packet.
        const int64_t* t = &prog_[static_cast<size_t>(qp) * (w_ + 1)];
        c.rate_ppps = t[w_] > t[0] ? static_cast<double>(total) / static_cast<double>(t[w_] - t[0])
                                   : static_cast<double>(total) / static_cast<double>(span_ps_);
        const auto margin = static_cast<uint32_t>(std::ceil(mean)) + 1;  // a window's packets
        c.skippable = rc_.skippable_packets(qp, margin);
        c.ok = c.skippable > 0;
      }
    }
    const std::vector<uint32_t>& ports = path_of(qp);
    if (ports.empty()) continue;  // no route: nothing to group
    for (size_t i = 1; i < ports.size(); ++i) {
      const uint32_t a = find(ports[0]), b = find(ports[i]);
      if (a != b) uf_[std::max(a, b)] = std::min(a, b);
    }
    touched.insert(touched.end(), ports.begin(), ports.end());
    cands.push_back(c);
  }
  // Components (by their union-find root port): bad flag and dt; only those with all QPs ok
  // survive.
  struct Comp {
    bool bad;
    double dt_ps;
    bool analytic;  // rates from analytic_rates, not measured: sharers may have just changed
  };
  std::vector<Comp> comps;
  std::vector<int32_t> comp_of_cand(cands.size(), -1);
  auto comp_index = [&](uint32_t root) {
    if (comp_at_root_[root] < 0) {
      comp_at_root_[root] = static_cast<int32_t>(comps.size());
      comps.push_back({false, 1e300, false});
    }
    return comp_at_root_[root];
  };
  for (size_t i = 0; i < cands.size(); ++i) {
    const int32_t k = comp_index(find(path_[cands[i].qp].front()));
    comp_of_cand[i] = k;
    if (!cands[i].ok) comps[k].bad = true;
  }
  // A group that has not held W windows may still have rates known without measuring them:
  // every QP sending as fast as its NIC port lets it, and no other port over its line rate
  // (analytic_rates). Its rates are then exact from its first packets on.
  for (size_t k = 0; k < comps.size(); ++k) {
    if (!comps[k].bad) continue;
    std::vector<uint32_t> members;
    for (size_t i = 0; i < cands.size(); ++i) {
      if (comp_of_cand[i] == static_cast<int32_t>(k)) members.push_back(static_cast<uint32_t>(i));
    }
    std::vector<uint32_t> qps;
    for (const uint32_t i : members) qps.push_back(cands[i].qp);
    std::vector<double> rate;
    std::vector<uint32_t> room;
    if (!analytic_rates(qps, rate, room)) continue;
    for (size_t j = 0; j < members.size(); ++j) {
      Cand& c = cands[members[j]];
      c.ok = true;
      c.rate_ppps = rate[j];
      c.skippable = room[j];
    }
    comps[k].bad = false;
    comps[k].analytic = true;
  }
  for (size_t i = 0; i < cands.size(); ++i) {
    const Cand& c = cands[i];
    Comp& comp = comps[comp_of_cand[i]];
    if (comp.bad) continue;
    double dt = static_cast<double>(c.skippable) / c.rate_ppps;
    // Congestion control keeps real time: the skip ends at its next timer, which then runs
    // when it would have (not moved with the group).
    const int64_t timer = rc_.qp(c.qp).cc_timer_ps;
    if (timer != transport::kNoTimer) dt = std::min(dt, static_cast<double>(timer - now));
    comp.dt_ps = std::min(comp.dt_ps, dt);
  }
  // A frozen port in a component (a QP about to reach a skipped group), or a packet of a QP
  // outside it on its ports, keeps it from skipping. So does an ECN mark set on its ports in
  // the windows sampled: each becomes a CNP and a rate cut (DCQCN, IB CC), so marked rates are
  // not steady however even the windows looked. And a QP joining or leaving one of its ports
  // within the windows: the rates sampled were those of another set of sharers.
  for (size_t i = 0; i < cands.size(); ++i) {
    if (comps[comp_of_cand[i]].bad) continue;
    for (const uint32_t port : path_[cands[i].qp]) {
      const Comp& comp = comps[comp_of_cand[i]];
      const net::Network::PortTally& newest = snap(0, port);
      const net::Network::PortTally& oldest = snap(w_, port);
      // Rates known without measuring assume no port of the group waited: no PFC pause and
      // no InfiniBand credit wait (both count in paused_ps) in the windows, none in force.
      const bool waited = newest.paused_ps != oldest.paused_ps || net_.port(port).paused_mask != 0;
      if (net_.port(port).frozen || newest.ecn_marks != oldest.ecn_marks ||
          (comp.analytic && waited) ||
          (!comp.analytic && port_changed_ps_[port] > now - span_ps_)) {
        comps[comp_of_cand[i]].bad = true;
      }
    }
  }
  bool any = false;
  for (Comp& comp : comps) {
    if (!comp.bad && comp.dt_ps >= static_cast<double>(p_.window_ps))
      any = true;
    else
      comp.bad = true;
  }
  if (any) {
    // Map QPs to their component for the packet check.
    std::vector<std::pair<uint32_t, int32_t>> qp_comp;
    for (size_t i = 0; i < cands.size(); ++i) qp_comp.push_back({cands[i].qp, comp_of_cand[i]});
    std::sort(qp_comp.begin(), qp_comp.end());
    auto comp_of = [&](uint32_t qp) {
      auto it = std::lower_bound(qp_comp.begin(), qp_comp.end(), std::make_pair(qp, INT32_MIN));
      return it != qp_comp.end() && it->first == qp ? it->second : -1;
    };
    for (size_t i = 0; i < cands.size(); ++i) {
      const int32_t k = comp_of_cand[i];
      if (comps[k].bad) continue;
      for (const uint32_t port : path_[cands[i].qp]) {
        net_.for_each_packet(port, [&](const net::Packet& pkt) {
          if (comp_of(pkt.qp) != k) comps[k].bad = true;
        });
        if (comps[k].bad) break;
      }
    }
    any = false;
    for (const Comp& comp : comps) any = any || !comp.bad;
  }
  if (any) {
    drained_.clear();
    sched_.queue.drain(drained_);
    int64_t hard = INT64_MAX;
    for (const Event& e : drained_) {
      if (is_hard_kind(e.kind())) hard = std::min(hard, e.time_ps);
    }
    std::vector<int64_t> delta(groups_.size(), 0);
    std::vector<uint32_t> applied;
    for (size_t k = 0; k < comps.size(); ++k) {
      if (comps[k].bad) continue;
      int64_t dt = static_cast<int64_t>(comps[k].dt_ps);
      if (hard != INT64_MAX) dt = std::min(dt, hard - now);
      // Measured rates carry the noise of W windows (PFC's and DCQCN's shares move a few per
      // cent from one span to the next): a skip lasts at most kMaxSkipSpans spans, so that a
      // long stretch is skipped in several pieces, each at freshly measured rates, and their
      // errors average out rather than one span's being held to the end.
      if (!comps[k].analytic) dt = std::min(dt, kMaxSkipSpans * span_ps_);
      if (dt < p_.window_ps) continue;
      uint32_t slot = 0;
      while (slot < groups_.size() && groups_[slot].active) ++slot;
      if (slot == groups_.size()) {
        groups_.emplace_back();
        delta.push_back(0);
      }
      Group& g = groups_[slot];
      g.qps.clear();
      g.rate_ppps.clear();
      g.ports.clear();
      g.nics.clear();
      for (size_t i = 0; i < cands.size(); ++i) {
        if (comp_of_cand[i] != static_cast<int32_t>(k)) continue;
        g.qps.push_back(cands[i].qp);
        g.rate_ppps.push_back(cands[i].rate_ppps);
        const std::vector<uint32_t>& ports = path_[cands[i].qp];
        g.ports.insert(g.ports.end(), ports.begin(), ports.end());
        g.nics.push_back(rc_.qp(cands[i].qp).src_nic);
        g.nics.push_back(rc_.qp(cands[i].qp).dst_nic);
      }
      std::sort(g.ports.begin(), g.ports.end());
      g.ports.erase(std::unique(g.ports.begin(), g.ports.end()), g.ports.end());
      cap_rates(g);
      std::sort(g.nics.begin(), g.nics.end());
      g.nics.erase(std::unique(g.nics.begin(), g.nics.end()), g.nics.end());
      apply(slot, dt);
      delta[slot] = dt;
      applied.push_back(slot);
    }
    std::sort(drained_.begin(), drained_.end(),
              [](const Event& a, const Event& b) { return a.seq < b.seq; });
    for (const Event& e : drained_) {
      const int32_t g = group_of_event(e);
      const int64_t d = g >= 0 ? delta[g] : 0;
      sched_.queue.push(e.time_ps + d, e.kind(), e.target, e.owner());
    }
    for (const uint32_t slot : applied) sched_.at(groups_[slot].until_ps, kHybridThaw, slot);
  }
  for (const uint32_t port : touched) {
    uf_[port] = port;
    comp_at_root_[port] = -1;
  }
}

}  // namespace fabricsim::scenario
