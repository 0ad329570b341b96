// The Subnet Manager's engines beyond the next-hop rules in subnet_manager.cpp: up/down (roots,
// ranks, repair) and fat-tree (OpenSM's ftree). Citations: keys of
// /work/shared/reference/infiniband.md §3; [OSM] files named where the rule comes from.
#include <algorithm>
#include <string>

#include "routing/subnet_manager.h"

namespace fabricsim::routing::sm_internal {
namespace {

// The discovered switch with the smallest eccentricity (ties: lowest index): a single root
// from which every switch is as few ranks down as possible.
uint32_t graph_centre(const Subnet& sub) {
  uint32_t best = kInf, best_ecc = kInf;
  for (uint32_t s : found_switches(sub)) {
    uint32_t ecc = 0;
    for (uint32_t d : bfs(sub, {s})) {
      if (d != kInf) ecc = std::max(ecc, d);
    }
    if (ecc < best_ecc) {
      best_ecc = ecc;
      best = s;
    }
  }
  return best;
}

// Up/down roots. Topology builders give tiers, so the top tier is the root set (the spines or
// cores, what an operator would pass to OpenSM with -a). With no tier information (every switch
// on one tier) OpenSM's auto-detection is used [OSM] osm_ucast_updn.c
// updn_find_root_nodes_by_min_hop: a switch is a root when exactly one bar of its histogram of
// CA hop distances holds more than 90% of the CAs and no other bar more than 5%. Where OpenSM
// then finds no root it falls back to min-hop, which can deadlock; we take a single root, the
// graph centre, which makes up/down complete on any connected graph (every switch climbs to it
// and it descends to every switch).
std::vector<uint32_t> choose_roots(const Subnet& sub, std::string& how) {
  const std::vector<uint32_t> found = found_switches(sub);
  std::vector<uint32_t> roots;
  if (found.empty()) return roots;
  int tier_min = sub.tier[found[0]], tier_max = tier_min;
  for (uint32_t s : found) {
    tier_min = std::min(tier_min, sub.tier[s]);
    tier_max = std::max(tier_max, sub.tier[s]);
  }
  if (tier_min != tier_max) {
    for (uint32_t s : found) {
      if (sub.tier[s] == tier_max) roots.push_back(s);
    }
    how = "roots = the " + std::to_string(roots.size()) + " switches of the top tier " +
          std::to_string(tier_max);
    return roots;
  }
  uint64_t num_cas = 0;
  for (uint32_t s : found) num_cas += sub.cas[s].size();
  for (uint32_t s : found) {
    std::vector<uint64_t> histogram;
    const std::vector<uint32_t> dist = bfs(sub, {s});
    for (uint32_t t : found) {
      if (histogram.size() <= dist[t]) histogram.resize(dist[t] + 1, 0);
      histogram[dist[t]] += sub.cas[t].size();
    }
    int over_90 = 0, over_5 = 0;
    for (uint64_t cas : histogram) {
      over_90 += cas * 10 > num_cas * 9;
      over_5 += cas * 20 > num_cas;
    }
    if (over_90 == 1 && over_5 == 1) roots.push_back(s);
  }
  if (!roots.empty()) {
    how = "roots = " + std::to_string(roots.size()) + " switches by OpenSM's CA-distance histogram";
    return roots;
  }
  roots.push_back(graph_centre(sub));
  how = "no tiers and no histogram root: one root, the graph centre (switch " +
        std::to_string(roots[0]) + ")";
  return roots;
}

}  // namespace

UpDown route_updn(const Subnet& sub, LidRoutes& r) {
  // With several roots (the top tier), a switch that lost a down cable has no up*down* route to
  // the CAs below it, and neither has a whole plane of a fat-tree whose edge lost its link into
  // that plane; OpenSM leaves those LFT entries empty. No CA traffic can reach them: a legal
  // route, and every AR alternative, only leads to switches that have a legal route. So while
  // every switch with CAs is complete, the empty entries get min-hop escape routes (loop-free:
  // each step is one hop closer, and a legal route never enters an escape route), which only
  // packets a switch originates could take; the rest of the fabric keeps every working link.
  // When a switch with CAs has no legal route (two failures cutting planes apart), CA traffic is
  // at stake: ranks are recomputed from one root, the graph centre, which is complete on any
  // connected graph because every switch climbs to it and it descends to every switch.
  std::string how;
  std::vector<uint32_t> rank = bfs(sub, choose_roots(sub, how));
  std::string note = "updn: " + how;
  UpDown ud = make_updn(sub, rank);
  auto route = [&] {
    clear_lfts(r);
    route_balanced(
        sub, [&](uint32_t t, NextHops& nh) { updn_next_hops(sub, ud, t, nh); }, r);
  };
  route();
  std::vector<uint32_t> missing = switches_missing_routes(sub, r);
  const bool ca_switch_missing =
      std::any_of(missing.begin(), missing.end(), [&](uint32_t s) { return !sub.cas[s].empty(); });
  if (ca_switch_missing) {
    const uint32_t centre = graph_centre(sub);
    note +=
        "; a switch with CAs had no up*down* route to every CA: re-ranked from one root, "
        "the graph centre (switch " +
        std::to_string(centre) + ")";
    ud = make_updn(sub, bfs(sub, {centre}));
    route();
  } else if (!missing.empty()) {
    int64_t escapes = 0;
    NextHops nh;
    for (uint32_t t = 0; t < sub.num_switches; ++t) {
      if (!sub.found[t]) continue;
      min_hop_next_hops(sub, t, nh);
      std::vector<uint32_t> lids;
      for (uint32_t nic : sub.cas[t]) lids.push_back(r.nic_lid[nic]);
      for (uint32_t s : missing) {
        for (uint32_t lid : lids) {
          if (r.lft[s][lid] != net::kNoPort) continue;
          r.lft[s][lid] = nh.ports[nh.offsets[s]];  // connected: s has a min-hop port
          ++escapes;
        }
      }
    }
    note += "; " + std::to_string(escapes) + " (switch, CA) pairs at " +
            std::to_string(missing.size()) +
            " switches without CAs have no up*down* route: min-hop escape entries";
  }
  r.note = r.note.empty() ? note : r.note + "; " + note;
  r.rank = ud.rank;
  return ud;
}

// ---- fat-tree ----
namespace {

// [OSM] osm_ucast_ftree.c. Per leaf (index order) and per CA on it (port order), then "dummy"
// CAs up to the fullest leaf's count so every leaf loads the counters alike:
//  climb:   at each switch first route every other lower switch up to it (descend), then go up
//           through the up-group with the fewest down-routes (ties: the upper switch whose least
//           loaded down-group is lightest, then the lowest index), its least loaded port; the
//           upper switch's LFT comes back down through that cable.
//  descend: each lower switch not yet routed goes up through its least up-loaded port of the
//           cable group; counted when a CA lies below it.
// OpenSM then climbs the other up-groups with uncounted "secondary" routes, always on port 0.
// We fill the switches the main path did not reach with the least loaded legal min-hop port
// instead (fill), so that the LFT entries of every switch stay balanced too; they carry no CA
// traffic in an intact tree, the counted main paths being unchanged.
class Ftree {
 public:
  Ftree(const Subnet& sub, LidRoutes& r) : sub_(sub), r_(r) {}

