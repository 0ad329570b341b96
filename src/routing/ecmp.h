// Shortest-path ECMP forwarding tables, computed once before the run.
//
// For every leaf (a switch with NICs cabled to it), a breadth-first search over the switch graph
// gives each switch's distance to it; a switch's ECMP group towards that leaf is every working
// port whose neighbour is one hop closer. NICs (and a multi-plane NIC's plane selector) are never
// transit nodes. Groups are deduplicated per switch, so the table per switch is one 16-bit group
// id per leaf.
#pragma once

#include <cstdint>
#include <vector>

#include "net/network.h"
#include "routing/config.h"

namespace fabricsim::routing {

class EcmpRoutes {
 public:
  // Fills every switch's forwarding table and hash seed. Throws InputError("topology", ...) if
  // some NIC cannot reach another.
  void install(net::Network& net, const EcmpConfig& cfg, uint64_t scenario_seed);

  // Switches a packet from `src_nic` to `dst_nic` traverses on a shortest path.
  int switch_hops(uint32_t src_nic, uint32_t dst_nic) const;
  // The most switches any NIC pair's shortest path traverses.
  int diameter_switch_hops() const;
  // The link an ideal (idle-path) completion time is computed on for src -> dst. When every
  // cable matches `fabric_link` (every built-in topology) it is `fabric_link` itself. Otherwise
  // (a topology file with mixed rates or cable lengths) it is the best shortest path's: the
  // largest bottleneck rate among the shortest paths, ties to the least propagation, and a
  // cable length that is the path's mean, so that (hops + 1) x propagation is its total
  // propagation (to within half a picosecond per link).
  net::LinkConfig path_link(uint32_t src_nic, uint32_t dst_nic,
                            const net::LinkConfig& fabric_link) const;

 private:
  std::vector<uint32_t> nic_slot_;            // NIC -> leaf slot of its switch
  std::vector<uint32_t> nic_switch_;          // NIC -> switch it is cabled to
  std::vector<std::vector<uint16_t>> dist_;  // [leaf slot][switch]: hops from switch to leaf
  // Path links, filled only when the cables differ (path_link): per NIC its cable's rate and
  // propagation; per [leaf slot][switch] the best shortest path's bottleneck rate and
  // propagation from the switch to the leaf.
  struct PathBest {
    int64_t rate_bps;
    int64_t prop_ps;
  };
  PathBest uniform_cable_{0, 0};
  std::vector<PathBest> nic_cable_;
  std::vector<std::vector<PathBest>> best_;
  void fill_path_links(const net::Network& net, const std::vector<std::vector<uint32_t>>& order);
};

// The automatic flowlet gap (routing.flowlet_gap: 0): the fabric's idle base RTT across its
// widest NIC pair (diameter_switch_hops switches: per link the largest port delay plus one
// `frame_bytes` frame's serialization at the slowest port, both ways) plus the time the slowest
// link takes to drain 62.5 KB. The gap must exceed the paths' delay spread (Flare, CCR 2007);
// in a symmetric fabric the spread is the difference in queueing, which the 62.5 KB term bounds
// as the LetFlow/CONGA ns-3 reference does with its 50 us at 10 Gb/s (routing/config.h).
int64_t auto_flowlet_gap_ps(const net::Network& net, int diameter_switch_hops,
                            uint32_t frame_bytes);

// The per-switch ECMP seed: the shared seed in `kSame` mode (every switch hashes alike, which
// polarizes), else a mix of the scenario seed, the configured seed and the switch index.
uint32_t ecmp_seed(const EcmpConfig& cfg, uint64_t scenario_seed, uint32_t switch_index);

}  // namespace fabricsim::routing
