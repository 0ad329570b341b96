#include "engine/flow/fluid_fabric.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace fabricsim::scenario {

namespace {

constexpr double kPsPerSecond = 1e12;
// A rate never drops below this in a re-fill (rounding can leave a link's remaining capacity a
// hair under zero): 1 b/s is far below any link the scenario keys accept (>= 1 Mb/s).
constexpr double kMinRateBps = 1.0;
// Remaining bytes below this count as none (rounding of rate x time).
constexpr double kDoneBytes = 1e-6;

// Min-heap order on (level, link): the lowest fair level fills first, ties to the lower link.
bool heap_after(double la, uint32_t a, double lb, uint32_t b) {
  return la > lb || (la == lb && a > b);
}

}  // namespace

FluidFabric::FluidFabric(std::vector<double> capacity_bps) {
  links_.resize(capacity_bps.size());
  for (size_t i = 0; i < capacity_bps.size(); ++i) {
    if (!(capacity_bps[i] >= 0)) throw std::invalid_argument("FluidFabric: negative capacity");
    links_[i].capacity_bps = capacity_bps[i];
  }
}

uint32_t FluidFabric::add(const Crossing* c, int n, int64_t size_bytes, uint64_t tag,
                          int64_t now_ps, double share) {
  if (n <= 0 || size_bytes <= 0) throw std::invalid_argument("FluidFabric::add: empty flow");
  uint32_t id;
  if (!free_.empty()) {
    id = free_.back();
    free_.pop_back();
  } else {
    id = static_cast<uint32_t>(flows_.size());
    flows_.emplace_back();
  }
  Flow& f = flows_[id];
  link_in(id, c, n);
  // One of the `share` flows it stands for: they all end when it does.
  f.remaining_bytes = static_cast<double>(size_bytes) / share;
  f.rate_bps = 0;
  f.last_ps = now_ps;
  f.end_ps = -1;
  f.event_ps = -1;
  f.tag = tag;
  f.active = true;
  f.watched = false;
  ++active_;
  // One link reaches the whole component the flow joins.
  dirty_links_.push_back(c[0].link);
  return id;
}

void FluidFabric::link_in(uint32_t id, const Crossing* c, int n) {
  Flow& f = flows_[id];
  f.cross.clear();
  for (int i = 0; i < n; ++i) {
    Link& l = links_[c[i].link];
    f.cross.push_back({c[i].link, static_cast<uint32_t>(l.flows.size()), c[i].weight});
    l.flows.push_back(id);
    l.weight += c[i].weight;
  }
}

void FluidFabric::remove(uint32_t id) {
  unlink(id);
  flows_[id].active = false;
  --active_;
  free_.push_back(id);
}

double FluidFabric::reroute(uint32_t id, const Crossing* c, int n, int64_t now_ps) {
  if (n <= 0) throw std::invalid_argument("FluidFabric::reroute: empty path");
  Flow& f = flows_[id];
  advance(f, now_ps);
  unlink(id);
  link_in(id, c, n);
  dirty_links_.push_back(c[0].link);
  return f.remaining_bytes;
}

uint32_t FluidFabric::add_link(double capacity_bps) {
  if (!(capacity_bps >= 0)) throw std::invalid_argument("FluidFabric: negative capacity");
  links_.emplace_back();
  links_.back().capacity_bps = capacity_bps;
  return static_cast<uint32_t>(links_.size() - 1);
}

double FluidFabric::remaining_bytes(uint32_t id, int64_t now_ps) const {
  const Flow& f = flows_[id];
  if (f.end_ps < 0 || now_ps <= f.last_ps) return f.remaining_bytes;
  const double left =
      f.remaining_bytes - f.rate_bps * static_cast<double>(now_ps - f.last_ps) / (8.0 * kPsPerSecond);
  return left > 0 ? left : 0.0;
}

