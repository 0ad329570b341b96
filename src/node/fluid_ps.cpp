#include "node/fluid_ps.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <stdexcept>
#include <utility>

namespace fabricsim::node {

namespace {

constexpr double kQ16 = 65536.0;
constexpr double kBitPsPerByteSecond = 8e12;  // bytes x 8e12 / bits-per-second = ps
// Two shares within this relative distance are one filling level: the same bottleneck reached
// through different floating-point paths (left / count) must freeze together.
constexpr double kLevelTolerance = 1e-12;

// std::llround of a value >= 0 without libm's call (llroundl was 2.5 % of a flow-mode 70B
// step): below 2^52 (double) or 2^62 (long double) adding 0.5 is exact, so floor(x + 0.5) is
// llround's round-half-away-from-zero, bit for bit. Larger values take llround itself.
int64_t round_nonnegative(double x) {
  return x < 0x1p52 ? static_cast<int64_t>(x + 0.5) : std::llround(x);
}
int64_t round_nonnegative(long double x) {
  return x < 0x1p62L ? static_cast<int64_t>(x + 0.5L) : std::llround(x);
}

}  // namespace

PsNetwork::PsNetwork(uint32_t groups, uint32_t per_group, std::vector<int64_t> capacity_bps)
    : per_group_(per_group), groups_(groups) {
  if (capacity_bps.size() != static_cast<size_t>(groups) * per_group) {
    throw std::logic_error("PsNetwork: one capacity per resource");
  }
  res_.resize(capacity_bps.size());
  for (size_t r = 0; r < res_.size(); ++r) {
    if (capacity_bps[r] <= 0) throw std::logic_error("PsNetwork: capacity must be > 0");
    res_[r].capacity_bps = capacity_bps[r];
  }
}

int64_t PsNetwork::busy_ps(uint32_t resource, int64_t now_ps) const {
  const Resource& r = res_[resource];
  return r.busy_ps + (r.flows.empty() ? 0 : now_ps - r.since_ps);
}

int64_t PsNetwork::end_after(const Flow& f) {
  // Nearest picosecond, as core/time.h serialization_ps: a flow alone at a resource's full
  // capacity ends exactly where the idle tandem formula (node/fluid.h) puts its last byte.
  const long double ps = static_cast<long double>(f.remaining_q16) * kBitPsPerByteSecond /
                         (static_cast<long double>(kQ16) * f.rate_bps);
  return f.last_ps + round_nonnegative(ps);  // remaining >= 0, rate > 0
}

void PsNetwork::drain(Flow& f, int64_t ps) {
  // Re-integerized at each drain: the error is at most half a 1/65536 byte each time and does
  // not compound, since the next end is computed from this value, not from the last end.
  const double drained_q16 = f.rate_bps * static_cast<double>(ps) * kQ16 / kBitPsPerByteSecond;
  f.remaining_q16 = std::max<int64_t>(0, f.remaining_q16 - round_nonnegative(drained_q16));
}

void PsNetwork::bring_to(Flow& f, int64_t now_ps) {
  if (f.last_ps == now_ps) return;
  drain(f, now_ps - f.last_ps);
  f.last_ps = now_ps;
}

void PsNetwork::push_end(uint32_t flow) {
  Group& g = groups_[flows_[flow].group];
  // Stale entries (a flow re-rated or finished since) stay until they surface; when they
  // outnumber the live flows three to one the heap is rebuilt from the live ends, so its size
  // stays within a constant of the group's flows.
  if (g.ends.size() > 4 * static_cast<size_t>(g.active) + 64) {
    size_t keep = 0;
    for (const End& e : g.ends) {
      if (!stale(e)) g.ends[keep++] = e;
    }
    g.ends.resize(keep);
    std::make_heap(g.ends.begin(), g.ends.end(), std::greater<>());
  }
  g.ends.push_back(End{flows_[flow].end_ps, flow, flows_[flow].gen});
  std::push_heap(g.ends.begin(), g.ends.end(), std::greater<>());
}

void PsNetwork::drop_stale(Group& g) {
  while (!g.ends.empty() && stale(g.ends.front())) {
    std::pop_heap(g.ends.begin(), g.ends.end(), std::greater<>());
    g.ends.pop_back();
  }
}

uint32_t PsNetwork::start(const uint32_t* res, int n, int64_t size_bytes, double cap_bps,
                          uint64_t tag, int64_t now_ps, int64_t head_start_ps, bool notify,
                          int32_t weight) {
  if (n <= 0 || size_bytes < 0) throw std::logic_error("PsNetwork::start: empty flow");
  if (weight < 1) throw std::logic_error("PsNetwork::start: weight must be >= 1");
  const uint32_t group = group_of(res[0]);
  for (int i = 1; i < n; ++i) {
    if (group_of(res[i]) != group) throw std::logic_error("PsNetwork: a flow crosses groups");
  }
  uint32_t id;
  if (!free_flows_.empty()) {
    id = free_flows_.back();
    free_flows_.pop_back();
  } else {
    id = static_cast<uint32_t>(flows_.size());
    flows_.emplace_back();
  }
  Group& g = groups_[group];
  Flow& f = flows_[id];
  f.res.assign(res, res + n);
  f.remaining_q16 = size_bytes * static_cast<int64_t>(kQ16);
  f.last_ps = now_ps;
  f.rate_bps = 0;  // "changed" for share(): its end is computed there
  f.end_ps = std::numeric_limits<int64_t>::max();  // rated at the group's event
  f.cap_bps = cap_bps;
  f.head_start_ps = head_start_ps;
  f.tag = tag;
  f.group = group;
  f.notify = notify;
  f.weight = weight;
  ++f.gen;
  f.pos.resize(f.res.size());
  for (size_t i = 0; i < f.res.size(); ++i) {
    Resource& x = res_[f.res[i]];
    x.bytes += size_bytes;
    x.weights += weight;
    if (x.flows.empty()) x.since_ps = now_ps;
    f.pos[i] = static_cast<uint32_t>(x.flows.size());
    x.flows.push_back(Crossing{id, static_cast<uint32_t>(i)});
  }
  ++g.active;
  g.fresh.push_back(id);
  g.arrival_ps = now_ps;
  g.dirty.push_back(f.res[0]);  // one resource reaches the flow's whole component
  return id;
}

void PsNetwork::finish(uint32_t id, int64_t now_ps) {
  Flow& f = flows_[id];
  Group& g = groups_[f.group];
  for (size_t i = 0; i < f.res.size(); ++i) {
    const uint32_t r = f.res[i];
    Resource& x = res_[r];
    // Off the resource's list: its last entry takes the freed slot.
    const auto last_at = static_cast<uint32_t>(x.flows.size() - 1);
    const Crossing last = x.flows[last_at];
    x.flows[f.pos[i]] = last;
    x.flows.pop_back();
    x.weights -= f.weight;
    if (x.flows.empty()) x.busy_ps += now_ps - x.since_ps;
    if (f.pos[i] != last_at) flows_[last.flow].pos[last.k] = f.pos[i];
    // The component may split here: each side is re-shared.
    g.dirty.push_back(r);
  }
  --g.active;
  ++f.gen;  // its heap entries are stale from now on
  finished_.push_back(f.tag);
  free_flows_.push_back(id);
}

void PsNetwork::on_event(uint32_t group, int64_t now_ps) {
  Group& g = groups_[group];
  if (g.pending_ps != now_ps) return;  // superseded: the group's next event moved
  g.pending_ps = -1;
  now_ps_ = now_ps;
  if (g.arrival_ps >= 0) {  // the instant's arrivals, shared once
    g.arrival_ps = -1;
    share(group);
    // In id order, as the rated() list reports them.
    std::sort(g.fresh.begin(), g.fresh.end());
    for (const uint32_t id : g.fresh) {
      Flow& f = flows_[id];
      if (f.head_start_ps > 0) {
        drain(f, f.head_start_ps);
        f.end_ps = end_after(f);
        push_end(id);
      }
      if (f.notify) rated_.emplace_back(f.tag, f.rate_bps);
    }
    g.fresh.clear();
  }
  // A re-share can leave a flow with nothing left (or under half a picosecond of it): finish
  // until no flow ends now, so the next completion event is strictly in the future. The flows
  // ending at one instant finish in id order.
  for (;;) {
    due_.clear();
    drop_stale(g);
    while (!g.ends.empty() && g.ends.front().end_ps <= now_ps) {
      due_.push_back(g.ends.front().flow);
      std::pop_heap(g.ends.begin(), g.ends.end(), std::greater<>());
      g.ends.pop_back();
      drop_stale(g);
    }
    if (due_.empty()) break;
    std::sort(due_.begin(), due_.end());
    // A flow re-rated to the same end has two entries: it finishes once.
    due_.erase(std::unique(due_.begin(), due_.end()), due_.end());
    for (const uint32_t id : due_) finish(id, now_ps);
    share(group);
  }
}

bool PsNetwork::take_schedule(uint32_t group, int64_t* time_ps) {
  Group& g = groups_[group];
  int64_t next = g.arrival_ps;  // arrivals are shared at their instant
  if (next < 0) {
    drop_stale(g);
    if (!g.ends.empty()) next = g.ends.front().end_ps;
  }
  if (next == g.pending_ps) return false;
  g.pending_ps = next;
  if (next < 0) return false;
  *time_ps = next;
  return true;
}

void PsNetwork::share(uint32_t group) {
  Group& g = groups_[group];
  // Each component holding a dirty resource, walked resource -> flows -> resources. A flow in
  // no such component shares nothing with a flow that came or went: its rate stands.
  if (++epoch_ == 0) {  // wrapped (2^32 shares): no stale mark may equal the new epoch
    for (Resource& x : res_) x.mark = 0;
    for (Flow& f : flows_) f.mark = 0;
    epoch_ = 1;
  }
  for (const uint32_t start : g.dirty) {
    if (res_[start].mark == epoch_) continue;
    res_[start].mark = epoch_;
    comp_res_.clear();
    comp_flows_.clear();
    comp_res_.push_back(start);
    for (size_t i = 0; i < comp_res_.size(); ++i) {
      for (const Crossing c : res_[comp_res_[i]].flows) {
        const uint32_t id = c.flow;
        Flow& f = flows_[id];
        if (f.mark == epoch_) continue;
        f.mark = epoch_;
        comp_flows_.push_back(id);
        for (const uint32_t r : f.res) {
          if (res_[r].mark != epoch_) {
            res_[r].mark = epoch_;
            comp_res_.push_back(r);
          }
        }
      }
    }
    if (comp_flows_.empty()) continue;
    fill(comp_flows_);  // in walk order: deterministic, as the lists it walks are
  }
  g.dirty.clear();
}

void PsNetwork::fill(const std::vector<uint32_t>& flows) {
  // Progressive filling by resource: each round finds the lowest fair share among the resources
  // with unfrozen crossings (or the lowest cap of an unfrozen capped flow), freezes the flows
  // crossing the resources at that level through the resources' own flow lists, and charges
  // each frozen flow to its resources once. A flow's resources are thus read twice per fill
  // (count, charge), not once per round, which matters for NVLS flows crossing 2n + 2 of them.
  // Outside fill() every resource has unfrozen == 0: all flows end frozen.
  touched_.clear();
  unfrozen_.clear();  // the capped flows, unfrozen ones only
  for (const uint32_t id : flows) {
    Flow& f = flows_[id];
    f.frozen = false;
    if (f.cap_bps > 0) unfrozen_.push_back(id);
    for (const uint32_t r : f.res) {
      Resource& x = res_[r];
      if (x.unfrozen == 0) {
        x.left_bps = static_cast<double>(x.capacity_bps);
        touched_.push_back(r);
      }
      x.unfrozen += f.weight;
    }
  }
  size_t left_to_freeze = flows.size();
  while (left_to_freeze > 0) {
    // The next filling level: the smallest fair share of a resource among its unfrozen
    // crossings, or the smallest rate cap of an unfrozen flow.
    double level = std::numeric_limits<double>::infinity();
    for (const uint32_t r : touched_) {
      const Resource& x = res_[r];
      level = std::min(level, std::max(0.0, x.left_bps) / x.unfrozen);
    }
    for (const uint32_t id : unfrozen_) level = std::min(level, cap_level(flows_[id]));
    const double top = level * (1 + kLevelTolerance);
    scratch_.clear();
    for (const uint32_t r : touched_) {
      const Resource& x = res_[r];
      if (std::max(0.0, x.left_bps) / x.unfrozen > top) continue;
      for (const Crossing c : x.flows) {
        Flow& f = flows_[c.flow];
        if (f.frozen) continue;
        f.frozen = true;
        scratch_.push_back(c.flow);
      }
    }
    size_t keep = 0;
    for (const uint32_t id : unfrozen_) {
      Flow& f = flows_[id];
      if (f.frozen) continue;
      if (cap_level(f) <= top) {
        f.frozen = true;
        scratch_.push_back(id);
      } else {
        unfrozen_[keep++] = id;
      }
    }
    unfrozen_.resize(keep);
    if (scratch_.empty()) throw std::logic_error("PsNetwork: max-min made no progress");
    for (const uint32_t id : scratch_) {
      Flow& f = flows_[id];
      // Only a changed rate moves the end: a flow whose share is unchanged keeps the end it was
      // given, so re-shares elsewhere never jitter it by a rounding. (x 1 is exact: a weight-1
      // flow's rate is the level itself.)
      const double rate = level * f.weight;
      if (rate != f.rate_bps) {
        bring_to(f, now_ps_);  // at the old rate, up to the change
        f.rate_bps = rate;
        f.end_ps = end_after(f);
        push_end(id);
      }
      for (const uint32_t r : f.res) {
        res_[r].left_bps -= rate;
        res_[r].unfrozen -= f.weight;
      }
    }
    left_to_freeze -= scratch_.size();
    size_t live = 0;
    for (const uint32_t r : touched_) {
      if (res_[r].unfrozen > 0) touched_[live++] = r;
    }
    touched_.resize(live);
  }
}

}  // namespace fabricsim::node