  // Tiers from the builders: CAs only on the bottom tier, cables only between adjacent tiers,
  // and every switch of a tier with as many up and down switch links as the others. OpenSM
  // checks only the port counts per group; a missing cable here is refused, and up/down takes
  // over (its repair handles the damaged tree).
  bool validate(std::string& why) {
    const std::vector<uint32_t> found = found_switches(sub_);
    if (found.empty()) return fail(why, "no switch");
    tier_min_ = tier_max_ = sub_.tier[found[0]];
    for (uint32_t s : found) {
      tier_min_ = std::min(tier_min_, sub_.tier[s]);
      tier_max_ = std::max(tier_max_, sub_.tier[s]);
    }
    if (tier_min_ == tier_max_) return fail(why, "all switches on one tier");
    std::vector<uint32_t> first_of_tier(tier_max_ - tier_min_ + 1, kInf);
    std::vector<int> ups_of(sub_.num_switches, 0), downs_of(sub_.num_switches, 0);
    for (uint32_t s : found) {
      if (!sub_.cas[s].empty() && sub_.tier[s] != tier_min_) {
        return fail(why, "switch " + std::to_string(s) + " has CAs above the bottom tier");
      }
      for (uint32_t i = sub_.adj_offsets[s]; i < sub_.adj_offsets[s + 1]; ++i) {
        const int step = sub_.tier[sub_.adj_peer[i]] - sub_.tier[s];
        if (step != 1 && step != -1) {
          return fail(why, "switches " + std::to_string(s) + " and " +
                               std::to_string(sub_.adj_peer[i]) + " are not on adjacent tiers");
        }
        ++(step > 0 ? ups_of : downs_of)[s];
      }
      uint32_t& first = first_of_tier[sub_.tier[s] - tier_min_];
      if (first == kInf) first = s;
      if (ups_of[s] != ups_of[first] || downs_of[s] != downs_of[first]) {
        auto links = [&](uint32_t x) {
          return "switch " + std::to_string(x) + " has " + std::to_string(ups_of[x]) + " up / " +
                 std::to_string(downs_of[x]) + " down switch links";
        };
        return fail(why, "tier " + std::to_string(sub_.tier[s]) +
                             " is not uniform: " + links(first) + ", " + links(s));
      }
    }
    return true;
  }