void FluidFabric::set_capacity(uint32_t link, double capacity_bps) {
  if (links_[link].capacity_bps == capacity_bps) return;
  links_[link].capacity_bps = capacity_bps;
  dirty_links_.push_back(link);
}

void FluidFabric::unlink(uint32_t id) {
  Flow& f = flows_[id];
  for (const Cross& c : f.cross) {
    Link& l = links_[c.link];
    const uint32_t last = l.flows.back();
    l.flows[c.pos] = last;
    l.flows.pop_back();
    // Exactly 0 once empty, whatever the rounding of the sums before.
    l.weight = l.flows.empty() ? 0.0 : l.weight - c.weight;
    if (last != id) {
      for (Cross& lc : flows_[last].cross) {
        if (lc.link == c.link) {
          lc.pos = c.pos;
          break;
        }
      }
    }
    // The component may split here: every link of the flow is re-filled.
    dirty_links_.push_back(c.link);
  }
}

void FluidFabric::advance(Flow& f, int64_t now_ps) {
  if (f.end_ps >= 0 && now_ps > f.last_ps) {
    f.remaining_bytes -=
        f.rate_bps * static_cast<double>(now_ps - f.last_ps) / (8.0 * kPsPerSecond);
    if (f.remaining_bytes < 0) f.remaining_bytes = 0;
  }
  f.last_ps = now_ps;
}

void FluidFabric::set_end(uint32_t id, int64_t now_ps) {
  Flow& f = flows_[id];
  int64_t end = now_ps;
  if (f.remaining_bytes > kDoneBytes) {
    const double ps = std::ceil(f.remaining_bytes * 8.0 * kPsPerSecond / f.rate_bps);
    end = ps >= 4e18 ? std::numeric_limits<int64_t>::max() / 2 : now_ps + static_cast<int64_t>(ps);
  }
  f.end_ps = end;
  if (f.event_ps < 0 || end < f.event_ps) {
    f.event_ps = end;
    ends_.push_back({id, end});
  }
}

bool FluidFabric::on_end(uint32_t id, int64_t now_ps) {
  if (id >= flows_.size()) return false;
  Flow& f = flows_[id];
  if (!f.active) return false;  // a stale event of a finished (maybe recycled) record
  if (now_ps == f.end_ps) {
    f.remaining_bytes = 0;
    f.event_ps = -1;
    remove(id);
    return true;
  }
  if (now_ps == f.event_ps) {  // the tracked event came early: the flow slowed since
    f.event_ps = f.end_ps;
    ends_.push_back({id, f.end_ps});
  }
  return false;
}

bool FluidFabric::renew(uint32_t id, const Crossing* c, int n, int64_t size_bytes, uint64_t tag,
                        int64_t now_ps, double share) {
  if (!ends_at(id, now_ps) || size_bytes <= 0) return false;
  Flow& f = flows_[id];
  if (f.cross.size() != static_cast<size_t>(n)) return false;
  for (int i = 0; i < n; ++i) {
    if (f.cross[i].link != c[i].link || f.cross[i].weight != c[i].weight) return false;
  }
  ++renewals_;
  f.remaining_bytes = static_cast<double>(size_bytes) / share;
  f.last_ps = now_ps;
  f.tag = tag;
  f.event_ps = -1;  // the event that brought us here is spent
  set_end(id, now_ps);
  return true;
}

