// Subnet Manager sweep: discovery, LID assignment, the balanced LFT fill shared by min-hop and
// up/down (OpenSM's osm_ucast_mgr), adaptive-routing groups and the per-port statistics. The
// engines' path computations live in sm_engines.cpp.
#include "routing/subnet_manager.h"

#include <algorithm>
#include <stdexcept>

namespace fabricsim::routing {

using sm_internal::kInf;
using sm_internal::NextHopFn;
using sm_internal::NextHops;
using sm_internal::Subnet;

const char* sm_engine_name(SmEngine engine) {
  switch (engine) {
    case SmEngine::kMinHop:
      return "minhop";
    case SmEngine::kUpDown:
      return "updn";
    case SmEngine::kFatTree:
      return "ftree";
  }
  return "?";
}

namespace {

// IBA unicast LIDs are 0x0001-0xBFFF; 0xC000 and above are multicast.
constexpr uint32_t kMaxUnicastLid = 0xBFFF;

bool cable_works(const net::Network& net, uint32_t port) {
  const net::Port& p = net.port(port);
  return p.up && net.port(p.peer).up;
}

// Breadth-first from the scope's first switch over working cables: the directed-route sweep of
// the SM. Then the adjacency of what it found, in switch and port order, so that every later
// loop is deterministic.
Subnet discover(const net::Network& net, const SweepScope& scope) {
  Subnet sub;
  const uint32_t num_switches = net.num_switches();
  const auto [first, end] = scope_range(scope, num_switches);
  auto in_scope = [&](uint32_t s) { return s >= first && s < end; };
  sub.num_switches = num_switches;
  sub.num_ports = net.num_ports();
  sub.found.assign(num_switches, 0);
  sub.tier.resize(num_switches);
  sub.cas.assign(num_switches, {});
  sub.nic_switch.assign(net.num_nics(), kInf);
  sub.nic_switch_port.assign(net.num_nics(), net::kNoPort);
  sub.port_peer_switch.assign(sub.num_ports, kInf);
  sub.peer_port.resize(sub.num_ports);
  for (uint32_t p = 0; p < sub.num_ports; ++p) sub.peer_port[p] = net.port(p).peer;
  for (uint32_t s = 0; s < num_switches; ++s) sub.tier[s] = net.switch_at(s).tier;
  std::vector<uint32_t> queue;
  if (first < end) {
    sub.found[first] = 1;
    queue.push_back(first);
  }
  for (size_t head = 0; head < queue.size(); ++head) {
    const uint32_t node = net.switch_node(queue[head]);
    const uint32_t first_port = net.node_first_port(node);
    for (uint32_t p = first_port; p < first_port + net.node_port_count(node); ++p) {
      if (!cable_works(net, p)) continue;
      const net::Node& far = net.node(net.port_node(net.port(p).peer));
      if (far.kind == net::NodeKind::kSwitch && in_scope(far.index) && !sub.found[far.index]) {
        sub.found[far.index] = 1;
        queue.push_back(far.index);
      }
    }
  }
  sub.adj_offsets.assign(num_switches + 1, 0);
  for (uint32_t s = 0; s < num_switches; ++s) {
    sub.adj_offsets[s] = static_cast<uint32_t>(sub.adj_port.size());
    if (!sub.found[s]) continue;
    const uint32_t node = net.switch_node(s);
    const uint32_t first_port = net.node_first_port(node);
    for (uint32_t p = first_port; p < first_port + net.node_port_count(node); ++p) {
      if (!cable_works(net, p)) continue;
      const net::Node& far = net.node(net.port_node(net.port(p).peer));
      // A NIC, or a multi-plane HCA's selector (switch i inside NIC i): a CA port.
      const bool hca = far.kind == net::NodeKind::kSwitch && far.index < scope.hca_switches &&
                       !in_scope(far.index);
      if (far.kind == net::NodeKind::kNic || hca) {
        sub.cas[s].push_back(far.index);
        sub.nic_switch[far.index] = s;
        sub.nic_switch_port[far.index] = p;
      } else if (far.index != s && in_scope(far.index)) {
        // (a cable looped back to its own switch carries nothing; no cable leaves the scope
        // but to an HCA)
        sub.adj_port.push_back(p);
        sub.adj_peer.push_back(far.index);
        sub.port_peer_switch[p] = far.index;
      }
    }
  }
  sub.adj_offsets[num_switches] = static_cast<uint32_t>(sub.adj_port.size());
  return sub;
}

// The LIDs that live on switch `t`: its CAs (by LID) then its own LID.
std::vector<uint32_t> lids_on(const Subnet& sub, const LidRoutes& r, uint32_t t) {
  std::vector<uint32_t> lids;
  for (uint32_t nic : sub.cas[t]) lids.push_back(r.nic_lid[nic]);
  std::sort(lids.begin(), lids.end());
  if (r.switch_lid[t] != 0) lids.push_back(r.switch_lid[t]);
  return lids;
}

// AR groups [NV]: the LFT port, then every other next hop the engine allows. Two passes over
// the destinations (sizes, then ports) so the CSR needs no per-entry vectors.
void build_ar(const Subnet& sub, const NextHopFn& next_hops, LidRoutes& r) {
  const uint32_t num_switches = sub.num_switches;
  for (uint32_t s = 0; s < num_switches; ++s) {
    if (r.lft[s].empty()) continue;  // outside the scope (another plane's subnet, a selector)
    r.ar_offsets[s].assign(r.num_lids + 1, 0);
    r.ar_ports[s].clear();
  }
  NextHops nh;
  for (int pass = 0; pass < 2; ++pass) {
    for (uint32_t t = 0; t < num_switches; ++t) {
      if (!sub.found[t]) continue;
      next_hops(t, nh);
      for (uint32_t lid : lids_on(sub, r, t)) {
        for (uint32_t s = 0; s < num_switches; ++s) {
          if (r.lft[s].empty()) continue;
          const uint32_t lft_port = r.lft[s][lid];
          if (lft_port == net::kNoPort) continue;
          if (pass == 0) {
            uint32_t n = 1;
            if (s != t) {
              for (uint32_t i = nh.offsets[s]; i < nh.offsets[s + 1]; ++i) {
                n += nh.ports[i] != lft_port;
              }
            }
            r.ar_offsets[s][lid + 1] = n;
            continue;
          }
          uint32_t at = r.ar_offsets[s][lid];
          r.ar_ports[s][at++] = lft_port;
          if (s == t) continue;
          for (uint32_t i = nh.offsets[s]; i < nh.offsets[s + 1]; ++i) {
            if (nh.ports[i] != lft_port) r.ar_ports[s][at++] = nh.ports[i];
          }
        }
      }
    }
    if (pass == 0) {
      for (uint32_t s = 0; s < num_switches; ++s) {
        if (r.lft[s].empty()) continue;
        auto& off = r.ar_offsets[s];
        for (uint32_t lid = 0; lid < r.num_lids; ++lid) off[lid + 1] += off[lid];
        r.ar_ports[s].assign(off[r.num_lids], net::kNoPort);
      }
    }
  }
}

void fill_statistics(const net::Network& net, LidRoutes& r) {
  r.port_routes.assign(net.num_ports(), 0);
  r.unreachable_pairs = 0;
  for (uint32_t s = 0; s < net.num_switches(); ++s) {
    if (r.lft[s].empty()) continue;  // not a switch of this subnet
    for (uint16_t lid : r.nic_lid) {
      if (lid == 0) continue;
      const uint32_t p = r.lft[s][lid];
      if (p == net::kNoPort) {
        ++r.unreachable_pairs;
      } else {
        ++r.port_routes[p];
      }
    }
  }
}

}  // namespace

namespace sm_internal {

uint32_t pick_least_loaded(const NextHops& nh, uint32_t sw, const std::vector<int32_t>& load) {
  uint32_t best = net::kNoPort;
  for (uint32_t i = nh.offsets[sw]; i < nh.offsets[sw + 1]; ++i) {
    const uint32_t p = nh.ports[i];
    if (best == net::kNoPort || load[p] < load[best]) best = p;
  }
  return best;
}

UpDown make_updn(const Subnet& sub, std::vector<uint32_t> rank) {
  UpDown ud;
  ud.rank = std::move(rank);
  ud.by_key = found_switches(sub);
  std::stable_sort(ud.by_key.begin(), ud.by_key.end(),
                   [&](uint32_t a, uint32_t b) { return ud.rank[a] < ud.rank[b]; });
  return ud;
}

void min_hop_next_hops(const Subnet& sub, uint32_t dst, NextHops& out) {
  // [OSM] osm_ucast_mgr: the hop matrix (relaxation to a fixed point = breadth-first distances
  // with unit hop weights); a port is a candidate when its neighbour is one hop closer.
  out.dist = bfs(sub, {dst});
  out.offsets.assign(sub.num_switches + 1, 0);
  out.ports.clear();
  for (uint32_t s = 0; s < sub.num_switches; ++s) {
    out.offsets[s] = static_cast<uint32_t>(out.ports.size());
    if (s == dst || out.dist[s] == kInf) continue;
    for (uint32_t i = sub.adj_offsets[s]; i < sub.adj_offsets[s + 1]; ++i) {
      if (out.dist[sub.adj_peer[i]] + 1 == out.dist[s]) out.ports.push_back(sub.adj_port[i]);
    }
  }
  out.offsets[sub.num_switches] = static_cast<uint32_t>(out.ports.size());
}

// [OSM] osm_ucast_updn.c: a move to a lower rank is UP; at equal rank __updn_get_dir calls the
// move from the larger GUID to the smaller UP (the switch index stands in for the GUID). So a
// move a -> b is UP iff (rank b, b) < (rank a, a): a strict total order, hence no cycle of UP
// moves and none of DOWN moves, and a route that never turns DOWN -> UP cannot close a cycle
// of channel dependencies (Autonet's argument). OpenSM's HACK of calling root-to-root links UP
// both ways is not copied: it breaks that order.
//
// OpenSM's per-destination BFS gives each switch its shortest legal distance, and on irregular
// graphs its LFTs may then send a packet that arrived going down back up: the LFT cannot see the
// input port, and a switch can have min-hop ports of both directions. Here a switch that can reach
// the destination going only down always does (its shortest all-down path, D below); only a switch
// that cannot goes up, to the neighbour with the shortest resulting route (L). Nobody then
// enters an up-going switch on a down move, so every route and every combination of the AR
// alternatives is up*down*. In a fat-tree D is the shortest path whenever it exists (each hop
// changes tier by one), so nothing is lost there.
void updn_next_hops(const Subnet& sub, const UpDown& ud, uint32_t dst, NextHops& out) {
  const uint32_t num_switches = sub.num_switches;
  const std::vector<uint32_t>& rank = ud.rank;
  auto is_up = [&](uint32_t a, uint32_t b) {
    return rank[b] < rank[a] || (rank[b] == rank[a] && b < a);
  };
  std::vector<uint32_t> down(num_switches, kInf);
  std::vector<uint32_t> queue{dst};
  down[dst] = 0;
  for (size_t head = 0; head < queue.size(); ++head) {
    const uint32_t n = queue[head];
    for (uint32_t i = sub.adj_offsets[n]; i < sub.adj_offsets[n + 1]; ++i) {
      const uint32_t s = sub.adj_peer[i];
      if (down[s] == kInf && !is_up(s, n)) {
        down[s] = down[n] + 1;
        queue.push_back(s);
      }
    }
  }
  std::vector<uint32_t>& len = out.dist;
  len.assign(num_switches, kInf);
  for (uint32_t s : ud.by_key) {  // UP neighbours come earlier in key order
    if (down[s] != kInf) {
      len[s] = down[s];
      continue;
    }
    for (uint32_t i = sub.adj_offsets[s]; i < sub.adj_offsets[s + 1]; ++i) {
      const uint32_t n = sub.adj_peer[i];
      if (is_up(s, n) && len[n] != kInf) len[s] = std::min(len[s], len[n] + 1);
    }
  }
  out.offsets.assign(num_switches + 1, 0);
  out.ports.clear();
  for (uint32_t s = 0; s < num_switches; ++s) {
    out.offsets[s] = static_cast<uint32_t>(out.ports.size());
    if (s == dst || len[s] == kInf) continue;
    const bool going_down = down[s] != kInf;
    for (uint32_t i = sub.adj_offsets[s]; i < sub.adj_offsets[s + 1]; ++i) {
      const uint32_t n = sub.adj_peer[i];
      const bool ok =
          going_down ? !is_up(s, n) && down[n] + 1 == down[s] : is_up(s, n) && len[n] + 1 == len[s];
      if (ok) out.ports.push_back(sub.adj_port[i]);
    }
  }
  out.offsets[num_switches] = static_cast<uint32_t>(out.ports.size());
}

void clear_lfts(LidRoutes& r) {
  for (auto& row : r.lft) std::fill(row.begin(), row.end(), net::kNoPort);
}

void route_balanced(const Subnet& sub, const NextHopFn& next_hops, LidRoutes& r) {
  const uint32_t num_switches = sub.num_switches;
  // [OSM] osm_ucast_mgr: destinations grouped by leaf, leaves with the most end ports first, so
  // that the big groups spread over empty counters; switches without CAs (only their own LID)
  // last.
  std::vector<uint32_t> order;
  for (uint32_t t = 0; t < num_switches; ++t) {
    if (sub.found[t]) order.push_back(t);
  }
  std::stable_sort(order.begin(), order.end(),
                   [&](uint32_t a, uint32_t b) { return sub.cas[a].size() > sub.cas[b].size(); });
  // Per output port: CA LIDs routed through it so far ([OSM] osm_switch_recommend_path's
  // per-port path counter; switch LIDs are not counted by default).
  std::vector<int32_t> load(sub.num_ports, 0);
  NextHops nh;
  for (uint32_t t : order) {
    next_hops(t, nh);
    std::vector<std::pair<uint32_t, uint32_t>> cas;  // (LID, port at t)
    for (uint32_t nic : sub.cas[t]) cas.emplace_back(r.nic_lid[nic], sub.nic_switch_port[nic]);
    std::sort(cas.begin(), cas.end());
    for (const auto& [lid, ca_port] : cas) {
      for (uint32_t s = 0; s < num_switches; ++s) {
        if (!sub.found[s]) continue;
        const uint32_t p = s == t ? ca_port : pick_least_loaded(nh, s, load);
        r.lft[s][lid] = p;
        if (p != net::kNoPort) ++load[p];
      }
    }
    const uint32_t own = r.switch_lid[t];
    if (own == 0) continue;
    for (uint32_t s = 0; s < num_switches; ++s) {
      if (sub.found[s] && s != t) r.lft[s][own] = pick_least_loaded(nh, s, load);
    }
  }
}

std::vector<uint32_t> switches_missing_routes(const Subnet& sub, const LidRoutes& r) {
  std::vector<uint32_t> missing;
  for (uint32_t s = 0; s < sub.num_switches; ++s) {
    if (!sub.found[s]) continue;
    for (uint32_t nic = 0; nic < sub.nic_switch.size(); ++nic) {
      if (sub.nic_switch[nic] != kInf && r.lft[s][r.nic_lid[nic]] == net::kNoPort) {
        missing.push_back(s);
        break;
      }
    }
  }
  return missing;
}

}  // namespace sm_internal

LidRoutes SubnetManager::sweep(const net::Network& net) {
  const Subnet sub = discover(net, scope_);
  // LIDs ([OSM] osm_lid_mgr with guid2lid): new ports only, CAs before switches.
  nic_lid_.resize(net.num_nics(), 0);
  switch_lid_.resize(net.num_switches(), 0);
  auto assign = [&](uint16_t& lid) {
    if (lid != 0) return;
    if (next_lid_ > kMaxUnicastLid) {
      throw std::runtime_error("subnet manager: unicast LID space (0xBFFF LIDs) exhausted");
    }
    lid = static_cast<uint16_t>(next_lid_++);
  };
  for (uint32_t nic = 0; nic < net.num_nics(); ++nic) {
    if (sub.nic_switch[nic] != kInf) assign(nic_lid_[nic]);
  }
  for (uint32_t s = 0; s < net.num_switches(); ++s) {
    if (sub.found[s]) assign(switch_lid_[s]);
  }

  LidRoutes r;
  r.num_lids = next_lid_;  // LIDs are handed out densely and never reclaimed
  r.nic_lid = nic_lid_;
  r.switch_lid = switch_lid_;
  // Rows for the scope's switches only: a plane's SM holds no table for another plane.
  const auto [first, end] = scope_range(scope_, net.num_switches());
  r.lft.assign(net.num_switches(), {});
  for (uint32_t s = first; s < end; ++s) r.lft[s].assign(r.num_lids, net::kNoPort);
  r.ar_offsets.assign(net.num_switches(), {});
  r.ar_ports.assign(net.num_switches(), {});
  r.engine_used = engine_;

  NextHopFn next_hops;
  sm_internal::UpDown ud;
  switch (engine_) {
    case SmEngine::kMinHop:
      next_hops = [&](uint32_t t, NextHops& nh) { sm_internal::min_hop_next_hops(sub, t, nh); };
      sm_internal::route_balanced(sub, next_hops, r);
      break;
    case SmEngine::kFatTree: {
      std::string why;
      if (sm_internal::route_ftree(sub, r, ud, why)) {
        r.rank = ud.rank;
        break;
      }
      // OpenSM's ftree refuses such a fabric and osm_ucast_mgr moves to the next engine of its
      // list, min-hop by default (not deadlock-free); up/down unless asked otherwise, as
      // "ftree,updn" (subnet_manager.h). The reason goes to the results, not only to the note.
      r.fallback_reason = why;
      r.engine_used = fallback_;
      sm_internal::clear_lfts(r);
      if (fallback_ == SmEngine::kMinHop) {
        r.note = "ftree: " + why + "; fell back to minhop";
        next_hops = [&](uint32_t t, NextHops& nh) { sm_internal::min_hop_next_hops(sub, t, nh); };
        sm_internal::route_balanced(sub, next_hops, r);
      } else {
        r.note = "ftree: " + why + "; fell back to updn";
        ud = sm_internal::route_updn(sub, r);
      }
      break;
    }
    case SmEngine::kUpDown:
      ud = sm_internal::route_updn(sub, r);
      break;
  }
  if (r.engine_used != SmEngine::kMinHop) {
    next_hops = [&](uint32_t t, NextHops& nh) { sm_internal::updn_next_hops(sub, ud, t, nh); };
  }
  if (adaptive_groups_) build_ar(sub, next_hops, r);
  fill_statistics(net, r);
  return r;
}

}  // namespace fabricsim::routing