  bool route(UpDown& ud, std::string& why);

 private:
  struct Group {  // the parallel cables to one neighbour: group_ports_[first, first + count)
    uint32_t remote, first, count;
  };
  static bool fail(std::string& why, std::string text) {
    why = std::move(text);
    return false;
  }
  // Counted routes out of the group's ports at its own switch, or out of their far ends.
  int32_t load(const Group& g, bool far_end) const {
    int32_t n = 0;
    for (uint32_t i = g.first; i < g.first + g.count; ++i) {
      n += main_load_[far_end ? sub_.peer_port[group_ports_[i]] : group_ports_[i]];
    }
    return n;
  }
  // The group's port whose far end has sent the fewest counted routes (ties: port order).
  uint32_t least_in(const Group& g) const {
    uint32_t best = group_ports_[g.first];
    for (uint32_t i = g.first + 1; i < g.first + g.count; ++i) {
      const uint32_t p = group_ports_[i];
      if (main_load_[sub_.peer_port[p]] < main_load_[sub_.peer_port[best]]) best = p;
    }
    return best;
  }
  int32_t lightest_down_group(uint32_t sw) const {
    int32_t best = 0;
    for (size_t i = 0; i < down_[sw].size(); ++i) {
      const int32_t n = load(down_[sw][i], false);
      if (i == 0 || n < best) best = n;
    }
    return best;
  }
  void build_groups();
  bool descend(uint32_t sw, uint32_t prev);
  void climb(uint32_t sw, uint32_t prev);
  void fill(uint32_t leaf, const NextHops& nh, const std::vector<uint32_t>& by_dist);
  void reset() {
    std::fill(route_.begin(), route_.end(), net::kNoPort);
    std::fill(hops_.begin(), hops_.end(), kInf);
  }

