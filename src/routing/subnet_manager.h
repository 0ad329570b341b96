// The InfiniBand Subnet Manager's unicast routing: discovery, LID assignment and the linear
// forwarding tables (LFTs) the way OpenSM computes them, plus adaptive-routing port groups.
//
// Sources (keys of /work/shared/reference/infiniband.md §3-4):
//   [OSM] linux-rdma/opensm: osm_ucast_mgr.c and osm_switch.c (min-hop, per-port balancing),
//         osm_ucast_updn.c (up/down), osm_ucast_ftree.c (fat-tree), osm_lid_mgr.c (guid2lid),
//         osm_state_mgr.c (a topology change makes the next heavy sweep ignore existing LFTs).
//   [NV]  NVIDIA adaptive routing: the SM programs AR groups; a "TREE" group holds every
//         min-hop port of a fat-tree.
//
// A sweep:
//  1. Discovery: breadth-first over working cables (both directions up) from switch 0, as the
//     SM's directed-route sweep would; what it does not reach is not in the subnet.
//  2. LIDs: discovered ports without a LID get the next free one, CAs in NIC order before
//     switches, so on a first sweep of a connected fabric NIC i has LID i + 1 and the DLIDs of
//     all data traffic form one dense block at the bottom of every LFT. LIDs are kept on later
//     sweeps, also for ports that have vanished (OpenSM's guid2lid persistence).
//  3. Routing by the engine, recomputed from scratch: OpenSM sets ignore_existing_lfts on any
//     port change, so a re-sweep after a link event does not try to keep old entries.
//       min-hop: shortest paths, balanced per port (osm_ucast_mgr). Not deadlock-free.
//       up/down: roots = the top tier; with no tier information OpenSM's CA-distance
//         histogram, else one root at the graph centre (OpenSM would fall back to min-hop).
//         Routes are up*down*, so deadlock-free on any topology. Where a failure leaves
//         switches without CAs with no up*down* route to some CA (OpenSM leaves those entries
//         empty), they get min-hop "escape" entries that no CA traffic can reach; where a switch
//         with CAs has none, ranks are recomputed from one root at the graph centre.
//       fat-tree: OpenSM's ftree on a uniform tree (tiers from the builders); anything else,
//         e.g. a tree with a cable down, falls back to up/down (fallback_reason says why).
//         OpenSM does fall back here: osm_ucast_ftree.c fabric_validate_topology() refuses a
//         tree whose switches of one rank differ in up/down port groups (ERR AB09-AB0C, which a
//         failed cable causes), and osm_ucast_mgr_process() then tries the next engine of the
//         configured list (routing_engine ftree,updn) or, when the list is exhausted, the
//         default min-hop. We take up/down by default, as "ftree,updn" does: min-hop is not
//         deadlock-free, and up/down keeps the intact parts of the tree optimal; min-hop, what
//         a plain "ftree" gets, is the other choice (routing.sm.fallback).
//     Switch LIDs are routed like CAs but not counted in the balancing; up/down and fat-tree
//     leave a switch LID unrouted where no up*down* route to it exists (as OpenSM does).
//  4. Adaptive-routing groups: per (switch, DLID) every port that keeps the route minimal for
//     the engine and legal for it (up*down* for up/down and fat-tree), the LFT port first; an
//     escape entry's group is its LFT port alone.
//
// Multi-plane InfiniBand (topology.planes > 1): every plane is its own subnet with its own SM
// (SweepScope below; routing/plane_subnets.h runs one per plane).
//
// Not modelled: LMC > 0, multicast, SL/VL assignment, routers, the unicast cache.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "net/network.h"

