// What topology to build: the shape the scenario asks for, before validation.
#pragma once

#include <cstdint>
#include <string>

namespace fabricsim::topo {

// kFatTree: leaf-spine (tiers 2) or k-ary fat-tree (tiers 3), NICs cabled to leaves in order
// (topo/fat_tree.cpp). kRail: 2-tier rail-optimized, NIC k of every host on rail k's leaves,
// spines joining the rails (topo/rail.cpp). kFile: the graph in topology.file, native form or
// HPCC/ns-3 topology.txt (topo/file_topology.h). kDragonfly: groups of all-to-all switches joined
// by global links (Kim et al., ISCA 2008; topo/dragonfly.cpp).
enum class TopologyKind : uint8_t { kFatTree, kRail, kFile, kDragonfly };

// The tiers above the leaves of a partial fat_tree/leaf_spine (topo/fat_tree.cpp):
// kFewest = the fewest spines/cores that take every uplink, parallel cables where a pair needs
// more than one (how NVIDIA's SuperPOD RAs build a partial fabric); kFull = the switches a full
// tree has (one spine per leaf uplink, k/2 cores per agg group), one cable per pair, their
// spare ports left for the leaves/pods a full tree adds.
enum class UpperTiers : uint8_t { kFewest, kFull };

// How a Dragonfly's global links pair up the groups (topo/dragonfly.cpp).
enum class DragonflyArrangement : uint8_t { kAbsolute, kPalmtree };

struct TopologySpec {
  TopologyKind kind = TopologyKind::kFatTree;
  int tiers = 2;                  // 2 = leaf-spine, 3 = k-ary fat-tree (Al-Fares et al. 2008)
  int radix = 16;                 // ports per switch
  double oversubscription = 1.0;  // leaf downlinks : uplinks (1 = non-blocking)
  UpperTiers upper_tiers = UpperTiers::kFewest;  // fat_tree/leaf_spine/rail, partial trees
  int hosts = 128;          // rail: nodes
  int nics_per_host = 1;    // rail: rails (NIC k of every node is on rail k)
  std::string file;         // kFile: the topology file (resolved against the scenario's folder)
  // Multi-plane fabrics (topo/multi_plane.h): `planes` identical copies of the fat_tree/rail
  // fabric, each NIC with one port per plane; 1 = a single fabric, built exactly as before.
  int planes = 1;
  int64_t plane_rate_bps = 0;  // a plane port's and plane link's rate; 0 = fabric.link.rate / planes
  uint8_t plane_split = 0;     // net::PlaneSplit: how a NIC spreads its traffic over the planes
  // kDragonfly (topology.dragonfly.*, topo/dragonfly.cpp): p NICs per switch, a switches per
  // group, h global links per switch, g groups. a = h = 0: balanced, a = 2p, h = p (Kim et al.
  // ISCA 2008 §3.1); groups 0: the largest, a·h + 1.
  int dfly_p = 2;
  int dfly_a = 0;
  int dfly_h = 0;
  int dfly_groups = 0;
  DragonflyArrangement dfly_arrangement = DragonflyArrangement::kAbsolute;
  double dfly_global_cable_m = 30.0;  // optical inter-group cables: tens of metres (dragonfly.cpp)
};

}  // namespace fabricsim::topo