void FluidFabric::reshare(int64_t now_ps) {
  if (dirty_links_.empty()) return;
  if (++epoch_ == 0) {  // wrapped (2^32 re-shares): no stale mark may equal the new epoch
    for (Link& l : links_) l.mark = 0;
    for (Flow& f : flows_) f.mark = 0;
    epoch_ = 1;
  }
  for (size_t d = 0; d < dirty_links_.size(); ++d) {
    const uint32_t start = dirty_links_[d];
    if (links_[start].mark == epoch_) continue;
    comp_links_.clear();
    comp_flows_.clear();
    links_[start].mark = epoch_;
    comp_links_.push_back(start);
    for (size_t i = 0; i < comp_links_.size(); ++i) {
      for (const uint32_t fid : links_[comp_links_[i]].flows) {
        Flow& f = flows_[fid];
        if (f.mark == epoch_) continue;
        f.mark = epoch_;
        comp_flows_.push_back(fid);
        for (const Cross& c : f.cross) {
          if (links_[c.link].mark != epoch_) {
            links_[c.link].mark = epoch_;
            comp_links_.push_back(c.link);
          }
        }
      }
    }
    if (!comp_flows_.empty()) fill(now_ps);
    for (const uint32_t l : comp_links_) {
      if (links_[l].watched) changed_links_.push_back(l);
    }
  }
  dirty_links_.clear();
}

void FluidFabric::fill(int64_t now_ps) {
  ++refills_;
  largest_component_ = std::max<int64_t>(largest_component_, static_cast<int64_t>(comp_flows_.size()));
  for (const uint32_t l : comp_links_) {
    Link& L = links_[l];
    L.left_bps = L.capacity_bps;
    L.unfrozen = 0;
    L.unfrozen_weight = 0;
  }
  for (const uint32_t fid : comp_flows_) {
    Flow& f = flows_[fid];
    advance(f, now_ps);
    f.prev_rate_bps = f.rate_bps;
    f.prev_bottleneck = f.bottleneck;
    f.frozen = false;
    refill_crossings_ += static_cast<int64_t>(f.cross.size());
    for (const Cross& c : f.cross) {
      Link& L = links_[c.link];
      ++L.unfrozen;
      L.unfrozen_weight += c.weight;
    }
  }
  heap_.clear();
  auto push = [this](uint32_t l) {
    const Link& L = links_[l];
    heap_.push_back({std::max(L.left_bps, 0.0) / L.unfrozen_weight, l, L.version});
    std::push_heap(heap_.begin(), heap_.end(), [](const HeapEntry& a, const HeapEntry& b) {
      return heap_after(a.level, a.link, b.level, b.link);
    });
  };
  for (const uint32_t l : comp_links_) {
    ++links_[l].version;
    if (links_[l].unfrozen > 0) push(l);
  }
  double level = 0;
  while (!heap_.empty()) {
    std::pop_heap(heap_.begin(), heap_.end(), [](const HeapEntry& a, const HeapEntry& b) {
      return heap_after(a.level, a.link, b.level, b.link);
    });
    const HeapEntry e = heap_.back();
    heap_.pop_back();
    Link& bottleneck = links_[e.link];
    if (e.version != bottleneck.version || bottleneck.unfrozen == 0) continue;
    // Levels only rise in exact arithmetic; rounding must not let a later link undercut.
    level = std::max(level, e.level);
    const double rate = std::max(level, kMinRateBps);
    for (const uint32_t fid : bottleneck.flows) {
      Flow& f = flows_[fid];
      if (f.frozen) continue;
      f.frozen = true;
      f.rate_bps = rate;
      f.bottleneck = e.link;
      for (const Cross& c : f.cross) {
        Link& L = links_[c.link];
        L.left_bps -= c.weight * rate;
        L.unfrozen_weight -= c.weight;
        --L.unfrozen;
        ++L.version;
        if (L.unfrozen > 0) {
          if (L.unfrozen_weight <= 0) L.unfrozen_weight = 1e-12;
          push(c.link);
        }
      }
    }
  }
  // A flow whose rate did not change keeps its end (recomputing it from the advanced bytes could
  // move it by a rounding picosecond and cost an event).
  for (const uint32_t fid : comp_flows_) {
    const Flow& f = flows_[fid];
    const bool moved = f.end_ps < 0 || f.rate_bps != f.prev_rate_bps;
    if (f.watched && (moved || f.bottleneck != f.prev_bottleneck)) changed_.push_back(fid);
    if (moved) set_end(fid, now_ps);
  }
}

}  // namespace fabricsim::scenario