namespace fabricsim::routing {

enum class SmEngine : uint8_t { kMinHop, kUpDown, kFatTree };

const char* sm_engine_name(SmEngine engine);

struct LidRoutes {
  uint32_t num_lids = 0;             // highest LID + 1 (LID 0 is reserved and never assigned)
  std::vector<uint16_t> nic_lid;     // NIC index -> LID (0: never discovered)
  std::vector<uint16_t> switch_lid;  // switch index -> LID of switch port 0 (0: never discovered)
  // Per switch: lft[sw][lid] = global port id the switch forwards that DLID to; net::kNoPort when
  // unrouted and for the switch's own LID (port 0, the management port, is not modelled).
  std::vector<std::vector<uint32_t>> lft;
  // Adaptive routing, per switch and LID: ar_ports[sw][ar_offsets[sw][lid] ..
  // ar_offsets[sw][lid + 1]) are the allowed output ports, the LFT port first; empty when
  // unrouted. ar_offsets[sw] has num_lids + 1 entries (none when the SubnetManager was asked
  // not to compute AR groups).
  std::vector<std::vector<uint32_t>> ar_offsets, ar_ports;
  std::vector<int32_t> port_routes;  // per global port id: CA LIDs whose LFT entry uses it
  // (switch, CA LID) pairs with no route, over every switch of the scope (undiscovered ones
  // included) and every NIC that has a LID.
  int64_t unreachable_pairs = 0;
  SmEngine engine_used = SmEngine::kMinHop;  // the fallback engine when fat-tree fell back
  // Why fat-tree fell back (ftree's own check that failed, e.g. "tier 1 is not uniform: ...");
  // empty when the engine asked for was the engine used.
  std::string fallback_reason;
  // Up/down order (up/down, and fat-tree where rank = top tier - tier): per switch, rank 0 at
  // the roots. A move from switch a to switch b is UP when (rank[b], b) < (rank[a], a). Empty
  // for min-hop.
  std::vector<uint32_t> rank;
  // How up/down chose its roots, escape entries, re-ranking, a fat-tree fallback and why;
  // empty for min-hop and for fat-tree on a fat-tree.
  std::string note;

  std::span<const uint32_t> ar_group(uint32_t sw, uint32_t lid) const {
    const auto& off = ar_offsets[sw];
    return {ar_ports[sw].data() + off[lid], off[lid + 1] - off[lid]};
  }
};

// The switches one Subnet Manager sweeps: [first_switch, first_switch + num_switches), discovery
// starting at first_switch. A single fabric: every switch, from switch 0. One plane of a
// multi-plane fabric (topo/multi_plane.h): that plane's switches. Switches [0, hca_switches) are
// then the NICs' plane selectors (switch i inside NIC i): an HCA, not a switch of any subnet, so
// a leaf port cabled to selector i is HCA i's port on this plane, a CA like any other, and no
// engine can route through it (an HCA never forwards between its ports).
struct SweepScope {
  uint32_t first_switch = 0;
  uint32_t num_switches = 0xFFFFFFFFu;  // clipped to the Network's switches
  uint32_t hca_switches = 0;
};

// The scope's switches in a Network of `num_switches`: [first, end).
struct SwitchRange {
  uint32_t first = 0;
  uint32_t end = 0;
};
inline SwitchRange scope_range(const SweepScope& scope, uint32_t num_switches) {
  const uint32_t first = scope.first_switch < num_switches ? scope.first_switch : num_switches;
  const uint32_t left = num_switches - first;
  return {first, first + (scope.num_switches < left ? scope.num_switches : left)};
}

class SubnetManager {
 public:
  // `adaptive_groups`: also compute the AR groups (skip them for static routing: on a large
  // fabric they are most of a sweep's memory).
  // `fallback`: the engine that routes when fat-tree refuses the subnet, kUpDown (OpenSM with
  // `routing_engine ftree,updn`) or kMinHop (OpenSM's default engine after a plain `ftree`).
  // `scope`: the subnet's switches (default: all).
  explicit SubnetManager(SmEngine engine, bool adaptive_groups = true,
                         SmEngine fallback = SmEngine::kUpDown, SweepScope scope = {})
      : engine_(engine), fallback_(fallback), adaptive_groups_(adaptive_groups), scope_(scope) {}

  // Discovers the subnet from the Network's working links, assigns LIDs on the first sweep and
  // keeps them on later ones, computes LFTs and AR groups with the engine. Deterministic.
  // Throws std::runtime_error when the unicast LID space (0x0001-0xBFFF) is exhausted.
  // lft, ar_offsets and ar_ports have rows for the scope's switches only (others empty).
  LidRoutes sweep(const net::Network& net);

  const SweepScope& scope() const { return scope_; }