  const Subnet& sub_;
  LidRoutes& r_;
  int tier_min_ = 0, tier_max_ = 0;
  std::vector<std::vector<Group>> up_, down_;  // per switch, by neighbour index
  std::vector<uint32_t> group_ports_;
  std::vector<int32_t> main_load_;  // per port: counted main-path routes out of it (dummies too)
  std::vector<int32_t> lft_load_;   // per port: CA LFT entries out of it
  std::vector<uint32_t> route_;     // per switch, for the destination being routed
  std::vector<uint32_t> hops_;      // per switch: hops to the destination CA (leaf = 1)
};

void Ftree::build_groups() {
  up_.assign(sub_.num_switches, {});
  down_.assign(sub_.num_switches, {});
  std::vector<std::pair<uint32_t, uint32_t>> links;  // (neighbour, port)
  for (uint32_t s : found_switches(sub_)) {
    links.clear();
    for (uint32_t i = sub_.adj_offsets[s]; i < sub_.adj_offsets[s + 1]; ++i) {
      links.emplace_back(sub_.adj_peer[i], sub_.adj_port[i]);
    }
    std::sort(links.begin(), links.end());
    for (size_t i = 0; i < links.size(); ++i) {
      const uint32_t n = links[i].first;
      auto& groups = sub_.tier[n] > sub_.tier[s] ? up_[s] : down_[s];
      if (groups.empty() || groups.back().remote != n) {
        groups.push_back({n, static_cast<uint32_t>(group_ports_.size()), 0});
      }
      group_ports_.push_back(links[i].second);
      ++groups.back().count;
    }
  }
}

bool Ftree::descend(uint32_t sw, uint32_t prev) {
  bool created = !sub_.cas[sw].empty();
  std::vector<const Group*> order;
  for (const Group& g : down_[sw]) order.push_back(&g);
  std::stable_sort(order.begin(), order.end(),
                   [&](const Group* a, const Group* b) { return load(*a, true) < load(*b, true); });
  for (const Group* g : order) {
    const uint32_t lower = g->remote;
    if (lower == prev || hops_[lower] <= hops_[sw] + 1) continue;  // routed, as short or shorter
    const uint32_t up_port = sub_.peer_port[least_in(*g)];
    route_[lower] = up_port;
    hops_[lower] = hops_[sw] + 1;
    if (descend(lower, kInf)) {  // counters move only when a CA lies below ([OSM] "routed")
      created = true;
      ++main_load_[up_port];
    }
  }
  return created;
}

void Ftree::climb(uint32_t sw, uint32_t prev) {
  descend(sw, prev);
  if (up_[sw].empty()) return;
  const Group* best = nullptr;
  int32_t best_load = 0, best_remote_load = 0;
  for (const Group& g : up_[sw]) {  // by neighbour index, so ties keep the lowest
    const int32_t in = load(g, true), remote_load = lightest_down_group(g.remote);
    if (!best || in < best_load || (in == best_load && remote_load < best_remote_load)) {
      best = &g;
      best_load = in;
      best_remote_load = remote_load;
    }
  }
  const uint32_t down_port = sub_.peer_port[least_in(*best)];
  ++main_load_[down_port];
  const uint32_t upper = best->remote;
  if (hops_[sw] + 1 < hops_[upper]) {
    route_[upper] = down_port;
    hops_[upper] = hops_[sw] + 1;
  }
  climb(upper, sw);
}

void Ftree::fill(uint32_t leaf, const NextHops& nh, const std::vector<uint32_t>& by_dist) {
  for (uint32_t s : by_dist) {
    if (s == leaf || hops_[s] != kInf || nh.dist[s] == kInf) continue;
    uint32_t best = net::kNoPort;
    for (uint32_t i = nh.offsets[s]; i < nh.offsets[s + 1]; ++i) {
      const uint32_t p = nh.ports[i];
      if (hops_[sub_.port_peer_switch[p]] != nh.dist[s]) continue;  // next switch not minimal
      if (best == net::kNoPort || lft_load_[p] < lft_load_[best]) best = p;
    }
    if (best == net::kNoPort) continue;
    route_[s] = best;
    hops_[s] = nh.dist[s] + 1;
  }
}

bool Ftree::route(UpDown& ud, std::string& why) {
  std::vector<uint32_t> rank(sub_.num_switches, kInf);
  for (uint32_t s : found_switches(sub_)) rank[s] = static_cast<uint32_t>(tier_max_ - sub_.tier[s]);
  ud = make_updn(sub_, std::move(rank));
  build_groups();
  main_load_.assign(sub_.num_ports, 0);
  lft_load_.assign(sub_.num_ports, 0);
  route_.assign(sub_.num_switches, net::kNoPort);
  hops_.assign(sub_.num_switches, kInf);
  size_t max_cas = 0;
  for (uint32_t s : found_switches(sub_)) max_cas = std::max(max_cas, sub_.cas[s].size());
  NextHops nh;
  std::vector<uint32_t> by_dist;
  for (uint32_t leaf : found_switches(sub_)) {
    if (sub_.tier[leaf] != tier_min_) continue;
    updn_next_hops(sub_, ud, leaf, nh);
    by_dist = found_switches(sub_);
    std::stable_sort(by_dist.begin(), by_dist.end(),
                     [&](uint32_t a, uint32_t b) { return nh.dist[a] < nh.dist[b]; });
    std::vector<std::pair<uint32_t, uint32_t>> cas;  // (port at the leaf, LID)
    for (uint32_t nic : sub_.cas[leaf])
      cas.emplace_back(sub_.nic_switch_port[nic], r_.nic_lid[nic]);
    std::sort(cas.begin(), cas.end());
    for (size_t k = 0; k < max_cas; ++k) {
      reset();
      hops_[leaf] = 1;
      if (k < cas.size()) route_[leaf] = cas[k].first;
      climb(leaf, kInf);
      if (k >= cas.size()) continue;  // a dummy: it only loads the counters
      fill(leaf, nh, by_dist);
      for (uint32_t s : found_switches(sub_)) {
        const uint32_t p = route_[s];
        r_.lft[s][cas[k].second] = p;
        if (p == net::kNoPort || s == leaf) continue;
        ++lft_load_[p];
        const auto first = nh.ports.begin() + nh.offsets[s],
                   last = nh.ports.begin() + nh.offsets[s + 1];
        if (std::find(first, last, p) == last) {
          return fail(why, "the main path of LID " + std::to_string(cas[k].second) + " at switch " +
                               std::to_string(s) + " is not minimal");
        }
      }
    }
  }
  // Switch LIDs after the CAs, uncounted ([OSM] routes switches last; few packets go there).
  for (uint32_t t : found_switches(sub_)) {
    updn_next_hops(sub_, ud, t, nh);
    for (uint32_t s : found_switches(sub_)) {
      if (s != t) r_.lft[s][r_.switch_lid[t]] = pick_least_loaded(nh, s, lft_load_);
    }
  }
  const size_t missing = switches_missing_routes(sub_, r_).size();
  if (missing > 0) return fail(why, std::to_string(missing) + " switches left without routes");
  return true;
}

}  // namespace

bool route_ftree(const Subnet& sub, LidRoutes& r, UpDown& ud, std::string& why) {
  Ftree ftree(sub, r);
  return ftree.validate(why) && ftree.route(ud, why);
}

}  // namespace fabricsim::routing::sm_internal