 private:
  SmEngine engine_;
  SmEngine fallback_;
  bool adaptive_groups_;
  SweepScope scope_;
  std::vector<uint16_t> nic_lid_;  // guid2lid: persists across sweeps
  std::vector<uint16_t> switch_lid_;
  uint32_t next_lid_ = 1;
};

// ---- Shared by subnet_manager.cpp and sm_engines.cpp; not an interface for other layers. ----
namespace sm_internal {

inline constexpr uint32_t kInf = 0xFFFFFFFFu;

// The subnet as the SM sees it after discovery: working cables between discovered nodes only.
struct Subnet {
  uint32_t num_switches = 0;
  uint32_t num_ports = 0;
  std::vector<uint8_t> found;              // per switch: reached by discovery
  std::vector<int> tier;                   // per switch (set by the topology builders)
  std::vector<uint32_t> adj_offsets;       // per switch, CSR over its working switch cables
  std::vector<uint32_t> adj_port;          //   the switch's own global port id, in port order
  std::vector<uint32_t> adj_peer;          //   the switch at the far end
  std::vector<uint32_t> port_peer_switch;  // per global port: far-end switch, else kInf
  std::vector<uint32_t> peer_port;         // per global port: the port at the cable's far end
  std::vector<std::vector<uint32_t>> cas;  // per switch: discovered NICs cabled to it
  std::vector<uint32_t> nic_switch;        // NIC -> its switch (kInf: not discovered)
  std::vector<uint32_t> nic_switch_port;   // NIC -> the switch's port cabled to it
};

// Breadth-first hop counts over working switch cables from `sources` (kInf: unreached).
inline std::vector<uint32_t> bfs(const Subnet& sub, const std::vector<uint32_t>& sources) {
  std::vector<uint32_t> dist(sub.num_switches, kInf);
  std::vector<uint32_t> queue = sources;
  for (uint32_t s : sources) dist[s] = 0;
  for (size_t head = 0; head < queue.size(); ++head) {
    const uint32_t s = queue[head];
    for (uint32_t i = sub.adj_offsets[s]; i < sub.adj_offsets[s + 1]; ++i) {
      const uint32_t n = sub.adj_peer[i];
      if (dist[n] == kInf) {
        dist[n] = dist[s] + 1;
        queue.push_back(n);
      }
    }
  }
  return dist;
}

inline std::vector<uint32_t> found_switches(const Subnet& sub) {
  std::vector<uint32_t> out;
  for (uint32_t s = 0; s < sub.num_switches; ++s) {
    if (sub.found[s]) out.push_back(s);
  }
  return out;
}

// Next hops of every switch towards one destination switch.
struct NextHops {
  std::vector<uint32_t> dist;     // per switch: route length in switch hops; kInf = none
  std::vector<uint32_t> offsets;  // per switch: CSR into ports
  std::vector<uint32_t> ports;    // allowed output ports (global ids), in port order
};
using NextHopFn = std::function<void(uint32_t dst_switch, NextHops& out)>;

// The up/down orientation: rank per switch and the discovered switches sorted by (rank, index).
struct UpDown {
  std::vector<uint32_t> rank;
  std::vector<uint32_t> by_key;
};

UpDown make_updn(const Subnet& sub, std::vector<uint32_t> rank);
// Every shortest-path next hop (breadth-first distances over the switch graph).
void min_hop_next_hops(const Subnet& sub, uint32_t dst, NextHops& out);
// Legal up*down* next hops (see the definition for why a switch that can reach the destination
// going only down always does).
void updn_next_hops(const Subnet& sub, const UpDown& ud, uint32_t dst, NextHops& out);

// The candidate port of `sw` with the fewest routes in `load` (ties: port order); kNoPort if none.
uint32_t pick_least_loaded(const NextHops& nh, uint32_t sw, const std::vector<int32_t>& load);
// osm_ucast_mgr: per destination LID, every switch takes the candidate port with the fewest CA
// routes so far (ties: port order); destinations grouped by leaf, most CAs first. Switch LIDs
// are routed the same way but not counted. Writes r.lft for discovered switches.
void route_balanced(const Subnet& sub, const NextHopFn& next_hops, LidRoutes& r);
// Discovered switches lacking a route to some discovered CA.
std::vector<uint32_t> switches_missing_routes(const Subnet& sub, const LidRoutes& r);
void clear_lfts(LidRoutes& r);

// Up/down: roots, ranks, routing, and the repair of (switch, CA) pairs left without a legal
// route. Fills r.lft, r.rank and r.note; returns the orientation used.
UpDown route_updn(const Subnet& sub, LidRoutes& r);
// Fat-tree: false (with the reason in `why`) when the subnet is not a uniform fat-tree or the
// tables came out incomplete; the caller then falls back to up/down.
bool route_ftree(const Subnet& sub, LidRoutes& r, UpDown& ud, std::string& why);

}  // namespace sm_internal
}  // namespace fabricsim::routing
